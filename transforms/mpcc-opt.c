/* mpcc-opt: run passes on one PTX file (like LLVM's opt).
 *   mpcc-opt IN.ptx [-o OUT.ptx] [-p NAME[:key=value,...]]... [--report FILE.json] [-d NAME]
 *            [--verify]
 * With no pass it is the round trip print(parse(IN)). Passes are looked up
 * in the table below; -d NAME dumps the IR after the pass NAME ran.
 * --verify runs the verifier on the input and after every pass, and stops
 * with exit status 1 (no output) at the first that does not verify. */
#include "ptx/ptx.h"
#include "transforms/pass.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct passctx {
	const char *params;    /* "key=value,..." after ':' or "" */
	const char *report;
};

static int
p_roundtrip(Module **mp, const struct passctx *c)
{
	(void)mp, (void)c;
	return 0;
}

static int
p_reprint(Module **mp, const struct passctx *c)
{
	Module *m = *mp;
	(void)c;
	reprint(m);
	return 0;
}

static int
p_cfg(Module **mp, const struct passctx *c)
{
	Module *m = *mp;
	(void)c;
	for (uint k = 0; k < m->nfn; k++)
		if (!(m->fn[k]->flags & FDECL)) {
			fillcfg(m->fn[k]);
			fillloops(m->fn[k]);
		}
	return 0;
}

static int
p_defuse(Module **mp, const struct passctx *c)
{
	Module *m = *mp;
	(void)c;
	for (uint k = 0; k < m->nfn; k++)
		if (!(m->fn[k]->flags & FDECL))
			filldefuse(m->fn[k]);
	return 0;
}

static int
p_sfu(Module **mp, const struct passctx *c)
{
	return sfu_opt(*mp, c->params, stderr);
}

/* the pass registry: name, entry, dump */
static const struct pass {
	const char *name;
	int (*run)(Module **, const struct passctx *);   /* may replace the module */
	void (*dump)(FILE *, Fn *);
	const char *help;
} passes[] = {
	{"cfg", p_cfg, dumpcfg, "blocks, successors, predecessors, rpo, loops"},
	{"defuse", p_defuse, dumpdefuse, "definitions and uses of every register"},
	{"ir", p_roundtrip, dumpir, "the statements as the parser sees them"},
	{"reprint", p_reprint, NULL, "print every statement from the IR, not the source"},
	{"roundtrip", p_roundtrip, NULL, "nothing: print(parse(x))"},
	{"sfu", p_sfu, NULL, "warp-partitioned approximation (sfu:lambda=N,fast=F.ptx,...)"},
};

static const struct pass *
findpass(const char *name, size_t n)
{
	for (size_t k = 0; k < countof(passes); k++)
		if (strlen(passes[k].name) == n && !strncmp(passes[k].name, name, n))
			return &passes[k];
	return NULL;
}

static _Noreturn void
usage(void)
{
	fprintf(stderr, "usage: mpcc-opt IN.ptx [-o OUT.ptx] [-p NAME[:key=value,...]]... "
	        "[--report FILE.json] [-d NAME] [--verify]\npasses:\n");
	for (size_t k = 0; k < countof(passes); k++)
		fprintf(stderr, "  %-10s %s\n", passes[k].name, passes[k].help);
	exit(1);
}

/* the pass's dump of every function, or the module's PTX for a pass with
 * no dump of its own */
static void
dump(FILE *f, Module *m, const struct pass *p)
{
	if (!p->dump) {
		if (print(f, m) < 0)
			die("cannot write the output");
		return;
	}
	for (uint k = 0; k < m->nfn; k++) {
		Fn *fn = m->fn[k];
		if (!(fn->flags & FDECL))
			p->dump(f, fn);
	}
}

/* print straight into a temporary next to out, then rename: a large
 * module is not held a second time as text, and out is never half written.
 * Only a regular file (or a new one) is replaced so: -o /dev/null or a
 * pipe is written in place, never renamed over. */
static void
output(Module *m, const char *out)
{
	struct stat st;
	char *tmp;
	FILE *f;

	if (stat(out, &st) == 0 && !S_ISREG(st.st_mode)) {
		if (!(f = fopen(out, "w")) || print(f, m) < 0 || fclose(f) != 0)
			die("cannot write '%s': %s", out, strerror(errno));
		return;
	}
	tmp = fmt("%s.tmp%ld", out, (long)getpid());
	f = fopen(tmp, "w");
	if (!f)
		die("cannot write '%s': %s", tmp, strerror(errno));
	setvbuf(f, NULL, _IOFBF, 1 << 20);
	if (print(f, m) < 0 || fclose(f) != 0 || rename(tmp, out) != 0) {
		remove(tmp);
		die("cannot write '%s': %s", out, strerror(errno));
	}
	free(tmp);
}

int
main(int argc, char **argv)
{
	const char *in = NULL, *out = NULL, *dumpname = NULL, *pv[64];
	struct passctx ctx = {0};
	int np = 0, dumped = 0, vfy = 0;
	Module *m;

	progname = "mpcc-opt";
	for (int k = 1; k < argc; k++) {
		const char *a = argv[k];
		if (!strcmp(a, "-o") && k + 1 < argc)
			out = argv[++k];
		else if (!strcmp(a, "-p") && k + 1 < argc) {
			if (np == (int)countof(pv))
				die("too many passes");
			pv[np++] = argv[++k];
		} else if (!strcmp(a, "-d") && k + 1 < argc)
			dumpname = argv[++k];
		else if (!strcmp(a, "--verify"))
			vfy = 1;
		else if (!strcmp(a, "--report") && k + 1 < argc)
			ctx.report = argv[++k];
		else if (!strcmp(a, "-h") || !strcmp(a, "--help"))
			usage();
		else if (a[0] == '-' && a[1])
			die("unknown option '%s'", a);
		else if (in)
			die("more than one input: '%s' and '%s'", in, a);
		else
			in = a;
	}
	if (!in)
		usage();
	for (int k = 0; k < np; k++) {
		const char *c = strchr(pv[k], ':');
		size_t n = c ? (size_t)(c - pv[k]) : strlen(pv[k]);
		if (!findpass(pv[k], n))
			die("unknown pass '%.*s' (mpcc-opt --help lists them)", (int)n, pv[k]);
	}
	if (dumpname && !findpass(dumpname, strlen(dumpname)))
		die("unknown pass '%s' for -d (mpcc-opt --help lists them)", dumpname);
	if (!(m = parsefile(in)))
		return 1;
	if (vfy && verify(m, stderr))
		return 1;
	for (int k = 0; k < np; k++) {
		const char *c = strchr(pv[k], ':');
		size_t n = c ? (size_t)(c - pv[k]) : strlen(pv[k]);
		const struct pass *p = findpass(pv[k], n);
		ctx.params = c ? c + 1 : "";
		if (p->run(&m, &ctx) < 0)
			return 1;
		if (vfy && verify(m, stderr)) {
			note("the output of pass '%s' does not verify", p->name);
			return 1;
		}
		if (dumpname && !strcmp(dumpname, p->name)) {
			dump(stdout, m, p);
			dumped = 1;
		}
	}
	if (dumpname) {
		if (!dumped) {
			const struct pass *p = findpass(dumpname, strlen(dumpname));
			if (p->run(&m, &ctx) < 0)
				return 1;
			dump(stdout, m, p);
		}
		mod_free(m);
		return 0;
	}
	if (out)
		output(m, out);
	else if (setvbuf(stdout, NULL, _IOFBF, 1 << 20), print(stdout, m) < 0)
		die("cannot write the output");
	mod_free(m);
	return 0;
}
