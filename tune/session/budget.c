/* budget.c: what a session may still spend.
 *
 * --budget bounds the whole session, the confirmation and the profile's
 * check included. Once the baseline has run, the time those two will take
 * (the runs and builds the answer says they need: answer_needs()) is set
 * aside; the searches share the rest (the session's deadline): no trial
 * starts that would end after it (by the trials so far), and what still
 * runs when it passes is stopped. Each search (a knob on a kernel)
 * starts with its share of the time then left, its weight (the kernel's
 * share of kernel time) over the weights of it and the searches after it
 * (its until): one that spends it stops, and what it leaves goes to those
 * after it. --max-trials stops every search after that many trials, and
 * the first Ctrl-C stops them as the budget does (signal.c).
 *
 * Decisions only ever stop a search: what a search keeps does not depend
 * on the budget, so a budget that lets a search end gives what no budget
 * gives. */
#include "tune/session/session.h"

#include <math.h>
#include <stdlib.h>

struct session *
session_of(struct tuner *tu)
{
	if (!tu->ses) {
		tu->ses = xcalloc(1, sizeof *tu->ses);
		tu->ses->left = -1;
	}
	return tu->ses;
}

void
session_running(struct tuner *tu, int pending, int inflight)
{
	session_of(tu)->pending = pending;
	session_of(tu)->inflight = inflight;
}

void
session_plan(struct tuner *tu, int left, int later)
{
	session_of(tu)->left = left;
	session_of(tu)->later = later;
}

const char *
session_halt(struct tuner *tu)
{
	return session_of(tu)->halt;
}

void
session_stop(struct tuner *tu, const char *why)
{
	if (!session_of(tu)->halt)
		session_of(tu)->halt = why;
}

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

/* the seconds of what the budget keeps aside: runs as long as the
 * baseline's, builds as long as the trials' builds so far (the step cache
 * serves them), or the baseline's */
static double
reserve(const struct tuner *tu, struct need keep)
{
	double build = tu->base->build, sum = 0, run = tu->base->wall;
	int n = 0;
	for (int i = 0; i < tu->nt; i++)
		if (tu->t[i] != tu->base && tu->t[i]->build > 0)
			sum += tu->t[i]->build, n++;
	if (n)
		build = sum / n;
	return keep.runs * run + keep.builds * build;
}

/* the searches' end, as the builds so far make the reserve */
static void
update(struct tuner *tu)
{
	struct session *s = session_of(tu);
	s->reserve = reserve(tu, s->keep);
	s->deadline = tu->t0 + tu->o->budget - s->reserve;
}

void
budget_start(struct tuner *tu, struct need keep)
{
	struct session *s = session_of(tu);
	s->tsearch = now();
	s->keep = keep;
	if (!tu->o->budget)
		return;
	update(tu);
	fprintf(stderr, "mpcc-tune: budget: %.0f s in all; %.0f s kept for the confirmation and the "
	        "check; the searches have %.0f s\n", tu->o->budget, s->reserve,
	        fmax(0, s->deadline - now()));
	if (spent(s->deadline, 0))
		warn("--budget %.0f s leaves no time to search: a build takes %.3g s and a run %.3g s",
		     tu->o->budget, tu->base->build, tu->base->wall);
}

void
budget_search(struct tuner *tu, double w, double rest)
{
	struct session *s = session_of(tu);
	s->until = s->deadline > 0 && rest > 0 ? now() + fmax(0, s->deadline - now()) * w / rest : 0;
}

double
budget_until(struct tuner *tu, double until)
{
	double was = session_of(tu)->until;
	session_of(tu)->until = until;
	return was;
}

int
budget_maystart(struct tuner *tu)
{
	struct session *s = session_of(tu);
	if (halted(tu))
		return 0;
	if (tu->o->budget && s->tsearch > 0)   /* the baseline and timing build run whatever */
		update(tu);
	if (spent(s->deadline, trialcost(tu))) {
		session_stop(tu, "the budget is spent");
		return 0;
	}
	return 1;
}

int
budget_over(struct tuner *tu)
{
	if (!interrupts && !spent(session_of(tu)->deadline, 0))
		return 0;
	session_stop(tu, interrupts ? "stopped by Ctrl-C" : "the budget is spent");
	return 1;
}

void
budget_end(struct tuner *tu)
{
	session_of(tu)->halt = NULL;
	session_of(tu)->deadline = 0;
}

int
budget_fits(struct tuner *tu)
{
	return !spent(tu->o->budget ? tu->t0 + tu->o->budget : 0, session_of(tu)->reserve);
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
	struct session *s = session_of(tu);
	if (interrupts)
		session_stop(tu, "stopped by Ctrl-C");
	if (tu->o->maxtrials && tried(tu) + s->inflight >= tu->o->maxtrials)
		session_stop(tu, "--max-trials reached");
	if (s->halt)
		return s->halt;
	if (spent(s->until, 0))
		return "its share of the budget is spent";
	return NULL;
}
