/* search.c: which settings to try.
 *
 * Every search adds one knob (a pass on a kernel) to a base setting (what
 * earlier searches kept; the baseline at first) and returns the fastest
 * trial that meets the QoS, or NULL. The QoS holds over the whole output,
 * so a later kernel's search sees the error the earlier knobs already cost.
 *
 * sfu, lambda on the grid 0, step, ..., lmax (004, 5.4):
 *   heu         lambda 0 is the base (no new run); run lmax, done if it meets
 *               the QoS; else the secant through the last point that met it
 *               and the last that did not gives the next lambda (rounded
 *               down to the grid), until the two are one step apart. The
 *               point that met stays the lower bound, so the answer always
 *               meets the QoS (the paper's step back is this bound). When
 *               the same bound moves twice in a row, the other's distance
 *               to the QoS is halved (Illinois), so that a convex error
 *               curve is not crept up on from below one step at a time.
 *   linear      lmax, lmax - step, ... down to the first that meets (SMP).
 *   exhaustive  every point (OMG).
 * fiset (003, 4.5): the sets of the kernel from a build with sets=all, each
 *   ranked by the shadow build's error total of its operations; mode 1 tries
 *   them from the smallest error and stops at the first meeting the QoS
 *   with any speed-up; mode 2 in the same order stops when it also reaches
 *   --perf-threshold (% of the ideal, Eq. 3); mode 3 tries them from the
 *   largest r_ac.
 * half2: the types f32, bf16, f16 (all three tried).
 * auto: a build per pass on every hot kernel gives each pass's advice; the
 *   (kernel, pass) pairs are tried greedily by share x advice. */
#include "tune/tune.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int
passindex(const char *name)
{
	const struct pass *p = findpass(name, strlen(name));
	for (int i = 0; p && i < npass; i++)
		if (passes[i] == p)
			return i;
	return -1;
}

/* the error as a number that must stay at or below qos' */
static double
badness(const struct tuner *tu, const struct trial *t)
{
	if (t->verdict != V_OK)
		return INFINITY;
	return tu->metric == M_DIGITS ? -t->err : t->err;
}

static double
limit(const struct tuner *tu)
{
	return tu->metric == M_DIGITS ? -tu->qos : tu->qos;
}

struct trial *
fastest(const struct tuner *tu, struct trial **t, int n)
{
	struct trial *best = NULL;
	for (int i = 0; i < n; i++) {
		if (!t[i]->meets)
			continue;
		int better = !best || (tu->higher ? t[i]->time > best->time : t[i]->time < best->time);
		if (better)
			best = t[i];
	}
	return best;
}

/* is a faster than b (by more than --min-gain)? */
static int
faster(const struct tuner *tu, const struct trial *a, const struct trial *b)
{
	double gain = tu->higher ? a->time / b->time : b->time / a->time;
	return gain > 1 + tu->mingain / 100;
}

static struct trial *
withknob(struct tuner *tu, const struct setting *base, int pass, const char *kernel,
         const char *params, double x)
{
	struct setting s = setting_copy(base);
	setting_add(&s, pass, kernel, params);
	struct trial *t = trial_for(tu, &s, x);
	setting_release(&s);
	return t;
}

static struct trial *
lambda(struct tuner *tu, const struct setting *base, const struct kern *k, int l)
{
	if (l == 0)
		return trial_for(tu, base, 0);
	char *p = fmt("lambda=%d", l);
	struct trial *t = withknob(tu, base, passindex("sfu"), k->mangled, p, l);
	free(p);
	return t;
}

static void
one(struct tuner *tu, struct curve *c, struct trial *t)
{
	tuner_eval(tu, &t, 1);
	curve_add(c, t);
}

static void
heu(struct tuner *tu, const struct setting *base, const struct kern *k, struct curve *c)
{
	int step = tu->step, lo = 0, hi = tu->lmax - tu->lmax % step, side = 0;
	struct trial *tlo = lambda(tu, base, k, 0), *thi = lambda(tu, base, k, hi);
	one(tu, c, tlo);
	tu->left = hi / step - 1;
	one(tu, c, thi);
	if (thi->meets)
		return;
	double q = limit(tu), flo = badness(tu, tlo) - q, fhi = badness(tu, thi) - q;
	while (hi - lo > step) {
		double x = isfinite(fhi) && fhi > flo ? lo - flo * (hi - lo) / (fhi - flo) : (lo + hi) / 2.0;
		int l = (int)floor(x / step) * step;
		l = l <= lo ? lo + step : l >= hi ? hi - step : l;
		struct trial *t = lambda(tu, base, k, l);
		tu->left = (hi - lo) / step - 2;
		one(tu, c, t);
		if (t->meets) {
			lo = l, flo = badness(tu, t) - q;
			fhi /= side < 0 && isfinite(fhi) ? 2 : 1;
			side = -1;
			if (flo == 0)
				break;
		} else {
			hi = l, fhi = badness(tu, t) - q;
			flo /= side > 0 ? 2 : 1;
			side = 1;
		}
	}
}

