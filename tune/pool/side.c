/* side.c: what runs beside the trials: the confirmation's runs, side by
 * side on GPUs 0 and 1, the rebuilds of its programs and the profile's
 * check. Each starts its processes and waits for them in the pool's one
 * loop (pool_wait()). */
#include "tune/pool/pool.h"

#include <stdlib.h>

int
shell(struct tuner *tu, const char *cmd, const char *const *env, const char *out,
      const char *err, double limit, double *wall)
{
	double t0 = now();
	pid_t pid = spawn_start(&(struct spawn){.line = cmd, .env = env, .out = out, .err = err,
	                                       .nullin = 1, .group = 1});
	struct side sd = {pid, t0, limit, 0, 0};
	pool_wait(tu, &sd, 1);
	*wall = sd.wall;
	return sd.st;
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
	else if (tu->o->timepat && fom(tu, text ? text : "", v) < 0 && fom(tu, etext ? etext : "", v) < 0)
		*why = fmt("no match of --time '%s' (see %s)", tu->o->timepat, out);
	free(text), free(etext);
	return *why ? -1 : 0;
}

int
run_side(struct tuner *tu, int n, char *const *dir, char *const *out, char *const *err,
         double *v, char **why)
{
	struct side *sd = xcalloc(n, sizeof *sd);
	double t0 = now(), limit = tu->o->slow * tu->base->wall + SLACK;
	int bad = 0;
	for (int i = 0; i < n; i++)
		sd[i] = (struct side){run_start(tu, dir[i], pool_gpu(tu, i), out[i], err[i]), t0, limit, 0, 0};
	pool_wait(tu, sd, n);
	for (int i = 0; i < n; i++)
		bad |= runend(tu, out[i], err[i], sd[i].st, sd[i].wall, &v[i], &why[i]) < 0;
	free(sd);
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
	double t0 = now();
	struct side sd = {build_start(tu, t, rep, log, 0), t0, 0, 0, 0};
	pool_wait(tu, &sd, 1);
	return sd.st;
}
