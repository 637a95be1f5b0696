/* fuzz-sfu.c: the libFuzzer target of the sfu pass; tests/fuzz/run.sh sfu
 * builds and runs it, tests/unit/u-fuzz-sfu.c replays its corpus in CI.
 * The input is PTX followed by 3 bytes of parameters (the last bytes, so
 * that a seed of real PTX stays PTX): lambda, the approximation mask, and
 * newton, collapse and the fast module (none: sfu's own copy with the FP64
 * rewrites; the same text; or a renamed clone, every register range of the
 * same PTX renamed and printed canonically, so that its bodies differ from
 * the accurate ones and sfu merges them). For every input that parses and
 * verifies, sfu on every kernel either refuses with a reason or leaves a
 * module that verifies, prints, parses again and verifies again. */
#include "ptx/ptx.h"
#include "transforms/pass.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* the same PTX with each register range renamed (%r<9> -> %rR<9>) */
static Module *
renamed(const char *text, size_t n)
{
	Module *m = parse("clone.ptx", text, n), *c;
	char *s;
	size_t ns;

	if (!m)
		return NULL;
	for (uint k = 0; k < m->nfn; k++) {
		Fn *fn = m->fn[k];
		for (uint r = 0; r < fn->nreg; r++) {
			char *pfx;
			if (fn->reg[r].num != 0 || (fn->reg[r].flags & RGSPECIAL))
				continue;
			pfx = fmt("%.*sR", (int)fn->reg[r].pfx.n, fn->reg[r].pfx.s);
			reg_rename(fn, r, pfx);
			free(pfx);
		}
	}
	reprint(m);
	s = printstr(m, &ns);
	mod_free(m);
	c = parse("clone.ptx", s, ns);
	free(s);
	return c;
}

static void
mustverify(Module *m, const char *what)
{
	if (verify(m, NULL)) {
		verify(m, stderr);
		BUG("the module does not verify %s", what);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	const char *text = (const char *)data;
	struct sfu_params p;
	Module *m, *fast = NULL, *m2;
	int flags, mode;
	char *s;
	size_t ns;

	if (n < 4)
		return 0;
	n -= 3;
	p.lambda = data[n] % 65;
	p.approx = data[n + 1] & AX_ALL;
	p.newton = data[n + 2] & 1;
	flags = data[n + 2] >> 1 & (SFU_COLLAPSE0 | SFU_COLLAPSE64);
	mode = data[n + 2] >> 3 & 3;
	ptx_quiet = 1;
	if (!(m = parse("fuzz.ptx", text, n)))
		return 0;
	if (verify(m, NULL)) {   /* sfu's contract starts from valid PTX */
		mod_free(m);
		return 0;
	}
	if (mode == 1)
		fast = parse("fast.ptx", text, n);
	else if (mode == 2)
		fast = renamed(text, n);
	uint nfn = m->nfn;
	Fn **fns = xmalloc((nfn + 1) * sizeof *fns);
	if (nfn)
		memcpy(fns, m->fn, nfn * sizeof *fns);
	for (uint k = 0; k < nfn; k++) {
		struct sfu_stats st;
		const char *why;
		if (!(fns[k]->flags & FENTRY) || (fns[k]->flags & FDECL))
			continue;
		if (sfu(m, fns[k], fast, &p, flags, &st, &why) < 0 && !why)
			BUG("sfu refused without a reason");
	}
	free(fns);
	mustverify(m, "after sfu");
	s = printstr(m, &ns);
	if (!(m2 = parse("sfu.ptx", s, ns))) {
		ptx_quiet = 0;
		parse("sfu.ptx", s, ns);
		BUG("sfu's output does not parse:\n%.*s", (int)ns, s);
	}
	mustverify(m2, "once printed and parsed again");
	mod_free(m2);
	mod_free(m);
	if (fast)
		mod_free(fast);
	free(s);
	return 0;
}
