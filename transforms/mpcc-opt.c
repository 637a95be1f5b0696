/* mpcc-opt: run passes on one PTX file (like LLVM's opt).
 *   mpcc-opt IN.ptx [-o OUT.ptx] [-p NAME[:key=value,...]]... [--arch sm_NN]...
 *                   [--report FILE] [-d NAME] [-v] [--verify] [--pass-through-invalid]
 *   mpcc-opt --params | --stats | --settings | --version
 * With no pass it is the round trip print(parse(IN)). The passes are the
 * table of passes.c, with the parameters of their schemas (as a policy
 * gives them, plus their tool-only ones and kernels=GLOB); the analyses
 * below look at the IR. -d NAME dumps after NAME ran. Each pass says in a
 * note per kernel whether it applied (with -v, its statistics too).
 * Input that is empty or does not verify is an error (exit 1, the
 * verifier's messages), and what is written is verified first: a script
 * must not take a copy of bad PTX for a result. --pass-through-invalid
 * copies such input out instead, with a note, the passes leaving its
 * kernels alone. --verify adds the verifier after every step, and stops
 * with exit status 1 (no output) at the first that does not verify. */
#include "ptx/ptx.h"
#include "transforms/pass.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* the analyses: mpcc-opt's own, to look at the IR (-p NAME or -d NAME) */
struct analysis {
	const char *name;
	void (*run)(Module *);
	void (*dump)(FILE *, Fn *);
	const char *help;
};

static void
nothing(Module *m)
{
	(void)m;
}

static void
cfg(Module *m)
{
	for (uint k = 0; k < m->nfn; k++)
		if (!(m->fn[k]->flags & FDECL)) {
			fillcfg(m->fn[k]);
			fillloops(m->fn[k]);
		}
}

static void
defuse(Module *m)
{
	for (uint k = 0; k < m->nfn; k++)
		if (!(m->fn[k]->flags & FDECL))
			filldefuse(m->fn[k]);
}

static const struct analysis analyses[] = {
	{"cfg", cfg, dumpcfg, "blocks, successors, predecessors, rpo, loops"},
	{"defuse", defuse, dumpdefuse, "definitions and uses of every register"},
	{"ir", nothing, dumpir, "the statements as the parser sees them"},
	{"reprint", reprint, NULL, "print every statement from the IR, not the source"},
	{"roundtrip", nothing, NULL, "nothing: print(parse(x))"},
};

static const struct analysis *
findanalysis(const char *name, size_t n)
{
	for (size_t k = 0; k < countof(analyses); k++)
		if (strlen(analyses[k].name) == n && !strncmp(analyses[k].name, name, n))
			return &analyses[k];
	return NULL;
}

static _Noreturn void
usage(void)
{
	fprintf(stderr, "usage: mpcc-opt IN.ptx [-o OUT.ptx] [-p NAME[:key=value,...]]... "
	        "[--arch sm_NN]... [--report FILE] [-d NAME] [-v] [--verify] [--pass-through-invalid]\n"
	        "       mpcc-opt IN.ptx --warn NAME [--arch sm_NN]...   (a warning of mpcc --mpcc-warn)\n"
	        "       mpcc-opt --params | --stats | --settings   (the passes' tables)\n"
	        "       mpcc-opt --version\nanalyses:\n");
	for (size_t k = 0; k < countof(analyses); k++)
		fprintf(stderr, "  %-10s %s\n", analyses[k].name, analyses[k].help);
	fprintf(stderr, "warnings:\n");
	for (int k = 0; k < npass; k++)
		if (passes[k]->warn)
			fprintf(stderr, "  %-10s %s\n", passes[k]->warn->name, passes[k]->warn->help);
	fprintf(stderr, "passes (every one also takes kernels=GLOB):\n");
	for (int k = 0; k < npass; k++) {
		const struct schema *s = &passes[k]->schema;
		fprintf(stderr, "  %-10s %s\n", s->name, s->help);
		for (int i = 0; i < s->nparam; i++)
			fprintf(stderr, "    %-12s %s%s%s%s\n", s->param[i].name, s->param[i].help,
			        s->param[i].def ? " (default " : "", !s->param[i].def ? "" :
			        *s->param[i].def ? s->param[i].def : "none", s->param[i].def ? ")" : "");
	}
	exit(1);
}

/* --params: every parameter of every pass, one tab-separated line each
 * (pass, name, kind, range or words, default, tool or policy), for the
 * documentation test and for tools that search the parameters */
