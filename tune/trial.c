/* trial.c: build, run and compare one candidate setting.
 *
 * The build runs `sh -c BUILD` with MPCC_SET (the setting), MPCC_REPORT (a
 * fresh file in the trial's directory) and MPCC_TUNE_DIR (that directory)
 * in its environment. A build counts only if its report shows every knob
 * of the setting applied with exactly its parameters: the exit status alone
 * would accept a make that rebuilt nothing. The program then runs --runs
 * times, `sh -c RUN` (after the --launcher prefix if one is given); the
 * first run's output is compared with the baseline's. When both commands
 * name $MPCC_TUNE_DIR, each candidate has its own files: a batch of them
 * builds --build-jobs at a time, then runs --jobs at a time, one per GPU
 * (CUDA_VISIBLE_DEVICES=slot) or one per launcher call. Otherwise each
 * candidate builds and runs before the next builds.
 *
 * Every run and build is its own process group, so that a run over the
 * time limit is killed with its children. */
#include "tune/tune.h"

#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>

/* seconds a run may take over --slow times the baseline's wall time:
 * a short program's time on a loaded machine (parallel tests, a launcher
 * that queues) varies by more than a few times its own */
#define SLACK 1.0

static double
now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void
redirect(const char *path, int fd)
{
	int f = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
	if (f < 0 || dup2(f, fd) < 0)
		_exit(126);
	close(f);
}

/* start sh -c cmd in its own process group; env is NAME=VALUE pairs */
static pid_t
start(const char *cmd, const char *const *env, const char *out, const char *err)
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		die("cannot fork: %s", strerror(errno));
	if (pid == 0) {
		setpgid(0, 0);
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
	return pid;
}

