/* units.c: a PSETS knob, whose values are lists of units the pass's stats
 * name by id: fiset's sets and store's arrays, searched in GPUMixer's
 * modes (003, 4.5).
 *
 * The knob's strongest setting (every unit: sets=all) is built and run
 * first; its report lists the units with their ids, ratio, predicted speed-up
 * and instruction ordinals (the keys of roles RUNITS, RID, RRATIO,
 * RPREDICTED, RINS). The pass's own choice (the knob's default: sets=auto,
 * what the cost model picks) is always run too. Then the units are ranked:
 *   mode 1, 2  by the shadow build's error total of their instructions
 *              (estimated when it shadowed a sample of the kernel's ops),
 *              smallest first (--shadow), else by the model's predicted
 *              speed-up, largest first, or where the units predict
 *              none (store's arrays) by their ratio (store's share of
 *              the kernel's bytes);
 *   mode 3     by the ratio (fiset's r_ac), largest first;
 * and lowered cumulatively: each unit is added to those kept and run; it
 * stays if the QoS still holds, else it is left out and the next is tried.
 * Modes 2 and 3 stop once a setting within the QoS reaches
 * --perf-threshold (percent of the ideal speed-up of Eq. 3 with
 * --ideal-build, else percent over the baseline). Every mode stops after
 * --stop-after units in a row gained nothing: each broke the QoS, or was
 * not faster beyond the noise than the best trial when the row began (so a
 * climb in steps each under the noise goes on); and it does not start
 * where all is the fastest so far and the shadow build gives every unit an
 * error of 0 (then no list of units is both as safe and faster).
 * With --jobs, the lists of the next units, as if each met the QoS, are
 * guesses for the GPUs a trial leaves free. Every trial is a candidate:
 * the answer is the fastest of them all that meets the QoS. */
#include "tune/search/search.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int
byerr(const void *a, const void *b)
{
	const struct unit *x = a, *y = b;
	return (x->err > y->err) - (x->err < y->err);
}

static int
bypred(const void *a, const void *b)
{
	const struct unit *x = a, *y = b;
	return (x->pred < y->pred) - (x->pred > y->pred);
}

static int
byratio(const void *a, const void *b)
{
	const struct unit *x = a, *y = b;
	return (x->ratio < y->ratio) - (x->ratio > y->ratio);
}

/* each unit's error: the shadow totals of its instructions. When the
 * build shadowed a sample of the kernel's ops, a unit the sample missed
 * would look exact (0): every unit's error is then estimated, as its
 * instructions times the mean total of those shadowed, its own if any,
 * else the kernel's */
static int
shadowerr(struct tuner *tu, const struct kern *k, struct unit *u, int n)
{
	struct optotal *tot = NULL;
	int sampled, ntot = shadow_totals(tu, k->mangled, &tot, &sampled);
	double all = 0;
	for (int q = 0; q < ntot; q++)
		all += tot[q].err;
	for (int i = 0; i < n; i++) {
		int seen = 0;
		for (int j = 0; j < u[i].nins; j++)
			for (int q = 0; q < ntot; q++)
				if (tot[q].ins == u[i].ins[j])
					u[i].err += tot[q].err, seen++;
		if (sampled && ntot)
			u[i].err = u[i].nins * (seen ? u[i].err / seen : all / ntot);
	}
	for (int i = 0; i < ntot; i++)
		free(tot[i].op);
	free(tot);
	return ntot;
}

/* rank the units for the mode; what the order is, in words (malloc'd).
 * A pass whose units predict no speed-up (store's arrays) ranks them by
 * their ratio, under its own name. *shadowed: how many ops the shadow
 * build gave totals for (0: no shadow errors) */
static char *
rank(struct tuner *tu, int pass, const struct kern *k, struct unit *u, int n, int *shadowed)
{
	const char *ratio = unit_key(pass, RRATIO);
	*shadowed = 0;
	if (tu->o->mode == 3 || (!tu->o->shadow && !unit_key(pass, RPREDICTED) && ratio)) {
		qsort(u, n, sizeof *u, byratio);
		return fmt("%s, largest first", ratio ? ratio : "ratio");
	}
	if (tu->o->shadow) {
		*shadowed = shadowerr(tu, k, u, n);
		qsort(u, n, sizeof *u, byerr);
		return xstrdup("shadow error, smallest first");
	}
	qsort(u, n, sizeof *u, bypred);
	return xstrdup("the model's predicted speed-up, largest first");
}

/* unit u as the order lists it: "3 (error 2e-07, r_ac 9, predicted 1.11x)",
 * each figure the pass's units have */
