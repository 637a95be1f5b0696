/* auto.c: the searches composed over kernels and passes.
 *
 * One pass (--transform NAME): its knob is searched on every hot kernel in
 * turn, the largest share of kernel time first, each search on top of what
 * the earlier ones kept. --transform auto: a probe build per pass that the
 * table marks for tuning, with its strongest setting (struct tuning) on
 * every hot kernel, gives each pass's advice per kernel: whether it applies
 * and the speed-up its stats predict (the key of role RPREDICTED, else the
 * table's guess). The probes are independent: they run together. The
 * (kernel, pass) pairs are then searched greedily, by share x (advice - 1),
 * each on top of what was kept; a pair is kept where it meets the QoS and
 * beats what was kept beyond the noise. The probes and every search's
 * trials stay candidates: the answer is the fastest trial of the session
 * within the QoS (main.c, measure.c).
 *
 * Each search gets its kernel's share of the budget (budget.c). With
 * --jobs, the first trials of the searches to come are guesses for the
 * GPUs a search leaves free (speculate()), on top of what is kept now and
 * on top of that with each search before them keeping its strongest
 * setting, the likelier first: which is likelier, the searches so far say.
 *
 * With --jobs N and each trial a program of its own (pool_apart()), the
 * pairs of each kernel form a chain, searched in order on the baseline:
 * the chains run side by side (strands()), each search's share of the time
 * its weight over the pairs not started times the chains at once, and
 * what they kept is composed in one trial (compose.c). */
#include "tune/search/search.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

struct pair {
	struct kern *k;
	int pass;
	double gain;            /* auto's order */
	double weight;          /* its share of the budget */
};

/* the searches so far: how many kept their strongest first trial */
struct odds {
	int kept, done;
};

/* search pass on kernel k over *cur; keep it there if it pays */
static void
step(struct tuner *tu, struct setting *cur, struct trial **kept, const struct kern *k, int pass,
     struct odds *o)
{
	struct trial *t = search_knob(tu, cur, k, pass), *f[8];
	int keep = t && beats(tu, t, *kept);
	char *why = keep ? fmt("kept %s (%.3fx)", t->what, speedup(tu, t))
	            : t ? fmt("its best, %s (%.3fx), is not faster than %.3fx by over the noise (%.1f%%): "
	                  "not kept", t->what, speedup(tu, t), speedup(tu, *kept), 100 * threshold(tu))
	                : xstrdup("nothing met the QoS");
	fprintf(stderr, "mpcc-tune: %s on '%s': %s\n", pass_name(pass), k->demangled, why);
	free(why);
	o->done++;
	if (!keep)
		return;
	o->kept += search_first(tu, cur, k, pass, f) > 0 && f[0] == t;
	setting_release(cur);
	*cur = setting_copy(&t->set);
	*kept = t;
}

/* the searches from pr[i] on, for guessahead() */
static struct {
	const struct setting *cur;
	const struct pair *pr;
	int i, n;
	const struct odds *o;
} ahead;

/* guesses for the searches after pr[i], made again before each batch:
 * their next trials over cur as it is (chain B: no search keeps anything),
 * and their first over cur with each search from pr[i] on keeping its
 * strongest first trial (chain A), ranked by the odds of each chain. A
 * first trial that ran says which chain holds: it met the QoS and beat
 * what it was built on (A), or not (B); else the searches so far give
 * the odds */
