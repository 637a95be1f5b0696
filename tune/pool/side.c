/* side.c: what runs beside the trials: the confirmation's runs, side by
 * side on GPUs 0 and 1 (or, under a launcher, two in turn as one command
 * of it), the rebuilds of its programs and the profile's check. Each
 * starts its processes and waits for them in the pool's one loop
 * (pool_wait()). */
#include "tune/pool/pool.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* s as one word of sh: in single quotes */
static void
quoted(struct buf *b, const char *s)
{
	buf_puts(b, "'");
	for (; *s; s++)
		buf_puts(b, *s == '\'' ? "'\\''" : (char[]){*s, 0});
	buf_puts(b, "'");
}

/* the script of pair i: runs 2i and 2i + 1 in turn, each timed and its
 * exit status kept in OUT.st ("STATUS START END", seconds) */
static char *
pairscript(struct tuner *tu, int i, char *const *dir, char *const *out, char *const *err)
{
	struct buf b = BUF_INIT;
	char *run = fmt("%s/run.sh", tu->o->workdir), *path = fmt("%s.sh", out[2 * i]);
	writefile(run, tu->o->run, strlen(tu->o->run));
	buf_puts(&b, "run() {\n\ts=$(date +%s.%N)\n\tMPCC_TUNE_DIR=$1 sh ");
	quoted(&b, run);
	buf_puts(&b, " >\"$2\" 2>\"$3\"\n\techo \"$? $s $(date +%s.%N)\" >\"$2.st\"\n}\n");
	for (int k = 2 * i; k < 2 * i + 2; k++) {
		buf_puts(&b, "run ");
		quoted(&b, dir[k]), buf_puts(&b, " "), quoted(&b, out[k]), buf_puts(&b, " ");
		quoted(&b, err[k]), buf_puts(&b, "\n");
	}
	writefile(path, b.s, b.n);
	buf_release(&b), free(run);
	return path;
}

/* the status and wall time run k's script line kept; -1 if none */
static int
pairend(const char *out, double *wall)
{
	char *p = fmt("%s.st", out), *text = readfile(p, NULL);
	int st = -1;
	double a, b;
	if (!text || sscanf(text, "%d %lf %lf", &st, &a, &b) != 3)
		st = -1, a = b = 0;
	*wall = b - a;
	free(p), free(text);
	return st;
}

int
run_pairs(struct tuner *tu, int n, char *const *dir, char *const *out, char *const *err,
          double *v, char **why)
{
	struct side *sd = xcalloc(n, sizeof *sd);
	double t0 = now(), limit = 2 * (tu->o->slow * tu->base->wall + SLACK);
	int bad = 0;
	for (int i = 0; i < n; i++) {
		char *script = pairscript(tu, i, dir, out, err), *log = fmt("%s.log", script);
		char *line = fmt("%s sh %s", tu->o->launcher, script);
		for (int k = 2 * i; k < 2 * i + 2; k++) {
			char *st = fmt("%s.st", out[k]);
			unlink(st);
			free(st);
		}
		sd[i] = (struct side){spawn_start(&(struct spawn){.line = line, .out = log, .err = log,
		                                                  .nullin = 1, .group = 1}), t0, limit, 0, 0};
		free(script), free(log), free(line);
	}
	pool_wait(tu, sd, n);
	for (int k = 0; k < 2 * n; k++) {
		double wall;
		int st = sd[k / 2].st < 0 ? -1 : pairend(out[k], &wall);
		if (sd[k / 2].st < 0)
			wall = sd[k / 2].wall;
		bad |= runend(tu, out[k], err[k], st, wall, &v[k], &why[k]) < 0;
	}
	free(sd);
	return bad ? -1 : 0;
}
