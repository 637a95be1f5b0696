/* setting.c: a setting in words, the cache that gives each distinct
 * setting one trial, the evaluation of trials (with the guesses of
 * speculate()) and the searches' curves. What a setting is, and its
 * MPCC_SET text, is knob.c's. */
#include "tune/tune.h"

#include <stdlib.h>
#include <string.h>

static const char *
shortname(const char *mangled, const struct kern *k, int nk)
{
	for (int i = 0; i < nk; i++)
		if (!strcmp(k[i].mangled, mangled))
			return k[i].demangled;
	return mangled;
}

char *
setting_words(const struct setting *s, const struct kern *k, int nk)
{
	struct buf b = BUF_INIT;
	if (!s->n)
		buf_puts(&b, "baseline (no transform)");
	for (int i = 0; i < s->n; i++) {
		const char *name = shortname(s->k[i].kernel, k, nk);
		size_t n = strcspn(name, "(");
		buf_printf(&b, "%s%.*s %s %s", i ? "; " : "", (int)n, name,
		           passes[s->k[i].pass]->schema.name, s->k[i].params);
	}
	return buf_take(&b);
}

struct trial *
trial_for(struct tuner *tu, const struct setting *s, double x)
{
	char *env = setting_env(s);
	for (int i = 0; i < tu->nt; i++)
		if (!strcmp(tu->t[i]->env, env)) {
			free(env);
			if (tu->t[i]->x < 0 && x >= 0)   /* a probe that a search meets again */
				tu->t[i]->x = x;
			return tu->t[i];
		}
	struct trial *t = xcalloc(1, sizeof *t);
	t->id = tu->nt;
	t->set = setting_copy(s);
	t->env = env;
	t->what = setting_words(s, tu->k, tu->nk);
	t->x = x;
	t->verdict = -1;
	vgrow(tu->t, tu->nt, tu->cap);
	tu->t[tu->nt++] = t;
	return t;
}

void
speculate(struct tuner *tu, struct trial *t, int rank)
{
	if (!apart(tu) || !buildsapart(tu) || t->verdict >= 0)
		return;
	for (int j = 0; j < tu->nspec; j++)
		if (tu->spec[j].t == t)
			return;
	vgrow(tu->spec, tu->nspec, tu->capspec);
	struct guess *g = tu->spec;
	int i = tu->nspec;
	while (i > 0 && g[i - 1].rank > rank)
		g[i] = g[i - 1], i--;
	g[i] = (struct guess){t, rank};
	tu->nspec++;
}

void
speculate_clear(struct tuner *tu, int lo, int hi)
{
	struct guess *g = tu->spec;
	int m = 0;
	for (int i = 0; i < tu->nspec; i++)
		if ((g[i].rank < lo || g[i].rank >= hi) && g[i].t->verdict < 0)
			g[m++] = g[i];
	tu->nspec = m;
}

static int
among(struct trial *const *t, int n, const struct trial *x)
{
	for (int i = 0; i < n; i++)
		if (t[i] == x)
			return 1;
	return 0;
}

/* the trials asked for, then the guesses (which the evaluator runs as its
 * slots allow, and may finish after it returns); a trial counts once it
 * has a verdict: asked (tu->ntrials), or a guess not asked for yet
 * (tu->nguess) */
void
tuner_eval(struct tuner *tu, struct trial **t, int n)
{
	if (tu->ahead)
		tu->ahead(tu);
	struct trial **todo = xmalloc((n + tu->nspec + 1) * sizeof *todo);
	int m = 0, asked;
	for (int i = 0; i < n; i++)
		if (t[i]->verdict < 0 && !among(todo, m, t[i]))
			todo[m++] = t[i];
	asked = m;
	/* the guesses of the search in progress and of those to come take
	 * turns, each in its own order */
	for (int i = 0, j = 0; i < tu->nspec || j < tu->nspec;) {
		while (i < tu->nspec && tu->spec[i].rank >= RANKS)
			i++;
		while (j < tu->nspec && tu->spec[j].rank < RANKS)
			j++;
		for (int k = 0; k < 2; k++) {
			int *at = k ? &j : &i;
			struct trial *g = *at < tu->nspec ? tu->spec[(*at)++].t : NULL;
			if (g && g->verdict < 0 && !among(todo, m, g))
				todo[m++] = g;
		}
	}
	if (asked && !halted(tu))
		tu->eval(tu, todo, m, asked);
	for (int i = 0; i < n; i++)
		if (!t[i]->asked && t[i]->verdict >= 0)
			t[i]->asked = 1, tu->ntrials++;
	tu->nguess = 0;
	for (int i = 0; i < tu->nt; i++)
		tu->nguess += !tu->t[i]->asked && tu->t[i]->verdict >= 0;
	free(todo);
}

struct kern *
kern_byname(const struct tuner *tu, const char *mangled)
{
	for (int i = 0; i < tu->nk; i++)
		if (!strcmp(tu->k[i].mangled, mangled))
			return &tu->k[i];
	return NULL;
}

void
setting_launch(const struct tuner *tu, struct setting *s, int pass, const char *kernel,
               const char *params)
{
	const struct schema *sc = &passes[pass]->schema;
	const struct kern *k = kern_byname(tu, kernel);
	for (int i = 0; i < sc->nparam && k && k->warps; i++)
		if (sc->param[i].flags & PLAUNCH) {
			char *p = fmt("%s%s%s=%d", params, *params ? "," : "", sc->param[i].name, k->warps);
			setting_add(s, pass, kernel, p);
			free(p);
			return;
		}
	setting_add(s, pass, kernel, params);
}

struct trial *
withknob(struct tuner *tu, const struct setting *base, int pass, const char *kernel,
         const char *params, double x)
{
	struct setting s = setting_copy(base);
	setting_launch(tu, &s, pass, kernel, params);
	struct trial *t = trial_for(tu, &s, x);
	setting_release(&s);
	return t;
}

struct curve *
curve_new(struct tuner *tu, const char *kernel, int pass, const char *how)
{
	struct curve *c = xcalloc(1, sizeof *c);
	c->kernel = xstrdup(kernel);
	c->pass = pass;
	c->how = how;
	vgrow(tu->c, tu->nc, tu->capc);
	tu->c[tu->nc++] = c;
	return c;
}

void
curve_add(struct curve *c, struct trial *t)
{
	for (int i = 0; i < c->n; i++)
		if (c->t[i] == t)
			return;
	c->t = xrealloc(c->t, (c->n + 1) * sizeof *c->t);
	c->t[c->n++] = t;
}

void
curve_stop(struct curve *c, char *why)
{
	free(c->stop);
	c->stop = why;
	fprintf(stderr, "mpcc-tune: %s on '%s' (%s): stopped: %s\n", pass_name(c->pass), c->kernel,
	        c->how, why);
}

int
curve_cut(struct tuner *tu, struct curve *c, const struct trial *t)
{
	const char *h = t->verdict < 0 ? halted(tu) : NULL;
	if (h)
		curve_stop(c, xstrdup(h));
	return h != NULL;
}
