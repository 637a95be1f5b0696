/* process.c: the builds' and runs' processes.
 *
 * Every run and build is its own process group, so that a run over the
 * time limit, or every one at a second Ctrl-C, is killed with its
 * children: the groups started and not yet waited for are remembered here,
 * for killall(). */
#include "tune/session/session.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

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

/* stop pid's group and wait for it */
void
reap(pid_t pid)
{
	stopgroups(&pid, 1);
}

static void
redirect(const char *path, int fd)
{
	int f = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
	if (f < 0 || dup2(f, fd) < 0)
		_exit(126);
	close(f);
}

/* start sh -c cmd in its own process group; env is NAME=VALUE pairs; a
 * build is niced, so that the runs beside it (--jobs) keep the CPU they
 * time */
pid_t
spawn(const char *cmd, const char *const *env, const char *out, const char *err, int build)
{
	/* a Ctrl-C between the fork and the child's own group would run the
	 * handler in the child: the signals wait until both sides are set */
	sigset_t block, old;
	sigemptyset(&block);
	sigaddset(&block, SIGINT), sigaddset(&block, SIGTERM), sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, &old);
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		die("cannot fork: %s", strerror(errno));
	if (pid == 0) {
		setpgid(0, 0);
		signal(SIGINT, SIG_DFL), signal(SIGTERM, SIG_DFL), signal(SIGHUP, SIG_DFL);
		sigprocmask(SIG_SETMASK, &old, NULL);
		if (build && setpriority(PRIO_PROCESS, 0, 10) < 0)
			_exit(126);
		for (int i = 0; env && env[i]; i++) {
			char *eq = strchr(env[i], '=');
			char *name = xstrndup(env[i], eq - env[i]);
			if (eq[1])
				setenv(name, eq + 1, 1);
			else
				unsetenv(name);
			free(name);
		}
		int null = open("/dev/null", O_RDONLY);
		if (null >= 0)
			dup2(null, 0);
		if (out)
			redirect(out, 1);
		if (err)
			redirect(err, 2);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	setpgid(pid, pid);
	remember(pid);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return pid;
}

int
exitstatus(int st)
{
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