static void
guessahead(struct tuner *tu)
{
	const struct setting *cur = ahead.cur;
	double p = (ahead.o->kept + 1.0) / (ahead.o->done + 2), pa = 1, pb = 1;
	struct setting s = setting_copy(cur);
	speculate_clear(tu, RANKS, INT_MAX);
	for (int d = 0; ahead.i + d < ahead.n && d <= 2 * pool_gpus(tu); d++) {
		const struct pair *q = &ahead.pr[ahead.i + d];
		struct trial *f[8], *g[8];
		int m = search_first(tu, &s, q->k, q->pass, f);
		if (d > 0) {
			int mg = search_next(tu, cur, q->k, q->pass, g);
			for (int j = 0; j < m && pa > 0; j++)
				speculate(tu, f[j], RANKS + (int)(100 * (1 - pa)));
			for (int j = 0; j < mg && pb > 0; j++)
				speculate(tu, g[j], RANKS + (int)(100 * (1 - pb)));
		}
		if (!m)
			continue;
		double keep = p;
		if (f[0]->verdict >= 0)
			keep = f[0]->meets && beats(tu, f[0], trial_for(tu, &s, -1));
		pa *= keep, pb *= 1 - keep;
		if (keep > 0) {
			struct setting next = setting_copy(&f[0]->set);
			setting_release(&s);
			s = next;
		}
	}
	setting_release(&s);
}

/* the pairs in order, each search on what the earlier kept, the first on
 * from (the baseline if NULL); what they kept (the caller releases it) */
static struct setting
steps(struct tuner *tu, struct pair *pr, int n, struct trial *from)
{
	struct setting cur = from ? setting_copy(&from->set) : (struct setting){0};
	struct trial *kept = from ? from : tu->base;
	struct odds o = {0, 0};
	double rest = 0;
	for (int i = 0; i < n; i++)
		rest += pr[i].weight;
	ahead.cur = &cur, ahead.pr = pr, ahead.n = n, ahead.o = &o;
	for (int i = 0; i < n; i++) {
		int later = 0;
		for (int j = i + 1; j < n; j++)
			later += planned(tu, pr[j].pass);
		search_later(tu, later);
		if (session_halt(tu)) {
			struct curve *c = curve_new(tu, pr[i].k->demangled, pr[i].pass, "not searched");
			curve_stop(c, xstrdup(session_halt(tu)));
		} else {
			ahead.i = i;
			searches_of(tu)->ahead = guessing(tu) ? guessahead : NULL;
			budget_search(tu, pr[i].weight, rest);
			step(tu, &cur, &kept, pr[i].k, pr[i].pass, &o);
		}
		rest -= pr[i].weight;
	}
	searches_of(tu)->ahead = NULL;
	speculate_clear(tu, 0, INT_MAX);
	search_later(tu, 0);
	return cur;
}

/* the searches of one kernel, side by side with the other kernels' */
struct chain {
	struct pair *pr;        /* its pairs, in the order of all */
	int n;
	struct setting cur;     /* what its searches kept, on the baseline */
	struct trial *kept;
	double *rest;           /* the weights of every chain's pairs not started */
	int *later;             /* the trials they will likely run */
	int at;                 /* the chains that run at once */
};

/* a chain's pairs in order, each search on what the earlier kept, from
 * the baseline: its kernel alone varies. Each search's share of the
 * searches' time is its weight over the pairs not started, times the
 * chains at once */
static void
chainrun(struct tuner *tu, void *arg)
{
	struct chain *c = arg;
	struct odds o = {0, 0};
	for (int i = 0; i < c->n; i++) {
		const struct pair *q = &c->pr[i];
		*c->later -= planned(tu, q->pass);
		search_later(tu, *c->later);
		if (session_halt(tu)) {
			struct curve *cv = curve_new(tu, q->k->demangled, q->pass, "not searched");
			curve_stop(cv, xstrdup(session_halt(tu)));
		} else {
			budget_search(tu, c->at * q->weight, *c->rest);
			*c->rest -= q->weight;
			step(tu, &c->cur, &c->kept, q->k, q->pass, &o);
		}
	}
}

/* the knobs the chains kept, in the order of the pairs: what the
 * searches one after another would have kept, had each kept the same */
