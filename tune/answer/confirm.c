/* confirm.c: the winner against the baseline, in interleaved runs.
 *
 * A search compares medians of a few runs taken minutes apart, so a lucky
 * candidate can look faster than it is. Before a setting is written, the
 * baseline and the candidate run in turn, --confirm rounds (at least 7):
 * baseline, candidate, baseline, candidate... so that whatever drifts on
 * the machine (clocks, heat, other jobs) falls on both alike. Each round
 * gives a ratio of the two times; the candidate is confirmed if the median
 * ratio beats the noise: the spread of the baseline's first runs, or of
 * its runs in these rounds when larger (an outlier left out of each), or
 * --min-gain.
 *
 * Running the two builds in turn needs both programs at hand: when --run
 * names $MPCC_TUNE_DIR and --build does too (or there is --binary) each
 * trial has its own program; with --binary alone each trial kept a copy of
 * the program, put back before its run;
 * otherwise the program is rebuilt whenever the other one is to run. The
 * rounds alternate which runs first (baseline, candidate; candidate,
 * baseline; ...), which cancels a steady drift within a round and halves
 * those rebuilds. With --jobs N and each trial in its own directory, N
 * rounds run at once, round r + i on GPU i, in step: on GPUs 2j and
 * 2j + 1 the baseline runs on one while the candidate runs on the other,
 * then the other way round, so that no program runs twice at once (its
 * runs share its directory). GPUs 0 and 1 run the trials' own programs;
 * each further pair runs copies of the two directories, made once
 * (confirm/pJ-tID). Each round's ratio is of two runs on one GPU. Under a
 * --launcher (srun), which places each command on a GPU of its choice,
 * each round's two runs go as one command of it (side.c's run_pairs(): a
 * script that runs them in turn and times each), so that they share the
 * GPU it gives; every round but the first has copies of its own. */
#include "tune/answer/answer.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { APART, BINARY, REBUILD };

static int
howrun(const struct tuner *tu)
{
	if (apart(tu))
		return APART;
	return tu->o->binary ? BINARY : REBUILD;
}

/* make t's program the one --run runs (*cur: the one it runs now); 0,
 * or -1 with *why */
static int
ready(struct tuner *tu, const struct trial *t, const char *dir, int how, const struct trial **cur,
      char **why)
{
	if (how == APART || *cur == t)
		return 0;
	*cur = t;
	if (how == BINARY) {
		char *from = fmt("%s/binary", t->dir), *to = tunepath(tu->o->binary, t->dir);
		int st = copyprog(from, to);
		*why = st ? fmt("cannot put back %s's --binary", t->what) : NULL;
		free(from), free(to);
		return st;
	}
	char *rep = fmt("%s/report.jsonl", dir), *log = fmt("%s/build.log", dir);
	int st = build_once(tu, t, rep, log);
	*why = st ? fmt("the build of %s failed (see %s)", t->what, log) : NULL;
	free(rep), free(log);
	return st ? -1 : 0;
}

/* the GPUs that share one copy of each program: two in step, one where
 * each round runs its two programs in turn under the launcher */
static int
pergpu(const struct tuner *tu)
{
	return tu->o->launcher ? 1 : 2;
}

/* the directory of t's program for the GPUs of share (GPUs 2 share and
 * 2 share + 1 in step): its own for share 0, else a copy (copies()) */
static char *
progdir(struct tuner *tu, const struct trial *t, int share)
{
	return share ? fmt("%s/confirm/p%d-t%d", tu->o->workdir, share, t->id) : xstrdup(t->dir);
}

/* copy the programs of the baseline and t for the GPUs after the first
 * share: the GPUs that have a program to run (after a message, fewer) */
static int
copies(struct tuner *tu, const struct trial *t, int gpus)
{
	int per = pergpu(tu);
	for (int share = 1; per * share < gpus; share++)
		for (int w = 0; w < 2; w++) {
			const struct trial *u = w ? t : tu->base;
			char *d = progdir(tu, u, share);
			struct stat st;
			if (stat(d, &st) < 0 && copytree(u->dir, d) < 0) {
				fprintf(stderr, "mpcc-tune: confirm: cannot copy %s to %s (%s): %d rounds at once\n",
				        u->dir, d, strerror(errno), per * share);
				free(d);
				return per * share;
			}
			free(d);
		}
	return gpus;
}

