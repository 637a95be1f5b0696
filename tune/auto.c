/* auto.c: the searches composed over kernels and passes.
 *
 * One pass (--transform NAME): its knob is searched on every hot kernel in
 * turn, the largest share of kernel time first, each search on top of what
 * the earlier ones kept. --transform auto: a probe build per pass that the
 * table marks for tuning, with its strongest setting (struct tuning) on
 * every hot kernel, gives each pass's advice per kernel: whether it applies
 * and the speed-up its stats predict (the key of role RPREDICTED, else the
 * table's guess). The (kernel, pass) pairs are then searched greedily, by
 * share x (advice - 1), each on top of what was kept; a pair is kept where
 * it meets the QoS and beats what was kept beyond the noise. The probes and
 * every search's trials stay candidates: the answer is the fastest trial of
 * the session within the QoS (main.c, measure.c). */
#include "tune/tune.h"

#include <stdlib.h>
#include <string.h>

/* search pass on kernel k over *cur; keep it there if it pays */
static void
step(struct tuner *tu, struct setting *cur, struct trial **kept, const struct kern *k, int pass)
{
	struct trial *t = search_knob(tu, cur, k, pass);
	int keep = t && beats(tu, t, *kept);
	char *why = keep ? fmt("kept %s (%.3fx)", t->what, speedup(tu, t))
	            : t ? fmt("its best, %s (%.3fx), is not faster than %.3fx by over the noise (%.1f%%): "
	                  "not kept", t->what, speedup(tu, t), speedup(tu, *kept), 100 * threshold(tu))
	                : xstrdup("nothing met the QoS");
	fprintf(stderr, "mpcc-tune: %s on '%s': %s\n", pass_name(pass), k->demangled, why);
	free(why);
	if (keep) {
		setting_release(cur);
		*cur = setting_copy(&t->set);
		*kept = t;
	}
}

static void
onepass(struct tuner *tu, int pass)
{
	struct setting cur = {0};
	struct trial *kept = tu->base;
	for (int i = 0; i < tu->nk; i++)
		if (tu->k[i].hot)
			step(tu, &cur, &kept, &tu->k[i], pass);
	setting_release(&cur);
}

/* the speed-up pass predicts for kernel in its probe build; 0: left alone */
static double
advice(const struct trial *probe, int pass, const char *kernel)
{
	int applied;
	char *st = report_stats(probe->report, pass, kernel, &applied);
	double a = applied ? stats_predicted(st, pass) : 0;
	free(st);
	return applied && a <= 0 ? passes[pass]->tune->guess : a;
}

struct pair {
	struct kern *k;
	int pass;
	double gain;
};

static int
bygain(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;
	return (x->gain < y->gain) - (x->gain > y->gain);
}

/* the probe of pass: its strongest setting on every hot kernel; the pairs
 * it advises go to pr */
static int
probe(struct tuner *tu, int pass, struct pair **pr, int np)
{
	struct setting s = {0};
	for (int i = 0; i < tu->nk; i++)
		if (tu->k[i].hot)
			setting_launch(tu, &s, pass, tu->k[i].mangled, passes[pass]->tune->strongest);
	struct trial *t = trial_for(tu, &s, -1);
	setting_release(&s);
	tuner_eval(tu, &t, 1);
	for (int i = 0; i < tu->nk; i++) {
		struct kern *k = &tu->k[i];
		double a = k->hot ? advice(t, pass, k->mangled) : 0;
		if (!k->hot)
			continue;
		fprintf(stderr, "mpcc-tune: auto: %s on '%s': ", pass_name(pass), k->demangled);
		if (a <= 0) {
			fprintf(stderr, "left alone\n");
			continue;
		}
		fprintf(stderr, "applies, advice %.3gx, %.1f%% of kernel time\n", a, 100 * k->share);
		*pr = xrealloc(*pr, (np + 1) * sizeof **pr);
		(*pr)[np++] = (struct pair){k, pass, (k->share > 0 ? k->share : 1) * (a - 1)};
	}
	return np;
}

void
search_all(struct tuner *tu)
{
	if (tu->transform >= 0) {
		onepass(tu, tu->transform);
		return;
	}
	struct pair *pr = NULL;
	int np = 0;
	for (int p = 0; p < npass; p++)
		if (pass_tuned(p))
			np = probe(tu, p, &pr, np);
	qsort(pr, np, sizeof *pr, bygain);
	struct setting cur = {0};
	struct trial *kept = tu->base;
	for (int i = 0; i < np; i++)
		step(tu, &cur, &kept, pr[i].k, pr[i].pass);
	setting_release(&cur);
	free(pr);
}