static struct setting
together(const struct pair *pr, int n, const struct chain *ch, int nch)
{
	struct setting all = {0};
	for (int i = 0; i < n; i++)
		for (int c = 0; c < nch; c++)
			for (int j = 0; j < ch[c].cur.n; j++) {
				const struct knob *k = &ch[c].cur.k[j];
				if (k->pass == pr[i].pass && !strcmp(k->kernel, pr[i].k->mangled))
					setting_add(&all, k->pass, k->kernel, k->params);
			}
	return all;
}

/* the pairs of each kernel in a chain of its own, the chains side by side
 * from their first trial (strands()); then what they kept, composed, and
 * returned (the caller releases it) */
static struct setting
abreast(struct tuner *tu, struct pair *pr, int n)
{
	struct chain *ch = xcalloc(n, sizeof *ch);
	struct pair *by = xmalloc(n * sizeof *by);
	void **arg = xmalloc(n * sizeof *arg);
	double rest = 0;
	int nch = 0, m = 0, later = 0;
	for (int i = 0; i < n; i++) {
		rest += pr[i].weight, later += planned(tu, pr[i].pass);
		int c = 0;
		while (c < nch && ch[c].pr->k != pr[i].k)
			c++;
		if (c < nch)
			continue;
		ch[nch].pr = by + m;
		for (int j = i; j < n; j++)
			if (pr[j].k == pr[i].k)
				by[m++] = pr[j], ch[nch].n++;
		nch++;
	}
	for (int c = 0; c < nch; c++) {
		ch[c].kept = tu->base, ch[c].rest = &rest, ch[c].later = &later;
		ch[c].at = nch < pool_gpus(tu) ? nch : pool_gpus(tu);
		arg[c] = &ch[c];
	}
	fprintf(stderr, "mpcc-tune: %d kernels searched side by side, each alone on the baseline\n", nch);
	strands(tu, nch, chainrun, arg);
	struct trial **parts = xmalloc(nch * sizeof *parts);
	int np = 0;
	for (int c = 0; c < nch; c++)
		if (ch[c].kept != tu->base)
			parts[np++] = ch[c].kept;
	struct setting all = together(pr, n, ch, nch);
	if (np > 1 && !session_halt(tu))
		compose(tu, &all, parts, np);
	search_later(tu, 0);
	for (int c = 0; c < nch; c++)
		setting_release(&ch[c].cur);
	free(parts), free(ch), free(by), free(arg);
	return all;
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

static int
bygain(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;
	return (x->gain < y->gain) - (x->gain > y->gain);
}

/* whether pass's probes put it on kernel k: the hot kernels, and where
 * pass decides across kernels every kernel --kernels picks that the run
 * launched, however cold. A cold kernel left without it would read the
 * arrays the others keep narrow, and each change of form converts them;
 * it is never searched alone. */
static int
covers(const struct kern *k, int pass)
{
	return k->hot || (k->picked && k->launches > 0 && passes[pass]->tune->joint);
}

/* a probe of pass: its strongest setting on every kernel it covers; or,
 * given the probe of it (first), its fallback on every one of those
 * first left alone (NULL: none) */
static struct trial *
probe(struct tuner *tu, int pass, const struct trial *first)
{
	const struct tuning *tn = passes[pass]->tune;
	struct setting s = {0};
	struct buf cold = BUF_INIT;
	for (int i = 0; i < tu->nk; i++) {
		struct kern *k = &tu->k[i];
		if (!covers(k, pass) || (first && advice(first, pass, k->mangled) > 0))
			continue;
		setting_launch(tu, &s, pass, k->mangled, first ? tn->fallback : tn->strongest);
		if (!k->hot)
			buf_printf(&cold, "%s'%s'", cold.n ? ", " : "", k->demangled);
	}
	if (cold.n && !first)
		fprintf(stderr, "mpcc-tune: %s's probe covers %s too: under --min-share, not searched "
		        "alone, but without %s each launch converts the arrays the others keep narrow\n",
		        pass_name(pass), cold.s, pass_name(pass));
	buf_release(&cold);
	struct trial *t = s.n ? trial_for(tu, &s, -1) : NULL;
	setting_release(&s);
	return t;
}

/* the parameters of the setting text p but pass's knob ("type=bf16" of
 * "params=auto,type=bf16"); NULL: none */
static char *
beyondknob(const char *p, int pass)
{
	const char *knob = pass_knob(pass)->name;
	size_t n = strlen(knob);
	struct buf b = BUF_INIT;
	while (*p) {
		const char *e = p;
		for (int depth = 0; *e && (*e != ',' || depth); e++)
			depth += *e == '[' ? 1 : *e == ']' ? -1 : 0;
		if (strncmp(p, knob, n) || p[n] != '=')
			buf_printf(&b, "%s%.*s", b.n ? "," : "", (int)(e - p), p);
		p = *e ? e + 1 : e;
	}
	if (b.n)
		return buf_take(&b);
	buf_release(&b);
	return NULL;
}

/* the advice of pass's probes (t[0] its strongest, t[1] its fallback or
 * NULL) for kernel k: the fallback's where the strongest leaves k alone,
 * and then k's trials of pass carry the fallback's other parameters */
static double
probed(struct trial *const *t, int pass, struct kern *k)
{
	double a = advice(t[0], pass, k->mangled);
	if (a > 0 || !t[1] || (a = advice(t[1], pass, k->mangled)) <= 0)
		return a;
	if (!k->with)
		k->with = xcalloc(npass, sizeof *k->with);
	free(k->with[pass]);
	k->with[pass] = beyondknob(passes[pass]->tune->fallback, pass);
	return a;
}

/* the pairs that the probes t of pass advise, added to pr */
static int
advised(struct tuner *tu, struct trial *const *t, int pass, struct pair **pr, int np)
{
	for (int i = 0; i < tu->nk; i++) {
		struct kern *k = &tu->k[i];
		double a = k->hot ? probed(t, pass, k) : 0;
		if (!k->hot)
			continue;
		fprintf(stderr, "mpcc-tune: auto: %s on '%s': ", pass_name(pass), k->demangled);
		if (a <= 0) {
			fprintf(stderr, "left alone\n");
			continue;
		}
		fprintf(stderr, "applies%s%s, advice %.3gx, %.1f%% of kernel time\n",
		        kern_with(k, pass) ? " with " : "", kern_with(k, pass) ? kern_with(k, pass) : "",
		        a, 100 * k->share);
		*pr = xrealloc(*pr, (np + 1) * sizeof **pr);
		(*pr)[np++] = (struct pair){k, pass, (k->share > 0 ? k->share : 1) * (a - 1),
		                            k->share > 0 ? k->share : 1};
	}
	return np;
}

/* the kernels of the pairs */
static int
kernels(const struct pair *pr, int n)
{
	int k = 0;
	for (int i = 0; i < n; i++) {
		int seen = 0;
		for (int j = 0; j < i; j++)
			seen |= pr[j].k == pr[i].k;
		k += !seen;
	}
	return k;
}

/* pass decides per array across kernels (struct tuning's joint): what the
 * searches kept, with its probes' knob on every kernel they applied to
 * and the searches left without it, is one more candidate */
static void
across(struct tuner *tu, const struct setting *kept, struct trial *const *t, int pass)
{
	const struct tuning *tn = passes[pass]->tune;
	struct setting s = setting_copy(kept);
	struct buf on = BUF_INIT;
	for (int i = 0; i < tu->nk; i++) {
		struct kern *k = &tu->k[i];
		int has = 0;
		for (int j = 0; j < s.n; j++)
			has |= s.k[j].pass == pass && !strcmp(s.k[j].kernel, k->mangled);
		if (!covers(k, pass) || has || probed(t, pass, k) <= 0)
			continue;
		setting_launch(tu, &s, pass, k->mangled, kern_with(k, pass) ? tn->fallback : tn->strongest);
		buf_printf(&on, "%s'%s'", on.n ? ", " : "", k->demangled);
	}
	if (on.n && !session_halt(tu)) {
		fprintf(stderr, "mpcc-tune: %s across kernels: what the searches kept, with %s on %s too\n",
		        pass_name(pass), pass_name(pass), on.s);
		struct trial *a = trial_for(tu, &s, -1);
		search_ask(tu, &a, 1);
	}
	buf_release(&on);
	setting_release(&s);
}

/* pass's probe t with its arrays as the run found them (struct tuning's
 * flipped): on each kernel, the units the probe chose but those whose
 * arrays its launches converted to the narrow form again at most of them
 * (another reader wants them as they were); NULL where the run dropped
 * none, or said nothing */
static struct trial *
byrun(struct tuner *tu, const struct trial *t, int pass)
{
	const struct tuning *tn = passes[pass]->tune;
	char *path = t && t->verdict == V_OK && tn->flipped ? pass_runreport(pass, t->dir) : NULL;
	size_t len;
	char *rep = path ? readfile(path, &len) : NULL;
	struct setting s = {0};
	struct buf said = BUF_INIT;
	for (int i = 0; rep && i < t->set.n; i++) {
		const struct knob *kn = &t->set.k[i];
		long drop[64];
		int nd = kn->pass == pass ? tn->flipped(rep, kn->kernel, drop, 64) : 0;
		if (!nd) {
			setting_add(&s, kn->pass, kn->kernel, kn->params);
			continue;
		}
		int applied, nu;
		char *st = report_stats(t->report, pass, kn->kernel, &applied);
		struct unit *u;
		struct buf ids = BUF_INIT, off = BUF_INIT;
		nu = st && applied ? stats_units(st, pass, &u) : 0;
		for (int j = 0; j < nu; j++) {
			int gone = 0;
			for (int d = 0; d < nd; d++)
				gone |= u[j].id == drop[d];
			struct buf *to = gone ? &off : &ids;
			if (u[j].chosen)
				buf_printf(to, "%s%ld", to->n ? "," : "", u[j].id);
		}
		const struct kern *k = kern_byname(tu->k, tu->nk, kn->kernel);
		const char *with = kern_with(k, pass);
		if (ids.n) {
			char *p = fmt("%s=[%s]%s%s", tn->knob, ids.s, with ? "," : "", with ? with : "");
			setting_launch(tu, &s, pass, kn->kernel, p);
			free(p);
		}
		buf_printf(&said, "%s'%s' less %s [%s]", said.n ? ", " : "", k ? k->demangled : kn->kernel,
		           tn->knob, off.s);
		if (nu)
			units_release(u, nu);
		free(st);
		buf_release(&ids), buf_release(&off);
	}
	struct trial *r = NULL;
	if (said.n && s.n) {
		fprintf(stderr, "mpcc-tune: %s by its run: the probe but the arrays its run converted to "
		        "the narrow form again at most of their kernel's launches (another reader wants "
		        "them as they were): %s\n", pass_name(pass), said.s);
		r = trial_for(tu, &s, -1);
	}
	buf_release(&said);
	setting_release(&s);
	free(rep), free(path);
	return r;
}

/* where the searches one after another start: the fastest probe of a pass
 * that decides across kernels (struct tuning's joint), where it meets the
 * QoS and beats the baseline beyond the noise; else NULL (the baseline).
 * Such a pass gains only where every kernel that reads an array keeps it
 * narrow: searched kernel by kernel, each trial of one kernel alone
 * converts the arrays at each launch, and what the probe gained would wait
 * for across(), after every other search. */
static struct trial *
start(struct tuner *tu, struct trial *const *t, int n)
{
	struct trial *best = NULL;
	for (int i = 0; i < n; i++)
		if (t[i] && t[i]->meets && beats(tu, t[i], tu->base) &&
		    (!best || speedup(tu, t[i]) > speedup(tu, best)))
			best = t[i];
	if (best)
		fprintf(stderr, "mpcc-tune: auto: the searches start from %s (%.3fx): it decides "
		        "across kernels, and a kernel of it alone converts the arrays the others read\n",
		        best->what, speedup(tu, best));
	return best;
}

void
search_all(struct tuner *tu)
{
	struct pair *pr = NULL;
	struct trial *t[16] = {0}, *ask[16], *twin[8];
	int pass[8], n = 0, np = 0, m = 0;
	/* the probes: every pass's with --transform auto, else the one pass's
	 * where it decides across kernels (its probe is a candidate it needs,
	 * and its fallback says which kernels' trials carry what) */
	for (int p = 0; p < npass && n < 8; p++) {
		const struct tuning *tn = passes[p]->tune;
		if (!pass_tuned(p) || (tu->o->transform >= 0 && (p != tu->o->transform || !tn->joint)))
			continue;
		if ((t[2 * n] = probe(tu, p, NULL)))
			ask[m++] = t[2 * n], pass[n++] = p;
	}
	int ntwin = model_twins(tu, twin, 8);   /* run beside them: the model checked */
	for (int i = 0; i < ntwin; i++)
		ask[m++] = twin[i];
	if (m)
		search_ask(tu, ask, m);
	model_check(tu, twin, ntwin);
	m = 0;   /* the fallbacks, where a probe left kernels alone */
	for (int i = 0; i < n; i++)
		if (passes[pass[i]]->tune->fallback && (t[2 * i + 1] = probe(tu, pass[i], t[2 * i])))
			ask[m++] = t[2 * i + 1];
	if (m)
		search_ask(tu, ask, m);
	struct trial *joint[32];   /* the probes of the passes that decide across kernels, and
	                            * their runs': at most 4 of each of the 8 passes probed */
	int nj = 0;
	m = 0;   /* the probes with their arrays as their runs found them */
	for (int i = 0; i < 2 * n; i++) {
		if (!passes[pass[i / 2]]->tune->joint)
			continue;
		joint[nj++] = t[i];
		if (t[i] && (ask[m] = byrun(tu, t[i], pass[i / 2])))
			joint[nj++] = ask[m++];
	}
	if (m)
		search_ask(tu, ask, m);
	if (tu->o->transform >= 0) {
		int p = tu->o->transform;
		for (int i = 0; i < tu->nk; i++)
			if (tu->k[i].hot) {
				if (n && probed(t, p, &tu->k[i]) > 0 && kern_with(&tu->k[i], p))
					fprintf(stderr, "mpcc-tune: %s on '%s': its trials carry %s (the "
					        "probe of %s left it alone)\n", pass_name(p), tu->k[i].demangled,
					        kern_with(&tu->k[i], p), passes[p]->tune->strongest);
				pr = xrealloc(pr, (np + 1) * sizeof *pr);
				pr[np++] = (struct pair){&tu->k[i], p, 0, tu->k[i].share > 0 ? tu->k[i].share : 1};
			}
	} else {
		for (int i = 0; i < n; i++)
			np = advised(tu, &t[2 * i], pass[i], &pr, np);
		qsort(pr, np, sizeof *pr, bygain);
		for (int i = 0; i < np; i++) {   /* a kernel's share, split among its pairs */
			int same = 0;
			for (int j = 0; j < np; j++)
				same += pr[j].k == pr[i].k;
			pr[i].weight /= same;
		}
	}
	struct setting kept = pool_apart(tu) && kernels(pr, np) > 1 ? abreast(tu, pr, np)
	                      : steps(tu, pr, np, start(tu, joint, nj));
	for (int i = 0; i < n; i++)
		if (passes[pass[i]]->tune->joint)
			across(tu, &kept, &t[2 * i], pass[i]);
	setting_release(&kept);
	free(pr);
}
