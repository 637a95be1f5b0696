/* spawn.c: starting, waiting for and signalling child processes
 * (common/spawn.h says what and why). Every fork of mpcc and mpcc-tune
 * goes through forkheld(): the forwarded signals held, the child in its
 * group with the default handlers, the parent's table updated, then the
 * signals let go on both sides. The table is what a signal handler reads,
 * so it is a fixed array of pids written one word at a time. */
#include "common/spawn.h"
#include "common/util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* the signals forwarded to the children, and held around a fork */
static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
static volatile pid_t live[SPAWN_MAX];   /* the groups started, not waited for */
static void (*atsignal)(void);           /* spawn_forward's cleanup */
static void (*onchild)(void);

static void
forget(pid_t pid)
{
	for (size_t k = 0; k < countof(live); k++)
		if (live[k] == pid)
			live[k] = 0;
}

static void
remember(pid_t pid)
{
	for (size_t k = 0; k < countof(live); k++)
		if (!live[k]) {
			live[k] = pid;
			return;
		}
	BUG("more than %d process groups at once", (int)countof(live));
}

/* the exit status as sh gives it: the one place it is worked out */
static int
status(int st)
{
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* fork with the forwarded signals held (*old: the mask to go back to, on
 * both sides); the child in its own group when group is set, its caught
 * handlers back to the default, its table empty, onchild run */
static pid_t
forkheld(int group, sigset_t *old)
{
	sigset_t set;
	sigemptyset(&set);
	for (size_t i = 0; i < countof(sigs); i++)
		sigaddset(&set, sigs[i]);
	sigprocmask(SIG_BLOCK, &set, old);
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		sigprocmask(SIG_SETMASK, old, NULL);
		die("cannot fork: %s", strerror(errno));
	}
	if (pid > 0) {
		if (group) {
			setpgid(pid, pid);
			remember(pid);
		}
		return pid;
	}
	if (group)
		setpgid(0, 0);
	for (size_t i = 0; i < countof(sigs); i++) {
		struct sigaction sa;
		if (sigaction(sigs[i], NULL, &sa) == 0 && sa.sa_handler != SIG_IGN &&
		    sa.sa_handler != SIG_DFL)
			signal(sigs[i], SIG_DFL);
	}
	for (size_t k = 0; k < countof(live); k++)
		live[k] = 0;
	if (onchild)
		onchild();
	return 0;
}

static int
redirect(const char *path, int fd)
{
	int f = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
	if (f < 0 || (f != fd && dup2(f, fd) < 0))
		return -1;
	if (f != fd)
		close(f);
	return 0;
}

/* NAME=VALUE: set; NAME=: unset */
static void
setenvs(const char *const *env)
{
	for (int i = 0; env && env[i]; i++) {
		const char *eq = strchr(env[i], '=');
		if (!eq)
			continue;
		char *name = xstrndup(env[i], eq - env[i]);
		if (eq[1])
			setenv(name, eq + 1, 1);
		else
			unsetenv(name);
		free(name);
	}
}

/* the child of spawn_start(): set up as s says, then exec */
static _Noreturn void
child(const struct spawn *s)
{
	if (s->nullin) {
		int fd = open("/dev/null", O_RDONLY);
		if (fd > 0)
			dup2(fd, 0), close(fd);
	}
	if (s->out && redirect(s->out, 1) < 0)
		_exit(127);
	if (s->err && (s->out && !strcmp(s->err, s->out) ? dup2(1, 2) < 0 : redirect(s->err, 2) < 0))
		_exit(127);
	setenvs(s->env);
	errno = 0;
	if (s->nice && nice(s->nice) == -1 && errno)
		_exit(127);
	if (s->line)
		execl("/bin/sh", "sh", "-c", s->line, (char *)NULL);
	else
		execv(s->argv[0], s->argv);
	fprintf(stderr, "%s: error: cannot run '%s': %s\n", progname,
	        s->line ? "/bin/sh" : s->argv[0], strerror(errno));
	_exit(127);
}

pid_t
spawn_start(const struct spawn *s)
{
	sigset_t old;
	pid_t pid = forkheld(s->group, &old);
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (pid == 0)
		child(s);
	return pid;
}

int
spawn_run(const struct spawn *s)
{
	return spawn_wait(spawn_start(s));
}

pid_t
spawn_fork(void)
{
	sigset_t old;
	pid_t pid = forkheld(1, &old);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return pid;
}

void
spawn_exec(char *const *argv)
{
	fflush(NULL);
	execv(argv[0], argv);
	die("cannot run '%s': %s", argv[0], strerror(errno));
}

int
spawn_wait(pid_t pid)
{
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			die("waitpid: %s", strerror(errno));
	forget(pid);
	return status(st);
}

int
spawn_poll(pid_t pid, int *st)
{
	int x;
	pid_t r = waitpid(pid, &x, WNOHANG);
	if (r < 0 && errno != EINTR)
		die("waitpid: %s", strerror(errno));
	if (r != pid)
		return 0;
	forget(pid);
	*st = status(x);
	return 1;
}

pid_t
spawn_any(int *st)
{
	int x;
	pid_t pid = waitpid(-1, &x, WNOHANG);
	if (pid < 0 && errno != EINTR && errno != ECHILD)
		BUG("waitpid: %s", strerror(errno));
	if (pid <= 0)
		return 0;
	forget(pid);
	*st = status(x);
	return pid;
}

/* each step is a process group, so that the signal reaches the whole
 * step (sh, cicc and what they run) before the cleanup removes what they
 * write into */
static void
onsignal(int sig)
{
	for (size_t k = 0; k < countof(live); k++)
		if (live[k] > 0)
			kill(-live[k], sig);
	for (size_t k = 0; k < countof(live); k++) {
		pid_t pid = live[k];
		if (pid <= 0)
			continue;
		waitpid(pid, NULL, 0);
		struct timespec ts = {0, 10 * 1000 * 1000};
		for (int i = 0; i < 300 && kill(-pid, 0) == 0; i++)
			nanosleep(&ts, NULL);
	}
	if (atsignal)
		atsignal();
	signal(sig, SIG_DFL);
	raise(sig);
}

void
spawn_forward(void (*cleanup)(void))
{
	atsignal = cleanup;
	for (size_t i = 0; i < countof(sigs); i++) {
		struct sigaction sa = {.sa_handler = onsignal}, old;
		sigaction(sigs[i], NULL, &old);
		if (old.sa_handler != SIG_IGN)  /* nohup and background jobs stay immune */
			sigaction(sigs[i], &sa, NULL);
	}
}

void
spawn_onchild(void (*fn)(void))
{
	onchild = fn;
}

int
spawn_groups(pid_t *g, int max)
{
	int n = 0;
	for (size_t k = 0; k < countof(live) && n < max; k++)
		if (live[k] > 0)
			g[n++] = live[k];
	return n;
}

/* is any process of group pid left (its leader waited for if it ended)? */
static int
lingers(pid_t pid)
{
	waitpid(pid, NULL, WNOHANG);
	return kill(-pid, 0) == 0;
}

void
spawn_stop(const pid_t *g, int n)
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
