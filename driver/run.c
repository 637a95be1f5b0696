/* run.c: the pipeline with the PTX hook.
 * nvcc -dryrun and every step run with TMPDIR set to a private directory,
 * so their temporaries never meet another compile's; then mpcc replays the steps as
 * nvcc would: variables exported, each command through "sh -c". After every
 * cicc step that writes a .ptx, the hook (transforms/pipeline.c) rewrites it
 * in place, a copy of nvcc's PTX kept aside; if ptxas rejects the rewritten
 * PTX, nvcc's PTX is put back and ptxas runs again. Under --mpcc-warn the
 * hook first audits nvcc's PTX, changing nothing (transforms/audit.c), and
 * the warnings are said once the compile is done. The fast-math cicc runs
 * that sfu rules will surely ask for start beside the accurate cicc, so
 * that a build machine's cores hide them; the others run on demand. With
 * MPCC_STEP_CACHE (mpcc-tune), nvcc's temporary names are made fixed and
 * every command runs through the step cache (stepcache.c), in a child of
 * mpcc. */
#include "common/spawn.h"
#include "driver/mpcc.h"
#include "transforms/pass.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *tmpdir;          /* removed at exit and on SIGINT/SIGTERM/SIGHUP/SIGPIPE */
static char *tmptempl;        /* its mkdtemp template */
static char *usertmp;         /* TMPDIR as mpcc found it, or NULL */
static const char *stepdir;   /* MPCC_STEP_CACHE, or NULL */

static pid_t tmpowner;        /* the process that made tmpdir, and removes it */

static void
cleanup(void)
{
	if (tmpdir && getpid() == tmpowner)
		rmtree(tmpdir);
	tmpdir = NULL;
}

static void
mktmp(void)
{
	const char *t = getenv("TMPDIR");
	usertmp = t ? xstrdup(t) : NULL;
	char *templ = fmt("%s/mpcc-XXXXXX", t && *t ? t : "/tmp");
	tmptempl = xstrdup(templ);
	if (!mkdtemp(templ))
		die("cannot create a temporary directory '%s': %s", templ, strerror(errno));
	tmpdir = templ;
	tmpowner = getpid();
	atexit(cleanup);
	/* the steps' own scratch files (cicc's lgenfe.bc, gcc's) go there too,
	 * so that nothing is left behind when a step is killed */
	setenv("TMPDIR", tmpdir, 1);
	spawn_forward(cleanup);
}

/* start lines[0..n) one after the other, each with its stderr to errs[i]
 * (NULL: mpcc's), in a child of mpcc that runs them through the step cache
 * when there is one; the child and what it runs are one process group, so
 * that a signal reaches them all */
static pid_t
jobstart(const char *const *lines, const char *const *errs, int n)
{
	pid_t pid = spawn_fork();
	if (pid == 0) {
		int st = 0;
		for (int i = 0; i < n; i++)
			st = stepcache_run(stepdir, tmpdir, tmptempl, lines[i], errs[i]);
		_exit(st);
	}
	return pid;
}

static pid_t
shstart(const char *line, const char *err)
{
	if (stepdir)
		return jobstart(&line, &err, 1);
	char *argv[] = {"/bin/sh", "-c", (char *)line, NULL};
	return spawn_start(&(struct spawn){.argv = argv, .err = err, .group = 1});
}

static int
sh(const char *line, const char *err)
{
	return spawn_wait(shstart(line, err));
}

static const char *
env(const char *name)
{
	return getenv(name);
}

static int
samefile(const char *a, const char *b)
{
	size_t na, nb;
	char *x = readfile(a, &na), *y = readfile(b, &nb);
	int same = x && y && na == nb && !memcmp(x, y, na);
	free(x);
	free(y);
	return same;
}

/* "dir/x.ptx" -> "dir/x" */
static char *
stem(const char *ptx)
{
	return xstrndup(ptx, strlen(ptx) - (endswith(ptx, ".ptx") ? 4 : 0));
}

struct ptx {                  /* a PTX file cicc wrote and the hook saw */
	char *path, *orig;        /* orig: nvcc's PTX, kept aside */
	char *src, *arch;         /* arch: compute_NN */
	const struct profile *prof;
	int changed, assembled;   /* assembled: a ptxas step has read it */
	const char *restored;     /* why the hook's PTX was replaced by nvcc's, or NULL */
	struct reports reports;   /* the hook's report lines, written at the end */
	struct figures figs;      /* ptxas -v on it, for those lines */
	struct figures before;    /* ptxas -v on nvcc's PTX, when the hook changed it */
	struct args kernels;      /* the mangled names of its kernels */
	char *stub;               /* cicc's stub, which the host compile includes */
	struct args table;        /* the lines of the host object's table it gave */
};