static int
status(int st)
{
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int
shell(const char *cmd, const char *const *env, const char *out, const char *err,
      double limit, double *wall)
{
	double t0 = now();
	pid_t pid = start(cmd, env, out, err);
	int st = 0;
	for (;;) {
		pid_t r = waitpid(pid, &st, limit > 0 ? WNOHANG : 0);
		if (r == pid)
			break;
		if (r < 0 && errno != EINTR)
			die("waitpid: %s", strerror(errno));
		if (limit > 0 && now() - t0 > limit) {
			kill(-pid, SIGKILL);
			waitpid(pid, &st, 0);
			*wall = now() - t0;
			return -1;
		}
		if (r == 0)
			nanosleep(&(struct timespec){0, 1000000}, NULL);
	}
	*wall = now() - t0;
	return status(st);
}

static int
fail(struct trial *t, int verdict, char *why)
{
	t->verdict = verdict;
	free(t->why);
	t->why = why;
	return -1;
}

/* the JSON parameters the report must show for knob k */
static char *
wantparams(const struct knob *k)
{
	struct params p;
	char *err;
	Arena *a = arena_new();
	if (params_parse(&passes[k->pass]->schema, k->params, 0, a, &p, &err) < 0)
		die("bad setting '%s:%s': %s", pass_name(k->pass), k->params, err);
	char *s = params_str(&p, W_JSON);
	arena_free(a);
	return s;
}

/* does the report show every knob applied with its parameters, and
 * nothing else? */
static int
checkreport(struct trial *t)
{
	const char *rep = t->report ? t->report : "";
	for (int i = 0; i < t->set.n; i++) {
		const struct knob *k = &t->set.k[i];
		const char *pass = pass_name(k->pass);
		char *want = wantparams(k);
		int lines = 0, bad = 0;
		for (const char *l = rep; *l && !bad; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : "") {
			char *m = jget(l, "mangled"), *tr = jget(l, "transform");
			if (m && tr && !fnmatch(k->kernel, m, 0) && !strcmp(tr, pass)) {
				char *ap = jget(l, "applied"), *par = jget(l, "params");
				lines++;
				if (!ap || strcmp(ap, "true")) {
					char *r = jget(l, "reason"), *arch = jget(l, "arch");
					fail(t, V_NOAPPLY, fmt("%s left '%s' alone (%s): %s", pass, k->kernel,
					                       arch ? arch : "?", r ? r : "?"));
					free(r), free(arch);
					bad = 1;
				} else if (!par || strcmp(par, want)) {
					fail(t, V_NOAPPLY, fmt("the build used %s %s, not %s", pass,
					                       par ? par : "?", want));
					bad = 1;
				}
				free(ap), free(par);
			}
			free(m), free(tr);
		}
		free(want);
		if (bad)
			return -1;
		if (!lines)
			return fail(t, V_NOAPPLY, fmt("no report line for %s on '%s': does --build "
			                              "rebuild every source (make -B)?", pass, k->kernel));
	}
	return 0;
}

static char *
path(const struct trial *t, const char *name)
{
	return fmt("%s/%s", t->dir, name);
}

/* the output path with $MPCC_TUNE_DIR replaced by the trial's directory */
static char *
outpath(const struct tuner *tu, const struct trial *t)
{
	const char *v = "$MPCC_TUNE_DIR", *p = strstr(tu->output, v);
	if (!p)
		return xstrdup(tu->output);
	return fmt("%.*s%s%s", (int)(p - tu->output), tu->output, t->dir, p + strlen(v));
}

/* start the build of t: its pid */
static pid_t
buildstart(struct tuner *tu, struct trial *t)
{
	char *rep = path(t, "report.jsonl"), *log = path(t, "build.log");
	char *e_set = fmt("MPCC_SET=%s", t->env), *e_rep = fmt("MPCC_REPORT=%s", rep),
	     *e_dir = fmt("MPCC_TUNE_DIR=%s", t->dir);
	const char *env[] = {e_set, e_rep, e_dir, NULL};
	unlink(rep);
	pid_t pid = start(tu->build, env, log, log);
	free(e_set), free(e_rep), free(e_dir), free(rep), free(log);
	return pid;
}

/* the build of t ended with status st: did it apply the setting? */
static int
built(struct tuner *tu, struct trial *t, int st)
{
	char *rep = path(t, "report.jsonl"), *log = path(t, "build.log");
	size_t n;
	free(t->report);
	t->report = readfile(rep, &n);
	int r = 0;
	if (st)
		r = fail(t, V_BUILD, fmt("--build exited with %d (see %s)", st, log));
	else
		r = checkreport(t);
	if (!r && tu->binary) {
		char *cp = fmt("cp '%s' '%s/binary'", tu->binary, t->dir);
		if (system(cp))
			r = fail(t, V_BUILD, fmt("cannot copy --binary '%s'", tu->binary));
		free(cp);
	}
	free(rep), free(log);
	if (r < 0)
		progress(tu, t, NULL);
	return r;
}

/* build t[0..n), up to jobs at once; ok[] gets those that built */
static int
buildall(struct tuner *tu, struct trial **t, int n, int jobs, struct trial **ok)
{
	pid_t *pid = xcalloc(n, sizeof *pid);
	int next = 0, busy = 0, m = 0;
	while (next < n || busy) {
		while (busy < jobs && next < n)
			pid[next] = buildstart(tu, t[next]), next++, busy++;
		int st;
		pid_t p = waitpid(-1, &st, 0);
		if (p < 0)
			die("waitpid: %s", strerror(errno));
		for (int i = 0; i < next; i++)
			if (pid[i] == p) {
				busy--;
				pid[i] = 0;
				if (built(tu, t[i], status(st)) == 0)
					ok[m++] = t[i];
			}
	}
	free(pid);
	return m;
}

/* the figure of merit in the run's stdout (else stderr): --time's first
 * group, or the first number of its match, at its last match */
static int
fom(const struct tuner *tu, const char *text, double *v)
{
	regmatch_t m[2];
	int found = 0;
	for (const char *s = text; s && *s && !regexec(&tu->re, s, 2, m, s == text ? 0 : REG_NOTBOL);) {
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

/* the numbers of the first run's output: its stdout, or the --output file
 * (kept in the trial's directory) */
static int
output(struct tuner *tu, struct trial *t, const char *stdouttext, size_t n)
{
	if (!strcmp(tu->output, "stdout")) {
		char *keep = path(t, "output");
		writefile(keep, stdouttext, n);
		free(keep);
		t->num = outnumbers(stdouttext, n, tu->timepat ? &tu->re : NULL, &t->nnum);
		return 0;
	}
	char *o = outpath(tu, t), *keep = path(t, "output");
	size_t on;
	char *text = readfile(o, &on);
	int r = 0;
	if (!text) {
		r = fail(t, V_CRASH, fmt("run 1 wrote no output '%s'", o));
	} else {
		writefile(keep, text, on);
		t->num = numbers(text, on, tu->otype, &t->nnum);
	}
	free(text), free(o), free(keep);
	return r;
}

/* after one run: its time, and for the first its output */
static int
ran(struct tuner *tu, struct trial *t, int run, int st, double wall)
{
	char *out = path(t, "run.out"), *err = path(t, "run.err");
	size_t n = 0, ne = 0;
	char *text = readfile(out, &n), *etext = readfile(err, &ne);
	int r = 0;
	double v = wall;
	if (st < 0)
		r = fail(t, V_TIMEOUT, fmt("run %d killed after %.3g s (%.3g x the baseline's %.3g s)",
		                          run + 1, wall, wall / tu->base->wall, tu->base->wall));
	else if (st)
		r = fail(t, V_CRASH, fmt("run %d exited with %d%s (see %s)", run + 1, st,
		                         st > 128 ? " (a signal)" : "", err));
	else if (tu->timepat && fom(tu, text ? text : "", &v) < 0 && fom(tu, etext ? etext : "", &v) < 0)
		r = fail(t, V_NOTIME, fmt("no match of --time '%s' in run %d's output", tu->timepat,
		                          run + 1));
	if (!r) {
		t->times = xrealloc(t->times, (t->ntimes + 1) * sizeof *t->times);
		t->walls = xrealloc(t->walls, (t->ntimes + 1) * sizeof *t->walls);
		t->walls[t->ntimes] = wall;
		t->times[t->ntimes++] = v;
	}
	if (!r && run == 0)
		r = output(tu, t, text ? text : "", n);
	free(text), free(etext), free(out), free(err);
	return r;
}

char *
lastlines(const char *file, int n)
{
	size_t len;
	char *text = readfile(file, &len);
	if (!text || !len) {
		free(text);
		return fmt("    (%s is empty)\n", file);
	}
	const char *s = text + len;
	for (int k = 0; s > text && k <= n; )
		if (*--s == '\n' && s + 1 < text + len)
			k++;
	s += *s == '\n';
	struct buf b = BUF_INIT;
	buf_printf(&b, "  the last lines of %s:\n", file);
	for (const char *l = s; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l))
		buf_printf(&b, "    %.*s\n", (int)strcspn(l, "\n"), l);
	free(text);
	return buf_take(&b);
}

/* an output that cannot be compared ends the session: what the program
 * printed, and the work directory, kept */
static _Noreturn void
badoutput(const struct tuner *tu, const struct trial *t, const char *what)
{
	char *o = path(t, "output"), *e = path(t, "run.err");
	char *lo = lastlines(o, 10), *le = lastlines(e, 10);
	die("%s\n%s%s  the work directory is kept: %s\n  no profile written", what, lo, le, tu->workdir);
}

/* the baseline's output must hold numbers, and finite ones */
static void
checkbase(const struct tuner *tu, const struct trial *t)
{
	if (!t->nnum)
		badoutput(tu, t, fmt("the baseline's output holds no number (did the program run? "
		                     "without a GPU it prints none): nothing to compare candidates with"));
	for (long i = 0; i < t->nnum && !tu->nonfinite; i++)
		if (!isfinite(t->num[i]))
			badoutput(tu, t, fmt("the baseline's output holds %g (its number %ld of %ld), where "
			                     "finite numbers are expected (--allow-nonfinite accepts it)",
			                     t->num[i], i + 1, t->nnum));
}

/* the verdict of a trial whose runs all finished */
static void
judge(struct tuner *tu, struct trial *t)
{
	if (t->verdict > V_OK)
		return;
	t->time = median(t->times, t->ntimes);
	t->wall = median(t->walls, t->ntimes);
	t->verdict = V_OK;
	if (t == tu->base) {
		checkbase(tu, t);
		return;
	}
	int c = compare(tu->base->num, tu->base->nnum, t->num, t->nnum, &t->e);
	if (c == V_COUNT) {
		fail(t, c, fmt("%ld numbers in the output, the baseline has %ld", t->nnum, tu->base->nnum));
		progress(tu, t, NULL);
		badoutput(tu, t, fmt("[t%d] %s printed %ld numbers where the baseline printed %ld: "
		                     "the outputs cannot be compared", t->id, t->what, t->nnum,
		                     tu->base->nnum));
	}
	if (c != V_OK) {
		fail(t, c, xstrdup("NaN or Inf where the baseline has a number"));
		return;
	}
	t->err = metric(&t->e, tu->metric);
	if (tu->timepat) {
		double ratio = tu->higher ? tu->base->time / t->time : t->time / tu->base->time;
		if (!(ratio <= tu->slow)) {
			fail(t, V_SLOW, fmt("figure of merit %.4g against the baseline's %.4g", t->time,
			                    tu->base->time));
			return;
		}
	}
	t->meets = qos_met(tu, &t->e);
}

/* "at most 3 trials left" after this one, when the search knows */
static void
leftwords(const struct tuner *tu, char *buf, size_t n, int batch)
{
	int left = tu->left + tu->after + batch;
	if (tu->left < 0)
		snprintf(buf, n, "%s", "");
	else
		snprintf(buf, n, "at most %d trial%s left", left, left == 1 ? "" : "s");
}

/* runs of t: --runs, and at least 5 of the baseline, whose spread is the
 * session's noise */
static int
runs(const struct tuner *tu, const struct trial *t)
{
	return t == tu->base && tu->runs < 5 ? 5 : tu->runs;
}

struct slot {
	struct trial *t;
	int run;
	pid_t pid;
	double t0;
};

static char *
runcmd(const struct tuner *tu)
{
	if (!tu->launcher)
		return xstrdup(tu->run);
	struct buf b = BUF_INIT;
	buf_printf(&b, "%s sh -c '", tu->launcher);
	for (const char *p = tu->run; *p; p++)
		buf_puts(&b, *p == '\'' ? "'\\''" : (char[]){*p, 0});
	buf_puts(&b, "'");
	return buf_take(&b);
}

static void
launch(struct tuner *tu, struct slot *s, int gpu)
{
	char *out = path(s->t, "run.out"), *err = path(s->t, "run.err");
	char *e_dir = fmt("MPCC_TUNE_DIR=%s", s->t->dir), *e_gpu = fmt("CUDA_VISIBLE_DEVICES=%d", gpu);
	const char *env[] = {e_dir, tu->jobs > 1 && !tu->launcher ? e_gpu : NULL, NULL};
	char *cmd = runcmd(tu);
	s->t0 = now();
	s->pid = start(cmd, env, out, err);
	free(cmd), free(out), free(err), free(e_dir), free(e_gpu);
}

int
run_once(struct tuner *tu, const char *dir, const char *out, const char *err, double *v, char **why)
{
	char *e_dir = fmt("MPCC_TUNE_DIR=%s", dir), *cmd = runcmd(tu);
	const char *env[] = {e_dir, tu->jobs > 1 && !tu->launcher ? "CUDA_VISIBLE_DEVICES=0" : NULL, NULL};
	double wall, limit = tu->slow * tu->base->wall + SLACK;
	int st = shell(cmd, env, out, err, limit, &wall);
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
	free(text), free(etext), free(e_dir), free(cmd);
	return *why ? -1 : 0;
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

/* the runs of t[0..n) on tu->jobs slots: each slot runs one trial's runs
 * one after the other */
static void
runall(struct tuner *tu, struct trial **t, int n)
{
	int jobs = tu->jobs > 0 ? tu->jobs : 1, next = 0, busy = 0;
	struct slot *slot = xcalloc(jobs, sizeof *slot);
	double limit = tu->base && tu->base->verdict == V_OK ? tu->slow * tu->base->wall + SLACK : 0;
	int done = 0;
	char left[64];
	while (next < n || busy) {
		for (int i = 0; i < jobs && next < n; i++)
			if (!slot[i].t) {
				slot[i] = (struct slot){t[next++], 0, 0, 0};
				launch(tu, &slot[i], i);
				busy++;
			}
		int st;
		pid_t pid = waitpid(-1, &st, WNOHANG);
		for (int i = 0; i < jobs; i++) {
			struct slot *s = &slot[i];
			if (!s->t)
				continue;
			double wall = now() - s->t0;
			int code;
			if (pid == s->pid)
				code = status(st);
			else if (limit > 0 && wall > limit) {
				kill(-s->pid, SIGKILL);
				waitpid(s->pid, &st, 0);
				code = -1;
			} else
				continue;
			if (ran(tu, s->t, s->run, code, wall) < 0 || ++s->run == runs(tu, s->t)) {
				judge(tu, s->t);
				leftwords(tu, left, sizeof left, n - ++done);
				progress(tu, s->t, *left ? left : NULL);
				s->t = NULL;
				busy--;
			} else {
				launch(tu, s, i);
			}
		}
		if (pid <= 0)
			nanosleep(&(struct timespec){0, 1000000}, NULL);
	}
	free(slot);
}

void
progress(const struct tuner *tu, const struct trial *t, const char *left)
{
	const char *unit = tu->timepat ? "" : " s";
	fprintf(stderr, "mpcc-tune: [t%d] %s: ", t->id, t->what);
	if (t->verdict != V_OK)
		fprintf(stderr, "%s: %s", verdictname[t->verdict], t->why ? t->why : "");
	else if (t == tu->base)
		fprintf(stderr, "time %.4g%s (median of %d; they spread over %.1f%%), %ld numbers",
		        t->time, unit, t->ntimes, 100 * spread(t->times, t->ntimes), t->nnum);
	else {
		int probe = instrumented(t);
		fprintf(stderr, "time %.4g%s (%.3fx), %s %.3g", t->time, unit, speedup(tu, t),
		        tu->metric == M_DIGITS ? "digits" : "error", t->err);
		if (tu->idealt && tu->idealt->verdict == V_OK && t != tu->idealt)
			fprintf(stderr, ", %.0f%% of the ideal", ofideal(tu, t));
		fprintf(stderr, "%s", probe || t == tu->idealt ? "" : t->meets ? ": meets the QoS" : ": over the QoS");
	}
	if (left)
		fprintf(stderr, " (%s)", left);
	fputc('\n', stderr);
}

void
trials_run(struct tuner *tu, struct trial **t, int n)
{
	struct trial **ok = xmalloc(n * sizeof *ok);
	/* candidates build into their own directories only if the commands
	 * say so; otherwise each builds and runs before the next builds */
	int apart = strstr(tu->build, "MPCC_TUNE_DIR") && strstr(tu->run, "MPCC_TUNE_DIR");
	/* every build shares a cache of nvcc's steps (mpcc's stepcache.c) */
	char *cache = fmt("%s/cache", tu->workdir);
	setenv("MPCC_STEP_CACHE", cache, 0), free(cache);
	for (int i = 0; i < n; i++) {
		t[i]->dir = fmt("%s/t%d", tu->workdir, t[i]->id);
		mkdir(t[i]->dir, 0777);
	}
	if (apart) {
		int m = buildall(tu, t, n, tu->bjobs > 0 ? tu->bjobs : 1, ok);
		tu->after = 0;
		if (m)
			runall(tu, ok, m);
	} else {
		for (int i = 0; i < n; i++) {
			tu->after = n - i - 1;
			if (buildall(tu, &t[i], 1, 1, ok))
				runall(tu, ok, 1);
		}
	}
	tu->after = 0;
	free(ok);
}
