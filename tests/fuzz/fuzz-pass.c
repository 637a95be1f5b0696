/* fuzz-pass.c: the libFuzzer target of a pass of the table (passes.c);
 * tests/fuzz/run.sh pass:NAME builds and runs it for pass NAME (run.sh sfu
 * is pass:sfu), tests/unit/u-fuzz-pass.c replays each pass's corpus in CI.
 *
 * The input is PTX followed by one byte per parameter of the pass's schema
 * (the last bytes, so that a seed of real PTX stays PTX). Each byte picks a
 * value the schema allows: an integer in its range, a word, a set of words,
 * a number; for a file parameter (sfu's fast=) nothing, the input's own
 * PTX, or a renamed clone of it (every register range renamed, printed
 * canonically, so that its bodies differ from the input's). The values go
 * through params_parse() as mpcc-opt -p NAME:... gives them. For every
 * input that parses and verifies, the pass on every kernel either refuses
 * with a reason or leaves a module that verifies, prints, parses again and
 * verifies again. Passes that land in the table get a target for free. */
#include "ptx/ptx.h"
#include "transforms/pass.h"
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct pass *fuzzpass;   /* the pass under test */

int LLVMFuzzerInitialize(int *argc, char ***argv);

/* MPCC_FUZZ_PASS names the pass (run.sh sets it); sfu by default; "list"
 * prints the passes of the table and exits (run.sh all fuzzes each) */
int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *name = getenv("MPCC_FUZZ_PASS");

	(void)argc, (void)argv;
	passes_init();
	if (name && !strcmp(name, "list")) {
		for (int k = 0; k < npass; k++)
			printf("%s\n", passes[k]->schema.name);
		exit(0);
	}
	if (!name || !*name)
		name = "sfu";
	if (!(fuzzpass = findpass(name, strlen(name))))
		die("MPCC_FUZZ_PASS: no pass '%s'", name);
	return 0;
}

/* the same PTX with each register range renamed (%r<9> -> %rR<9>) */
static char *
renamed(const char *text, size_t n, size_t *len)
{
	Module *m = parse("clone.ptx", text, n);
	char *s;

	if (!m)
		return NULL;
	for (uint k = 0; k < m->nfn; k++) {
		Fn *fn = m->fn[k];
		for (uint g = 0; g < fn->nrange; g++) {
			char *pfx = fmt("%.*sR", (int)fn->range[g].pfx.n, fn->range[g].pfx.s);
			reg_rename(fn, member(fn, g, 0), pfx);
			free(pfx);
		}
	}
	reprint(m);
	s = printstr(m, len);
	mod_free(m);
	return s;
}

static char path[PATH_MAX];   /* the file of file(), removed after each input */

/* a file for a file parameter: 1 the input, 2 its renamed clone */
static const char *
file(int which, const char *text, size_t n)
{
	char *s = NULL;
	size_t len = n;

	if (!*path) {
		const char *t = getenv("TMPDIR");
		snprintf(path, sizeof path, "%s/mpcc-fuzz-pass-%ld.ptx", t && *t ? t : "/tmp",
		         (long)getpid());
	}
	if (which == 2 && !(s = renamed(text, n, &len)))
		return NULL;
	if (writefile(path, s ? s : text, len) < 0)
		die("cannot write '%s'", path);
	free(s);
	return path;
}

