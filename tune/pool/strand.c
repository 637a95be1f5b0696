/* strand.c: searches side by side.
 *
 * strands() runs several searches at once, each in a strand: a thread of
 * its own, of which one runs at a time. A strand runs until it asks the
 * pool for trials (tuner_eval()), and waits there while the pool builds
 * and runs what every waiting strand asked for, one trial of each in turn
 * and each on a GPU of its own, behind none of the guesses; the batch
 * ends once some strand's trials are done (the pool's ready()), and that
 * strand goes on. So a search reads as it does alone, and nothing two
 * strands share is touched by both at once: only when its trials run
 * changes. The pool's one loop stays on the thread that called strands().
 *
 * Each strand keeps its own share of the budget (the session's until
 * while it runs) and its own guesses (speculate()'s owner); while the
 * pool runs a batch no search's share holds, only the session's end. */
#include "tune/pool/pool.h"

#include <pthread.h>
#include <stdlib.h>

enum { R_RUN, R_WAIT, R_DONE };

struct strand {
	struct tuner *tu;
	void (*fn)(struct tuner *tu, void *arg);
	void *arg;
	int id;                 /* from 1: the owner of its guesses */
	int state;              /* R_* */
	struct trial **t;       /* R_WAIT: the trials it asked for, then its guesses */
	int n, asked;
	double until;           /* its share of the budget */
	pthread_t th;
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int turn;            /* who runs: a strand's id, or 0 for strands()'s caller */
static struct strand *on;   /* the strand that runs, NULL: strands()'s caller */
static struct strand *all;  /* the strands of the batch the pool runs, for ready() */
static int nall;

/* give the turn to who, and wait for it to come back to me */
static void
pass(int who, int me)
{
	pthread_mutex_lock(&mu);
	turn = who;
	pthread_cond_broadcast(&cv);
	while (turn != me)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
}

static void *
strandmain(void *arg)
{
	struct strand *s = arg;
	pthread_mutex_lock(&mu);
	while (turn != s->id)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	s->fn(s->tu, s->arg);
	s->state = R_DONE;
	pthread_mutex_lock(&mu);
	turn = 0;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	return NULL;
}

int
strand_id(void)
{
	return on ? on->id : 0;
}

void
strand_wait(struct tuner *tu, struct trial **t, int n, int asked)
{
	(void)tu;
	struct strand *s = on;
	s->t = t, s->n = n, s->asked = asked;
	s->state = R_WAIT;
	pass(0, s->id);
}

/* s runs until it waits or ends, with its share of the budget */
static void
resume(struct tuner *tu, struct strand *s)
{
	budget_until(tu, s->until);
	on = s;
	pass(s->id, 0);
	on = NULL;
	s->until = budget_until(tu, 0);
}

/* are the trials s asked for done, or stopped (none of them is under way
 * in the pool)? */
static int
done(const struct strand *s)
{
	for (int i = 0; i < s->asked; i++)
		if (pool_pending(s->t[i]))
			return 0;
	return 1;
}

/* the pool's ready(): may the batch end, a strand's trials done? */
static int
ready(struct tuner *tu)
{
	(void)tu;
	for (int i = 0; i < nall; i++)
		if (all[i].state == R_WAIT && done(&all[i]))
			return 1;
	return 0;
}

static int
among(struct trial *const *t, int n, const struct trial *x)
{
	for (int i = 0; i < n; i++)
		if (t[i] == x)
			return 1;
	return 0;
}

/* run what the waiting strands asked for, one trial of each in turn, and
 * their guesses behind; until one strand's are done */
static void
batch(struct tuner *tu, struct strand *s, int n)
{
	int cap = 1, m = 0, asked, more = 1;
	for (int i = 0; i < n; i++)
		cap += s[i].state == R_WAIT ? s[i].n : 0;
	struct trial **todo = xmalloc(cap * sizeof *todo);
	for (int k = 0; more; k++) {
		more = 0;
		for (int i = 0; i < n; i++)
			if (s[i].state == R_WAIT && k < s[i].asked) {
				more = 1;
				if (!among(todo, m, s[i].t[k]))
					todo[m++] = s[i].t[k];
			}
	}
	asked = m;
	for (int i = 0; i < n; i++)
		for (int k = s[i].asked; s[i].state == R_WAIT && k < s[i].n; k++)
			if (s[i].t[k]->verdict < 0 && !among(todo, m, s[i].t[k]))
				todo[m++] = s[i].t[k];
	struct pool *p = pool_of(tu);
	all = s, nall = n;
	p->ready = ready;
	p->eval(tu, todo, m, asked);
	p->ready = NULL;
	int woke = 0;
	for (int i = 0; i < n; i++)
		if (s[i].state == R_WAIT && done(&s[i]))
			s[i].state = R_RUN, woke++;
	/* the pool stopped before (the budget, Ctrl-C): each strand sees why */
	for (int i = 0; i < n && !woke; i++)
		if (s[i].state == R_WAIT)
			s[i].state = R_RUN;
	free(todo);
}

void
strands(struct tuner *tu, int n, void (*fn)(struct tuner *tu, void *arg), void **arg)
{
	struct strand *s = xcalloc(n, sizeof *s);
	double until = budget_until(tu, 0);
	for (int i = 0; i < n; i++) {
		s[i] = (struct strand){.tu = tu, .fn = fn, .arg = arg[i], .id = i + 1, .until = until};
		if (pthread_create(&s[i].th, NULL, strandmain, &s[i]))
			die("cannot start a thread for a search");
	}
	for (;;) {
		int waiting = 0;
		for (int i = 0; i < n; i++)
			if (s[i].state == R_RUN)
				resume(tu, &s[i]);
		for (int i = 0; i < n; i++)
			waiting += s[i].state == R_WAIT;
		if (!waiting)
			break;
		batch(tu, s, n);
	}
	for (int i = 0; i < n; i++)
		pthread_join(s[i].th, NULL);
	all = NULL, nall = 0;
	budget_until(tu, until);
	free(s);
}
