/* run.c: run a trial's program and read what it printed.
 *
 * The program runs --runs times, `sh -c RUN` (after the --launcher prefix
 * if one is given); each run's time is its wall time or the figure of
 * merit --time finds in its output; the first run's output is kept for
 * judge.c, and the baseline's later runs say which of its words and
 * numbers do not repeat (baseagain()). */
#include "tune/trial/trial.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* the figure of merit in the run's stdout (else stderr): --time's first
 * group, or the first number of its match, at its last match. The pattern
 * is read as grep reads it: ^ and $ match at every line (REG_NEWLINE) */
int
fom(const struct tuner *tu, const char *text, double *v)
{
	regmatch_t m[2];
	int found = 0;
	for (const char *s = text; s && *s && !regexec(&tu->o->re, s, 2, m, s == text ? 0 : REG_NOTBOL);) {
		int g = m[1].rm_so >= 0 ? 1 : 0;
		long nn;
		double *x = numbers(s + m[g].rm_so, m[g].rm_eo - m[g].rm_so, O_TEXT, &nn);
		if (nn) {
			*v = x[0];
			found = 1;
		}
		free(x);
		s += m[0].rm_eo > 0 ? m[0].rm_eo : 1;
	}
	return found ? 0 : -1;
}

/* lines as "'a', 'b'", each once */
static char *
quotelines(const char *lines)
{
	struct buf b = BUF_INIT;
	for (const char *s = lines; *s; s += strcspn(s, "\n") + !!s[strcspn(s, "\n")]) {
		char *q = fmt("'%.*s'", (int)strcspn(s, "\n"), s);
		if (!b.n || !strstr(b.s, q))
			buf_printf(&b, "%s%s", b.n ? ", " : "", q);
		free(q);
	}
	return buf_take(&b);
}

/* the numbers of the first run's output: its stdout, or the --output file
 * (kept in the trial's directory) */
static int
output(struct tuner *tu, struct trial *t, const char *stdouttext, size_t n)
{
	if (!strcmp(tu->o->output, "stdout")) {
		char *keep = trial_path(t, "output");
		writefile(keep, stdouttext, n);
		free(keep);
		char *timers = NULL;
		t->num = outnumbers(stdouttext, n, tu->o->timepat ? &tu->o->re : NULL, &t->nnum, &t->words,
		                    t == tu->base ? &timers : NULL);
		if (timers && *timers) {
			char *q = quotelines(timers);
			note("left out of the output as timers (beside --time's lines, lines of their words or "
			     "that name a time or a rate; --output FILE compares a file instead): %s", q);
			free(q);
		}
		free(timers);
		return 0;
	}
	char *o = tunepath(tu->o->output, t->dir), *keep = trial_path(t, "output");
	size_t on;
	char *text = readfile(o, &on);
	int r = 0;
	if (!text) {
		r = trial_fail(t, V_CRASH, fmt("run 1 wrote no output '%s'", o));
	} else {
		writefile(keep, text, on);
		t->num = numbers(text, on, tu->o->otype, &t->nnum);
	}
	free(text), free(o), free(keep);
	return r;
}

/* the baseline's output in a run after its first: where its words differ
 * from the first's (a date, a host's name), no trial's words are compared;
 * where a number differs by more than qos_one() (a rate printed on a line
 * of its own), it is left out of the comparisons */
static void
baseagain(struct tuner *tu, const struct trial *t, const char *text, size_t n, int run)
{
	long nn;
	char *w;
	double *x = outnumbers(text, n, tu->o->timepat ? &tu->o->re : NULL, &nn, &w, NULL);
	char *d = !tu->wordsvary ? wordsdiffer(t->words, w) : NULL;
	if (d) {
		tu->wordsvary = fmt("run %d says %s", run + 1, d);
		note("the baseline's output says other words from run to run (%s): the settings' "
		     "outputs are compared by their numbers alone", tu->wordsvary);
	}
	if (nn != t->nnum)
		note("the baseline's run %d printed %ld %s, its run 1 %ld", run + 1, nn,
		     plural(nn, "number", "numbers"), t->nnum);
	for (long i = 0; nn == t->nnum && i < nn; i++) {
		double b = t->num[i];
		if (!isfinite(b) || !isfinite(x[i]) || fabs(x[i] - b) <= qos_one(tu) * fabs(b))
			continue;
		if (!tu->vary)
			tu->vary = xcalloc(nn, 1), tu->nvary = nn;
		if (!tu->varysaid || i < tu->varyat) {
			free(tu->varysaid);
			tu->varysaid = fmt("%.6g in run 1, %.6g in run %d", b, x[i], run + 1);
			tu->varyat = i;
		}
		tu->vary[i] = 1;
	}
	free(d), free(w), free(x);
}