/* rounds r .. r + n - 1 at once, round r + i on GPU i, each the runs of
 * the baseline and of t in turn (i even: the baseline first); their
 * times in b[] and x[], NAN after a message */
static void
runsides(struct tuner *tu, struct trial *t, int r, int n, double *b, double *x)
{
	char **dir[2], **out = xcalloc(n, sizeof *out), **err = xcalloc(n, sizeof *err);
	char **why = xcalloc(n, sizeof *why);
	double *v = xcalloc(n, sizeof *v);
	struct trial *who[2] = {tu->base, t};
	for (int w = 0; w < 2; w++) {
		dir[w] = xcalloc(n, sizeof *dir[w]);
		for (int i = 0; i < n; i++)
			dir[w][i] = progdir(tu, who[w], i / pergpu(tu));
	}
	for (int step = 0; step < 2; step++) {
		char **d = xcalloc(n, sizeof *d);
		for (int i = 0; i < n; i++) {
			int w = (i + step) % 2;   /* 0: the baseline */
			char *rd = fmt("%s/confirm/r%d-t%d", tu->o->workdir, r + i, who[w]->id);
			mkdir(rd, 0777);
			d[i] = dir[w][i], out[i] = fmt("%s/run.out", rd), err[i] = fmt("%s/run.err", rd);
			free(rd);
		}
		run_side(tu, n, d, out, err, v, why);
		for (int i = 0; i < n; i++) {
			int w = (i + step) % 2;
			if (why[i])
				fprintf(stderr, "mpcc-tune: confirm: round %d, %s: %s\n", r + i + 1, who[w]->what,
				        why[i]),
				        v[i] = NAN;
			(w ? x : b)[i] = v[i];
			free(out[i]), free(err[i]), free(why[i]);
			why[i] = NULL;
		}
		free(d);
	}
	for (int w = 0; w < 2; w++) {
		for (int i = 0; i < n; i++)
			free(dir[w][i]);
		free(dir[w]);
	}
	free(out), free(err), free(why), free(v);
}

/* rounds r .. r + n - 1 at once under the launcher, round r + i the runs of
 * the baseline and of t in turn (i even: the baseline first) as one
 * command of it, so on one GPU, each in copies of its own; their times in
 * b[] and x[], NAN after a message */
static void
runpairs(struct tuner *tu, struct trial *t, int r, int n, double *b, double *x)
{
	char **dir = xcalloc(2 * n, sizeof *dir), **out = xcalloc(2 * n, sizeof *out);
	char **err = xcalloc(2 * n, sizeof *err), **why = xcalloc(2 * n, sizeof *why);
	double *v = xcalloc(2 * n, sizeof *v);
	struct trial *who[2] = {tu->base, t};
	for (int k = 0; k < 2 * n; k++) {
		int i = k / 2, w = (i + k % 2) % 2;   /* 0: the baseline */
		char *rd = fmt("%s/confirm/r%d-t%d", tu->o->workdir, r + i, who[w]->id);
		mkdir(rd, 0777);
		dir[k] = progdir(tu, who[w], i), out[k] = fmt("%s/run.out", rd), err[k] = fmt("%s/run.err", rd);
		free(rd);
	}
	run_pairs(tu, n, dir, out, err, v, why);
	for (int k = 0; k < 2 * n; k++) {
		int i = k / 2, w = (i + k % 2) % 2;
		if (why[k])
			fprintf(stderr, "mpcc-tune: confirm: round %d, %s: %s\n", r + i + 1, who[w]->what, why[k]),
			        v[k] = NAN;
		(w ? x : b)[i] = v[k];
		free(dir[k]), free(out[k]), free(err[k]), free(why[k]);
	}
	free(dir), free(out), free(err), free(why), free(v);
}

/* one run of t in round r: its time, or NAN after a message */
static double
runit(struct tuner *tu, const struct trial *t, int r, int how, const struct trial **cur)
{
	char *dir = fmt("%s/confirm/r%d-t%d", tu->o->workdir, r, t->id), *why = NULL;
	char *out = fmt("%s/run.out", dir), *err = fmt("%s/run.err", dir);
	double v = NAN;
	mkdir(dir, 0777);
	if (ready(tu, t, dir, how, cur, &why) == 0 && run_once(tu, t->dir, out, err, &v, &why) < 0)
		v = NAN;
	if (why)
		fprintf(stderr, "mpcc-tune: confirm: round %d, %s: %s\n", r + 1, t->what, why), v = NAN;
	free(dir), free(out), free(err), free(why);
	return v;
}

