/* print.c: Module -> PTX text. A statement still holding its source text is
 * written as it was read; one that was created or edited, or that names
 * something renamed since, is written from its fields (see ptx.h). The
 * canonical form follows cicc's layout: "\tname \targ, arg;". */
#include "ptx/ptx.h"
#include <stdlib.h>
#include <string.h>

/* Output goes through one pending span: pieces of the source that follow
 * each other (lead, statement, lead, ...) are joined and written at once,
 * so printing an unchanged module is a handful of fwrite calls. */
static const char *pend_s;
static size_t pend_n;

static void
flush(FILE *f)
{
	if (pend_n)
		fwrite(pend_s, 1, pend_n, f);
	pend_n = 0;
}

static void
put(FILE *f, Str s)
{
	if (!s.n)
		return;
	if (pend_n && pend_s + pend_n == s.s) {
		pend_n += s.n;
		return;
	}
	flush(f);
	pend_s = s.s;
	pend_n = s.n;
}

static void
putd(FILE *f, Str s)
{
	if (s.n)
		fwrite(s.s, 1, s.n, f);
}

char *
regname(const Fn *fn, uint r, char *buf, size_t n)
{
	const Reg *g = &fn->reg[r];

	if (g->num >= 0)
		snprintf(buf, n, "%.*s%d", (int)g->pfx.n, g->pfx.s, g->num);
	else
		snprintf(buf, n, "%.*s", (int)g->pfx.n, g->pfx.s);
	return buf;
}

static void printlist(FILE *f, const Fn *fn, const Vec *v);

const char *
regstr(const Fn *fn, uint r)
{
	char buf[256];

	return arena_strdup(fn->mod->arena, regname(fn, r, buf, sizeof buf));
}

const char *
instext(const Fn *fn, const Ins *i)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	if (!f)
		die("cannot print to memory");
	printins(f, fn, i);
	fclose(f);
	const char *s = arena_strndup(fn->mod->arena, buf, n);
	free(buf);
	return s;
}

uint
fnhash(const Fn *fn)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	uint h = 2166136261u;

	if (!f)
		die("cannot print to memory");
	for (uint k = 0; k < fn->nins; k++)
		if (fn->ins[k].op < NOP) {
			printins(f, fn, &fn->ins[k]);
			fputc('\n', f);
		}
	fclose(f);
	for (size_t k = 0; k < n; k++)
		h = (h ^ (uchar)buf[k]) * 16777619u;
	free(buf);
	return h;
}

const char *
refstr(const Fn *fn, Ref r)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	if (!f)
		die("cannot print to memory");
	printref(f, fn, r);
	fclose(f);
	const char *s = arena_strndup(fn->mod->arena, buf, n);
	free(buf);
	return s;
}

void
printref(FILE *f, const Fn *fn, Ref r)
{
	const Module *m = fn->mod;
	char buf[256];

	if (r.neg)
		fputc('!', f);
	switch (r.kind) {
	case RReg:
		fputs(regname(fn, r.idx, buf, sizeof buf), f);
		break;
	case RImm:
		putd(f, fn->imm[r.idx].text);
		break;
	case RSym:
		putd(f, m->sym[r.idx].name);
		break;
	case RLbl:
		putd(f, fn->lbl[r.idx].name);
		break;
	case RMem: {
		const Mem *a = &fn->mem[r.idx];
		fputc('[', f);
		printref(f, fn, a->base);
		if (a->offs.n) {
			if (a->offs.s[0] != '-')
				fputc('+', f);
			else
				fputc('+', f);
			putd(f, a->offs);
		}
		if (a->vec.kind) {
			fputs(", ", f);
			printref(f, fn, a->vec);
		}
		fputc(']', f);
		break;
	}
	case RVec:
		fputc('{', f);
		printlist(f, fn, &fn->vec[r.idx]);
		fputc('}', f);
		break;
	case RList:
		fputc('(', f);
		printlist(f, fn, &fn->vec[r.idx]);
		fputc(')', f);
		break;
	case RSink:
		fputc('_', f);
		break;
	case RNum:
		fprintf(f, "%u", r.idx);
		break;
	case RRange:
		putd(f, fn->range[r.idx].pfx);
		break;
	default:
		BUG("printref: kind %d", r.kind);
	}
}

static void
printargs(FILE *f, const Fn *fn, const Ref *a, uint n)
{
	for (uint k = 0; k < n; k++) {
		if (k)
			fputs(a[k].bar ? "|" : ", ", f);
		printref(f, fn, a[k]);
	}
}

static void
printlist(FILE *f, const Fn *fn, const Vec *v)
{
	printargs(f, fn, v->el, v->n);
}

static Str
sepof(const Ins *i)
{
	return i->sep.s ? i->sep : (Str){" \t", 2};
}

void
printins(FILE *f, const Fn *fn, const Ins *i)
{
	char buf[256];

	switch (i->op) {
	case Olabel:
		printref(f, fn, i->arg[0]);
		fputc(':', f);
		return;
	case Oopen:
		fputc('{', f);
		return;
	case Oclose:
		fputc('}', f);
		return;
	case Oreg:
		putd(f, i->name);
		putd(f, sepof(i));
		if (i->narg == 2 && i->arg[0].kind == RRange) {
			const Range *g = &fn->range[i->arg[0].idx];
			fprintf(f, "%.*s<%u>", (int)g->pfx.n, g->pfx.s, g->n);
		} else
			printargs(f, fn, i->arg, i->narg);
		fputc(';', f);
		return;
	case Ovar:
		putd(f, i->name);
		putd(f, sepof(i));
		printref(f, fn, i->arg[0]);
		putd(f, i->tail);
		fputc(';', f);
		return;
	case Oloc:
	case Oraw:
		putd(f, i->src);
		return;
	}
	if (i->pred.kind) {
		fputs(i->flags & INEGPRED ? "@!" : "@", f);
		fputs(regname(fn, i->pred.idx, buf, sizeof buf), f);
		fputc(' ', f);
	}
	putd(f, i->name);
	if (i->narg) {
		putd(f, sepof(i));
		for (uint k = 0; k < i->narg; k++) {
			if (k)
				fputs(i->arg[k].bar ? "|" : ", ", f);
			printref(f, fn, i->arg[k]);
			if (i->sel)
				putd(f, i->sel[k]);
		}
	}
	fputc(';', f);
}

