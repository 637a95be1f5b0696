/* signal.c: Ctrl-C, SIGTERM and SIGHUP.
 *
 * The first Ctrl-C stops the searches as the budget does: the best trial
 * so far is confirmed and written. The second stops at once and writes
 * nothing. SIGTERM and SIGHUP stop what runs and the session. The
 * handlers are tune's own, not spawn_forward()'s: a first Ctrl-C must not
 * stop the builds and runs under way. */
#include "tune/session/session.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

volatile sig_atomic_t interrupts, writing;

/* the builds and runs started and not waited for yet: SIGINT,
 * then SIGKILL 4 s later for what is left (spawn_stop()) */
void
killall(void)
{
	pid_t g[SPAWN_MAX];
	spawn_stop(g, spawn_groups(g, SPAWN_MAX));
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