struct run {
	struct cmd *c;
	struct profile **prof;    /* of each c->cu */
	struct ptx *ptx;
	int nptx, cap;
	int nfile;                /* numbers mpcc's own temporaries */
	struct step *step;        /* nvcc's steps, and the one running */
	int nstep, cur;
	int warned;
	char *ppout;              /* -o of the first preprocessing (-E) step of the
	                           * current input: nvcc's deps filter reads it */
	int ppcu;                 /* that input's index in c->cu, or -1 */
	struct fast *fast;        /* of the cicc step running now */
	struct tally tally;       /* for --mpcc-summary */
	struct findings found;    /* --mpcc-warn: said once every chain is done */
	struct pending {          /* the ptxas -v runs going on for the report */
		pid_t pid;            /* 0: none */
		int k;                /* of ptx[k] */
		char *nverr, *err;    /* their stderr: on nvcc's PTX and on the hook's */
	} pend;
};

struct fast {                 /* hook.drv: the fast-math runs of one cicc step */
	struct run *r;
	const struct args *cicc;
	char *prefix;
	char *path[AX_ALL + 1];   /* the PTX of each mask whose run succeeded */
	pid_t pid[AX_ALL + 1];    /* started, not waited for yet */
	uchar tried[AX_ALL + 1];
	double waited;            /* seconds the hook waited for them */
};

static int count(const struct args *a, const char *s);
static const char *progname_of(const struct args *a);

/* private names: beside nvcc's kept files under --keep, else in tmpdir */
static char *
privname(struct run *r, const char *ptx, const char *what)
{
	if (r->c->keep) {
		char *s = stem(ptx), *p = fmt("%s.%s", s, what);
		free(s);
		return p;
	}
	return fmt("%s/%d.%s", tmpdir, r->nfile++, what);
}

static void
faststart(struct fast *f, uint mask)
{
	f->tried[mask] = 1;
	char *prefix = fmt("%s.fast%u", f->prefix, mask);
	char *err = fmt("%s/%d.fast.err", tmpdir, f->r->nfile++);
	struct args a = ARGS_INIT;
	fast_args(&a, f->cicc, mask, prefix);
	char *line = args_join(&a);
	f->pid[mask] = shstart(line, err);
	f->path[mask] = fmt("%s.ptx", prefix);
	free(line);
	free(err);
	free(prefix);
	args_release(&a);
}

static const char *
fastptx(void *drv, uint mask)
{
	struct fast *f = drv;
	mask &= AX_ALL;
	if (!f->tried[mask])
		faststart(f, mask);
	if (f->pid[mask] > 0) {
		double t0 = now();
		int st = spawn_wait(f->pid[mask]);
		f->waited += now() - t0;
		if (st != 0) {
			free(f->path[mask]);
			f->path[mask] = NULL;
		}
		f->pid[mask] = 0;
	}
	return f->path[mask];
}

/* the .cu input that cicc compiles, by the real path nvcc passes it */
static int
whichcu(struct run *r, const struct args *cicc)
{
	const char *src = optval(cicc, "--orig_src_path_name");
	char want[PATH_MAX], have[PATH_MAX];
	if (!src || !realpath(src, want))
		return -1;
	for (int i = 0; i < r->c->cu.n; i++)
		if (realpath(r->c->cu.v[i], have) && !strcmp(want, have))
			return i;
	return -1;
}

/* MPCC_DEBUG_BREAK_PTX: make the hook's output something ptxas rejects, to
 * exercise the fallback to nvcc's PTX */
static void
breakptx(const char *path)
{
	FILE *f = fopen(path, "a");
	if (f) {
		fputs("\n.mpcc_broken_on_purpose\n", f);
		fclose(f);
	}
}

/* the preprocessed source that the cicc line a reads, or NULL */
static const char *
ciccinput(const struct args *a)
{
	for (int i = 1; i < a->n; i++)
		if (endswith(a->v[i], ".ii") && strcmp(a->v[i - 1], "-o"))
			return a->v[i];
	return NULL;
}

/* the PTX that the cicc step a writes, or NULL. cicc's -o is its PTX
 * whatever its name (-ptx -o k.x writes it straight to the user's file),
 * except under -lto, where it is NVVM IR (-dlto names the PTX -o and the
 * IR -olto) */
