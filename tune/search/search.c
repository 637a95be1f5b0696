/* search.c: the values of one knob (a pass's parameter, named by its
 * table entry's struct tuning) on one kernel.
 *
 * Every search adds the knob to a base setting (what earlier searches kept;
 * the baseline at first) and returns the fastest trial with the knob that
 * meets the QoS, or NULL; it records what it tried and why it stopped. The
 * QoS holds over the whole output, so a later kernel's search sees the
 * error the earlier knobs already cost. The knob's kind says how:
 *
 * an integer (PINT: sfu's lambda), on the grid lo, lo + step, ..., lmax
 * (004, 5.4); lo is the kernel as nvcc made it, the base itself:
 *   heu         run lmax, done if it meets the QoS; else the secant through
 *               the last point that met it and the last that did not gives
 *               the next value (rounded down to the grid), until the two are
 *               one step apart. The point that met stays the lower bound, so
 *               the answer always meets the QoS (the paper's step back is
 *               this bound). When the same bound moves twice in a row, the
 *               other's distance to the QoS is halved (Illinois), so that a
 *               convex error curve is not crept up on one step at a time.
 *   linear      lmax, lmax - step, ... down to the first that meets (SMP).
 *   exhaustive  every point (OMG).
 * words (PENUM: half2's lane types): every word, in one batch.
 * sets (PSETS: fiset's sets): GPUMixer's modes over the units the pass's
 *   stats list (units.c).
 *
 * HEU stops once --stop-after steps in a row that met the QoS gained
 * nothing beyond the noise over the best when the row began (the units:
 * units.c); every search stops when its share of --budget is spent
 * (budget.c). With --jobs, HEU guesses at its next step (heuguess()); the
 * steps it takes do not depend on the guesses. */
#include "tune/search/search.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* the error as a number that must stay at or below qos' */
static double
badness(const struct tuner *tu, const struct trial *t)
{
	if (t->verdict != V_OK)
		return INFINITY;
	return tu->o->metric == M_DIGITS ? -t->err : t->err;
}

static double
limit(const struct tuner *tu)
{
	return tu->o->metric == M_DIGITS ? -tu->o->qos : tu->o->qos;
}

/* one point of a grid search: what it needs from the search */
struct grid {
	struct tuner *tu;
	const struct setting *base;
	const struct kern *k;
	int pass;
	const struct param *knob;
	int lo, hi, step;       /* the grid: lo (the base itself) to hi */
	struct curve *c;
};

/* the trial of value l: lo is the base itself */
static struct trial *
point(const struct grid *g, int l)
{
	if (l == g->lo)
		return trial_for(g->tu, g->base, l);
	char *p = fmt("%s=%d", g->knob->name, l);
	struct trial *t = withknob(g->tu, g->base, g->pass, g->k->mangled, p, l);
	free(p);
	return t;
}

static void
one(struct tuner *tu, struct curve *c, struct trial *t)
{
	search_ask(tu, &t, 1);
	curve_add(c, t);
}

/* the grid point below the secant's root through (lo, flo) and (hi, fhi),
 * strictly between lo and hi */
static int
secant(const struct grid *g, int lo, int hi, double flo, double fhi)
{
	double x = isfinite(fhi) && fhi > flo ? lo - flo * (hi - lo) / (fhi - flo) : (lo + hi) / 2.0;
	int l = g->lo + (int)floor((x - g->lo) / g->step) * g->step;
	return l <= lo ? lo + g->step : l >= hi ? hi - g->step : l;
}

/* --jobs: guesses at the step after l, which the run of l decides: if it
 * meets the QoS, one step up and the root of the secant as if its error
 * were that of lo (the error stays flat); if not, one step down */
static void
heuguess(const struct grid *g, int l, int lo, int hi, double flo, double fhi, int side)
{
	struct tuner *tu = g->tu;
	if (!guessing(tu))
		return;
	speculate_clear(tu, 0, RANKS);
	int next[3] = {l + g->step, l < hi - g->step ? secant(g, l, hi, flo, side < 0 ? fhi / 2 : fhi) : l,
	               l - g->step};
	for (int i = 0; i < 3; i++)
		if (next[i] > lo && next[i] < hi && next[i] != l)
			speculate(tu, point(g, next[i]), i + 1);
}

