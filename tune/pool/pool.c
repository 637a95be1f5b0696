/* pool.c: the pool of trials, built and run as their slots free up.
 *
 * A batch of trials goes through one loop: each build starts when a build
 * slot is free (--build-jobs when --build names $MPCC_TUNE_DIR, else one,
 * since the builds share the user's files), and each built trial runs when
 * a GPU is free (--jobs, CUDA_VISIBLE_DEVICES=slot, when --run names
 * $MPCC_TUNE_DIR and each trial has its own program: its directory or its
 * copy of --binary); so a trial runs while the next builds. Without its own
 * program a trial builds and runs before the next builds.
 *
 * That loop, drive(), is the only one of tune/ that waits for a process:
 * what side.c starts beside the trials (the confirmation's runs, a
 * rebuild, the profile's check) waits in it too, as jobs of its own
 * (pool_wait()) that no budget or Ctrl-C stops. */
#include "tune/pool/pool.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>

/* A trial a search asks for is wanted: trials_run() returns once the
 * wanted are done. The guesses given with them go on in the pool across
 * calls, behind the wanted: a guess starts a build only while fewer than
 * GUESSES per GPU are under way and guesses hold under half the build
 * slots, and runs only on a GPU that no wanted trial needs: one is left
 * for each wanted trial that does not run yet, and at least one; with one
 * GPU a guess builds while the wanted run, and runs only once it is wanted
 * (a wrong guess costs the GPU nothing). While strands wait (strand.c),
 * the call may return once one of them has its trials (the pool's ready()).
 * A guess no call names any more is dropped before it starts; what still
 * runs when the searches end is stopped (trials_drop()). */
#define GUESSES 2

enum { J_WAIT, J_BUILD, J_BUILT, J_RUN, J_RAN, J_DONE, J_SIDE };

struct job {
	struct trial *t;
	int state;      /* J_*; J_RAN: its runs done, waiting for the baseline's verdict;
	                 * J_SIDE: a process of pool_wait() (side.c), t NULL */
	int run;        /* runs done */
	int gpu;        /* its slot while it runs */
	int want;       /* asked for by the call under way (else a guess) */
	int order;      /* its place in that call's list */
	pid_t pid;
	double t0;      /* its process's start */
	struct side *side;   /* J_SIDE: its process and its end */
};

static struct jobs {
	struct job *j;
	int n, cap;
	int builds, bmax, runs, rmax;
	char *busy;     /* rmax GPU slots */
	double limit;   /* seconds a run may take (0: no limit) */
	int inflight;   /* the jobs of the batch being run that started (the session's) */
} P;

struct pool *
pool_of(struct tuner *tu)
{
	if (!tu->pool) {
		tu->pool = xcalloc(1, sizeof *tu->pool);
		tu->pool->eval = trials_run;
	}
	return tu->pool;
}

int
pool_asked(const struct tuner *tu)
{
	return tu->pool ? tu->pool->ntrials : 0;
}

int
pool_guessed(const struct tuner *tu)
{
	return tu->pool ? tu->pool->nguess : 0;
}

static int
inflight(const struct job *j)
{
	return j->state == J_BUILD || j->state == J_BUILT || j->state == J_RUN;
}

/* the trials of the pool that started and have not ended (guesses: only
 * those) */
static int
underway(int guesses)
{
	int n = 0;
	for (int i = 0; i < P.n; i++)
		n += inflight(&P.j[i]) && (!guesses || !P.j[i].want);
	return n;
}

/* the guesses building: at most half the build slots, so that a trial a
 * search asks for finds one */
static int
guessbuilds(void)
{
	int n = 0;
	for (int i = 0; i < P.n; i++)
		n += P.j[i].state == J_BUILD && !P.j[i].want;
	return n;
}

/* the GPUs kept from the guesses: one for each wanted trial that does not
 * run yet (it waits, builds or is built), and at least one */
static int
forwanted(void)
{
	int n = 0;
	for (int i = 0; i < P.n; i++)
		n += P.j[i].want && P.j[i].state <= J_BUILT;
	return n > 1 ? n : 1;
}

static int
wanted(void)
{
	int n = 0;
	for (int i = 0; i < P.n; i++)
		n += P.j[i].want && P.j[i].state != J_DONE;
	return n;
}

/* a trial stopped before its end (the budget, Ctrl-C) is as if never run */
static void
unrun(struct trial *t)
{
	free(t->times), free(t->walls), free(t->why), free(t->num), free(t->report), free(t->refused);
	free(t->words);
	t->times = t->walls = t->num = NULL;
	t->why = t->report = t->refused = t->words = NULL;
	t->ntimes = 0, t->nnum = 0, t->verdict = -1, t->cost = t->build = 0;
	for (int i = 0; i < t->set.n; i++)
		t->set.k[i].refused = 0;
}