static const char *
ciccptx(const struct args *a)
{
	if (strcmp(progname_of(a), "cicc") || count(a, "-lto"))
		return NULL;
	return optval(a, "-o");
}

/* the cicc step a writes PTX: set up its fast-math runs, and start those
 * that the policy will likely ask for */
static struct fast *
fastbegin(struct run *r, const struct args *a)
{
	const char *path = ciccptx(a);
	if (!path)
		return NULL;
	struct fast *f = xcalloc(1, sizeof *f);
	f->r = r;
	f->cicc = a;
	f->prefix = privname(r, path, "mpcc");
	int k = whichcu(r, a);
	uint set = 0;
	if (k >= 0 && !r->c->explain && profile_may_apply(r->prof[k], r->c->cu.v[k])) {
		size_t n = 0;
		char *text = ciccinput(a) ? readfile(ciccinput(a), &n) : NULL;
		set = pipeline_fastmasks(r->prof[k], r->c->cu.v[k], text, n);
		free(text);
	}
	for (uint m = 0; m <= AX_ALL; m++)
		if (set & 1u << m)
			faststart(f, m);
	return f;
}

/* stop the runs nobody asked for */
static void
fastend(struct fast *f)
{
	if (!f)
		return;
	for (int m = 0; m <= AX_ALL; m++) {
		if (f->pid[m] > 0) {
			kill(-f->pid[m], SIGTERM);
			spawn_wait(f->pid[m]);
			char *prefix = fmt("%s.fast%d", f->prefix, m);
			fast_unlink(prefix);  /* under --keep it is beside nvcc's files */
			free(prefix);
		}
		free(f->path[m]);
	}
	free(f->prefix);
	free(f);
}

/* the sm_NN of the ptxas steps still to come that read path */
static int
targets(struct run *r, const char *path, int *sm, int max)
{
	int n = 0;
	for (int i = r->cur + 1; i < r->nstep && n < max; i++) {
		struct args a = ARGS_INIT;
		const struct step *s = &r->step[i];
		if (s->kind == S_CMD && shsplit(&a, s->line, env) == 0 &&
		    !strcmp(progname_of(&a), "ptxas") && count(&a, path)) {
			const char *v = optval(&a, "-arch");
			for (int j = 1; !v && j < a.n; j++)
				if (startswith(a.v[j], "-arch="))
					v = a.v[j] + 6;
			int k = archnum(v);
			for (int j = 0; j < n && k > 0; j++)
				k = sm[j] == k ? -1 : k;
			if (k > 0)
				sm[n++] = k;
		}
		args_release(&a);
	}
	return n;
}

/* does a fatbinary step still to come embed path as PTX (kind=ptx), for
 * the driver to JIT-compile on GPUs the cubins do not cover? */
static int
embeds(struct run *r, const char *path)
{
	int yes = 0;
	for (int i = r->cur + 1; i < r->nstep && !yes; i++) {
		struct args a = ARGS_INIT;
		const struct step *s = &r->step[i];
		if (s->kind == S_CMD && shsplit(&a, s->line, env) == 0 &&
		    !strcmp(progname_of(&a), "fatbinary"))
			for (int j = 1; j < a.n && !yes; j++)
				yes = strstr(a.v[j], "kind=ptx") && strstr(a.v[j], path);
		args_release(&a);
	}
	return yes;
}

/* is a finding of src an error (--mpcc-werror)? */
static int
iserror(const struct run *r, const char *src)
{
	for (int i = 0; i < r->found.n; i++) {
		const struct found *f = &r->found.f[i];
		if (f->kernel && !strcmp(f->src, src) && (r->c->werror & 1u << f->pass))
			return 1;
	}
	return 0;
}

/* --mpcc-warn: the audits of the PTX at path that cicc just wrote, as nvcc
 * wrote it; 1 if one is an error: then it is said, and the PTX removed
 * when it is the compile's output (-ptx), as nvcc leaves no output after
 * an error */
static int
audit(struct run *r, const struct args *cicc, const char *path, int k)
{
	int sm[16];
	struct hook h = {
		.src = k >= 0 ? r->c->cu.v[k] : optval(cicc, "--orig_src_file_name"),
		.arch = optval(cicc, "-arch"),
		.sm = sm,
		.nsm = targets(r, path, sm, countof(sm)),
		.jit = embeds(r, path),
	};
	if (!h.src || audit_ptx(path, &h, r->c->warn, &r->found) < 0 || !iserror(r, h.src))
		return 0;
	audit_say(&r->found, h.src, r->c->werror);
	if (!h.nsm && !h.jit)
		unlink(path);
	return 1;
}