static void
printparams(void)
{
	static const char *const kind[] = {"int", "number", "bool", "enum", "set", "sets", "string",
	                                   "numbers"};
	for (int k = 0; k < npass; k++) {
		const struct schema *s = &passes[k]->schema;
		for (int i = 0; i < s->nparam; i++) {
			const struct param *q = &s->param[i];
			printf("%s\t%s\t%s\t", s->name, q->name, kind[q->kind]);
			if (q->kind == PINT || q->kind == PSETS || q->kind == PNUMS)
				printf("%g to %g", q->lo, q->hi);
			else if (q->kind == PNUM)
				printf("greater than %g, at most %g", q->lo, q->hi);
			for (int w = 0; q->words && q->words[w]; w++)
				printf("%s%s", w || q->kind == PSETS ? "|" : "", q->words[w]);
			printf("\t%s\t%s\t%s\n", q->def && *q->def ? q->def : q->def || q->flags & PTOOL ?
			       "none" : "required",
			       q->flags & PTOOL ? "tool" : "policy", q->help);
		}
	}
}

/* --stats: every key of every pass's statistics, one tab-separated line
 * each (pass, key, kind, role, help); a list's keys are NAME[].KEY */
static void
printfields(const char *pass, const char *prefix, const struct field *obj)
{
	static const char *const kind[] = {"int", "number", "bool", "string", "ints", "per-target",
	                                   "object", "list"};
	static const char *const role[] = {"-", "predicted", "units", "id", "ratio", "chosen", "ins",
	                                   "ops", "name", "nops"};
	for (int i = 0; i < obj->nsub; i++) {
		const struct field *f = &obj->sub[i];
		char *path = fmt("%s%s", prefix, f->name);
		printf("%s\t%s\t%s\t%s\t%s\n", pass, path, kind[f->kind], role[f->role], f->help);
		if (f->sub) {
			char *in = fmt("%s%s.", path, f->kind == FLIST ? "[]" : "");
			printfields(pass, in, f);
			free(in);
		}
		free(path);
	}
}

/* --settings: the pass settings scripts/sweep.sh runs on real code, one a
 * line: each pass's own, then the first of every transform chained */
static void
printsettings(void)
{
	struct buf chain = BUF_INIT;
	for (int k = 0; k < npass; k++) {
		const struct pass *p = passes[k];
		for (int i = 0; p->sweep && p->sweep[i]; i++)
			printf("%s%s%s\n", p->schema.name, *p->sweep[i] ? ":" : "", p->sweep[i]);
		if (p->sweep && p->tune && p->tune->role == TUNE_TRANSFORM)
			buf_printf(&chain, "%s%s%s%s", chain.n ? ";" : "", p->schema.name,
			           *p->sweep[0] ? ":" : "", p->sweep[0]);
	}
	if (chain.n)
		printf("%s\n", chain.s);
	buf_release(&chain);
}

/* --params, --stats, --settings: print that table; 0 if s is none of them */
static int
listing(const char *s)
{
	if (!strcmp(s, "--params"))
		printparams();
	else if (!strcmp(s, "--stats"))
		for (int i = 0; i < npass; i++) {
			if (passes[i]->stats)
				printfields(passes[i]->schema.name, "", passes[i]->stats);
		}
	else if (!strcmp(s, "--settings"))
		printsettings();
	else
		return 0;
	return 1;
}

/* one -p NAME[:ARGS] or -d NAME, resolved */
struct step {
	const char *spec;             /* as given */
	const struct analysis *an;    /* one of these two */
	const struct pass *pass;
	struct params par;
	char *kernels;                /* kernels=GLOB, or NULL: every kernel */
};

/* "unknown pass 'x'WHAT; did you mean 'y'?" over what -p and -d take:
 * the passes, then the analyses */
static _Noreturn void
unknownpass(const char *spec, size_t n, const char *what)
{
	const char *names[MAXPASS + countof(analyses)];
	int nn = 0;
	for (int k = 0; k < npass; k++)
		names[nn++] = passes[k]->schema.name;
	for (size_t k = 0; k < countof(analyses); k++)
		names[nn++] = analyses[k].name;
	char *s = xstrndup(spec, n);
	die("%s", unknown_msg("pass", s, what, names, nn));
}

