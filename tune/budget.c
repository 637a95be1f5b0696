/* budget.c: what a session may still spend, and what it says of its
 * progress.
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
 * the first Ctrl-C stops them as the budget does: the best trial so far is
 * confirmed and written. The second stops at once and writes nothing.
 *
 * Decisions only ever stop a search: what a search keeps does not depend
 * on the budget, so a budget that lets a search end gives what no budget
 * gives.
 *
 * The builds and runs under way are process groups of their own; a Ctrl-C,
 * the deadline, SIGTERM or SIGHUP stop them with stopgroups(). */
#include "tune/tune.h"

#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

volatile sig_atomic_t interrupts, writing;

/* the process groups started and not yet waited for, for killall() */
static volatile pid_t live[256];

void
remember(pid_t pid)
{
	for (size_t i = 0; i < countof(live); i++)
		if (!live[i]) {
			live[i] = pid;
			return;
		}
	BUG("more than %d builds and runs at once", (int)countof(live));
}

void
forget(pid_t pid)
{
	for (size_t i = 0; i < countof(live); i++)
		if (live[i] == pid)
			live[i] = 0;
}

/* is any process of group pid left (its leader waited for if it ended)? */
static int
lingers(pid_t pid)
{
	waitpid(pid, NULL, WNOHANG);
	return kill(-pid, 0) == 0;
}

/* from a signal handler too: SIGINT first, as a Ctrl-C in a terminal
 * would send, so that a build removes its temporary files (nvcc does on
 * SIGINT, not on SIGTERM; mpcc waits up to 3 s for its steps), then, 4 s
 * later, SIGKILL for what is left; each group at once */
void
stopgroups(pid_t *g, int n)
{
	for (int i = 0; i < n; i++)
		if (g[i] > 0)
			kill(-g[i], SIGINT);
	for (int tick = 0, left = 1; tick < 400 && left; tick++) {
		left = 0;
		for (int i = 0; i < n; i++)
			left += g[i] > 0 && lingers(g[i]);
		if (left)
			nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
	}
	for (int i = 0; i < n; i++)
		if (g[i] > 0) {
			if (lingers(g[i]))
				kill(-g[i], SIGKILL);
			waitpid(g[i], NULL, 0);
			forget(g[i]);
		}
}

void
killall(void)
{
	pid_t g[countof(live)];
	for (size_t i = 0; i < countof(live); i++)
		g[i] = live[i];
	stopgroups(g, countof(live));
}

int
apart(const struct tuner *tu)
{
	return tu->run && strstr(tu->run, "MPCC_TUNE_DIR") &&
	       (strstr(tu->build, "MPCC_TUNE_DIR") || tu->binary) &&
	       (!tu->output || !strcmp(tu->output, "stdout") || strstr(tu->output, "MPCC_TUNE_DIR"));
}

int
buildsapart(const struct tuner *tu)
{
	return tu->build && strstr(tu->build, "MPCC_TUNE_DIR") &&
	       (!tu->binary || strstr(tu->binary, "MPCC_TUNE_DIR"));
}

int
guessing(const struct tuner *tu)
{
	return tu->jobs > 1 && apart(tu) && buildsapart(tu);
}

double
now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
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
static double
trialcost(const struct tuner *tu)
{
	double sum = 0;
	int n = 0;
	for (int i = 0; i < tu->nt; i++)
		if (tu->t[i] != tu->base && tu->t[i]->verdict >= 0 && tu->t[i]->cost > 0)
			sum += tu->t[i]->cost, n++;
	return n ? sum / n : tu->base->build + tu->runs * tu->base->wall;
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
	return tu->confirm * 2 * run + (apart(tu) || tu->binary ? 0 : (tu->confirm + 1) * build) + build;
}

/* the searches' end, as the builds so far make the reserve */
static void
deadline(struct tuner *tu)
{
	tu->reserve = reserve(tu);
	tu->deadline = tu->t0 + tu->budget - tu->reserve;
}

void
budget_start(struct tuner *tu)
{
	tu->tsearch = now();
	if (!tu->budget)
		return;
	deadline(tu);
	fprintf(stderr, "mpcc-tune: budget: %.0f s in all; %.0f s kept for the confirmation and the "
	        "check; the searches have %.0f s\n", tu->budget, tu->reserve,
	        fmax(0, tu->deadline - now()));
	if (tu->deadline <= now())
		warn("--budget %.0f s leaves no time to search: a build takes %.3g s and a run %.3g s",
		     tu->budget, tu->base->build, tu->base->wall);
}

void
budget_search(struct tuner *tu, double w, double rest)
{
	tu->until = tu->deadline > 0 && rest > 0 ? now() + fmax(0, tu->deadline - now()) * w / rest : 0;
}

/* the trials that ran */
static int
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
	if (tu->maxtrials && tried(tu) + tu->inflight >= tu->maxtrials && !tu->halt)
		tu->halt = "--max-trials reached";
	if (tu->halt)
		return tu->halt;
	if (tu->until > 0 && now() >= tu->until)
		return "its share of the budget is spent";
	return NULL;
}