static int
renamedref(const Fn *fn, Ref r)
{
	switch (r.kind) {
	case RReg:
		return fn->reg[r.idx].flags & RGRENAMED;
	case RRange:
		return fn->range[r.idx].flags & RGRENAMED;
	case RSym:
		return fn->mod->sym[r.idx].renamed;
	case RLbl:
		return fn->lbl[r.idx].renamed;
	case RMem:
		return renamedref(fn, fn->mem[r.idx].base) || renamedref(fn, fn->mem[r.idx].vec);
	case RVec:
	case RList:
		for (uint k = 0; k < fn->vec[r.idx].n; k++)
			if (renamedref(fn, fn->vec[r.idx].el[k]))
				return 1;
	}
	return 0;
}

static int
clean(const Fn *fn, const Ins *i)
{
	if (!i->src.s || (i->flags & IDIRTY))
		return 0;
	if (!fn->mod->nrenamed || i->op == Oraw || i->op == Oloc)
		return 1;
	if (i->pred.kind && renamedref(fn, i->pred))
		return 0;
	for (uint k = 0; k < i->narg; k++)
		if (renamedref(fn, i->arg[k]))
			return 0;
	return 1;
}

/* an edited statement keeps the lines it spanned: -G and -lineinfo cubins
 * map code to PTX line numbers */
static int
nl(Str s)
{
	int n = 0;
	for (uint k = 0; s.s && k < s.n; k++)
		n += s.s[k] == '\n';
	return n;
}

static void
printdirty(FILE *f, const Fn *fn, const Ins *i)
{
	flush(f);
	int pad = nl(i->src) - nl(i->name) - nl(i->sep) - nl(i->tail);

	printins(f, fn, i);
	while (pad-- > 0)
		fputc('\n', f);
}

static void
printhead(FILE *f, const Fn *fn)
{
	const Sym *s = &fn->mod->sym[fn->sym];

	if (!(fn->flags & FRENAMED) && !s->renamed) {
		put(f, fn->head);
		return;
	}
	flush(f);
	fwrite(fn->head.s, 1, fn->nameoff, f);
	putd(f, s->name);
	fwrite(fn->head.s + fn->nameoff + fn->headname.n, 1,
	       fn->head.n - fn->nameoff - fn->headname.n, f);
}

static void
printfn(FILE *f, const Fn *fn)
{
	printhead(f, fn);
	put(f, fn->open);
	if (fn->flags & FDECL)
		return;
	for (uint k = 0; k < fn->nins; k++) {
		const Ins *i = &fn->ins[k];
		put(f, i->lead);
		if (clean(fn, i))
			put(f, i->src);
		else
			printdirty(f, fn, i);
	}
	put(f, fn->close);
	if (fn->close.s && fn->close.s[fn->close.n] == '}')
		put(f, (Str){fn->close.s + fn->close.n, 1});   /* the source's own '}' */
	else {
		flush(f);
		fputc('}', f);
	}
}

int
print(FILE *f, const Module *m)
{
	/* module-level variables name symbols only: a dummy function gives
	 * printins its tables */
	Fn top = {.mod = (Module *)m};

	for (uint k = 0; k < m->ntop; k++) {
		const Ins *i = &m->top[k];
		put(f, i->lead);
		if (i->op == Ofn)
			printfn(f, m->fn[i->arg[0].idx]);
		else if (clean(&top, i))
			put(f, i->src);
		else
			printdirty(f, &top, i);
	}
	put(f, m->tailtext);
	flush(f);
	fflush(f);
	return ferror(f) ? -1 : 0;
}

char *
printstr(const Module *m, size_t *len)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	if (!f || print(f, m) < 0)
		die("cannot print to memory");
	fclose(f);
	if (len)
		*len = n;
	return buf;
}

void
reprint(Module *m)
{
	for (uint k = 0; k < m->ntop; k++)
		if (m->top[k].op == Ovar)
			m->top[k].flags |= IDIRTY;
	for (uint j = 0; j < m->nfn; j++)
		for (uint k = 0; k < m->fn[j]->nins; k++) {
			Ins *i = &m->fn[j]->ins[k];
			if (i->op != Oraw && i->op != Oloc)
				i->flags |= IDIRTY;
		}
}

const char *
itemtext(const Module *m, uint k, size_t *len)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	Fn top = {.mod = (Module *)m};
	const Ins *i = &m->top[k];

	if (!f)
		die("cannot print to memory");
	if (i->op == Ofn)
		printfn(f, m->fn[i->arg[0].idx]);
	else if (clean(&top, i))
		put(f, i->src);
	else
		printdirty(f, &top, i);
	flush(f);
	fclose(f);
	if (len)
		*len = n;
	const char *s = arena_strndup(m->arena, buf, n);
	free(buf);
	return s;
}

Module *
modcopy(const Module *m)
{
	size_t n;
	char *t = printstr(m, &n);
	Module *c = parse(m->path, t, n);
	free(t);
	return c;
}