static void
done(struct job *j)
{
	if (j->state == J_RUN)
		P.busy[j->gpu] = 0, P.runs--;
	if (j->state == J_BUILD)
		P.builds--;
	j->state = J_DONE;
}

/* stop what runs in the pool (guesses only, or all); what has not
 * finished stays unrun */
static void
stoppool(int guesses)
{
	pid_t *g = xcalloc(P.n + 1, sizeof *g);
	for (int i = 0; i < P.n; i++)
		if ((P.j[i].state == J_BUILD || P.j[i].state == J_RUN) && (!guesses || !P.j[i].want))
			g[i] = P.j[i].pid;
	spawn_stop(g, P.n);
	for (int i = 0; i < P.n; i++)
		if (P.j[i].state != J_DONE && (!guesses || !P.j[i].want)) {
			unrun(P.j[i].t);
			done(&P.j[i]);
		}
	free(g);
}

/* is t's build to come or under way? */
static int
building(const struct trial *t)
{
	for (int i = 0; t && i < P.n; i++)
		if (P.j[i].t == t && (P.j[i].state == J_WAIT || P.j[i].state == J_BUILD))
			return 1;
	return 0;
}

/* may a build start? None starts beside the baseline's, whose steps fill
 * the step cache that the others read (the timing build's preprocessing
 * and cicc: builds while the baseline runs). A build that does not name
 * $MPCC_TUNE_DIR writes the program the trials share: it waits until no
 * other trial needs it */
static int
canbuild(const struct tuner *tu, const struct job *j)
{
	if (P.builds >= P.bmax || (j->t != tu->base && building(tu->base)))
		return 0;
	/* with one GPU a built guess waits to be asked for, holding no slot */
	int guesses = P.rmax > 1 ? underway(1) : guessbuilds();
	if (!j->want && (guesses >= GUESSES * P.rmax || 2 * (guessbuilds() + 1) > P.bmax))
		return 0;
	if (apart(tu))
		return 1;
	for (int i = 0; i < P.n; i++)
		if (inflight(&P.j[i]))
			return 0;
	return 1;
}

/* the verdict of a trial whose runs are done, once the baseline has one;
 * none where the baseline failed (the session ends) */
static void
finish(struct tuner *tu, struct job *j)
{
	if (j->t != tu->base && tu->base && tu->base->verdict > V_OK) {
		j->state = J_DONE;   /* the baseline failed: nothing to judge it by */
		return;
	}
	if (j->t != tu->base && (!tu->base || tu->base->verdict != V_OK))
		return;
	trial_judge(tu, j->t);
	progress(tu, j->t);
	j->state = J_DONE;
}

/* the GPU a run in slot sees: CUDA_VISIBLE_DEVICES, or -1 (none set) with
 * one GPU or a --launcher that places each run */
int
pool_gpu(const struct tuner *tu, int slot)
{
	return tu->o->jobs > 1 && !tu->o->launcher ? slot : -1;
}

/* the wanted first, then the guesses in the order given */
static void
startjobs(struct tuner *tu)
{
	for (int i = 0; i < P.n; i++) {
		struct job *j = &P.j[i];
		if (j->state == J_RAN)
			finish(tu, j);
		if (j->state == J_WAIT && canbuild(tu, j)) {
			if (!budget_maystart(tu)) {   /* its search's time is up: it stays unrun */
				done(j);
				continue;
			}
			j->t0 = now();
			j->pid = trial_build(tu, j->t);
			j->state = J_BUILD;
			P.builds++;
		}
		if (j->state == J_BUILT && (j->want ? P.runs < P.rmax : P.runs + forwanted() < P.rmax)) {
			j->gpu = 0;
			while (P.busy[j->gpu])
				j->gpu++;
			P.busy[j->gpu] = 1;
			j->state = J_RUN;
			P.runs++;
			j->t0 = now();
			j->pid = trial_launch(tu, j->t, pool_gpu(tu, j->gpu));
		}
	}
}

/* j's process ended with exit status st (-1: killed over the limit) */
static void
ended(struct tuner *tu, struct job *j, int st)
{
	double wall = now() - j->t0;
	if (j->state == J_SIDE) {
		j->side->st = st, j->side->wall = wall;
		j->state = J_DONE;
		return;
	}
	if (j->state == J_BUILD) {
		j->t->build = j->t->cost = wall;
		P.builds--;
		j->state = J_BUILT;
		if (trial_built(tu, j->t, st) < 0)
			j->state = J_DONE;
		return;
	}
	if (trial_ran(tu, j->t, j->run, st, wall) < 0 || ++j->run == trial_runs(tu, j->t)) {
		P.busy[j->gpu] = 0, P.runs--;
		j->state = J_RAN;
		finish(tu, j);
		return;
	}
	j->t0 = now();
	j->pid = trial_launch(tu, j->t, pool_gpu(tu, j->gpu));
}