/* the PTX hook on what cicc just wrote; 1 if the compile must fail */
static int
hook(struct run *r, const struct args *cicc)
{
	const char *path = ciccptx(cicc);
	if (!path || !r->fast)
		return 0;
	int k = whichcu(r, cicc);
	if (r->c->warn && !r->c->explain && audit(r, cicc, path, k))
		return 1;
	/* a compile that takes the pipeline only for its dependency output
	 * (or for another input) leaves this PTX as cicc wrote it */
	if (!r->c->force && !r->c->explain &&
	    !(k >= 0 && r->prof[k] && profile_may_apply(r->prof[k], r->c->cu.v[k])))
		return 0;
	vgrow(r->ptx, r->nptx, r->cap);
	struct ptx *p = &r->ptx[r->nptx++];
	*p = (struct ptx){0};
	p->path = xstrdup(path);
	p->orig = privname(r, path, "orig.ptx");
	p->src = xstrdup(k >= 0 ? r->c->cu.v[k] : optval(cicc, "--orig_src_file_name"));
	p->prof = k >= 0 ? r->prof[k] : NULL;
	p->arch = optval(cicc, "-arch") ? xstrdup(optval(cicc, "-arch")) : NULL;
	p->changed = p->assembled = 0;
	if (copyfile(path, p->orig) != 0) {
		warn("cannot copy '%s' to '%s': %s; leaving it as nvcc made it", path, p->orig,
		     strerror(errno));
		return 0;
	}
	int sm[16];
	struct hook h = {
		.src = p->src,
		.arch = optval(cicc, "-arch"),
		.sm = sm,
		.nsm = targets(r, path, sm, countof(sm)),
		.jit = embeds(r, path),
		.prof = p->prof,
		.fastptx = fastptx,
		.drv = r->fast,
		.reports = r->c->report ? &p->reports : NULL,
		.explain = r->c->explain ? stdout : NULL,
		.kernels = &p->kernels,
		.table = &p->table,
		.tally = &r->tally,
	};
	p->stub = optval(cicc, "--stub_file_name") ? xstrdup(optval(cicc, "--stub_file_name")) : NULL;
	int st = contained_pipeline(path, &h, tmpdir);
	if (st != 0) {   /* the report must not say applied */
		if (!samefile(path, p->orig))
			copyfile(p->orig, path);
		p->restored = "the pipeline failed: nvcc's PTX was used";
		args_release(&p->table);
	}
	if (getenv("MPCC_DEBUG_BREAK_PTX"))
		breakptx(path);
	if (getenv("MPCC_DEBUG_FASTPTX"))  /* run the fast cicc as a pass would */
		fastptx(r->fast, strtoul(getenv("MPCC_DEBUG_FASTPTX"), NULL, 0));
	p->changed = !samefile(path, p->orig);
	return st > 0;
}

static void
assembled(struct run *r, const struct args *a)
{
	for (int i = 0; i < r->nptx; i++)
		for (int j = 1; j < a->n; j++)
			if (!strcmp(a->v[j], r->ptx[i].path))
				r->ptx[i].assembled = 1;
}

static struct ptx *
changedinput(struct run *r, const struct args *a)
{
	for (int i = 0; i < r->nptx; i++)
		if (r->ptx[i].changed)
			for (int j = 1; j < a->n; j++)
				if (!strcmp(a->v[j], r->ptx[i].path))
					return &r->ptx[i];
	return NULL;
}

/* ptxas -v on the PTX that the ptxas line a just accepted, for the
 * entries named (figures_line()); NULL if none. malloc'd */
static char *
ptxasv(struct run *r, const struct args *a, const char *in, const char *in2,
       const struct args *entries)
{
	if (!entries->n)
		return NULL;
	char *cubin = fmt("%s/%d.figures.cubin", tmpdir, r->nfile++);
	char *line = figures_line(a, in, in2, entries, cubin);
	free(cubin);
	return line;
}

static void
addname(struct args *a, const char *s)
{
	for (int i = 0; i < a->n; i++)
		if (!strcmp(a->v[i], s))
			return;
	args_push(a, s);
}

/* the figures of the runs started last, into their PTX's report */
static void
collectfigures(struct run *r)
{
	struct pending *g = &r->pend;
	struct ptx *p = &r->ptx[g->k];
	char *text;
	if (!g->pid)
		return;
	spawn_wait(g->pid);
	if ((text = readfile(g->nverr, NULL)))
		figures_parse(&p->before, text);
	free(text);
	if ((text = readfile(g->err, NULL)))
		figures_parse(&p->figs, text);
	free(text);
	free(g->nverr);
	free(g->err);
	*g = (struct pending){0};
}

