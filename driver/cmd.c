/* cmd.c: from argv to struct cmd.
 * parse_args() takes mpcc's own --mpcc-* options out of the line (with their
 * MPCC_* variables as defaults; the warnings they name are the passes'
 * table's); analyze() then reads what nvcc will act on,
 * NVCC_PREPEND_FLAGS, the line, options files and NVCC_APPEND_FLAGS, to find
 * the inputs and the options the pipeline must treat specially. */
#include "driver/mpcc.h"
#include "transforms/pass.h"

#include <stdlib.h>
#include <string.h>

static void
setmp(struct cmd *c, const struct mpopt *o, const char *val)
{
	const char *n = o->name + strlen("--mpcc-");
	if (!strcmp(n, "check-policy"))
		c->check = val;
	else if (!strcmp(n, "dryrun"))
		c->dryrun = 1;
	else if (!strcmp(n, "explain"))
		c->explain = 1;
	else if (!strcmp(n, "force-pipeline"))
		c->force = 1;
	else if (!strcmp(n, "help"))
		c->help = 1;
	else if (!strcmp(n, "policy"))
		c->policy = val;
	else if (!strcmp(n, "policy-hash"))
		c->hash = 1, c->hashdir = val;
	else if (!strcmp(n, "profile"))
		c->profile = val;
	else if (!strcmp(n, "report"))
		c->report = val;
	else if (!strcmp(n, "report-no-ptxas"))
		c->noptxas = 1;
	else if (!strcmp(n, "summary"))
		c->summary = 1;
	else if (!strcmp(n, "version"))
		c->version = 1;
	else if (!strcmp(n, "warn"))
		args_push(&c->warns, val);
	else if (!strcmp(n, "werror"))
		args_push(&c->werrors, val);
	else
		BUG("mpcc option '%s' has no handler", o->name);
}

/* MPCC_* variables: a flag is on when its variable is set to anything but
 * "" or "0" */
static void
fromenv(struct cmd *c)
{
	for (int i = 0; i < nmpopts; i++) {
		const char *e = mpopts[i].env ? getenv(mpopts[i].env) : NULL;
		if (!e || !*e || (!mpopts[i].value && !strcmp(e, "0")))
			continue;
		setmp(c, &mpopts[i], e);
	}
}

/* "unknown option '--mpcc-x'; did you mean '--mpcc-y'?" as for a policy's
 * keys, else where the options are listed: 'man mpcc' finds nothing before
 * mpcc is installed */
static void
unknownopt(const char *name)
{
	const char **names = xcalloc(nmpopts, sizeof *names);
	size_t pre = strlen("--mpcc-");
	for (int i = 0; i < nmpopts; i++)
		names[i] = mpopts[i].name + pre;
	unknown_option(name, "--mpcc-", names, nmpopts, "mpcc --mpcc-help");
	free(names);
}

/* one --mpcc-* argument; -1 after an error message */
static int
mparg(struct cmd *c, const char *arg)
{
	const char *eq = strchr(arg, '=');
	char *name = eq ? xstrndup(arg, eq - arg) : xstrdup(arg);
	const struct mpopt *o = mpopt(name);
	int r = 0;
	if (!o) {
		unknownopt(name);
		r = -1;
	} else if (o->value == 1 && (!eq || !eq[1])) {
		error("option '%s' needs a value: '%s=...'", name, name);
		r = -1;
	} else if (!o->value && eq) {
		error("option '%s' takes no value", name);
		r = -1;
	} else
		setmp(c, o, eq ? eq + 1 : NULL);
	free(name);
	return r;
}

/* "unknown warning 'w' in OPT=LIST", with the passes' warnings */
static void
unknownwarning(const char *w, size_t n, const char *opt, const char *list)
{
	const char *names[MAXPASS];
	int nn = 0;
	for (int t = 0; t < npass; t++)
		if (passes[t]->warn)
			names[nn++] = passes[t]->warn->name;
	char *s = xstrndup(w, n), *in = fmt(" in %s=%s", opt, list);
	char *m = unknown_msg("warning", s, in, names, nn);
	error("%s", m);
	free(m);
	free(in);
	free(s);
}

/* the passes whose warnings the lists l name (NAME,...), into *mask; -1
 * after an error */
static int
warnings(const struct args *l, const char *opt, uint *mask)
{
	for (int i = 0; i < l->n; i++)
		for (const char *s = l->v[i], *e; *s; s = *e ? e + 1 : e) {
			e = until(s, ',');
			int t = e > s ? findwarning(s, e - s) : -1;
			if (t < 0)
				return unknownwarning(s, e - s, opt, l->v[i]), -1;
			*mask |= 1u << t;
		}
	return 0;
}

/* 0, or -1 after printing what is wrong with an --mpcc-* option */
int
parse_args(struct cmd *c, int argc, char **argv)
{
	*c = (struct cmd){0};
	fromenv(c);
	for (int i = 1; i < argc; i++) {
		if (!startswith(argv[i], "--mpcc-"))
			args_push(&c->nv, argv[i]);
		else if (mparg(c, argv[i]) < 0)
			return -1;
	}
	if (warnings(&c->warns, "--mpcc-warn", &c->warn) < 0 ||
	    warnings(&c->werrors, "--mpcc-werror", &c->werror) < 0)
		return -1;
	c->warn |= c->werror;
	return 0;
}

static void
unsup(struct cmd *c, char *why)
{
	if (!c->unsup)
		c->unsup = why;
	else
		free(why);
}

static int
iscuda(const char *path, const char *lang)
{
	if (lang)
		return !strcmp(lang, "cu");
	return endswith(path, ".cu");
}

