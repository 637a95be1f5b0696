/* curve.c: what every search does: ask the pool for trials (after
 * auto.c's guesses at the searches to come), keep a curve of the trials
 * of one search over one knob, for the table, the SVG and the summary;
 * and make the trial of one more knob. */
#include "tune/search/search.h"

#include <stdlib.h>
#include <string.h>

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

void
search_ask(struct tuner *tu, struct trial **t, int n)
{
	if (tu->ahead)
		tu->ahead(tu);
	tuner_eval(tu, t, n);
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