static void
heu(const struct grid *g)
{
	struct tuner *tu = g->tu;
	int step = g->step, lo = g->lo, hi = g->hi, side = 0, dry = 0;
	struct trial *tlo = point(g, lo), *thi = point(g, hi), *mark = tlo;
	one(tu, g->c, tlo);
	search_left(tu, (hi - lo) / step - 1);
	one(tu, g->c, thi);
	if (curve_cut(tu, g->c, thi))
		return;
	if (thi->meets) {
		curve_stop(g->c, fmt("%s=%d, the top of the grid, meets the QoS", g->knob->name, hi));
		return;
	}
	double q = limit(tu), flo = badness(tu, tlo) - q, fhi = badness(tu, thi) - q;
	while (hi - lo > step) {
		int l = secant(g, lo, hi, flo, fhi);
		struct trial *t = point(g, l);
		search_left(tu, (hi - lo) / step - 2);
		heuguess(g, l, lo, hi, flo, fhi, side);
		one(tu, g->c, t);
		if (curve_cut(tu, g->c, t))
			return;
		if (t->meets) {
			if (beats(tu, t, mark))   /* the best when the row began */
				mark = t, dry = 0;
			else
				dry++;
			lo = l, flo = badness(tu, t) - q;
			fhi /= side < 0 && isfinite(fhi) ? 2 : 1;
			side = -1;
			if (flo == 0) {
				curve_stop(g->c, fmt("%s=%d has its error right at the QoS", g->knob->name, l));
				return;
			}
			if (tu->o->stopafter && dry >= tu->o->stopafter) {
				curve_stop(g->c, fmt("%d %s in a row within the QoS gained nothing beyond the "
				                     "noise (%.1f%%)", dry, plural(dry, "step", "steps"),
				                     100 * threshold(tu)));
				return;
			}
		} else {
			hi = l, fhi = badness(tu, t) - q;
			flo /= side > 0 ? 2 : 1;
			side = 1;
		}
	}
	curve_stop(g->c, fmt("%d meets the QoS and %d, one step up, does not", lo, hi));
}

/* heu(), and no guess of its steps left behind */
static void
heu_search(const struct grid *g)
{
	heu(g);
	speculate_clear(g->tu, 0, RANKS);
}

static void
linear(const struct grid *g)
{
	for (int l = g->hi; l > g->lo; l -= g->step) {
		struct trial *t = point(g, l);
		search_left(g->tu, (l - g->lo) / g->step - 1);
		one(g->tu, g->c, t);
		if (curve_cut(g->tu, g->c, t))
			return;
		if (t->meets) {
			curve_stop(g->c, fmt("%s=%d is the first from the top to meet the QoS", g->knob->name, l));
			return;
		}
	}
	curve_stop(g->c, fmt("no %s above %d meets the QoS", g->knob->name, g->lo));
}

static void
exhaustive(const struct grid *g)
{
	int n = 0;
	struct trial **t = xmalloc(((g->hi - g->lo) / g->step + 2) * sizeof *t);
	for (int l = g->lo; l <= g->hi; l += g->step)
		t[n++] = point(g, l);
	search_left(g->tu, 0);
	search_ask(g->tu, t, n);
	for (int i = 0; i < n; i++)
		curve_add(g->c, t[i]);
	if (!curve_cut(g->tu, g->c, t[n - 1]))
		curve_stop(g->c, fmt("every point of the grid tried (%d)", n));
	free(t);
}

/* the fastest trial of c with the knob (not the base) that meets the QoS */
static struct trial *
best(struct tuner *tu, struct curve *c, const struct setting *base)
{
	struct trial **with = xmalloc((c->n + 1) * sizeof *with);
	int n = 0;
	for (int i = 0; i < c->n; i++)
		if (c->t[i]->set.n > base->n)
			with[n++] = c->t[i];
	c->best = fastest(tu, with, n);
	free(with);
	return c->best;
}