/* The figures of the kernels of p that a transform changed: as shipped,
 * and as nvcc built them (registers_before); of those kernels alone (ptxas
 * -e), since a kernel left alone is nvcc's. The two runs go on beside the
 * steps that follow (fatbinary, the host compiler), one batch at a time;
 * run_pipeline() collects the last. Compiling the whole module twice more
 * was most of what a report cost (bench/compile-time.py) */
static void
measure(struct run *r, const struct args *a, struct ptx *p)
{
	struct args changed = ARGS_INIT;
	collectfigures(r);
	for (int i = 0; p->changed && i < p->reports.n; i++)
		if (p->reports.r[i].applied)
			addname(&changed, p->reports.r[i].mangled);
	struct pending g = {.k = p - r->ptx};
	g.nverr = fmt("%s/%d.figures.err", tmpdir, r->nfile++);
	g.err = fmt("%s/%d.figures.err", tmpdir, r->nfile++);
	char *l1 = ptxasv(r, a, p->path, p->orig, &changed);
	char *l2 = ptxasv(r, a, p->path, NULL, &changed);
	if (l1 && l2) {
		g.pid = jobstart((const char *[]){l1, l2}, (const char *[]){g.nverr, g.err}, 2);
		r->pend = g;
	} else {
		free(g.nverr);
		free(g.err);
	}
	free(l1);
	free(l2);
	args_release(&changed);
}

/* a ptxas step read PTX whose kernels have report lines: their figures */
static void
measureall(struct run *r, const struct args *a)
{
	for (int i = 0; i < r->nptx; i++)
		if (r->ptx[i].reports.n && count(a, r->ptx[i].path))
			measure(r, a, &r->ptx[i]);
}

/* ptxas on PTX that the hook changed: on failure put nvcc's PTX back */
static int
ptxas(struct run *r, const char *line, struct ptx *p)
{
	char *err = fmt("%s/%d.ptxas.err", tmpdir, r->nfile++);
	int st = sh(line, err);
	int unsup = p->prof ? p->prof->on_unsupported : UNSUP_WARN;
	if (st == 0 || unsup == UNSUP_ERROR)
		catfile(err, stderr);
	free(err);
	if (st == 0)
		return 0;
	if (unsup == UNSUP_ERROR) {
		error("ptxas rejected the PTX that mpcc transformed from '%s'", p->src);
		return 1;
	}
	if (unsup == UNSUP_WARN && !r->warned++)
		warn("ptxas rejected the PTX that mpcc transformed from '%s': using nvcc's PTX",
		     p->src);
	for (int i = 0; i < r->nptx; i++)
		if (r->ptx[i].changed && !strcmp(r->ptx[i].path, p->path)) {
			copyfile(r->ptx[i].orig, r->ptx[i].path);
			r->ptx[i].changed = 0;
			r->ptx[i].restored = "ptxas rejected the transformed PTX: nvcc's PTX was used";
			args_release(&r->ptx[i].table);   /* nvcc's PTX has no clones */
		}
	return -1;
}

/* -ptx ships the hook's PTX without ptxas: assemble it once to check it */
static int
checkptx(struct run *r, struct ptx *p)
{
	if (!p->changed || p->assembled || !p->arch || !startswith(p->arch, "compute_"))
		return 0;
	struct args a = ARGS_INIT;
	args_push(&a, "ptxas");
	args_pushf(&a, "-arch=sm_%s", p->arch + strlen("compute_"));
	args_push(&a, p->path);
	args_push(&a, "-o");
	args_pushf(&a, "%s/%d.check.cubin", tmpdir, r->nfile++);
	char *line = args_join(&a);
	int st;
	while ((st = ptxas(r, line, p)) < 0 && p->changed)
		;
	p->assembled = st == 0;
	if (st == 0 && p->reports.n)
		measure(r, &a, p);
	free(line);
	args_release(&a);
	return st > 0 ? st : 0;
}

/* a step other than ptxas reads a rewritten PTX that no ptxas has checked
 * (fatbinary for -arch=compute_NN, which embeds PTX only): check it first */
static int
checkreaders(struct run *r, const char *line)
{
	for (int i = 0; i < r->nptx; i++) {
		struct ptx *p = &r->ptx[i];
		int st = p->changed && !p->assembled && strstr(line, p->path) ? checkptx(r, p) : 0;
		if (st)
			return st;
	}
	return 0;
}

