/* progress.c: what a session says of its progress: one line per trial,
 * with the trials done and planned, the time, the ETA and the best so far. */
#include "tune/session/session.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* "45s", "2m05s", "1h02m" */
static char *
hms(double s)
{
	long x = lround(s > 0 ? s : 0);
	if (x < 60)
		return fmt("%lds", x);
	if (x < 3600)
		return fmt("%ldm%02lds", x / 60, x % 60);
	return fmt("%ldh%02ldm", x / 3600, x % 3600 / 60);
}

/* "12 of about 30 trials, 2m05s, ETA 3m10s, best 1.333x (t4)" */
static char *
sofar(struct tuner *tu)
{
	const struct session *ses = session_of(tu);
	int done = tried(tu), plan = done + ses->pending + (ses->left > 0 ? ses->left : 0) + ses->later;
	double t = now(), per = done > 1 && t > ses->tsearch && ses->tsearch > 0 ?
	                         (t - ses->tsearch) / (done - 1) : trialcost(tu);
	double eta = (plan - done) * per + ses->reserve;
	if (ses->deadline > 0 && plan > done)
		eta = fmin(eta, fmax(0, ses->deadline - t) + ses->reserve);
	const struct trial *b = fastest(tu, tu->t, tu->nt);
	char *el = hms(t - tu->t0), *e = hms(eta);
	char *best = b ? fmt(", best %.3fx (t%d)", speedup(tu, b), b->id) : xstrdup("");
	if (plan < done)
		plan = done;
	char *s = fmt("%d of about %d %s, %s, ETA %s%s", done, plan, plural(plan, "trial", "trials"), el,
	              e, best);
	free(el), free(e), free(best);
	return s;
}

/* "; kernel multi 1.594x predicted, 1.41x measured" where t changes one kernel */
static void
kernelspeed(const struct tuner *tu, const struct trial *t)
{
	double pred, meas;
	const struct kern *k = kernel_speedup(tu, t, &pred, &meas);
	if (!k || (!pred && !meas))
		return;
	fprintf(stderr, "; kernel %.*s ", (int)strcspn(k->demangled, "("), k->demangled);
	if (pred)
		fprintf(stderr, "%.3fx predicted, ", pred);
	if (meas)
		fprintf(stderr, "%.3fx measured", meas);
	else if (k->beside)
		fprintf(stderr, "measured: confounded (it ran beside other kernels)");
	else
		fprintf(stderr, "measured within the noise (%.1f%% of the run)", 100 * fmin(k->wallshare, 1));
}

void
progress(struct tuner *tu, const struct trial *t)
{
	const char *unit = tu->o->timepat ? "" : " s";
	fprintf(stderr, "mpcc-tune: [t%d] %s: ", t->id, t->what);
	if (t->verdict != V_OK)
		fprintf(stderr, "%s: %s", verdictname[t->verdict], t->why ? t->why : "");
	else if (t == tu->base) {
		fprintf(stderr, "time %.4g%s (median of %d; they spread over %.1f%%), %ld %s",
		        t->time, unit, t->ntimes, 100 * spread(t->times, t->ntimes), t->nnum,
		        plural(t->nnum, "number", "numbers"));
		if (tu->warm && t->hits)   /* a build made before through mpcc, the same cache */
			fprintf(stderr, "; its build (%.3g s) %s: %d of %d steps from the step cache",
			        t->build, t->hits == t->keyed ? "a cache hit" : "in part a cache hit",
			        t->hits, t->keyed);
	}
	else {
		int probe = instrumented(t);
		fprintf(stderr, "time %.4g%s (%.3fx), %s %.3g", t->time, unit, speedup(tu, t),
		        tu->o->metric == M_DIGITS ? "digits" : "error", t->err);
		if (tu->idealt && tu->idealt->verdict == V_OK && t != tu->idealt)
			fprintf(stderr, ", %.0f%% of the ideal", ofideal(tu, t));
		fprintf(stderr, "%s", probe || t == tu->idealt ? "" : t->meets ? ": meets the QoS" : ": over the QoS");
		kernelspeed(tu, t);
	}
	if (t->refused)
		fprintf(stderr, "; refused: %s", t->refused);
	if (t != tu->base && session_of(tu)->tsearch > 0) {
		char *w = sofar(tu);
		fprintf(stderr, " [%s]", w);
		free(w);
	}
	fputc('\n', stderr);
}
