/* measure.c: how a trial compares with the baseline, and when a gain is
 * real.
 *
 * Times vary from run to run. The baseline runs several times first, and
 * the spread of its runs, (max - min) / median, is the session's noise: a
 * trial counts as faster only where its gain over the baseline (or over
 * what a search already kept) exceeds that spread and --min-gain. One run
 * that another job on the host slowed is left out of it (steady()): the
 * spread of the others is the noise, and the log says so. The
 * answer is the fastest eligible trial of the whole session, whatever
 * search ran it: the searches only choose what to try. */
#include "tune/tune.h"

#include <math.h>
#include <stdlib.h>

double
speedup(const struct tuner *tu, const struct trial *t)
{
	return tu->o->higher ? t->time / tu->base->time : tu->base->time / t->time;
}

double
spread(const double *v, int n)
{
	if (n < 2)
		return 0;
	double lo = v[0], hi = v[0];
	for (int i = 1; i < n; i++)
		lo = fmin(lo, v[i]), hi = fmax(hi, v[i]);
	double m = median((double *)v, n);
	return m > 0 ? (hi - lo) / m : 0;
}

/* a run is an outlier where its gap to the nearest other run is over
 * OUTLIER times the spread of the others: Dixon's Q over 0.75, which 5
 * runs of a normal spread reach by chance about 4% of the time, and one
 * run of 3x the others' time always */
#define OUTLIER 3

double
steady(const double *v, int n, int *out)
{
	*out = -1;
	if (n < 4)
		return spread(v, n);
	int lo = 0, hi = 0;
	for (int i = 1; i < n; i++)
		lo = v[i] < v[lo] ? i : lo, hi = v[i] > v[hi] ? i : hi;
	/* the second smallest and largest: the nearest runs to the extremes */
	double lo2 = INFINITY, hi2 = -INFINITY;
	for (int i = 0; i < n; i++) {
		if (i != lo)
			lo2 = fmin(lo2, v[i]);
		if (i != hi)
			hi2 = fmax(hi2, v[i]);
	}
	int x = v[hi] - hi2 >= lo2 - v[lo] ? hi : lo;   /* the larger gap */
	double gap = x == hi ? v[hi] - hi2 : lo2 - v[lo];
	double *rest = xmalloc(n * sizeof *rest);
	int m = 0;
	for (int i = 0; i < n; i++)
		if (i != x)
			rest[m++] = v[i];
	double others = spread(rest, m), med = median(rest, m);
	free(rest);
	if (!(gap > OUTLIER * others * med))
		return spread(v, n);
	*out = x;
	return others;
}

double
threshold(const struct tuner *tu)
{
	return fmax(tu->noise, tu->o->mingain / 100);
}

int
beats(const struct tuner *tu, const struct trial *a, const struct trial *b)
{
	if (a->verdict != V_OK || b->verdict != V_OK)
		return a->verdict == V_OK;
	double gain = tu->o->higher ? a->time / b->time : b->time / a->time;
	return gain > 1 + threshold(tu);
}

int
instrumented(const struct trial *t)
{
	for (int i = 0; i < t->set.n; i++)
		if (!pass_tuned(t->set.k[i].pass))
			return 1;
	return 0;
}

int
eligible(const struct tuner *tu, const struct trial *t)
{
	return t != tu->base && t != tu->idealt && t->verdict == V_OK && t->meets && t->set.n &&
	       !instrumented(t);
}

struct trial *
fastest(const struct tuner *tu, struct trial **t, int n)
{
	struct trial *best = NULL;
	for (int i = 0; i < n; i++)
		if (eligible(tu, t[i]) && (!best || speedup(tu, t[i]) > speedup(tu, best)))
			best = t[i];
	return best;
}

/* the percentage of the ideal speed-up (003, Eq. 3) of t; without an ideal
 * build, the percentage of speed-up over the baseline */
double
ofideal(const struct tuner *tu, const struct trial *t)
{
	double p = tu->o->higher ? t->time : 1 / t->time, p64 = tu->o->higher ? tu->base->time : 1 / tu->base->time;
	if (!tu->idealt || tu->idealt->verdict != V_OK)
		return (p / p64 - 1) * 100;
	double p32 = tu->o->higher ? tu->idealt->time : 1 / tu->idealt->time;
	return (p - p64) / (p32 - p64) * 100;
}

/* the one kernel t changes (one knob, applied), NULL if not that */
static const struct knob *
oneknob(const struct trial *t)
{
	const struct knob *one = NULL;
	for (int i = 0; i < t->set.n; i++)
		if (!t->set.k[i].refused) {
			if (one)
				return NULL;
			one = &t->set.k[i];
		}
	return one;
}

const struct kern *
kernel_speedup(const struct tuner *tu, const struct trial *t, double *pred, double *meas)
{
	const struct knob *kn = t != tu->base && t->verdict == V_OK && !instrumented(t) ? oneknob(t) : NULL;
	const struct kern *k = kn ? kern_byname(tu->k, tu->nk, kn->kernel) : NULL;
	*pred = *meas = 0;
	if (!k)
		return NULL;
	int applied;
	char *st = report_stats(t->report, kn->pass, kn->kernel, &applied);
	*pred = stats_predicted(st, kn->pass);
	free(st);
	if (k->beside)
		return k;   /* its share of the run is confounded: no x */
	/* T = T0 (1 - w + w / x): the rest of the run as it was, the kernel x
	 * times faster */
	double w = fmin(k->wallshare, 1), r = 1 / speedup(tu, t), d = r - 1 + w;
	double x = d > 0 ? w / d : INFINITY;
	/* r off by the noise e moves x by about x e / w of itself */
	if (w > 0 && x * threshold(tu) / w <= MEASURED_ERR)
		*meas = x;
	return k;
}