/* NAME[:ARGS] -> step; a bad name or argument is an error before any work */
static void
resolve(struct step *st, const char *spec, const char *what, Arena *a)
{
	const char *c = strchr(spec, ':');
	size_t n = c ? (size_t)(c - spec) : strlen(spec);
	*st = (struct step){.spec = spec};
	if ((st->an = findanalysis(spec, n)))
		return;
	if (!(st->pass = findpass(spec, n)))
		unknownpass(spec, n, what);
	/* kernels=GLOB is mpcc-opt's, for every pass; the rest is the schema's */
	struct buf rest = BUF_INIT;
	char *copy = xstrdup(c ? c + 1 : ""), *save, *it;
	for (it = strtok_r(copy, ",", &save); it; it = strtok_r(NULL, ",", &save))
		if (startswith(it, "kernels="))
			st->kernels = arena_strdup(a, it + 8);
		else
			buf_printf(&rest, "%s%s", rest.n ? "," : "", it);
	free(copy);
	char *err;
	if (params_parse(&st->pass->schema, rest.s, 1, a, &st->par, &err) < 0)
		die("-p %s: %s", spec, err);
	buf_release(&rest);
}

/* the step of steps[0..np) that -d NAME dumps after, else -1 and that
 * NAME resolved into *d, to run after them all */
static int
dumpat(struct step *steps, const char *const *pv, int np, const char *name, struct step *d,
       Arena *a)
{
	int at = -1;
	for (int k = 0; name && k < np; k++)
		if (!strcmp(pv[k], name) || (steps[k].pass && !strcmp(steps[k].pass->schema.name, name)))
			at = k;
	if (name && at < 0)
		resolve(d, name, " for -d", a);
	return at;
}

static int
selected(const Module *m, const Fn *fn, const char *glob)
{
	if (!(fn->flags & FENTRY) || (fn->flags & FDECL))
		return 0;
	char *name = symstr(m, fn->sym), *dm = demangle(name);
	int ok = !glob || kernel_named(glob, name, dm, NULL);
	free(name);
	free(dm);
	return ok;
}

static void
report(const char *path, struct passctx *cx, const struct step *st, Fn *fn,
       const struct outcome *o)
{
	char *mangled = symstr(cx->m, fn->sym), *dm = demangle(mangled);
	char *params = params_str(&st->par, W_JSON);
	struct report r = {.src = cx->src, .arch = cx->arch, .mangled = mangled, .demangled = dm,
	                   .transform = st->pass->schema.name, .params = params,
	                   .applied = !o->why, .reason = o->why, .stats = o->stats};
	report_append(path, &r);
	free(params);
	free(mangled);
	free(dm);
}

/* What the steps did: per kernel the passes that changed it (bit t:
 * passes[t], what passes_order() asks), and every outcome, said once the
 * last step ran, when each pass's figures are recounted on the kernels as
 * they leave (pass.h, recount) */
struct said {
	const struct step *st;
	Fn *fn;
	struct outcome o;
	int applied;
};
struct ran {
	const Fn **fn;
	uint *bits;
	int n, cap;
	struct said *s;
	int ns, caps;
};

static uint *
changes_of(struct ran *c, const Fn *fn)
{
	for (int i = 0; i < c->n; i++)
		if (c->fn[i] == fn)
			return &c->bits[i];
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 64;
		c->fn = xrealloc(c->fn, c->cap * sizeof *c->fn);
		c->bits = xrealloc(c->bits, c->cap * sizeof *c->bits);
	}
	c->fn[c->n] = fn;
	c->bits[c->n] = 0;
	return &c->bits[c->n++];
}

static int
passindex(const struct pass *p)
{
	for (int t = 0; t < npass; t++)
		if (passes[t] == p)
			return t;
	BUG("mpcc-opt: a pass not in the table");
}

/* pass st on kernel fn; a pass after it in the table's order may have
 * changed fn already: then it is left alone (passes_order) */
static int
apply1(struct passctx *cx, const struct step *st, Fn *fn, struct ran *rn, struct outcome *o)
{
	uint *bits = changes_of(rn, fn);
	int t = passindex(st->pass);
	passes_ran(cx, fn, *bits);
	if ((o->why = passctx_refuse(cx)) || (o->why = passes_order(*bits, t)))
		return -1;
	if (st->pass->apply(cx, fn, &st->par, o) < 0)
		return -1;
	*bits |= 1u << t;
	return 0;
}

/* the functions of the module as parsed: passes add functions (store's
 * clones, sfu's copies), which no later pass runs on, as in the driver */