struct trial *
search_grid(struct tuner *tu, const struct setting *base, const struct kern *k, int pass)
{
	static const char *const how[] = {"heu", "linear", "exhaustive"};
	const struct param *knob = pass_knob(pass);
	int lo = knob->lo, hi = tu->o->lmax < knob->hi ? tu->o->lmax : knob->hi;
	struct grid g = {tu, base, k, pass, knob, lo, hi - (hi - lo) % tu->o->step, tu->o->step,
	                 curve_new(tu, k->demangled, pass, how[tu->o->search])};
	int before = pool_asked(tu), left = searches_of(tu)->left;
	if (tu->o->search == S_HEU)
		heu_search(&g);
	else if (tu->o->search == S_LINEAR)
		linear(&g);
	else
		exhaustive(&g);
	search_left(tu, left);
	g.c->runs = pool_asked(tu) - before;
	return best(tu, g.c, base);
}

struct trial *
search_words(struct tuner *tu, const struct setting *base, const struct kern *k, int pass)
{
	const struct param *knob = pass_knob(pass);
	struct curve *c = curve_new(tu, k->demangled, pass, "every word");
	int before = pool_asked(tu), n = 0;
	while (knob->words[n])
		n++;
	struct trial **t = xmalloc((n + 1) * sizeof *t);
	for (int i = 0; i < n; i++) {
		char *p = fmt("%s=%s", knob->name, knob->words[i]);
		t[i] = withknob(tu, base, pass, k->mangled, p, i);
		free(p);
	}
	search_ask(tu, t, n);
	for (int i = 0; i < n; i++)
		curve_add(c, t[i]);
	c->runs = pool_asked(tu) - before;
	if (!curve_cut(tu, c, t[n - 1]))
		curve_stop(c, fmt("every %s tried (%d)", knob->name, n));
	free(t);
	return best(tu, c, base);
}

int
search_first(struct tuner *tu, const struct setting *base, const struct kern *k, int pass,
             struct trial **t)
{
	const struct param *knob = pass_knob(pass);
	int n = 0;
	switch (knob->kind) {
	case PINT: {
		int lo = knob->lo, hi = tu->o->lmax < knob->hi ? tu->o->lmax : knob->hi;
		char *p = fmt("%s=%d", knob->name, hi - (hi - lo) % tu->o->step);
		t[n++] = withknob(tu, base, pass, k->mangled, p, -1);
		free(p);
		break;
	}
	case PENUM:
		for (; knob->words[n] && n < 8; n++) {
			char *p = fmt("%s=%s", knob->name, knob->words[n]);
			t[n] = withknob(tu, base, pass, k->mangled, p, -1);
			free(p);
		}
		break;
	case PSETS:
		t[n++] = withknob(tu, base, pass, k->mangled, passes[pass]->tune->strongest, -1);
		if (knob->def) {
			char *p = fmt("%s=%s", knob->name, knob->def);
			t[n++] = withknob(tu, base, pass, k->mangled, p, -1);
			free(p);
		}
	}
	return n;
}

int
search_next(struct tuner *tu, const struct setting *base, const struct kern *k, int pass,
            struct trial **t)
{
	int n = search_first(tu, base, k, pass, t);
	if (pass_knob(pass)->kind == PSETS && n)
		n += units_first(tu, base, k, pass, t[0], t + n, 8 - n);
	return n;
}

int
planned(const struct tuner *tu, int pass)
{
	const struct param *k = pass_knob(pass);
	int n = 0;
	switch (k->kind) {
	case PINT:
		n = ((tu->o->lmax < k->hi ? tu->o->lmax : (int)k->hi) - (int)k->lo) / tu->o->step;
		return tu->o->search != S_HEU ? n : 1 + (int)ceil(log2(n > 1 ? n : 2));
	case PENUM:
		while (k->words[n])
			n++;
		return n;
	default:
		return 2 + tu->o->shadow + (tu->o->stopafter ? tu->o->stopafter + 1 : 10);
	}
}

struct trial *
search_knob(struct tuner *tu, const struct setting *base, const struct kern *k, int pass)
{
	switch (pass_knob(pass)->kind) {
	case PINT:
		return search_grid(tu, base, k, pass);
	case PENUM:
		return search_words(tu, base, k, pass);
	case PSETS:
		return search_units(tu, base, k, pass);
	}
	BUG("pass '%s': mpcc-tune cannot search a knob of this kind", pass_name(pass));
}
