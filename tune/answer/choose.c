/* choose.c: the answer of a session: of every trial it ran, whatever
 * search (or probe, or guess) ran it, the fastest within the QoS whose
 * gain is beyond the noise, confirmed against the baseline in interleaved
 * runs (confirm.c); and what that takes, which the budget keeps aside. */
#include "tune/answer/answer.h"

#include <stdlib.h>

static const struct tuner *sorting;

static int
byspeed(const void *a, const void *b)
{
	const struct trial *s = *(struct trial *const *)a, *t = *(struct trial *const *)b;
	double x = speedup(sorting, s), y = speedup(sorting, t);
	return x != y ? (x < y) - (x > y) : (s->id > t->id) - (s->id < t->id);
}

/* the knobs a trial's build applied */
static int
knobs(const struct trial *t)
{
	int n = 0;
	for (int i = 0; i < t->set.n; i++)
		n += !t->set.k[i].refused;
	return n;
}

int
winners(const struct tuner *tu, struct trial ***out)
{
	struct trial **w = xmalloc((tu->nt + 1) * sizeof *w);
	int n = 0, k = 0;
	for (int i = 0; i < tu->nt; i++)
		if (eligible(tu, tu->t[i]) && beats(tu, tu->t[i], tu->base))
			w[n++] = tu->t[i];
	sorting = tu;
	qsort(w, n, sizeof *w, byspeed);
	/* within the noise of the fastest, the fewest knobs first: a knob that
	 * gains nothing one can measure is a risk taken for nothing */
	for (int i = 1; i < n && !beats(tu, w[0], w[i]); i++)
		k = knobs(w[i]) < knobs(w[k]) ? i : k;
	for (struct trial *first = w[k]; k > 0; k--)
		w[k] = w[k - 1], w[k - 1] = first;
	*out = w;
	return n;
}

/* the answer: the fastest trial of the session within the QoS that beats
 * the noise and is confirmed in interleaved runs (up to three tried, as
 * --budget allows); NULL with *note saying why none */
struct trial *
choose(struct tuner *tu, struct confirmation *cf, char **note)
{
	struct trial **w, *win = NULL;
	int n = winners(tu, &w), met = 0, tried = 0;
	*cf = (struct confirmation){0};
	for (int i = 0; i < tu->nt; i++)
		met += eligible(tu, tu->t[i]);
	for (int i = 0; i < n && i < 3 && !win && (!i || budget_fits(tu)); i++, tried++) {
		confirm(tu, w[i], cf);
		win = cf->ok ? w[i] : NULL;
	}
	if (win)
		*note = NULL;
	else if (n)
		*note = fmt("the fastest setting within the QoS (%s, %.3fx in its search) was not confirmed "
		            "against the baseline beyond the noise (%.1f%%)%s", w[0]->what, speedup(tu, w[0]),
		            100 * threshold(tu), tried < n && tried < 3 ? "; --budget left no time to "
		            "confirm the next" : "");
	else if (met)
		*note = fmt("no setting within the QoS ran faster than the baseline beyond the noise "
		            "(%.1f%%; %d met the QoS)", 100 * threshold(tu), met);
	else
		*note = xstrdup("no setting met the QoS");
	free(w);
	return win;
}

struct need
answer_needs(const struct tuner *tu)
{
	struct need n = confirm_needs(tu);
	n.builds++;   /* the profile's check */
	return n;
}