static uint parsedfn;

/* run a pass on every kernel it selects, what became of each into rn;
 * with dump, the pass's dump of each kernel after it ran */
static void
runpass(struct passctx *cx, const struct step *st, FILE *dump, struct ran *rn)
{
	Module *m = cx->m;
	uint nfn = parsedfn < m->nfn ? parsedfn : m->nfn;
	Fn **fns = xmalloc((nfn ? nfn : 1) * sizeof *fns);
	memcpy(fns, m->fn, nfn * sizeof *fns);
	for (uint k = 0; k < nfn; k++) {
		Fn *fn = fns[k];
		struct said s = {st, fn, {0}, 0};
		if (!selected(m, fn, st->kernels))
			continue;
		s.applied = apply1(cx, st, fn, rn, &s.o) == 0;
		if (s.applied)
			breakkernel(fn);
		vgrow(rn->s, rn->ns, rn->caps);
		rn->s[rn->ns++] = s;
		if (dump && st->pass->dump)
			st->pass->dump(dump, cx, fn, &st->par);
	}
	free(fns);
}

/* a note for each outcome to stderr, one short line (with verbose, the
 * statistics too), and the report; the figures as the kernels leave */
static void
sayall(struct passctx *cx, struct ran *rn, const char *reportpath, int verbose)
{
	for (int i = 0; i < rn->ns; i++) {
		struct said *s = &rn->s[i];
		const char *name = s->st->pass->schema.name;
		char *kname = symstr(cx->m, s->fn->sym);
		if (s->applied && s->st->pass->recount)
			s->st->pass->recount(s->fn, &s->o);
		if (!s->applied)
			note("%s: kernel '%s' left alone: %s", name, kname, s->o.why);
		else if (verbose)
			note("%s: kernel '%s' applied: %s", name, kname, s->o.stats ? s->o.stats : "{}");
		else
			note("%s: kernel '%s' applied", name, kname);
		if (reportpath)
			report(reportpath, cx, s->st, s->fn, &s->o);
		free(kname);
		outcome_release(&s->o);
	}
	free(rn->s);
	free(rn->fn);
	free(rn->bits);
	*rn = (struct ran){0};
}

/* an analysis's dump of every function, or the module's PTX when it has
 * none of its own */
static void
dump(FILE *f, Module *m, void (*fndump)(FILE *, Fn *))
{
	if (!fndump) {
		if (print(f, m) < 0)
			die("cannot write the output");
		return;
	}
	for (uint k = 0; k < m->nfn; k++) {
		Fn *fn = m->fn[k];
		if (!(fn->flags & FDECL))
			fndump(f, fn);
	}
}

/* run step st; with dumping, print what -d asks for */
static void
runstep(struct passctx *cx, const struct step *st, int dumping, struct ran *rn)
{
	if (st->an) {
		st->an->run(cx->m);
		if (dumping)
			dump(stdout, cx->m, st->an->dump);
		return;
	}
	runpass(cx, st, dumping && st->pass->dump ? stdout : NULL, rn);
	if (dumping && !st->pass->dump)
		dump(stdout, cx->m, NULL);
}

/* the warning --warn NAME asks for, or an error before the input is read */
static int
warning(const char *name)
{
	int t = findwarning(name, strlen(name));
	const char *names[MAXPASS];
	int nn = 0;
	if (t >= 0)
		return t;
	for (int k = 0; k < npass; k++)
		if (passes[k]->warn)
			names[nn++] = passes[k]->warn->name;
	die("%s", unknown_msg("warning", name, "", names, nn));
}

/* --warn NAME: what mpcc --mpcc-warn=NAME says of in, on the targets sm;
 * changes nothing */
static int
warnings(const char *in, const char *name, const int *sm, int nsm)
{
	int t = warning(name);
	struct findings fs = {0};
	char *arch = nsm ? fmt("compute_%d", sm[0]) : NULL;
	struct hook h = {.src = in, .arch = arch, .sm = sm, .nsm = nsm};
	if (audit_ptx(in, &h, 1u << t, &fs) < 0)
		exit(1);
	audit_say(&fs, in, 0);
	free(fs.f);
	free(arch);
	return 0;
}

/* print straight into a temporary next to out (NULL: stdout), then
 * rename: a large module is not held a second time as text, and out is
 * never half written.
 * Only a regular file (or a new one) is replaced so: -o /dev/null or a
 * pipe is written in place, never renamed over. */
