/* dump.c: the readable dumps of mpcc-opt -d, checked by the lit tests.
 * Blocks are named bN with their label; statements by their source line
 * ("L12"), or by their index ("#3") when they were created. */
#include "ptx/ptx.h"

static void
blkname(FILE *f, const Fn *fn, uint b)
{
	const Blk *k = &fn->blk[b];

	fprintf(f, "b%u", b);
	if (k->first < k->end && fn->ins[k->first].op == Olabel) {
		fputc('(', f);
		printref(f, fn, fn->ins[k->first].arg[0]);
		fputc(')', f);
	}
}

static void
fnname(FILE *f, const Fn *fn, const char *what)
{
	const Str *s = &fn->mod->sym[fn->sym].name;
	fprintf(f, "%s %.*s\n", what, (int)s->n, s->s);
}

static void
blklist(FILE *f, const Fn *fn, const uint *v, uint n)
{
	if (!n)
		fputs(" -", f);
	for (uint k = 0; k < n; k++) {
		fputc(' ', f);
		blkname(f, fn, v[k]);
	}
}

void
dumpcfg(FILE *f, Fn *fn)
{
	fnname(f, fn, "cfg");
	for (uint b = 0; b < fn->nblk; b++) {
		const Blk *k = &fn->blk[b];
		fputs("  ", f);
		blkname(f, fn, b);
		fprintf(f, " depth %u succ", k->depth);
		blklist(f, fn, k->succ, k->nsucc);
		fputs(" pred", f);
		blklist(f, fn, k->pred, k->npred);
		fputc('\n', f);
	}
	fputs("  rpo", f);
	blklist(f, fn, fn->rpo, fn->nrpo);
	fputc('\n', f);
	for (uint l = 0; l < fn->nloop; l++) {
		const Loop *p = &fn->loop[l];
		fprintf(f, "  loop %u depth %u head ", l, p->depth);
		blkname(f, fn, p->head);
		if (p->parent)
			fprintf(f, " in loop %u", p->parent - 1);
		fputs(" blocks", f);
		blklist(f, fn, p->blk, p->nblk);
		fputc('\n', f);
	}
}

static void
where(FILE *f, const Fn *fn, uint i)
{
	if (fn->ins[i].line)
		fprintf(f, " L%u", fn->ins[i].line);
	else
		fprintf(f, " #%u", i);
}

void
dumpdefuse(FILE *f, Fn *fn)
{
	char buf[256];

	fnname(f, fn, "defuse");
	for (uint r = 0; r < fn->nreg; r++) {
		const Use *u = &fn->use[r];
		if (!u->ndef && !u->nuse)
			continue;
		fprintf(f, "  %s def", regname(fn, r, buf, sizeof buf));
		for (uint k = 0; k < u->ndef; k++)
			where(f, fn, u->def[k]);
		if (!u->ndef)
			fputs(" -", f);
		fputs(" use", f);
		for (uint k = 0; k < u->nuse; k++)
			where(f, fn, u->use[k]);
		if (!u->nuse)
			fputs(" -", f);
		if (u->ndef > 1)
			fputs(" multidef", f);
		fputc('\n', f);
	}
}

static const char *
kind(const Ins *i)
{
	switch (i->op) {
	case Olabel: return "label";
	case Oreg: return "reg";
	case Ovar: return "var";
	case Oopen: return "open";
	case Oclose: return "close";
	case Oloc: return "loc";
	case Oraw: return "raw";
	}
	return "ins";
}

void
dumpir(FILE *f, Fn *fn)
{
	fnname(f, fn, "ir");
	for (uint k = 0; k < fn->nins; k++) {
		const Ins *i = &fn->ins[k];
		uint file, line = insline(fn, k, &file);
		fprintf(f, "  %u", k);
		where(f, fn, k);
		fprintf(f, " %s", kind(i));
		if (i->op < NOP) {
			fprintf(f, " op=%s", opinfo[i->op].name);
			if (i->ty)
				fprintf(f, " ty=%s", tyname[i->ty]);
		}
		if (line)
			fprintf(f, " src=%u:%u", file, line);
		fputs(" | ", f);
		printins(f, fn, i);
		fputc('\n', f);
	}
}