static void
linear(struct tuner *tu, const struct setting *base, const struct kern *k, struct curve *c)
{
	for (int l = tu->lmax - tu->lmax % tu->step; l > 0; l -= tu->step) {
		struct trial *t = lambda(tu, base, k, l);
		tu->left = l / tu->step - 1;
		one(tu, c, t);
		if (t->meets)
			return;
	}
}

static void
exhaustive(struct tuner *tu, const struct setting *base, const struct kern *k, struct curve *c)
{
	int n = 0;
	struct trial **t = xmalloc((tu->lmax / tu->step + 2) * sizeof *t);
	for (int l = 0; l <= tu->lmax; l += tu->step)
		t[n++] = lambda(tu, base, k, l);
	tu->left = 0;
	tuner_eval(tu, t, n);
	for (int i = 0; i < n; i++)
		curve_add(c, t[i]);
	free(t);
}

struct trial *
search_sfu(struct tuner *tu, const struct setting *base, const struct kern *k)
{
	static const char *const how[] = {"heu", "linear", "exhaustive"};
	struct curve *c = curve_new(tu, k->demangled, "sfu", how[tu->search]);
	int before = tu->ntrials;
	int left = tu->left;
	if (tu->search == S_HEU)
		heu(tu, base, k, c);
	else if (tu->search == S_LINEAR)
		linear(tu, base, k, c);
	else
		exhaustive(tu, base, k, c);
	tu->left = left;
	c->runs = tu->ntrials - before;
	/* the fastest with the knob: lambda 0 is the base itself */
	struct trial **with = xmalloc((c->n + 1) * sizeof *with);
	int n = 0;
	for (int i = 0; i < c->n; i++)
		if (c->t[i]->set.n > base->n)
			with[n++] = c->t[i];
	c->best = fastest(tu, with, n);
	free(with);
	return c->best;
}

/* a fiset set as the probe build's report lists it */
struct fset {
	long id;
	double rac, err;
	long *ops;
	int nops;
};

/* a number of a report, null (fiset's r_ac of a set with no cast) as inf */
static double
jnum(const char *obj, const char *key, double none)
{
	char *v = jget(obj, key);
	double x = !v ? none : !strcmp(v, "null") ? INFINITY : atof(v);
	free(v);
	return x;
}

/* the sets of the kernel in a report's fiset stats:
 * "set":[{"id":3,"r_ac":4.5,"ins":[12,13,...]},...], "ins" being the
 * ordinals of the set's instructions (as the shadow pass numbers them) */
static int
readsets(const char *report, const char *kernel, struct fset **out)
{
	int n = 0;
	*out = NULL;
	for (const char *l = report ? report : ""; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : "") {
		char *m = jget(l, "mangled"), *tr = jget(l, "transform"), *st = NULL, *sets = NULL;
		if (m && tr && !strcmp(m, kernel) && !strcmp(tr, "fiset") && (st = jget(l, "stats")) &&
		    ((sets = jget(st, "set")) || (sets = jget(st, "sets"))) && n == 0) {
			/* each set's object: from its '{' to the '}' that closes it */
			for (const char *s = strchr(sets, '{'); s; s = strchr(s, '{')) {
				int depth = 0;
				const char *e = s;
				do
					depth += *e == '{' ? 1 : *e == '}' ? -1 : 0;
				while (*++e && depth > 0);
				char *obj = xstrndup(s, e - s), *ins = jget(obj, "ins");
				*out = xrealloc(*out, (n + 1) * sizeof **out);
				struct fset *f = &(*out)[n++];
				*f = (struct fset){(long)jnum(obj, "id", n - 1), jnum(obj, "r_ac", 0), 0, NULL, 0};
				long cnt = 0;
				double *v = ins ? numbers(ins, strlen(ins), O_TEXT, &cnt) : NULL;
				f->ops = xmalloc((cnt + 1) * sizeof *f->ops);
				for (long i = 0; i < cnt; i++)
					f->ops[f->nops++] = (long)v[i];
				free(v), free(obj), free(ins);
				s = e;
			}
		}
		free(m), free(tr), free(st), free(sets);
	}
	return n;
}