static void
unit_print(const struct tuner *tu, int pass, const struct unit *u)
{
	const char *ratio = unit_key(pass, RRATIO), *sep = "";
	fprintf(stderr, " %ld (", u->id);
	if (tu->o->shadow)
		fprintf(stderr, "error %.3g", u->err), sep = ", ";
	if (ratio)
		fprintf(stderr, "%s%s %.3g", sep, ratio, u->ratio), sep = ", ";
	if (unit_key(pass, RPREDICTED))
		fprintf(stderr, "%spredicted %.3gx", sep, u->pred);
	fputc(')', stderr);
}

static int
bylong(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;
	return (x > y) - (x < y);
}

/* "sets=[1,4,7]": ids sorted, so that one list is one trial */
static char *
idlist(const char *knob, const long *ids, int n)
{
	long *s = xmalloc((n + 1) * sizeof *s);
	memcpy(s, ids, n * sizeof *s);
	qsort(s, n, sizeof *s, bylong);
	struct buf b = BUF_INIT;
	buf_printf(&b, "%s=[", knob);
	for (int i = 0; i < n; i++)
		buf_printf(&b, "%s%ld", i ? "," : "", s[i]);
	buf_puts(&b, "]");
	free(s);
	return buf_take(&b);
}

/* the two settings always run: every unit, and the pass's own choice */
static struct trial *
fixed(struct tuner *tu, const struct setting *base, const struct kern *k, int pass, struct curve *c,
      struct trial **own)
{
	const struct param *knob = pass_knob(pass);
	char *p = knob->def ? fmt("%s=%s", knob->name, knob->def) : NULL;
	struct trial *t[2] = {withknob(tu, base, pass, k->mangled, passes[pass]->tune->strongest, -1),
	                      p ? withknob(tu, base, pass, k->mangled, p, -1) : NULL};
	int n = p ? 2 : 1;   /* a knob with no default has no own choice */
	free(p);
	search_ask(tu, t, n);
	for (int i = 0; i < n; i++) {
		int applied, chosen = 0;
		char *st = report_stats(t[i]->report, pass, k->mangled, &applied);
		struct unit *u;
		int n = stats_units(st, pass, &u);
		for (int j = 0; j < n; j++)
			chosen += i == 0 || u[j].chosen;
		t[i]->x = chosen;
		units_release(u, n);
		free(st);
		curve_add(c, t[i]);
	}
	*own = t[n - 1];
	return t[0];
}

/* the trial of the units kept (ids[0..m)) and u[i] */
static struct trial *
withunits(struct tuner *tu, const struct setting *base, const struct kern *k, int pass, long *ids,
          int m, const struct unit *u, int i, int n, struct trial *all)
{
	if (m + 1 == n)
		return all;
	ids[m] = u[i].id;
	char *p = idlist(pass_knob(pass)->name, ids, m + 1);
	struct trial *t = withknob(tu, base, pass, k->mangled, p, m + 1);
	free(p);
	return t;
}

/* the lists of the units after u[i] as if each met the QoS: one for
 * each other GPU, or with one GPU the next, which builds while u[i]'s
 * list runs */
static void
guesses(struct tuner *tu, const struct setting *base, const struct kern *k, int pass, long *ids,
        int m, const struct unit *u, int i, int n, struct trial *all)
{
	int ahead = pool_gpus(tu) > 1 ? pool_gpus(tu) : 2;
	speculate_clear(tu, 0, RANKS);
	for (int d = 0; d < ahead && i + d < n; d++)
		ids[m + d] = u[i + d].id;
	for (int d = 1; d < ahead && i + d < n; d++)
		speculate(tu, withunits(tu, base, k, pass, ids, m + d, u, i + d, n, all), d);
}

int
units_first(struct tuner *tu, const struct setting *base, const struct kern *k, int pass,
            struct trial *all, struct trial **t, int max)
{
	int applied, shadowed, m = 0;
	if (tu->o->shadow || all->verdict < 0)   /* the order needs the shadow build's run */
		return 0;
	char *st = report_stats(all->report, pass, k->mangled, &applied);
	struct unit *u;
	int n = stats_units(st, pass, &u);
	free(st);
	long *ids = xmalloc((n + 1) * sizeof *ids);
	if (n)
		free(rank(tu, pass, k, u, n, &shadowed));
	for (int i = 0; i < n && m < max && m < pool_gpus(tu); i++) {
		ids[i] = u[i].id;
		t[m++] = withunits(tu, base, k, pass, ids, i, u, i, n, all);
	}
	free(ids);
	units_release(u, n);
	return m;
}