/* wait for a process of the pool to end, or a run to pass its limit: the
 * only wait for a process of tune/ that reads how it ended (spawn_stop()
 * only reaps what it stopped) */
static void
await(struct tuner *tu)
{
	int st;
	pid_t pid = spawn_any(&st);
	for (int i = 0; i < P.n; i++) {
		struct job *j = &P.j[i];
		if ((j->state != J_BUILD && j->state != J_RUN && j->state != J_SIDE) || !j->pid)
			continue;
		double limit = j->side ? j->side->limit : j->state != J_RUN ? 0 :
		               instrumented(j->t) ? INSTRUMENTED_SLOW * P.limit : P.limit;
		if (pid == j->pid) {
			ended(tu, j, st);
		} else if (limit > 0 && now() - j->t0 > limit) {
			spawn_stop(&j->pid, 1);
			ended(tu, j, -1);
		}
	}
	if (!pid)
		nanosleep(&(struct timespec){0, 1000000}, NULL);
}

/* the one loop that waits for builds and runs: until the wanted are done
 * (or, while strands wait, one strand's: the pool's ready()),
 * start what may start (trials: stop is set) and wait for what runs. With
 * stop, a Ctrl-C or the searches' time up stops what runs now (a trial
 * that may not start, budget_maystart(), waits for those under way); the
 * processes of pool_wait() run to their end whatever */
static void
drive(struct tuner *tu, int stop)
{
	int pending;
	struct pool *p = pool_of(tu);
	while ((pending = wanted()) > 0 && !(p->ready && p->ready(tu))) {
		session_running(tu, pending, P.inflight);
		if (stop && budget_over(tu)) {
			stoppool(0);
			break;
		}
		if (stop)
			startjobs(tu);
		session_running(tu, pending, P.inflight = underway(0));
		if (wanted() > 0)
			await(tu);
	}
	session_running(tu, 0, P.inflight = 0);
}

static int
bywant(const void *a, const void *b)
{
	const struct job *x = a, *y = b;
	if (x->want != y->want)
		return y->want - x->want;
	return (x->order > y->order) - (x->order < y->order);
}

/* the pool for this call: the jobs of t[], wanted (the first asked) or
 * guesses, in that order; the guesses not named again and not started,
 * and the jobs done, leave it */
static void
refill(struct tuner *tu, struct trial **t, int n, int asked)
{
	int m = 0;
	for (int i = 0; i < P.n; i++) {
		struct job *j = &P.j[i];
		j->want = 0, j->order = n;
		for (int k = 0; k < n; k++)
			if (t[k] == j->t)
				j->want = k < asked, j->order = k;
		if (j->state == J_DONE || (j->state == J_WAIT && j->order == n))
			continue;
		P.j[m++] = *j;
	}
	P.n = m;
	for (int k = 0; k < n; k++) {
		int known = 0;
		for (int i = 0; i < P.n; i++)
			known |= P.j[i].t == t[k];
		if (known || t[k]->verdict >= 0)
			continue;
		free(t[k]->dir);
		t[k]->dir = fmt("%s/t%d", tu->o->workdir, t[k]->id);
		mkdir(t[k]->dir, 0777);
		vgrow(P.j, P.n, P.cap);
		P.j[P.n++] = (struct job){t[k], J_WAIT, 0, 0, k < asked, k, 0, 0, NULL};
	}
	qsort(P.j, P.n, sizeof *P.j, bywant);
}

void
trials_run(struct tuner *tu, struct trial **t, int n, int asked)
{
	if (!P.busy) {
		P.bmax = buildsapart(tu) && tu->o->bjobs > 0 ? tu->o->bjobs : 1;
		P.rmax = apart(tu) && tu->o->jobs > 0 ? tu->o->jobs : 1;
		P.busy = xcalloc(P.rmax, 1);
	}
	P.limit = tu->base && tu->base->verdict == V_OK ? tu->o->slow * tu->base->wall + SLACK : 0;
	refill(tu, t, n, asked);
	drive(tu, 1);
}

void
pool_wait(struct tuner *tu, struct side *s, int n)
{
	int m = 0;
	for (int i = 0; i < n; i++) {
		vgrow(P.j, P.n, P.cap);
		P.j[P.n++] = (struct job){.state = J_SIDE, .want = 1, .pid = s[i].pid, .t0 = s[i].t0,
		                          .side = &s[i]};
	}
	drive(tu, 0);
	for (int i = 0; i < P.n; i++)
		if (!P.j[i].side)
			P.j[m++] = P.j[i];
	P.n = m;
}

int
pool_pending(const struct trial *t)
{
	for (int i = 0; i < P.n; i++)
		if (P.j[i].t == t && P.j[i].state != J_DONE)
			return 1;
	return 0;
}

void
trials_drop(struct tuner *tu)
{
	(void)tu;
	for (int i = 0; i < P.n; i++)
		P.j[i].want = 0;
	stoppool(1);
	P.n = 0;
}
