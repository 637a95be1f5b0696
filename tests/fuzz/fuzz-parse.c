/* fuzz-parse.c: the libFuzzer target of the PTX library; tests/fuzz/run.sh
 * builds it with clang -fsanitize=fuzzer,address,undefined and runs it.
 * Besides "never crash", it checks what must hold for every input the
 * parser accepts: print(parse(x)) == x; the canonical printer's output parses
 * again and is a fixed point; the analyses and the verifier run on every
 * function (whatever they find, they must not crash); a renamed
 * clone of every body (clonebody) prints as PTX that parses.
 * tests/unit/u-ptx-fuzz.c replays tests/fuzz/corpus through this file in CI. */
#include "ptx/ptx.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void
analyses(Module *m)
{
	for (uint k = 0; k < m->nfn; k++) {
		Fn *fn = m->fn[k];
		if (fn->flags & FDECL)
			continue;
		fillcfg(fn);
		fillloops(fn);
		filldefuse(fn);
		for (uint i = 0; i < fn->nins; i++)
			insline(fn, i, NULL);
	}
	verify(m, NULL);
}

/* clone each body into the same function of a second copy, renamed, the
 * way the SFU pass merges two kernels; the result must print and parse */
static void
edits(const uint8_t *data, size_t n, Module *m)
{
	Module *m2 = parse("clone.ptx", (const char *)data, n);
	char *s;
	size_t ns;

	for (uint k = 0; k < m->nfn; k++) {
		Fn *src = m->fn[k], *dst = m2->fn[k];
		int clash = 0;
		if (src->flags & FDECL)
			continue;
		for (uint l = 0; l < src->nlbl && !clash; l++) {
			char *nm = fmt("%.*s_fz", (int)src->lbl[l].name.n, src->lbl[l].name.s);
			clash = findlbl(dst, nm) != ~0u;
			free(nm);
		}
		if (!clash)
			clonebody(dst, bodystart(dst), src, "_fz");
	}
	s = printstr(m2, &ns);
	mod_free(m2);
	if (!(m2 = parse("clone2.ptx", s, ns))) {
		ptx_quiet = 0;
		parse("clone2.ptx", s, ns);
		BUG("a cloned body does not parse:\n%.*s", (int)ns, s);
	}
	mod_free(m2);
	free(s);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	Module *m, *m2;
	char *s, *s2, *s3;
	size_t ns, ns2, ns3;

	ptx_quiet = 1;
	if (!(m = parse("fuzz.ptx", (const char *)data, n)))
		return 0;
	s = printstr(m, &ns);
	if (ns != n || memcmp(s, data, n))
		BUG("print(parse(x)) != x");
	analyses(m);
	edits(data, n, m);
	reprint(m);
	s2 = printstr(m, &ns2);
	if (!(m2 = parse("reprint.ptx", s2, ns2))) {
		ptx_quiet = 0;
		parse("reprint.ptx", s2, ns2);
		BUG("the canonical print does not parse:\n%.*s", (int)ns2, s2);
	}
	reprint(m2);
	s3 = printstr(m2, &ns3);
	if (ns3 != ns2 || memcmp(s2, s3, ns2))
		BUG("the canonical print is not a fixed point");
	mod_free(m);
	mod_free(m2);
	free(s);
	free(s2);
	free(s3);
	return 0;
}