/* after one run: its time, and for the first its output */
int
trial_ran(struct tuner *tu, struct trial *t, int run, int st, double wall)
{
	char *out = trial_path(t, "run.out"), *err = trial_path(t, "run.err");
	size_t n = 0, ne = 0;
	char *text = readfile(out, &n), *etext = readfile(err, &ne);
	int r = 0;
	double v = wall;
	t->cost += wall;
	if (st < 0)
		r = trial_fail(t, V_TIMEOUT, fmt("run %d killed after %.3g s (%.3g x the baseline's %.3g s)",
		                          run + 1, wall, wall / tu->base->wall, tu->base->wall));
	else if (st)
		r = trial_fail(t, V_CRASH, fmt("run %d exited with %d%s (see %s)", run + 1, st,
		                         st > 128 ? " (a signal)" : "", err));
	else if (tu->o->timepat && fom(tu, text ? text : "", &v) < 0 && fom(tu, etext ? etext : "", &v) < 0)
		r = trial_fail(t, V_NOTIME, fmt("no match of --time '%s' in run %d's output", tu->o->timepat,
		                          run + 1));
	if (!r) {
		t->times = xrealloc(t->times, (t->ntimes + 1) * sizeof *t->times);
		t->walls = xrealloc(t->walls, (t->ntimes + 1) * sizeof *t->walls);
		t->walls[t->ntimes] = wall;
		t->times[t->ntimes++] = v;
	}
	if (!r && run == 0)
		r = output(tu, t, text ? text : "", n);
	else if (!r && t == tu->base && t->words && !strcmp(tu->o->output, "stdout"))
		baseagain(tu, t, text ? text : "", n, run);
	free(text), free(etext), free(out), free(err);
	return r;
}

/* runs of t: --runs, at least 5 of the baseline, whose spread is the
 * session's noise, and one of an instrumented build (the timing or shadow
 * build: what it prints counts, not its time); --measure runs each once,
 * but the baseline twice: words it says other from run to run (a date)
 * and numbers it does not repeat (a rate) are not compared */
int
trial_runs(const struct tuner *tu, const struct trial *t)
{
	if (tu->o->measure && t == tu->base)
		return 2;
	if (instrumented(t) || tu->o->measure)
		return 1;
	return t == tu->base && tu->o->runs < 5 ? 5 : tu->o->runs;
}

char *
runcmd(const struct tuner *tu)
{
	if (!tu->o->launcher)
		return xstrdup(tu->o->run);
	struct buf b = BUF_INIT;
	buf_printf(&b, "%s sh -c '", tu->o->launcher);
	for (const char *p = tu->o->run; *p; p++)
		buf_puts(&b, *p == '\'' ? "'\\''" : (char[]){*p, 0});
	buf_puts(&b, "'");
	return buf_take(&b);
}

pid_t
run_start(struct tuner *tu, const char *dir, int gpu, const char *out, const char *err)
{
	/* and, for each pass a runtime carries out, where it reports */
	char **env = xcalloc(npass + 3, sizeof *env);
	int n = 0;
	env[n++] = fmt("MPCC_TUNE_DIR=%s", dir);
	if (gpu >= 0)
		env[n++] = fmt("CUDA_VISIBLE_DEVICES=%d", gpu);
	for (int p = 0; p < npass; p++) {
		char *path = pass_runreport(p, dir);
		if (path)
			env[n++] = fmt("%s=%s", passes[p]->tune->runreport, path);
		free(path);
	}
	char *cmd = runcmd(tu);
	pid_t pid = spawn_start(&(struct spawn){.line = cmd, .env = (const char *const *)env,
	                                       .out = out, .err = err, .nullin = 1, .group = 1});
	for (int i = 0; i < n; i++)
		free(env[i]);
	free(env), free(cmd);
	return pid;
}

/* start one run of t on GPU slot gpu */
pid_t
trial_launch(struct tuner *tu, const struct trial *t, int gpu)
{
	char *out = trial_path(t, "run.out"), *err = trial_path(t, "run.err");
	pid_t pid = run_start(tu, t->dir, gpu, out, err);
	free(out), free(err);
	return pid;
}