static int
byerr(const void *a, const void *b)
{
	const struct fset *x = a, *y = b;
	return (x->err > y->err) - (x->err < y->err);
}

static int
byrac(const void *a, const void *b)
{
	const struct fset *x = a, *y = b;
	return (x->rac < y->rac) - (x->rac > y->rac);
}

/* the percentage of the ideal speed-up (003, Eq. 3) of t; without an ideal
 * build, the percentage of speed-up over the baseline */
double
ofideal(const struct tuner *tu, const struct trial *t)
{
	double p = tu->higher ? t->time : 1 / t->time, p64 = tu->higher ? tu->base->time : 1 / tu->base->time;
	if (!tu->idealt || tu->idealt->verdict != V_OK)
		return (p / p64 - 1) * 100;
	double p32 = tu->higher ? tu->idealt->time : 1 / tu->idealt->time;
	return (p - p64) / (p32 - p64) * 100;
}

/* the probe: a build (and run) with every set of the kernel lowered */
static struct trial *
probe(struct tuner *tu, const struct setting *base, const struct kern *k, const char *pass,
      const char *params)
{
	struct trial *t = withknob(tu, base, passindex(pass), k->mangled, params, -1);
	tuner_eval(tu, &t, 1);
	return t;
}

struct trial *
search_fiset(struct tuner *tu, const struct setting *base, const struct kern *k)
{
	static const char *const how[] = {"", "mode 1", "mode 2", "mode 3"};
	struct curve *c = curve_new(tu, k->demangled, "fiset", how[tu->mode]);
	int before = tu->ntrials;
	struct trial *all = probe(tu, base, k, "fiset", "sets=all");
	struct fset *f;
	int n = readsets(all->report, k->mangled, &f);
	if (!n) {
		fprintf(stderr, "mpcc-tune: fiset on '%s': no sets to try (%s)\n", k->demangled,
		        all->why ? all->why : "the report lists none");
		c->runs = tu->ntrials - before;
		return NULL;
	}
	struct optotal *tot = NULL;
	int ntot = tu->shadow ? shadow_totals(tu, k->mangled, &tot) : 0;
	for (int i = 0; i < n; i++)
		for (int j = 0; j < f[i].nops; j++)
			for (int q = 0; q < ntot; q++)
				if (tot[q].ins == f[i].ops[j])
					f[i].err += tot[q].err;
	qsort(f, n, sizeof *f, tu->mode == 3 ? byrac : byerr);
	int left = tu->left;
	fprintf(stderr, "mpcc-tune: fiset on '%s': %d sets, tried by %s:", k->demangled, n,
	        tu->mode == 3 ? "r_ac, largest first" : "shadow error, smallest first");
	for (int i = 0; i < n; i++)
		fprintf(stderr, " %ld (err %.3g, r_ac %.3g)", f[i].id, f[i].err, f[i].rac);
	fputc('\n', stderr);
	struct trial *found = NULL;
	for (int i = 0; i < n && !found; i++) {
		char *p = fmt("sets=[%ld]", f[i].id);
		struct trial *t = withknob(tu, base, passindex("fiset"), k->mangled, p, f[i].id);
		free(p);
		tu->left = n - i - 1;
		tuner_eval(tu, &t, 1);
		curve_add(c, t);
		int speed = t->verdict == V_OK && faster(tu, t, trial_for(tu, base, 0));
		if (t->meets && speed && (tu->mode == 1 || ofideal(tu, t) >= tu->perf))
			found = t;
	}
	tu->left = left;
	for (int i = 0; i < n; i++)
		free(f[i].ops);
	for (int i = 0; i < ntot; i++)
		free(tot[i].op);
	free(f), free(tot);
	c->runs = tu->ntrials - before;
	c->best = found;
	return found;
}