/* the rounds that run at once: one a GPU, with --jobs N and each trial
 * its own program */
static int
atonce(const struct tuner *tu)
{
	int side = sidebyside(tu) ? pool_gpus(tu) : 1;
	return side < tu->o->confirm ? side : tu->o->confirm;
}

struct need
confirm_needs(const struct tuner *tu)
{
	/* rounds of two runs, N at once; where the two share one program, a
	 * build before each round's first run and one more (ready()) */
	int n = tu->o->confirm, at = atonce(tu);
	return (struct need){2 * ((n + at - 1) / at), howrun(tu) == REBUILD ? n + 1 : 0};
}

void
confirm(struct tuner *tu, struct trial *t, struct confirmation *c)
{
	static const char *const hows[] = {"each in its own directory", "their --binary put back in turn",
	                                   "each rebuilt when the other ran last"};
	int n = tu->o->confirm, how = howrun(tu), m = 0, side = atonce(tu);   /* rounds at once */
	const struct trial *cur = NULL;   /* not known: the last build may be either */
	double *ratio = xmalloc(n * sizeof *ratio), *base = xmalloc(n * sizeof *base);
	double *b = xmalloc(side * sizeof *b), *x = xmalloc(side * sizeof *x);
	char *d = fmt("%s/confirm", tu->o->workdir), *at = NULL;
	mkdir(d, 0777);
	free(d);
	if (side > pergpu(tu))
		side = copies(tu, t, side);
	if (side > 1 && tu->o->launcher)
		at = fmt("; %d rounds at once, each its two runs in turn as one command of the launcher, "
		         "on one GPU, copies of both programs for rounds 2 and up", side);
	else if (side > 1)
		at = fmt("; %d rounds at once, on GPUs 0 to %d%s", side, side - 1,
		         side > 2 ? ", copies of both programs on GPUs 2 and up" : "");
	fprintf(stderr, "mpcc-tune: confirm: %s (%.3fx in its search) against the baseline, %d "
	        "interleaved rounds (%s%s)\n", t->what, speedup(tu, t), n, hows[how], at ? at : "");
	free(at);
	for (int r = 0; r < n;) {
		int k = side < n - r ? side : n - r;
		if (k > 1 && tu->o->launcher)
			runpairs(tu, t, r, k, b, x);
		else if (k > 1)
			runsides(tu, t, r, k, b, x);
		else if (r % 2)
			x[0] = runit(tu, t, r, how, &cur), b[0] = runit(tu, tu->base, r, how, &cur);
		else
			b[0] = runit(tu, tu->base, r, how, &cur), x[0] = runit(tu, t, r, how, &cur);
		for (int i = 0; i < k; i++) {
			if (isnan(b[i]) || isnan(x[i]))
				continue;
			base[m] = b[i];
			ratio[m++] = tu->o->higher ? x[i] / b[i] : b[i] / x[i];
			fprintf(stderr, "mpcc-tune: confirm: round %d: baseline %.4g, candidate %.4g: %.3fx\n",
			        r + i + 1, b[i], x[i], ratio[m - 1]);
		}
		r += k;
	}
	int out;   /* a baseline run left out of its spread, an outlier */
	*c = (struct confirmation){m, m ? median(ratio, m) : 0, INFINITY, -INFINITY,
	                           steady(base, m, &out), 0};
	for (int i = 0; i < m; i++)
		c->lo = fmin(c->lo, ratio[i]), c->hi = fmax(c->hi, ratio[i]);
	double noise = fmax(threshold(tu), c->basespread);   /* the stricter, now */
	c->ok = m == n && c->median > 1 + noise;
	fprintf(stderr, "mpcc-tune: confirm: %s: median %.3fx over %d rounds (range %.3fx to %.3fx; "
	        "the baseline's runs spread over %.1f%%%s), %s the noise (%.1f%%)\n", t->what, c->median,
	        m, m ? c->lo : 0, m ? c->hi : 0, 100 * c->basespread, out >= 0 ? ", an outlier left out" : "",
	        c->ok ? "beyond" : m < n ? "some rounds failed: not beyond" : "not beyond", 100 * noise);
	free(ratio), free(base), free(b), free(x);
}
