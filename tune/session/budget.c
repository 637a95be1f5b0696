/* budget.c: what a session may still spend.
 *
 * --budget bounds the whole session, the confirmation and the profile's
 * check included. Once the baseline has run, the time those two will take
 * (--confirm rounds of two runs, and a build) is set aside; the searches
 * share the rest (tu->deadline): no trial starts that would end after it
 * (by the trials so far), and what still runs when it passes is stopped.
 * Each search (a knob on a kernel)
 * starts with its share of the time then left, its weight (the kernel's
 * share of kernel time) over the weights of it and the searches after it
 * (tu->until): one that spends it stops, and what it leaves goes to those
 * after it. --max-trials stops every search after that many trials, and
 * the first Ctrl-C stops them as the budget does (signal.c).
 *
 * Decisions only ever stop a search: what a search keeps does not depend
 * on the budget, so a budget that lets a search end gives what no budget
 * gives. */
#include "tune/session/session.h"

#include <math.h>
#include <stdlib.h>

double
duration(const char *s)
{
	double total = 0;
	int parts = 0;
	while (*s) {
		char *end;
		double x = strtod(s, &end);
		if (end == s || !(x >= 0))
			return -1;
		switch (*end) {
		case 'h': x *= 3600, end++; break;
		case 'm': x *= 60, end++; break;
		case 's': end++; break;
		case 0: break;
		default: return -1;
		}
		total += x, parts++, s = end;
	}
	return parts ? total : -1;
}

/* the seconds a trial takes, build and runs, from those that ran; before
 * any, the baseline's build and --runs of its runs */
double
trialcost(const struct tuner *tu)
{
	double sum = 0;
	int n = 0;
	for (int i = 0; i < tu->nt; i++)
		if (tu->t[i] != tu->base && tu->t[i]->verdict >= 0 && tu->t[i]->cost > 0)
			sum += tu->t[i]->cost, n++;
	return n ? sum / n : tu->base->build + tu->o->runs * tu->base->wall;
}

/* the seconds the confirmation and the check will take: --confirm rounds of
 * two runs; where the two share one program, a build for each round and
 * one more (confirm.c); the check's build. A build as long as the trials'
 * builds so far (the step cache serves them), or the baseline's */
static double
reserve(const struct tuner *tu)
{
	double build = tu->base->build, sum = 0, run = tu->base->wall;
	int n = 0;
	for (int i = 0; i < tu->nt; i++)
		if (tu->t[i] != tu->base && tu->t[i]->build > 0)
			sum += tu->t[i]->build, n++;
	if (n)
		build = sum / n;
	return tu->o->confirm * 2 * run + (apart(tu) || tu->o->binary ? 0 : (tu->o->confirm + 1) * build) + build;
}

/* the searches' end, as the builds so far make the reserve */
void
budget_update(struct tuner *tu)
{
	tu->reserve = reserve(tu);
	tu->deadline = tu->t0 + tu->o->budget - tu->reserve;
}

void
budget_start(struct tuner *tu)
{
	tu->tsearch = now();
	if (!tu->o->budget)
		return;
	budget_update(tu);
	fprintf(stderr, "mpcc-tune: budget: %.0f s in all; %.0f s kept for the confirmation and the "
	        "check; the searches have %.0f s\n", tu->o->budget, tu->reserve,
	        fmax(0, tu->deadline - now()));
	if (spent(tu->deadline, 0))
		warn("--budget %.0f s leaves no time to search: a build takes %.3g s and a run %.3g s",
		     tu->o->budget, tu->base->build, tu->base->wall);
}

void
budget_search(struct tuner *tu, double w, double rest)
{
	tu->until = tu->deadline > 0 && rest > 0 ? now() + fmax(0, tu->deadline - now()) * w / rest : 0;
}

/* the one place that says the budget is spent: would need more seconds
 * from now pass end (a time of now(); 0: no end)? */
int
spent(double end, double need)
{
	return end > 0 && now() + need > end;
}

/* the trials that ran */
int
tried(const struct tuner *tu)
{
	int n = 0;
	for (int i = 0; i < tu->nt; i++)
		n += tu->t[i]->verdict >= 0;
	return n;
}

const char *
halted(struct tuner *tu)
{
	if (interrupts && !tu->halt)
		tu->halt = "stopped by Ctrl-C";
	if (tu->o->maxtrials && tried(tu) + tu->inflight >= tu->o->maxtrials && !tu->halt)
		tu->halt = "--max-trials reached";
	if (tu->halt)
		return tu->halt;
	if (spent(tu->until, 0))
		return "its share of the budget is spent";
	return NULL;
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
