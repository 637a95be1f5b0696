/* ask.c: what the searches ask of the pool: the GPUs it has (--jobs),
 * the cache that gives each distinct setting one trial, the batches to
 * run, and the guesses of speculate() that fill the slots a batch leaves
 * free. */
#include "tune/pool/pool.h"

#include <stdlib.h>
#include <string.h>

int
pool_gpus(const struct tuner *tu)
{
	return tu->o->jobs;
}

int
guessing(const struct tuner *tu)
{
	return apart(tu) && buildsapart(tu);
}

int
pool_apart(const struct tuner *tu)
{
	return apart(tu) && tu->o->jobs > 1;
}

int
sidebyside(const struct tuner *tu)
{
	return apart(tu) && tu->o->jobs > 1;
}

/* the trial that built what s gives: of s itself, else one that ran
 * whose build refused the knobs s lacks (a search that starts from a
 * probe whose build left some kernels alone starts from what it built) */
static struct trial *
built(struct tuner *tu, const char *env)
{
	for (int i = 0; i < tu->nt; i++)
		if (!strcmp(tu->t[i]->env, env))
			return tu->t[i];
	for (int i = 0; i < tu->nt; i++) {
		struct trial *u = tu->t[i];
		if (!u->refused || u->verdict < 0 || u->verdict == V_NOAPPLY || u->verdict == V_BUILD)
			continue;
		char *ue = setting_env_applied(&u->set);
		int same = !strcmp(ue, env);
		free(ue);
		if (same)
			return u;
	}
	return NULL;
}

struct trial *
trial_for(struct tuner *tu, const struct setting *s, double x)
{
	char *env = setting_env(s);
	struct trial *u = built(tu, env);
	if (u) {
		free(env);
		if (u->x < 0 && x >= 0)   /* a probe that a search meets again */
			u->x = x;
		return u;
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

struct trial *
trial_again(struct tuner *tu, const struct trial *t)
{
	struct trial *n = xcalloc(1, sizeof *n);
	n->id = tu->nt;
	n->cmd = t->cmd;
	n->set = setting_copy(&t->set);
	n->env = xstrdup(t->env);
	n->what = fmt("%s, again", t->what);
	n->x = -1;
	n->verdict = -1;
	vgrow(tu->t, tu->nt, tu->cap);
	tu->t[tu->nt++] = n;
	return n;
}

void
speculate(struct tuner *tu, struct trial *t, int rank)
{
	struct pool *p = pool_of(tu);
	if (!apart(tu) || !buildsapart(tu) || t->verdict >= 0)
		return;
	for (int j = 0; j < p->nspec; j++)
		if (p->spec[j].t == t)
			return;
	vgrow(p->spec, p->nspec, p->capspec);
	struct guess *g = p->spec;
	int i = p->nspec;
	while (i > 0 && g[i - 1].rank > rank)
		g[i] = g[i - 1], i--;
	g[i] = (struct guess){t, rank, strand_id()};
	p->nspec++;
}

void
speculate_clear(struct tuner *tu, int lo, int hi)
{
	struct pool *p = pool_of(tu);
	struct guess *g = p->spec;
	int m = 0;
	for (int i = 0; i < p->nspec; i++)
		if ((g[i].rank < lo || g[i].rank >= hi || (strand_id() && g[i].owner != strand_id())) &&
		    g[i].t->verdict < 0)
			g[m++] = g[i];
	p->nspec = m;
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
 * has a verdict: asked (the pool's ntrials), or a guess not asked for yet
 * that ran (nguess; one whose build failed or applied nothing used no GPU) */
void
tuner_eval(struct tuner *tu, struct trial **t, int n)
{
	struct pool *p = pool_of(tu);
	struct trial **todo = xmalloc((n + p->nspec + 1) * sizeof *todo);
	int m = 0, asked;
	for (int i = 0; i < n; i++)
		if (t[i]->verdict < 0 && !among(todo, m, t[i]))
			todo[m++] = t[i];
	asked = m;
	/* the guesses of the search in progress and of those to come take
	 * turns, each in its own order */
	for (int i = 0, j = 0; i < p->nspec || j < p->nspec;) {
		while (i < p->nspec && p->spec[i].rank >= RANKS)
			i++;
		while (j < p->nspec && p->spec[j].rank < RANKS)
			j++;
		for (int k = 0; k < 2; k++) {
			int *at = k ? &j : &i;
			struct trial *g = *at < p->nspec ? p->spec[(*at)++].t : NULL;
			if (g && g->verdict < 0 && !among(todo, m, g))
				todo[m++] = g;
		}
	}
	if (asked && !halted(tu) && strand_id())
		strand_wait(tu, todo, m, asked);
	else if (asked && !halted(tu))
		p->eval(tu, todo, m, asked);
	for (int i = 0; i < n; i++)
		if (!t[i]->asked && t[i]->verdict >= 0)
			t[i]->asked = 1, p->ntrials++;
	p->nguess = 0;
	for (int i = 0; i < tu->nt; i++)
		p->nguess += !tu->t[i]->asked && tu->t[i]->verdict >= 0 && tu->t[i]->verdict != V_BUILD &&
		              tu->t[i]->verdict != V_NOAPPLY;
	free(todo);
}

void
tuner_eval_alone(struct tuner *tu, struct trial *t)
{
	struct pool *p = pool_of(tu);
	int guesses = p->nspec;
	p->nspec = 0;
	tuner_eval(tu, &t, 1);
	p->nspec = guesses;
}
