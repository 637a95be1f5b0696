/* compose.c: the winners of searches run side by side, in one trial.
 *
 * Searches run side by side (auto.c) each vary one kernel on the
 * baseline, so each knows the error and the speed of its own kernel's
 * setting alone. Their winners are then built together in one trial: it
 * holds where it meets the QoS and is as fast as its parts promise (their
 * speed-ups multiplied, within the noise). Where it does not, the part
 * that costs most gives way, and the rest are built together again,
 * rather than any search started over: over the QoS, the part whose own
 * error is the largest is replaced by the fastest other trial of its
 * kernel alone whose error fits in what the others leave of the QoS (the
 * errors taken to add), else dropped; slower than promised, the part whose
 * own gain is the least is dropped.
 * The trials that drop each other part are guesses for the GPUs the
 * composition leaves free. Every trial stays a candidate: the answer is
 * the fastest of the session within the QoS (answer/choose.c). */
#include "tune/search/search.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* the kernel of a part: its knobs' (one kernel, the searches' own) */
static const char *
kernelof(const struct trial *t)
{
	return t->set.k[0].kernel;
}

/* where knob k comes in all: the index of its kernel and pass, else all->n */
static int
place(const struct setting *all, const struct knob *k)
{
	int i = 0;
	while (i < all->n && (all->k[i].pass != k->pass || strcmp(all->k[i].kernel, k->kernel)))
		i++;
	return i;
}

/* the knobs the parts still in (but out) applied, in the order of all's,
 * then any that all has not */
static struct setting
knobsof(const struct setting *all, struct trial **parts, const int *in, int n, int out)
{
	struct setting s = {0};
	for (int i = 0; i <= all->n; i++)
		for (int p = 0; p < n; p++)
			for (int j = 0; in[p] && p != out && j < parts[p]->set.n; j++) {
				const struct knob *k = &parts[p]->set.k[j];
				if (!k->refused && place(all, k) == i)
					setting_add(&s, k->pass, k->kernel, k->params);
			}
	return s;
}

/* the error as a number that must stay at or below the QoS's */
static double
badness(const struct tuner *tu, const struct trial *t)
{
	return tu->o->metric == M_DIGITS ? -t->err : t->err;
}

/* the part that costs most: over the QoS, the one of the largest error;
 * slower than promised, the one of the least gain */
static int
costliest(const struct tuner *tu, struct trial **parts, const int *in, int n, int over)
{
	int d = -1;
	for (int p = 0; p < n; p++)
		if (in[p] && (d < 0 || (over ? badness(tu, parts[p]) > badness(tu, parts[d])
		                             : speedup(tu, parts[p]) < speedup(tu, parts[d]))))
			d = p;
	return d;
}

/* the fastest trial of part d's kernel alone, other than those tried,
 * that beats the baseline with an error that fits in what the other
 * parts leave of the QoS (errors adding up; not for digits); NULL if none */
static struct trial *
instead(struct tuner *tu, struct trial **parts, const int *in, int n, int d, struct trial **tried,
        int ntried)
{
	double room = tu->o->qos;
	struct trial *best = NULL;
	if (tu->o->metric == M_DIGITS)
		return NULL;
	for (int p = 0; p < n; p++)
		room -= in[p] && p != d ? parts[p]->err : 0;
	for (int i = 0; i < tu->nt; i++) {
		struct trial *t = tu->t[i];
		int alone = t->set.n > 0, seen = 0;
		for (int k = 0; k < t->set.n; k++)
			alone &= !strcmp(t->set.k[k].kernel, kernelof(parts[d]));
		for (int k = 0; k < ntried; k++)
			seen |= tried[k] == t;
		if (alone && !seen && eligible(tu, t) && t->err <= room && beats(tu, t, tu->base) &&
		    (!best || speedup(tu, t) > speedup(tu, best)))
			best = t;
	}
	return best;
}

/* the parts still in, each dropped in turn: guesses */
static void
dropguesses(struct tuner *tu, const struct setting *all, struct trial **parts, const int *in, int n)
{
	speculate_clear(tu, 0, RANKS);
	for (int p = 0, r = 1; p < n; p++)
		if (in[p]) {
			struct setting s = knobsof(all, parts, in, n, p);
			speculate(tu, trial_for(tu, &s, -1), r++);
			setting_release(&s);
		}
}

/* say what the composition c of live parts did against what they promised */
static void
said(const struct tuner *tu, const struct trial *c, int live, double promised)
{
	fprintf(stderr, "mpcc-tune: compose: the winners of %d searches together (t%d)", live, c->id);
	if (c->verdict != V_OK)
		fprintf(stderr, ": %s", verdictname[c->verdict]);
	else
		fprintf(stderr, ": %.3fx, error %.3g, %s the QoS; their parts promised %.3fx",
		        speedup(tu, c), c->err, c->meets ? "within" : "over", promised);
}

struct trial *
compose(struct tuner *tu, const struct setting *all, struct trial **parts, int n)
{
	int *in = xmalloc(n * sizeof *in), live = n, ntried = n, cap = n;
	struct trial *t = NULL, **tried = xmalloc(n * sizeof *tried);
	parts = memcpy(xmalloc(n * sizeof *parts), parts, n * sizeof *parts);
	for (int p = 0; p < n; p++)
		in[p] = 1, tried[p] = parts[p];
	while (live > 1) {
		struct setting s = knobsof(all, parts, in, n, -1);
		struct trial *c = trial_for(tu, &s, -1), *alt;
		double promised = 1;
		setting_release(&s);
		for (int p = 0; p < n; p++)
			promised *= in[p] ? speedup(tu, parts[p]) : 1;
		if (guessing(tu))
			dropguesses(tu, all, parts, in, n);
		search_ask(tu, &c, 1);
		speculate_clear(tu, 0, RANKS);
		if (c->verdict < 0)
			break;
		int over = c->verdict != V_OK || !c->meets;
		said(tu, c, live, promised);
		if (!over && !(promised > speedup(tu, c) * (1 + threshold(tu)))) {
			fprintf(stderr, ": holds\n");
			t = c;
			break;
		}
		int d = costliest(tu, parts, in, n, over);
		if (over && (alt = instead(tu, parts, in, n, d, tried, ntried))) {
			fprintf(stderr, ": %s (error %.3g alone, the largest) gives way to %s (%.3g)\n",
			        parts[d]->what, parts[d]->err, alt->what, alt->err);
			vgrow(tried, ntried, cap);
			parts[d] = tried[ntried++] = alt;
			continue;
		}
		fprintf(stderr, ": drops %s (%s %.3g alone, the %s)\n", parts[d]->what,
		        over ? "error" : "speed-up", over ? parts[d]->err : speedup(tu, parts[d]),
		        over ? "largest" : "least");
		in[d] = 0, live--;
	}
	free(in), free(tried), free(parts);
	return t;
}