/* the host compile a is about to read a stub cicc wrote: the table of
 * every chain of its source goes in first, once; 1 if it cannot be
 * written */
static int
stubtables(struct run *r, const struct args *a)
{
	for (int i = 0; i < r->nptx; i++) {
		struct ptx *p = &r->ptx[i];
		const struct args *chain[16];
		struct args lines = ARGS_INIT;
		int reads = 0, n = 0, st;
		if (!p->stub || !endswith(p->stub, ".stub.c"))
			continue;
		char *stem = xstrndup(p->stub, strlen(p->stub) - strlen(".stub.c"));
		for (int j = 1; j < a->n && !reads; j++)
			reads = startswith(a->v[j], stem) && endswith(a->v[j], ".cpp");
		free(stem);
		for (int j = 0; reads && j < r->nptx; j++) {
			struct ptx *q = &r->ptx[j];
			if (strcmp(q->src, p->src))
				continue;
			if (q->table.n && n < (int)countof(chain))
				chain[n++] = &q->table;
			if (q != p)
				free(q->stub), q->stub = NULL;
		}
		if (!reads)
			continue;
		table_merge(chain, n, &lines);
		st = table_write(p->stub, &lines);
		if (st == 1)
			note("%s: store: a -rdc compile registers its kernels through the device link, "
			     "where mpcc's runtime cannot find their clones: they run as they are", p->src);
		free(p->stub);
		p->stub = NULL;
		args_release(&lines);
		if (st < 0)
			return 1;
	}
	return 0;
}

static int
count(const struct args *a, const char *s)
{
	int n = 0;
	for (int i = 1; i < a->n; i++)
		n += !strcmp(a->v[i], s);
	return n;
}

static const char *
progname_of(const struct args *a)
{
	if (!a->n)
		return "";
	const char *s = strrchr(a->v[0], '/');
	return s ? s + 1 : a->v[0];
}

/* --mpcc-explain builds nothing: cicc writes into tmpdir, not to -o */
static char *
explainline(struct run *r, struct args *a, const char *line)
{
	int i = optindex(a, "-o");
	if (i < 0 || startswith(a->v[i], tmpdir))
		return xstrdup(line);
	free(a->v[i]);
	a->v[i] = fmt("%s/%d.explain.ptx", tmpdir, r->nfile++);
	return args_join(a);
}

/* --mpcc-explain needs only the steps that lead to cicc's PTX: the
 * preprocessing (-E) that cicc reads, cudafe++ (the module id file) and
 * cicc itself. Nothing that assembles, compiles host code or links: with
 * several inputs, the first one's host compile comes before the last
 * cicc, and would include the fatbinary that was never made */
static int
explain_skips(const struct args *a, const char *prog)
{
	if (!strcmp(prog, "cicc") || !strcmp(prog, "cudafe++"))
		return 0;
	const char *o = optval(a, "-o");
	return !count(a, "-E") || (o && !startswith(o, tmpdir));
}

static int
command(struct run *r, const struct step *s)
{
	struct args a = ARGS_INIT;
	int st;
	if (shsplit(&a, s->line, env) < 0)
		args_release(&a);
	const char *prog = progname_of(&a);
	if (r->c->explain && explain_skips(&a, prog)) {
		args_release(&a);
		return 0;
	}
	char *line = r->c->explain && !strcmp(prog, "cicc") ? explainline(r, &a, s->line)
	                                                   : xstrdup(s->line);
	if (!strcmp(prog, "rm")) {
		/* nvcc removes its temporaries itself, quietly if one was never made */
		for (int i = 1; i < a.n; i++)
			unlink(a.v[i]);
		args_release(&a);
		free(line);
		return 0;
	}
	if (strcmp(prog, "ptxas") && (st = checkreaders(r, s->line)) != 0) {
		args_release(&a);
		free(line);
		return st;
	}
	if (count(&a, "-c") && (st = stubtables(r, &a)) != 0) {
		args_release(&a);
		free(line);
		return st;
	}
	struct ptx *p = !strcmp(prog, "ptxas") ? changedinput(r, &a) : NULL;
	while (p && (st = ptxas(r, line, p)) < 0)
		p = changedinput(r, &a);
	r->fast = fastbegin(r, &a);
	if (!p)
		st = sh(line, NULL);
	if (!strcmp(prog, "ptxas")) {
		assembled(r, &a);
		if (st == 0 && r->c->report && !r->c->noptxas)
			measureall(r, &a);
	}
	free(line);
	if (st == 0 && r->fast) {
		double t0 = now();
		st = hook(r, &a);
		if (stepdir)   /* the fast-math cicc it waited for is a step of its own */
			stepcache_time("transform", now() - t0 - r->fast->waited, "run");
	}
	fastend(r->fast);
	r->fast = NULL;
	if (count(&a, "-E") == 0) {
		free(r->ppout);
		r->ppout = NULL;
	} else if (!r->ppout && optval(&a, "-o")) {
		r->ppout = xstrdup(optval(&a, "-o"));
		r->ppcu = -1;
		for (int i = 0; i < r->c->cu.n; i++)
			if (count(&a, r->c->cu.v[i]))
				r->ppcu = i;
	}
	args_release(&a);
	return st;
}

