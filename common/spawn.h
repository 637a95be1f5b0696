/* spawn.h: the one place mpcc and mpcc-tune start processes, in the
 * spirit of git's run-command. It owns the table of live process groups,
 * the forwarding of SIGINT/SIGTERM/SIGHUP/SIGPIPE to them, and the exit
 * status as sh gives it (128 + signal).
 *
 * A child started with .group is a process group of its own, so that a
 * signal reaches it and everything it runs (sh, cicc, make and what make
 * runs); it stays in the table from spawn_start() until it is waited for.
 * The forwarded signals are blocked from before the fork until both sides
 * are set (the child's group, its handlers; the parent's table), so that
 * a Ctrl-C in between neither runs the parent's handler in the child nor
 * misses the child.
 *
 * Every process mpcc, mpcc-opt and mpcc-tune start is started here: the
 * driver's steps and its hook's child, the step cache's, mpcc-tune's
 * builds and runs, half2's ptxas (tests/driver/t-structure.sh checks that
 * no other file forks, execs, popen()s or system()s). A child that cannot
 * set itself up (a file it cannot open) exits 127.
 *
 * Layers: common (the bottom: no includes from above). */
#ifndef MPCC_SPAWN_H
#define MPCC_SPAWN_H

#include <sys/types.h>

#define SPAWN_MAX 256   /* live groups at once: more is a BUG */

struct spawn {
	const char *line;         /* sh -c LINE (argv[0] "sh"), or else */
	char *const *argv;        /* execv(argv[0], argv): argv[0] is a path */
	const char *out, *err;    /* stdout, stderr to these files, truncated;
	                           * NULL: inherited; err == out: 2>&1 */
	int nullin;               /* stdin from /dev/null */
	const char *const *env;   /* NAME=VALUE set, NAME= unset; NULL-ended */
	int nice;                 /* added to the child's nice value */
	int group;                /* a process group of its own, in the table */
};

/* start s: its pid. A child that cannot set itself up or exec exits 127,
 * saying why when exec fails */
pid_t spawn_start(const struct spawn *s);
/* start s and wait for it: its exit status as sh gives it */
int spawn_run(const struct spawn *s);
/* a child that goes on in this program: in a group of its own, in the
 * table, with the default handlers and an empty table of its own (its
 * parent forwards signals to it and cleans up, even if it dies); 0 in the
 * child, which ends with _exit() */
pid_t spawn_fork(void);

/* become argv: execv(argv[0], argv) in this process, its buffers
 * flushed; dies saying why if it cannot */
_Noreturn void spawn_exec(char *const *argv);

/* wait for pid: its exit status as sh gives it (128 + signal) */
int spawn_wait(pid_t pid);
/* has pid ended? 1 with *st as sh gives it, else 0; never blocks */
int spawn_poll(pid_t pid, int *st);
/* a child that has ended, any of them: its pid, *st as sh gives it; 0 if
 * none has (or none is left); never blocks */
pid_t spawn_any(int *st);

/* forward SIGINT, SIGTERM, SIGHUP and SIGPIPE (a reader that stops early:
 * mpcc ... 2>&1 | grep -q): the signal goes to every live group, each is
 * waited for (its leader, then up to 3 s for the rest of the group), then
 * cleanup runs (may be NULL) and this process dies by the signal. A signal
 * ignored now (nohup, a background job) stays ignored */
void spawn_forward(void (*cleanup)(void));
/* fn runs in every child, before exec or before spawn_fork() returns:
 * for what this process set on itself that its children must not inherit
 * (driver/contain.c's limits). One at a time; NULL: none */
void spawn_onchild(void (*fn)(void));

/* the live groups, at most max of them into g: how many (safe in a
 * signal handler) */
int spawn_groups(pid_t *g, int max);
/* stop the groups g[0..n) (0: none): SIGINT first, as a Ctrl-C in a
 * terminal would send, so that a build removes its temporary files (nvcc
 * does on SIGINT, not on SIGTERM; the forwarding above waits 3 s for a
 * step), then, 4 s later, SIGKILL for what is left; each group at once,
 * waited for and forgotten (safe in a signal handler) */
void spawn_stop(const pid_t *g, int n);

#endif