static void
output(Module *m, const char *out)
{
	struct stat st;
	char *tmp;
	FILE *f;

	if (!out) {
		if (setvbuf(stdout, NULL, _IOFBF, 1 << 20), print(stdout, m) < 0)
			die("cannot write the output");
		return;
	}
	if (stat(out, &st) == 0 && !S_ISREG(st.st_mode)) {
		if (!(f = fopen(out, "w")) || print(f, m) < 0 || fclose(f) != 0)
			die("cannot write '%s': %s", out, strerror(errno));
		return;
	}
	tmp = fmt("%s.tmp%ld", out, (long)getpid());
	f = fopen(tmp, "w");
	if (!f)
		die("cannot write '%s': %s", out, strerror(errno));
	setvbuf(f, NULL, _IOFBF, 1 << 20);
	if (print(f, m) < 0 || fclose(f) != 0 || rename(tmp, out) != 0) {
		remove(tmp);
		die("cannot write '%s': %s", out, strerror(errno));
	}
	free(tmp);
}

/* out can be written as output() will write it: in place when it is there
 * and not a regular file, else by a new file in its directory (a rename
 * replaces a read-only file, as mv does); else an error that names out,
 * before any pass runs */
static void
writable(const char *out)
{
	struct stat st;
	if (stat(out, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			die("cannot write '%s': %s", out, strerror(EISDIR));
		if (!S_ISREG(st.st_mode)) {
			if (access(out, W_OK) != 0)
				die("cannot write '%s': %s", out, strerror(errno));
			return;
		}
	}
	const char *slash = strrchr(out, '/');
	char *dir = !slash ? xstrdup(".") : slash == out ? xstrdup("/") : xstrndup(out, slash - out);
	if (access(dir, W_OK | X_OK) != 0)
		die("cannot write '%s': %s", out, strerror(errno));
	free(dir);
}

/* the command line */
struct opts {
	const char *in, *out, *dumpname, *reportpath, *warn, *pv[64];
	int np, sm[16], nsm, vfy, invalid, verbose;
};

/* mpcc-opt's options, for did-you-mean; the one-letter ones get none */
static const char *const longnames[] = {
	"arch", "help", "params", "pass-through-invalid", "report", "settings", "stats",
	"verify", "version", "warn",
};

/* an unknown option s: did-you-mean on its name without an '=VALUE'
 * (mpcc-opt takes a value as the next word: '--arch sm_90'), and LLVM
 * opt's -passes=NAME is mpcc-opt's -p NAME */
static _Noreturn void
badoption(const char *s)
{
	const char *eq = strchr(s, '='), *name = s + 1 + (s[1] == '-');
	char *bare = xstrndup(name, eq ? (size_t)(eq - name) : strlen(name));
	const char *near = suggest(bare, longnames, countof(longnames));
	if (!near && suggest(bare, (const char *const[]){"passes"}, 1))
		die("unknown option '%s'; did you mean '-p%s%s'?", s, eq ? " " : "", eq ? eq + 1 : "");
	int takes = near && (!strcmp(near, "arch") || !strcmp(near, "report") || !strcmp(near, "warn"));
	if (near && (eq || s[1] != '-'))
		die("unknown option '%s'; did you mean '--%s%s%s'?", s, near, eq && takes ? " " : "",
		    eq && takes ? eq + 1 : "");
	unknown_option(s, "--", longnames, countof(longnames), "mpcc-opt --help");
	exit(1);
}

/* one option or input at argv[*k]; 0 after one that prints and is done */
static int
option(struct opts *o, int argc, char **argv, int *k)
{
	const char *s = argv[*k], *v = *k + 1 < argc ? argv[*k + 1] : NULL;
	int takes = v && (!strcmp(s, "-o") || !strcmp(s, "-p") || !strcmp(s, "-d") ||
	                  !strcmp(s, "--warn") || !strcmp(s, "--report") || !strcmp(s, "--arch"));
	*k += takes;
	if (takes && !strcmp(s, "-o"))
		o->out = v;
	else if (takes && !strcmp(s, "-p")) {
		if (o->np == (int)countof(o->pv))
			die("too many passes");
		o->pv[o->np++] = v;
	} else if (takes && !strcmp(s, "-d"))
		o->dumpname = v;
	else if (takes && !strcmp(s, "--warn"))
		o->warn = v;
	else if (takes && !strcmp(s, "--report"))
		o->reportpath = v;
	else if (takes && !strcmp(s, "--arch")) {
		if (o->nsm == (int)countof(o->sm) || (o->sm[o->nsm++] = archnum(v)) < 0)
			die("--arch: expected sm_NN or compute_NN, not '%s'", v);
	} else if (!strcmp(s, "--verify"))
		o->vfy = 1;
	else if (!strcmp(s, "-v"))
		o->verbose = 1;
	else if (!strcmp(s, "--pass-through-invalid"))
		o->invalid = 1;
	else if (!strcmp(s, "-h") || !strcmp(s, "--help"))
		usage();
	else if (!strcmp(s, "--version"))
		return printf("mpcc-opt %s\n", MPCC_VERSION), 0;
	else if (listing(s))
		return 0;
	else if (s[0] == '-' && s[1])
		badoption(s);
	else if (o->in)
		die("more than one input: '%s' and '%s'", o->in, s);
	else
		o->in = s;
	return 1;
}

/* the input, checked: empty or not verifying, it is an error, unless
 * --pass-through-invalid, when it is copied out as it is (the passes
 * leave a kernel that does not verify alone); 1 if it verified */
static int
input(Module *m, const struct opts *o)
{
	int empty = !m->ntop && !m->version.n && !m->target.n;
	if (empty && !o->invalid) {
		error("'%s' holds no PTX", o->in);
		exit(1);
	}
	if (!empty && verify(m, o->invalid ? NULL : stderr) == 0)
		return 1;
	if (!o->invalid)
		exit(1);
	note("'%s' %s: copied out as it is (--pass-through-invalid)", o->in,
	     empty ? "holds no PTX" : "does not verify");
	return 0;
}

/* the steps, with --verify the verifier after each; -1 when one failed */
static int
steps(struct passctx *cx, const struct opts *o, struct step *st, int dumpk, struct ran *rn)
{
	for (int k = 0; k < o->np; k++)
		cx->keephash |= st[k].pass && params_hashed(&st[k].par);
	for (int k = 0; k < o->np; k++) {
		runstep(cx, &st[k], k == dumpk, rn);
		if (o->vfy && verify(cx->m, stderr)) {
			sayall(cx, rn, o->reportpath, o->verbose);
			error("the output of '%s' does not verify (a bug in mpcc): nothing written", o->pv[k]);
			return -1;
		}
	}
	return 0;
}

int
main(int argc, char **argv)
{
	struct opts o = {0};
	struct step st[64], dstep;
	Arena *a = arena_new();
	Module *m;

	progname = "mpcc-opt";
	passes_init();
	for (int k = 1; k < argc; k++)
		if (!option(&o, argc, argv, &k))
			return 0;
	if (!o.in)
		usage();
	for (int k = 0; k < o.np; k++)
		resolve(&st[k], o.pv[k], "", a);
	int dumpk = dumpat(st, o.pv, o.np, o.dumpname, &dstep, a);
	if (o.warn)
		warning(o.warn);
	else if (o.out && !o.dumpname)
		writable(o.out);
	if (!(m = parsefile(o.in)))
		return 1;
	parsedfn = m->nfn;
	int valid = input(m, &o);
	/* the targets: --arch, else the module's own .target */
	if (!o.nsm && (o.sm[0] = modtarget(m, NULL)) > 0)
		o.nsm = 1;
	if (o.warn) {
		mod_free(m);
		arena_free(a);
		return warnings(o.in, o.warn, o.sm, o.nsm);
	}
	char *arch = o.nsm ? fmt("compute_%d", o.sm[0]) : NULL;
	struct passctx cx = {.m = m, .src = o.in, .arch = arch, .sm = o.sm, .nsm = o.nsm};
	struct ran rn = {0};
	if (steps(&cx, &o, st, dumpk, &rn) < 0)
		return 1;
	if (o.dumpname && dumpk < 0)
		runstep(&cx, &dstep, 1, &rn);
	sayall(&cx, &rn, o.reportpath, o.verbose);
	passctx_release(&cx);
	/* what is written verifies, whatever the passes did */
	if (!o.dumpname && valid && verify(m, stderr)) {
		error("the output of the passes does not verify (a bug in mpcc): nothing written");
		return 1;
	}
	if (!o.dumpname)
		output(m, o.out);
	mod_free(m);
	arena_free(a);
	free(arch);
	return 0;
}