int
maystart(struct tuner *tu)
{
	if (halted(tu))
		return 0;
	if (tu->budget && tu->tsearch > 0)   /* the baseline and timing build run whatever */
		deadline(tu);
	if (tu->deadline > 0 && now() + trialcost(tu) > tu->deadline) {
		tu->halt = "the budget is spent";
		return 0;
	}
	return 1;
}

int
planned(const struct tuner *tu, int pass)
{
	const struct param *k = pass_knob(pass);
	int n = 0;
	switch (k->kind) {
	case PINT:
		n = ((tu->lmax < k->hi ? tu->lmax : (int)k->hi) - (int)k->lo) / tu->step;
		return tu->search != S_HEU ? n : 1 + (int)ceil(log2(n > 1 ? n : 2));
	case PENUM:
		while (k->words[n])
			n++;
		return n;
	default:
		return 2 + tu->shadow + (tu->stopafter ? tu->stopafter + 1 : 10);
	}
}

/* "45s", "2m05s", "1h02m" */
static char *
hms(double s)
{
	long x = lround(s > 0 ? s : 0);
	if (x < 60)
		return fmt("%lds", x);
	if (x < 3600)
		return fmt("%ldm%02lds", x / 60, x % 60);
	return fmt("%ldh%02ldm", x / 3600, x % 3600 / 60);
}

/* "12 of about 30 trials, 2m05s, ETA 3m10s, best 1.333x (t4)" */
static char *
where(const struct tuner *tu)
{
	int done = tried(tu), plan = done + tu->pending + (tu->left > 0 ? tu->left : 0) + tu->later;
	double t = now(), per = done > 1 && t > tu->tsearch && tu->tsearch > 0 ?
	                         (t - tu->tsearch) / (done - 1) : trialcost(tu);
	double eta = (plan - done) * per + tu->reserve;
	if (tu->deadline > 0 && plan > done)
		eta = fmin(eta, fmax(0, tu->deadline - t) + tu->reserve);
	const struct trial *b = fastest(tu, tu->t, tu->nt);
	char *el = hms(t - tu->t0), *e = hms(eta);
	char *best = b ? fmt(", best %.3fx (t%d)", speedup(tu, b), b->id) : xstrdup("");
	if (plan < done)
		plan = done;
	char *s = fmt("%d of about %d %s, %s, ETA %s%s", done, plan, plural(plan, "trial", "trials"), el,
	              e, best);
	free(el), free(e), free(best);
	return s;
}

void
progress(const struct tuner *tu, const struct trial *t)
{
	const char *unit = tu->timepat ? "" : " s";
	fprintf(stderr, "mpcc-tune: [t%d] %s: ", t->id, t->what);
	if (t->verdict != V_OK)
		fprintf(stderr, "%s: %s", verdictname[t->verdict], t->why ? t->why : "");
	else if (t == tu->base)
		fprintf(stderr, "time %.4g%s (median of %d; they spread over %.1f%%), %ld %s",
		        t->time, unit, t->ntimes, 100 * spread(t->times, t->ntimes), t->nnum,
		        plural(t->nnum, "number", "numbers"));
	else {
		int probe = instrumented(t);
		fprintf(stderr, "time %.4g%s (%.3fx), %s %.3g", t->time, unit, speedup(tu, t),
		        tu->metric == M_DIGITS ? "digits" : "error", t->err);
		if (tu->idealt && tu->idealt->verdict == V_OK && t != tu->idealt)
			fprintf(stderr, ", %.0f%% of the ideal", ofideal(tu, t));
		fprintf(stderr, "%s", probe || t == tu->idealt ? "" : t->meets ? ": meets the QoS" : ": over the QoS");
	}
	if (t->refused)
		fprintf(stderr, "; refused: %s", t->refused);
	if (t != tu->base && tu->tsearch > 0) {
		char *w = where(tu);
		fprintf(stderr, " [%s]", w);
		free(w);
	}
	fputc('\n', stderr);
}

/* say msg from a signal handler */
static void
say(const char *msg)
{
	ssize_t w = write(2, msg, strlen(msg));
	(void)w;
}

static void
onint(int sig)
{
	(void)sig;
	if (++interrupts == 1) {
		say("\nmpcc-tune: Ctrl-C: the searches stop; the best setting so far is confirmed and "
		    "written (Ctrl-C again: stop now, write nothing)\n");
		return;
	}
	killall();
	say(writing ? "\nmpcc-tune: Ctrl-C again: stopped while the profile was written and checked\n"
	            : "\nmpcc-tune: Ctrl-C again: stopped; no profile written\n");
	_exit(130);
}

/* SIGTERM, SIGHUP (a batch system's end of job, timeout(1)): what runs is in
 * process groups of its own, so it is stopped first */
static void
onterm(int sig)
{
	killall();
	say("\nmpcc-tune: terminated: the builds and runs under way are stopped\n");
	_exit(128 + sig);
}

void
catchint(void)
{
	struct sigaction sa = {.sa_handler = onint}, st = {.sa_handler = onterm};
	sigemptyset(&sa.sa_mask);
	sigemptyset(&st.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &st, NULL);
	sigaction(SIGHUP, &st, NULL);
	/* the batch loop waits for its children: they must not be reaped unseen */
	signal(SIGCHLD, SIG_DFL);
}
