/* confirm.c: the winner against the baseline, in interleaved runs.
 *
 * A search compares medians of a few runs taken minutes apart, so a lucky
 * candidate can look faster than it is. Before a setting is written, the
 * baseline and the candidate run in turn, --confirm rounds (at least 7):
 * baseline, candidate, baseline, candidate... so that whatever drifts on
 * the machine (clocks, heat, other jobs) falls on both alike. Each round
 * gives a ratio of the two times; the candidate is confirmed if the median
 * ratio beats the noise: the spread of the baseline's first runs, or of
 * its runs in these rounds when larger, or --min-gain.
 *
 * Running the two builds in turn needs both programs at hand: when --run
 * names $MPCC_TUNE_DIR and --build does too (or there is --binary) each
 * trial has its own program; with --binary alone each trial kept a copy of
 * the program, put back before its run;
 * otherwise the program is rebuilt whenever the other one is to run. The
 * rounds alternate which runs first (baseline, candidate; candidate,
 * baseline; ...), which cancels a steady drift within a round and halves
 * those rebuilds. With --jobs and each trial in its own directory, two
 * rounds run at once: round r on GPU 0 and round r + 1 on GPU 1, in step,
 * so that the baseline runs on one GPU while the candidate runs on the
 * other (never one program twice at once: its runs share its directory);
 * each round's ratio is of two runs on one GPU. */
#include "tune/search/search.h"

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
	return tu->binary ? BINARY : REBUILD;
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
		char *from = fmt("%s/binary", t->dir), *to = tunepath(tu->binary, t->dir);
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

/* the runs of t[i] in rounds r[i] side by side, the i-th on GPU i (each
 * in its own directory): their times, NAN after a message */
static void
runsides(struct tuner *tu, struct trial *const *t, const int *r, int n, double *v)
{
	char *dir[2], *out[2], *err[2], *why[2];
	for (int i = 0; i < n; i++) {
		char *d = fmt("%s/confirm/r%d-t%d", tu->workdir, r[i], t[i]->id);
		mkdir(d, 0777);
		dir[i] = t[i]->dir, out[i] = fmt("%s/run.out", d), err[i] = fmt("%s/run.err", d);
		free(d);
	}
	run_side(tu, n, dir, out, err, v, why);
	for (int i = 0; i < n; i++) {
		if (why[i])
			fprintf(stderr, "mpcc-tune: confirm: round %d, %s: %s\n", r[i] + 1, t[i]->what, why[i]),
			        v[i] = NAN;
		free(out[i]), free(err[i]), free(why[i]);
	}
}

/* one run of t in round r: its time, or NAN after a message */
static double
runit(struct tuner *tu, const struct trial *t, int r, int how, const struct trial **cur)
{
	char *dir = fmt("%s/confirm/r%d-t%d", tu->workdir, r, t->id), *why = NULL;
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

void
confirm(struct tuner *tu, struct trial *t, struct confirmation *c)
{
	static const char *const hows[] = {"each in its own directory", "their --binary put back in turn",
	                                   "each rebuilt when the other ran last"};
	int n = tu->confirm, how = howrun(tu), m = 0;
	int side = sidebyside(tu);   /* two rounds at once */
	const struct trial *cur = NULL;   /* not known: the last build may be either */
	double *ratio = xmalloc(n * sizeof *ratio), *base = xmalloc(n * sizeof *base);
	char *d = fmt("%s/confirm", tu->workdir);
	mkdir(d, 0777);
	free(d);
	fprintf(stderr, "mpcc-tune: confirm: %s (%.3fx in its search) against the baseline, %d "
	        "interleaved rounds (%s%s)\n", t->what, speedup(tu, t), n, hows[how],
	        side ? "; two rounds at once, on GPUs 0 and 1" : "");
	for (int r = 0; r < n; r++) {
		double b[2], x[2];
		int two = side && r + 1 < n;
		if (two) {   /* round r on GPU 0, r + 1 (the other order) on GPU 1 */
			double v[2];
			runsides(tu, (struct trial *[]){tu->base, t}, (int[]){r, r + 1}, 2, v);
			b[0] = v[0], x[1] = v[1];
			runsides(tu, (struct trial *[]){t, tu->base}, (int[]){r, r + 1}, 2, v);
			x[0] = v[0], b[1] = v[1];
		} else if (r % 2) {
			x[0] = runit(tu, t, r, how, &cur), b[0] = runit(tu, tu->base, r, how, &cur);
		} else {
			b[0] = runit(tu, tu->base, r, how, &cur), x[0] = runit(tu, t, r, how, &cur);
		}
		for (int i = 0; i <= two; i++) {
			if (isnan(b[i]) || isnan(x[i]))
				continue;
			base[m] = b[i];
			ratio[m++] = tu->higher ? x[i] / b[i] : b[i] / x[i];
			fprintf(stderr, "mpcc-tune: confirm: round %d: baseline %.4g, candidate %.4g: %.3fx\n",
			        r + i + 1, b[i], x[i], ratio[m - 1]);
		}
		r += two;
	}
	*c = (struct confirmation){m, m ? median(ratio, m) : 0, INFINITY, -INFINITY,
	                           spread(base, m), 0};
	for (int i = 0; i < m; i++)
		c->lo = fmin(c->lo, ratio[i]), c->hi = fmax(c->hi, ratio[i]);
	double noise = fmax(threshold(tu), c->basespread);   /* the stricter, now */
	c->ok = m == n && c->median > 1 + noise;
	fprintf(stderr, "mpcc-tune: confirm: %s: median %.3fx over %d rounds (range %.3fx to %.3fx; "
	        "the baseline's runs spread over %.1f%%), %s the noise (%.1f%%)\n", t->what, c->median,
	        m, m ? c->lo : 0, m ? c->hi : 0, 100 * c->basespread,
	        c->ok ? "beyond" : m < n ? "some rounds failed: not beyond" : "not beyond", 100 * noise);
	free(ratio), free(base);
}
