/* side.c: what runs beside the trials: the confirmation's runs, side by
 * side on GPUs 0 and 1, the rebuilds of its programs and the profile's
 * check. */
#include "tune/pool/pool.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int
shell(const char *cmd, const char *const *env, const char *out, const char *err,
      double limit, double *wall)
{
	double t0 = now();
	pid_t pid = spawn(cmd, env, out, err, 0);
	int st = 0;
	for (;;) {
		pid_t r = waitpid(pid, &st, limit > 0 ? WNOHANG : 0);
		if (r == pid)
			break;
		if (r < 0 && errno != EINTR)
			die("waitpid: %s", strerror(errno));
		if (limit > 0 && now() - t0 > limit) {
			reap(pid);
			*wall = now() - t0;
			return -1;
		}
		if (r == 0)
			nanosleep(&(struct timespec){0, 1000000}, NULL);
	}
	forget(pid);
	*wall = now() - t0;
	return exitstatus(st);
}

/* the end of one run of run_side(): exit status st (-1: killed), *v its
 * time; -1 with *why if it failed */
static int
runend(struct tuner *tu, const char *out, const char *err, int st, double wall, double *v,
       char **why)
{
	size_t n;
	char *text = readfile(out, &n), *etext = readfile(err, &n);
	*v = wall;
	*why = NULL;
	if (st < 0)
		*why = fmt("killed after %.3g s", wall);
	else if (st)
		*why = fmt("exited with %d (see %s)", st, err);
	else if (tu->timepat && fom(tu, text ? text : "", v) < 0 && fom(tu, etext ? etext : "", v) < 0)
		*why = fmt("no match of --time '%s' (see %s)", tu->timepat, out);
	free(text), free(etext);
	return *why ? -1 : 0;
}

int
run_side(struct tuner *tu, int n, char *const *dir, char *const *out, char *const *err,
         double *v, char **why)
{
	pid_t *pid = xcalloc(n, sizeof *pid);
	int *st = xcalloc(n, sizeof *st), left = n, bad = 0;
	double *wall = xcalloc(n, sizeof *wall), t0 = now(), limit = tu->slow * tu->base->wall + SLACK;
	char *cmd = runcmd(tu);
	for (int i = 0; i < n; i++) {
		char *e_dir = fmt("MPCC_TUNE_DIR=%s", dir[i]), *e_gpu = fmt("CUDA_VISIBLE_DEVICES=%d", i);
		const char *env[] = {e_dir, tu->jobs > 1 && !tu->launcher ? e_gpu : NULL, NULL};
		pid[i] = spawn(cmd, env, out[i], err[i], 0);
		free(e_dir), free(e_gpu);
	}
	while (left) {
		for (int i = 0; i < n; i++) {
			int x;
			if (!pid[i])
				continue;
			pid_t r = waitpid(pid[i], &x, WNOHANG);
			if (r < 0 && errno != EINTR)
				die("waitpid: %s", strerror(errno));
			if (r == pid[i] || now() - t0 > limit) {
				if (r == pid[i])
					forget(pid[i]), st[i] = exitstatus(x);
				else
					reap(pid[i]), st[i] = -1;
				wall[i] = now() - t0, pid[i] = 0, left--;
			}
		}
		if (left)
			nanosleep(&(struct timespec){0, 1000000}, NULL);
	}
	for (int i = 0; i < n; i++)
		bad |= runend(tu, out[i], err[i], st[i], wall[i], &v[i], &why[i]) < 0;
	free(pid), free(st), free(wall), free(cmd);
	return bad ? -1 : 0;
}

int
run_once(struct tuner *tu, const char *dir, const char *out, const char *err, double *v, char **why)
{
	char *d = xstrdup(dir), *o = xstrdup(out), *e = xstrdup(err);
	int r = run_side(tu, 1, &d, &o, &e, v, why);
	free(d), free(o), free(e);
	return r;
}

int
build_once(struct tuner *tu, const struct trial *t, const char *rep, const char *log)
{
	char *e_set = fmt("MPCC_SET=%s", t->env), *e_rep = fmt("MPCC_REPORT=%s", rep),
	     *e_dir = fmt("MPCC_TUNE_DIR=%s", t->dir);
	const char *env[] = {e_set, e_rep, e_dir, NULL};
	double wall;
	unlink(rep);
	int st = shell(tu->build, env, log, log, 0, &wall);
	free(e_set), free(e_rep), free(e_dir);
	return st;
}
