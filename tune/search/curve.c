/* curve.c: what every search does: ask the pool for trials (after
 * auto.c's guesses at the searches to come), keep a curve of the trials
 * of one search over one knob, for the table, the SVG and the summary;
 * and make the trial of one more knob. */
#include "tune/search/search.h"

#include <stdlib.h>
#include <string.h>

/* base with pass's knob on kernel set to params (and the kernel's facts):
 * in place of base's own knob of it, if base has one (a search that
 * starts from a probe of pass varies it) */
struct trial *
withknob(struct tuner *tu, const struct setting *base, int pass, const char *kernel,
         const char *params, double x)
{
	struct setting s = {0};
	const struct kern *k = kern_byname(tu->k, tu->nk, kernel);
	char *p = kern_with(k, pass) ? fmt("%s,%s", params, kern_with(k, pass)) : xstrdup(params);
	int set = 0;
	for (int i = 0; i < base->n; i++) {
		const struct knob *b = &base->k[i];
		if (b->pass == pass && !strcmp(b->kernel, kernel))
			setting_launch(tu, &s, pass, kernel, p), set = 1;
		else if (!b->refused)
			setting_add(&s, b->pass, b->kernel, b->params);
	}
	if (!set)
		setting_launch(tu, &s, pass, kernel, p);
	free(p);
	struct trial *t = trial_for(tu, &s, x);
	setting_release(&s);
	return t;
}

struct searches *
searches_of(struct tuner *tu)
{
	if (!tu->srch) {
		tu->srch = xcalloc(1, sizeof *tu->srch);
		tu->srch->left = -1;
	}
	return tu->srch;
}

int
search_curves(const struct tuner *tu, struct curve *const **c)
{
	*c = tu->srch ? tu->srch->c : NULL;
	return tu->srch ? tu->srch->nc : 0;
}

int
search_left(struct tuner *tu, int left)
{
	struct searches *s = searches_of(tu);
	int was = s->left;
	s->left = left;
	session_plan(tu, s->left, s->later);
	return was;
}

void
search_later(struct tuner *tu, int later)
{
	struct searches *s = searches_of(tu);
	s->later = later;
	session_plan(tu, s->left, s->later);
}

void
search_ask(struct tuner *tu, struct trial **t, int n)
{
	if (searches_of(tu)->ahead)
		searches_of(tu)->ahead(tu);
	tuner_eval(tu, t, n);
}

struct curve *
curve_new(struct tuner *tu, const char *kernel, int pass, const char *how)
{
	struct searches *s = searches_of(tu);
	struct curve *c = xcalloc(1, sizeof *c);
	c->kernel = xstrdup(kernel);
	c->pass = pass;
	c->how = how;
	vgrow(s->c, s->nc, s->capc);
	s->c[s->nc++] = c;
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