struct scan {
	const char *where;  /* "NVCC_APPEND_FLAGS", an options file, or NULL: the line */
	const char *lang;
	int depth;
};

static void scanv(struct cmd *c, struct scan *s, char **v, int n);

static void
optfile(struct cmd *c, struct scan *s, const char *list)
{
	char *copy = xstrdup(list);
	for (char *p = strtok(copy, ","); p; p = strtok(NULL, ",")) {
		char *text = readfile(p, NULL);
		struct args a = ARGS_INIT;
		if (!text || shsplit(&a, text, NULL) < 0 || s->depth > 8) {
			unsup(c, fmt("cannot read options file '%s'", p));
		} else {
			struct scan sub = {p, s->lang, s->depth + 1};
			scanv(c, &sub, a.v, a.n);
			s->lang = sub.lang;
		}
		args_release(&a);
		free(text);
	}
	free(copy);
}

/* what one option means for the pipeline */
static void
option(struct cmd *c, struct scan *s, const char *arg, const struct opt *o, const char *val)
{
	uint f = o->flags;
	if (f & THREADS) {
		if (s->where)
			unsup(c, fmt("'%s' in %s", arg, s->where));
		c->threads = 1;
	}
	if (f & VERBOSE)
		c->verbose = 1;
	if (f & DRYRUN)
		c->nvdryrun = 1;
	if (f & INFO)
		c->info = 1;
	if (f & UNSUP)
		unsup(c, fmt("unsupported option '%s'", arg));
	if ((f & LANG) && val)
		s->lang = xstrdup(val);
	if ((f & OUT) && val)
		c->out = xstrdup(val);
	if ((f & OPTF) && val)
		optfile(c, s, val);
	if (f & DEPSONLY)
		c->depsonly = c->deps = 1;
	if (f & DEPS)
		c->deps = 1;
	if (f & NONSYS)
		c->nonsys = 1;
	if (f & PHONY)
		c->phony = 1;
	if (f & KEEP)
		c->keep = 1;
	if ((f & KEEPDIR) && val)
		c->keepdir = xstrdup(val);
	if ((f & DEPTARGET) && val)
		c->deptarget = xstrdup(val);
}

static void
scanv(struct cmd *c, struct scan *s, char **v, int n)
{
	for (int i = 0; i < n; i++) {
		const char *val;
		const struct opt *o;
		if (v[i][0] != '-' || !v[i][1]) {
			if (!strcmp(v[i], "-"))
				unsup(c, xstrdup("input from stdin"));
			args_push(&c->inputs, v[i]);
			continue;
		}
		const char *arg = v[i];
		if (!(o = nvopt(arg, &val)))
			continue;
		if ((o->flags & ARG) && !val && i + 1 < n)
			val = v[++i];
		option(c, s, arg, o, val);
	}
}

static void
scanenv(struct cmd *c, struct scan *s, const char *var)
{
	const char *e = getenv(var);
	struct args a = ARGS_INIT;
	if (!e)
		return;
	s->where = var;
	if (shsplit(&a, e, NULL) < 0)
		unsup(c, fmt("cannot split %s", var));
	scanv(c, s, a.v, a.n);
	s->where = NULL;
	args_release(&a);
}

void
analyze(struct cmd *c)
{
	struct scan s = {0};
	scanenv(c, &s, "NVCC_PREPEND_FLAGS");
	scanv(c, &s, c->nv.v, c->nv.n);
	scanenv(c, &s, "NVCC_APPEND_FLAGS");
	for (int i = 0; i < c->inputs.n; i++)
		if (iscuda(c->inputs.v[i], s.lang))
			args_push(&c->cu, c->inputs.v[i]);
}

static int
skip_for_dryrun(const struct opt *o, int explain)
{
	if (o->flags & THREADS)
		return 1;   /* nvcc 13 turns -t into redirected steps under -dryrun */
	return explain && (o->flags & (KEEP | KEEPDIR));
}

/* the arguments of the nvcc -dryrun run: the line without -t (mpcc runs the
 * steps one by one) and, for --mpcc-explain, without --keep */
void
dryrun_args(const struct cmd *c, struct args *out, int explain)
{
	args_push(out, "-dryrun");
	for (int i = 0; i < c->nv.n; i++) {
		const char *val, *a = c->nv.v[i];
		const struct opt *o = a[0] == '-' ? nvopt(a, &val) : NULL;
		int take = o && (o->flags & ARG) && !val && i + 1 < c->nv.n;
		if (o && skip_for_dryrun(o, explain)) {
			i += take;
			continue;
		}
		args_push(out, a);
		if (take)
			args_push(out, c->nv.v[++i]);
	}
}

/* the .cu inputs as --mpcc-summary names them: "a.cu, b.cu" (malloc'd) */
char *
cmd_sources(const struct cmd *c)
{
	struct buf b = BUF_INIT;
	for (int i = 0; i < c->cu.n; i++)
		buf_printf(&b, "%s%s", i ? ", " : "", c->cu.v[i]);
	return buf_take(&b);
}

/* --mpcc-summary's line for a compile where no rule changed a kernel;
 * none for a line that compiles no CUDA or builds nothing */
void
summary_kept(const struct cmd *c)
{
	if (!c->summary || !c->cu.n || c->dryrun || c->nvdryrun || c->explain || c->depsonly)
		return;
	char *src = cmd_sources(c);
	note("%s: no rule applies: nvcc's code is kept (--mpcc-explain says why)", src);
	free(src);
}

void
cmd_release(struct cmd *c)
{
	args_release(&c->nv);
	args_release(&c->inputs);
	args_release(&c->cu);
	args_release(&c->cache);
	args_release(&c->warns);
	args_release(&c->werrors);
	free(c->unsup);
	free(c->nvcc);
}