struct trial *
search_half2(struct tuner *tu, const struct setting *base, const struct kern *k)
{
	static const char *const types[] = {"f32", "bf16", "f16"};
	struct curve *c = curve_new(tu, k->demangled, "half2", "all types");
	int before = tu->ntrials;
	struct trial *t[3];
	for (int i = 0; i < 3; i++) {
		char *p = fmt("type=%s", types[i]);
		t[i] = withknob(tu, base, passindex("half2"), k->mangled, p, i);
		free(p);
	}
	tuner_eval(tu, t, 3);
	for (int i = 0; i < 3; i++)
		curve_add(c, t[i]);
	c->runs = tu->ntrials - before;
	struct trial *b = fastest(tu, t, 3);
	c->best = b;
	return b;
}

/* the advice of a probe build for pass on kernel: the speed-up the pass
 * predicts (its stats' "predicted"), else a guess from what it changed;
 * 0 if it left the kernel alone */
static double
advice(const struct trial *probe, const char *pass, const char *kernel)
{
	double a = 0;
	const char *rep = probe->report ? probe->report : "";
	for (const char *l = rep; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : "") {
		char *m = jget(l, "mangled"), *tr = jget(l, "transform"), *ap = jget(l, "applied");
		char *st = jget(l, "stats"), *pr = st ? jget(st, "predicted") : NULL;
		if (m && tr && ap && !strcmp(m, kernel) && !strcmp(tr, pass) && !strcmp(ap, "true")) {
			/* a number, or one per target ({"sm_80":1.2,"sm_90":1.1}): the worst */
			long nv = 0;
			double *x = pr ? numbers(pr, strlen(pr), O_TEXT, &nv) : NULL, v = INFINITY;
			for (long i = 0; i < nv; i++)
				v = x[i] < v ? x[i] : v;
			if (!nv)
				v = !strcmp(pass, "sfu") ? 2.0 : 1.2;
			a = v > a ? v : a;
			free(x);
		}
		free(m), free(tr), free(ap), free(st), free(pr);
	}
	return a;
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

struct trial *
search_auto(struct tuner *tu)
{
	static const char *const probes[][2] = {{"sfu", "lambda=64"}, {"fiset", "sets=all"},
	                                        {"half2", "type=f16"}};
	struct pair *pr = NULL;
	int np = 0;
	struct setting none = {0};
	for (size_t p = 0; p < countof(probes); p++) {
		int pi = passindex(probes[p][0]);
		if (pi < 0)
			continue;
		struct setting s = {0};
		for (int i = 0; i < tu->nk; i++)
			if (tu->k[i].hot)
				setting_add(&s, pi, tu->k[i].mangled, probes[p][1]);
		struct trial *t = trial_for(tu, &s, -1);
		setting_release(&s);
		tuner_eval(tu, &t, 1);
		for (int i = 0; i < tu->nk; i++) {
			if (!tu->k[i].hot)
				continue;
			double a = advice(t, probes[p][0], tu->k[i].mangled);
			fprintf(stderr, "mpcc-tune: auto: %s on '%s': %s", probes[p][0], tu->k[i].demangled,
			        a > 0 ? "applies" : "left alone");
			if (a > 0)
				fprintf(stderr, ", advice %.3gx, share %.1f%%\n", a, 100 * tu->k[i].share);
			else
				fprintf(stderr, "\n");
			if (a <= 0)
				continue;
			pr = xrealloc(pr, (np + 1) * sizeof *pr);
			pr[np++] = (struct pair){&tu->k[i], pi, (tu->k[i].share > 0 ? tu->k[i].share : 1) * (a - 1)};
		}
	}
	qsort(pr, np, sizeof *pr, bygain);
	struct setting cur = setting_copy(&none);
	struct trial *best = trial_for(tu, &cur, 0);
	for (int i = 0; i < np; i++) {
		const char *name = passes[pr[i].pass]->schema.name;
		struct trial *t = !strcmp(name, "sfu") ? search_sfu(tu, &cur, pr[i].k)
		                  : !strcmp(name, "fiset") ? search_fiset(tu, &cur, pr[i].k)
		                                           : search_half2(tu, &cur, pr[i].k);
		int keep = t && t->meets && faster(tu, t, best);
		fprintf(stderr, "mpcc-tune: auto: %s on '%s': %s\n", name, pr[i].k->demangled,
		        keep ? t->what : t ? "no faster than without it: not kept" : "none met the QoS and ran faster");
		if (keep) {
			setting_release(&cur);
			cur = setting_copy(&t->set);
			best = t;
		}
	}
	setting_release(&cur);
	free(pr);
	return best->set.n ? best : NULL;
}