static int
deps(struct run *r, const struct step *s)
{
	const struct cmd *c = r->c;
	const char *target = c->deptarget;
	if (!target && !c->depsonly && c->inputs.n == 1)
		target = c->out;
	FILE *f = s->depsout ? fopen(s->depsout, "w") : stdout;
	if (!f) {
		error("cannot open '%s': %s", s->depsout, strerror(errno));
		return 1;
	}
	/* the policy files read for the input: editing one must rebuild it */
	const struct profile *p = r->ppout && r->ppcu >= 0 ? r->prof[r->ppcu] : NULL;
	struct args pol = ARGS_INIT;
	for (int i = 0; p && i < p->nchain; i++)
		args_push(&pol, p->chain[i]);
	int bad = !r->ppout || filterdeps(f, r->ppout, target, c->nonsys, c->phony, &pol) < 0;
	args_release(&pol);
	bad |= s->depsout ? fclose(f) != 0 : fflush(f) != 0;
	if (bad)
		error("cannot write the dependencies of '%s'", r->ppout ? r->ppout : "?");
	free(r->ppout);
	r->ppout = NULL;
	return bad;
}

static int
step(struct run *r, const struct step *s)
{
	int echo = r->c->verbose && !r->c->explain, st;
	switch (s->kind) {
	case S_TEXT:
		fprintf(stderr, "%s\n", s->line);
		return 0;
	case S_VAR:
		if (echo)
			fprintf(stderr, "#$ %s\n", s->line);
		if (strcmp(s->name, "NVCC_PREPEND_FLAGS") && strcmp(s->name, "NVCC_APPEND_FLAGS"))
			setenv(s->name, s->value, 1);
		return 0;
	case S_DEPS:
		if (echo)
			fprintf(stderr, "#$ %s\n", s->line);
		return r->c->explain ? 0 : deps(r, s);
	default:
		if (echo)
			fprintf(stderr, "#$ %s\n", s->line);
		st = command(r, s);
		if (st && echo)
			fprintf(stderr, "# --error 0x%x --\n", st);
		return st;
	}
}

static int
iscicc(const struct step *s)
{
	struct args a = ARGS_INIT;
	int yes = s->kind == S_CMD && shsplit(&a, s->line, env) == 0 && ciccptx(&a);
	args_release(&a);
	return yes;
}

/* --mpcc-dryrun: nvcc's steps with mpcc's own after each cicc */
static int
printsteps(struct run *r, struct step *s, int n)
{
	for (int i = 0; i < n; i++) {
		fprintf(stderr, s[i].kind == S_TEXT ? "%s\n" : "#$ %s\n", s[i].line);
		if (s[i].kind == S_VAR && strcmp(s[i].name, "NVCC_PREPEND_FLAGS") &&
		    strcmp(s[i].name, "NVCC_APPEND_FLAGS"))
			setenv(s[i].name, s[i].value, 1);
		if (!iscicc(&s[i]))
			continue;
		struct args a = ARGS_INIT;
		shsplit(&a, s[i].line, env);
		int k = whichcu(r, &a);
		const struct profile *p = k >= 0 ? r->prof[k] : NULL;
		fprintf(stderr, "#$ mpcc-pipeline --src \"%s\" --arch %s --profile %s \"%s\"\n",
		        k >= 0 ? r->c->cu.v[k] : optval(&a, "--orig_src_file_name"),
		        optval(&a, "-arch") ? optval(&a, "-arch") : "?",
		        p && p->name ? p->name : "(none)", optval(&a, "-o"));
		args_release(&a);
	}
	return 0;
}