/* units added one at a time to those kept, while the QoS holds */
static void
cumulative(struct tuner *tu, const struct setting *base, const struct kern *k, int pass,
           struct curve *c, const struct unit *u, int n, struct trial *all)
{
	long *ids = xmalloc((n + 1) * sizeof *ids);
	int m = 0, left = searches_of(tu)->left, dry = 0;
	/* the best when the row of units without a gain began: the search's
	 * base, or its fastest trial so far */
	struct trial *mark = trial_for(tu, base, -1), *best = fastest(tu, c->t, c->n);
	if (best && (mark->verdict != V_OK || beats(tu, best, mark)))
		mark = best;
	struct buf out = BUF_INIT;
	char *stop = NULL;
	for (int i = 0; i < n && !stop; i++) {
		if (guessing(tu))
			guesses(tu, base, k, pass, ids, m, u, i, n, all);
		struct trial *t = withunits(tu, base, k, pass, ids, m, u, i, n, all);
		int l = n - i - 1;
		if (tu->o->stopafter && l > tu->o->stopafter - dry - 1)
			l = tu->o->stopafter - dry - 1;
		search_left(tu, l);
		search_ask(tu, &t, 1);
		curve_add(c, t);
		if (t->verdict < 0 && halted(tu)) {
			stop = fmt("%s", halted(tu));
			break;
		}
		if (t->meets && beats(tu, t, mark))
			mark = t, dry = 0;
		else
			dry++;
		if (!t->meets)
			buf_printf(&out, "%s%ld", out.n ? ", " : "", u[i].id);
		else
			m++;
		if (t->meets && tu->o->mode > 1 && ofideal(tu, t) >= tu->o->perf)
			stop = xstrdup("it reached --perf-threshold within the QoS");
		else if (tu->o->stopafter && dry >= tu->o->stopafter && i + 1 < n)
			stop = fmt("%d %s in a row gained nothing beyond the noise (%.1f%%)", dry,
			           plural(dry, "unit", "units"), 100 * threshold(tu));
	}
	speculate_clear(tu, 0, RANKS);
	search_left(tu, left);
	curve_stop(c, fmt("%s: %d of %d %s kept%s%s%s", stop ? stop : "every unit tried", m, n,
	                  plural(n, "unit", "units"),
	                  out.n ? " (" : "", out.n ? out.s : "", out.n ? " broke the QoS)" : ""));
	free(stop);
	buf_release(&out);
	free(ids);
}

/* no list of units is both as safe as all and faster, when all is the
 * fastest so far and the shadow build saw no error in any unit (and saw
 * some ops: a shadow build that did not run says nothing) */
static int
allwins(struct tuner *tu, const struct curve *c, struct trial *all, const struct unit *u, int n,
        int shadowed)
{
	if (!shadowed || !all->meets || fastest(tu, c->t, c->n) != all)
		return 0;
	for (int i = 0; i < n; i++)
		if (u[i].err != 0)
			return 0;
	return 1;
}

/* the units the order names, first first: s3d's ratx4 has 191, and the
 * whole order came to a line of 8 KB; the search seldom passes the first
 * few (it stops after --stop-after in a row without a gain) */
#define SHOWN 10

struct trial *
search_units(struct tuner *tu, const struct setting *base, const struct kern *k, int pass)
{
	static const char *const how[] = {"", "mode 1", "mode 2", "mode 3"};
	struct curve *c = curve_new(tu, k->demangled, pass, how[tu->o->mode]);
	int before = pool_asked(tu), applied;
	struct trial *own, *all = fixed(tu, base, k, pass, c, &own);
	char *st = report_stats(all->report, pass, k->mangled, &applied);
	struct unit *u;
	int n = stats_units(st, pass, &u);
	free(st);
	int shadowed;
	if (!n && !curve_cut(tu, c, all)) {
		curve_stop(c, fmt("no units to try (%s)", all->why ? all->why : "the report lists none"));
	} else if (n) {
		char *order = rank(tu, pass, k, u, n, &shadowed);
		fprintf(stderr, "mpcc-tune: %s on '%s': %d %s, by %s:", pass_name(pass), k->demangled, n,
		        plural(n, "unit", "units"), order);
		free(order);
		for (int i = 0; i < n && i < SHOWN; i++)
			unit_print(tu, pass, &u[i]);
		if (n > SHOWN)
			fprintf(stderr, " and %d more", n - SHOWN);
		fputc('\n', stderr);
		if (allwins(tu, c, all, u, n, shadowed))
			curve_stop(c, fmt("%s meets the QoS and is the fastest, and no unit has a shadow "
			                  "error: no list of units to try", passes[pass]->tune->strongest));
		else
			cumulative(tu, base, k, pass, c, u, n, all);
	}
	units_release(u, n);
	c->runs = pool_asked(tu) - before;
	c->best = fastest(tu, c->t, c->n);
	return c->best;
}