/* one parameter's value from byte b, in the text form */
static void
value(struct buf *t, const struct param *p, uint8_t b, const char *text, size_t n)
{
	int nw = 0;
	const char *f;

	while (p->words && p->words[nw])
		nw++;
	switch (p->kind) {
	case PINT:
		buf_printf(t, "%s=%ld,", p->name, (long)p->lo + b % (long)(p->hi - p->lo + 1));
		break;
	case PNUM:
		buf_printf(t, "%s=%g,", p->name, p->lo + (p->hi - p->lo) * (b + 1) / 256.0);
		break;
	case PBOOL:
		buf_printf(t, "%s=%s,", p->name, b & 1 ? "true" : "false");
		break;
	case PENUM:
		buf_printf(t, "%s=%s,", p->name, p->words[b % nw]);
		break;
	case PSET:
		if (!(b & ((1u << nw) - 1)))
			break;   /* the default */
		buf_printf(t, "%s=", p->name);
		for (int i = 0, first = 1; i < nw; i++)
			if (b & 1u << i)
				buf_printf(t, "%s%s", first ? "" : "+", p->words[i]), first = 0;
		buf_printf(t, ",");
		break;
	case PSETS:
		if (b % (nw + 1) < (uint)nw)
			buf_printf(t, "%s=%s,", p->name, p->words[b % (nw + 1)]);
		else
			buf_printf(t, "%s=%ld,", p->name, (long)p->lo + b / (nw + 1) % (long)(p->hi - p->lo + 1));
		break;
	case PSTR:
		if (!(p->flags & PTOOL))   /* a hash (fiset's ptx): rarely the kernel's */
			buf_printf(t, "%s=%08x,", p->name, b * 0x01010101u);
		else if (b % 3 && (f = file(b % 3, text, n)))
			buf_printf(t, "%s=%s,", p->name, f);
		break;
	case PNUMS:   /* 0 to 4 items (fiset's trips: a kernel's loops, or not) */
		buf_printf(t, "%s=[", p->name);
		for (int i = 0; i < b % 5; i++)
			buf_printf(t, "%s%g", i ? "," : "", (double[]){0, 0.5, 1, 3, 64, 1e6}[(b / 5 + i) % 6]);
		buf_printf(t, "],");
		break;
	}
}

static void
mustverify(Module *m, const char *what)
{
	if (verify(m, NULL)) {
		verify(m, stderr);
		BUG("the module does not verify %s", what);
	}
}

/* the pass on every kernel, as mpcc-opt -p runs it */
static void
run(Module *m, const struct params *par)
{
	int sm = m->target.s && m->target.n > 3 ? atoi(m->target.s + 3) : 0;
	struct passctx cx = {.m = m, .src = "fuzz.ptx", .sm = &sm, .nsm = sm > 0};
	uint nfn = m->nfn;
	Fn **fns = xmalloc((nfn + 1) * sizeof *fns);

	if (nfn)
		memcpy(fns, m->fn, nfn * sizeof *fns);
	for (uint k = 0; k < nfn; k++) {
		struct outcome o = {0};
		if (!(fns[k]->flags & FENTRY) || (fns[k]->flags & FDECL))
			continue;
		if (fuzzpass->apply(&cx, fns[k], par, &o) < 0 && !o.why)
			BUG("%s refused a kernel without a reason", fuzzpass->schema.name);
		outcome_release(&o);
	}
	free(fns);
	passctx_release(&cx);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	const struct schema *s = &fuzzpass->schema;
	struct buf t = BUF_INIT;
	struct params par;
	Arena *a;
	Module *m, *m2;
	char *out, *err = NULL;
	size_t nout;

	if (n <= (size_t)s->nparam)
		return 0;
	n -= s->nparam;
	ptx_quiet = 1;
	if (!(m = parse("fuzz.ptx", (const char *)data, n)))
		return 0;
	if (verify(m, NULL)) {   /* a pass's contract starts from valid PTX */
		mod_free(m);
		return 0;
	}
	for (int i = 0; i < s->nparam; i++)
		value(&t, &s->param[i], data[n + i], (const char *)data, n);
	if (t.n)
		t.s[--t.n] = 0;   /* the last ',' */
	a = arena_new();
	if (params_parse(s, t.s ? t.s : "", 1, a, &par, &err) < 0)
		BUG("%s: parameters '%s' drawn from the schema do not parse: %s", s->name,
		    t.s ? t.s : "", err);
	run(m, &par);
	mustverify(m, "after the pass");
	out = printstr(m, &nout);
	if (!(m2 = parse("pass.ptx", out, nout))) {
		ptx_quiet = 0;
		parse("pass.ptx", out, nout);
		BUG("the pass's output does not parse:\n%.*s", (int)nout, out);
	}
	mustverify(m2, "once printed and parsed again");
	mod_free(m2);
	mod_free(m);
	free(out);
	buf_release(&t);
	arena_free(a);
	if (*path)
		unlink(path);
	return 0;
}