static int
lastcicc(struct step *s, int n)
{
	int last = -1;
	for (int i = 0; i < n; i++)
		if (iscicc(&s[i]))
			last = i;
	return last;
}

/* the dryrun's steps, or NULL when nvcc refused the line */
static struct step *
dryrun(struct cmd *c, const char *nvcc, int *n)
{
	struct args a = ARGS_INIT;
	args_push(&a, nvcc);
	dryrun_args(c, &a, c->explain);
	char *out = fmt("%s/dryrun.out", tmpdir), *err = fmt("%s/dryrun.err", tmpdir);
	struct spawn sp = {.argv = a.v, .out = out, .err = err, .group = 1};
	int st = spawn_run(&sp);
	char *text = st == 0 ? readfile(err, NULL) : NULL;
	struct step *s = NULL;
	if (text) {
		if (stepdir)   /* the same names in every compile, for the cache's keys */
			stepcache_fixnames(text);
		catfile(out, stdout);
		*n = dryrun_parse(text, &s);
	}
	free(text);
	free(out);
	free(err);
	args_release(&a);
	return s;
}

/* --mpcc-summary: one line for the compile, "mpcc: note: k.cu: fiset: 2
 * applied, 10 left alone (nothing to do or will not pay); half2: ..." */
static void
summary(const struct run *r)
{
	struct buf b = BUF_INIT;
	const struct tally *t = &r->tally;
	char *src = cmd_sources(r->c);
	buf_printf(&b, "%s:", src);
	free(src);
	int any = 0;
	for (int k = 0; k < npass; k++) {
		if (!t->applied[k] && !t->advised[k] && !t->refused[k])
			continue;
		buf_printf(&b, "%s %s: %d applied, %d left alone (nothing to do or will not pay)",
		           any++ ? ";" : "", passes[k]->schema.name, t->applied[k], t->advised[k]);
		if (t->refused[k])
			buf_printf(&b, ", %d refused", t->refused[k]);
	}
	if (any)
		note("%s; kernels counted once per -gencode chain (--mpcc-explain says why)", b.s);
	else
		summary_kept(r->c);
	buf_release(&b);
}

/* kernels globs that nearly name a kernel of a source: once per rule and
 * source, from the kernels of all its chains */
static void
unmatched(struct run *r)
{
	for (int k = 0; k < r->c->cu.n; k++) {
		struct args all = ARGS_INIT;
		for (int i = 0; i < r->nptx; i++)
			if (r->ptx[i].prof == r->prof[k] && !strcmp(r->ptx[i].src, r->c->cu.v[k]))
				args_pushv(&all, r->ptx[i].kernels.v, r->ptx[i].kernels.n);
		profile_unmatched(r->prof[k], r->c->cu.v[k], all.v, all.n);
		args_release(&all);
	}
	for (int i = 0; i < r->nptx; i++) {
		args_release(&r->ptx[i].kernels);
		args_release(&r->ptx[i].table);
		free(r->ptx[i].stub);
	}
}

int
run_pipeline(struct cmd *c, const char *nvcc, struct profile **prof)
{
	struct run r = {.c = c, .prof = prof};
	int n = 0, st = 0;
	stepdir = c->dryrun ? NULL : stepcache_dir();
	mktmp();
	struct step *s = dryrun(c, nvcc, &n);
	if (!s) {
		cleanup();
		if (usertmp)
			setenv("TMPDIR", usertmp, 1);
		else
			unsetenv("TMPDIR");
		passthrough(nvcc, &c->nv, 0);
	}
	if (c->dryrun)
		return printsteps(&r, s, n);
	int last = c->explain ? lastcicc(s, n) : n - 1;
	r.step = s, r.nstep = n;
	for (r.cur = 0; r.cur <= last && st == 0; r.cur++)
		st = step(&r, &s[r.cur]);
	for (int i = 0; i < r.nptx && st == 0 && !c->explain; i++)
		st = checkptx(&r, &r.ptx[i]);
	/* the report says what reached the output */
	collectfigures(&r);
	for (int i = 0; i < r.nptx; i++) {
		figures_report(&r.ptx[i].reports, r.ptx[i].src, &r.ptx[i].figs, &r.ptx[i].before);
		reports_flush(&r.ptx[i].reports, c->report, r.ptx[i].restored);
	}
	unmatched(&r);
	while (r.found.n)   /* in the order of the compile */
		audit_say(&r.found, r.found.f[0].src, c->werror);
	free(r.found.f);
	if (c->summary && !c->explain)
		summary(&r);
	steps_release(s, n);
	return st;
}
