/* trial.c: build, run and compare candidate settings.
 *
 * The build runs `sh -c BUILD` with MPCC_SET (the setting), MPCC_REPORT (a
 * fresh file in the trial's directory) and MPCC_TUNE_DIR (that directory)
 * in its environment. A build counts only if its report shows the knobs of
 * the setting applied with exactly their parameters: the exit status alone
 * would accept a make that rebuilt nothing. A knob its kernel refuses is
 * said and left out; the others run. The program then runs --runs times,
 * `sh -c RUN` (after the --launcher prefix if one is given); the first
 * run's output is compared with the baseline's.
 *
 * A batch of trials goes through one loop: each build starts when a build
 * slot is free (--build-jobs when --build names $MPCC_TUNE_DIR, else one,
 * since the builds share the user's files), and each built trial runs when
 * a GPU is free (--jobs, CUDA_VISIBLE_DEVICES=slot, when --run names
 * $MPCC_TUNE_DIR and each trial has its own program: its directory or its
 * copy of --binary); so a trial runs while the next builds. Without its own
 * program a trial builds and runs before the next builds.
 *
 * Every run and build is its own process group, so that a run over the
 * time limit, or every one at a second Ctrl-C, is killed with its
 * children. */
#include "tune/tune.h"

#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>

/* seconds a run may take over --slow times the baseline's wall time:
 * a short program's time on a loaded machine (parallel tests, a launcher
 * that queues) varies by more than a few times its own */
#define SLACK 1.0

/* stop pid's group and wait for it */
static void
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
static pid_t
start(const char *cmd, const char *const *env, const char *out, const char *err, int build)
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
	pid_t pid = start(cmd, env, out, err, 0);
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

/* what the report says of knob k: 1 applied (on some target), 0 left alone
 * on every target (*why: the first reason), -1 with other parameters than
 * the knob's or no line at all (*why) */
static int
knobdone(const char *rep, const struct knob *k, char **why)
{
	const char *pass = pass_name(k->pass);
	char *want = wantparams(k);
	int lines = 0, applied = 0, bad = 0;
	*why = NULL;
	for (const char *l = rep; *l && !bad; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : "") {
		char *m = jget(l, "mangled"), *tr = jget(l, "transform");
		if (m && tr && !fnmatch(k->kernel, m, 0) && !strcmp(tr, pass)) {
			char *ap = jget(l, "applied"), *par = jget(l, "params");
			lines++;
			if (!par || strcmp(par, want)) {
				free(*why);
				*why = fmt("the build used %s %s, not %s", pass, par ? par : "?", want);
				bad = 1;
			} else if (ap && !strcmp(ap, "true")) {
				applied = 1;
			} else if (!*why) {
				char *r = jget(l, "reason"), *arch = jget(l, "arch");
				*why = fmt("%s left '%s' alone (%s): %s", pass, k->kernel, arch ? arch : "?",
				           r ? r : "?");
				free(r), free(arch);
			}
			free(ap), free(par);
		}
		free(m), free(tr);
	}
	free(want);
	if (!bad && !lines)
		*why = fmt("no report line for %s on '%s': does --build rebuild every source (make -B)?",
		           pass, k->kernel);
	if (bad || !lines)
		return -1;
	if (applied) {
		free(*why);
		*why = NULL;
	}
	return applied;
}

/* does the report show the setting applied with its parameters? Each knob
 * stands on its own: one that a kernel refuses is said in t->refused and
 * the trial runs with the others; none applied, or a knob built with other
 * parameters, fails the trial */
static int
checkreport(struct trial *t)
{
	const char *rep = t->report ? t->report : "";
	struct buf no = BUF_INIT;
	int done = 0;
	for (int i = 0; i < t->set.n; i++) {
		struct knob *k = &t->set.k[i];
		char *why;
		int r = knobdone(rep, k, &why);
		if (r < 0) {
			buf_release(&no);
			return fail(t, V_NOAPPLY, why);
		}
		k->refused = !r;
		done += r;
		if (!r)
			buf_printf(&no, "%s%s", no.n ? "; " : "", why);
		free(why);
	}
	if (t->set.n && !done)
		return fail(t, V_NOAPPLY, buf_take(&no));
	free(t->refused);
	t->refused = no.n ? buf_take(&no) : NULL;
	buf_release(&no);
	return 0;
}

static char *
path(const struct trial *t, const char *name)
{
	return fmt("%s/%s", t->dir, name);
}

char *
tunepath(const char *s, const char *dir)
{
	const char *v = "$MPCC_TUNE_DIR", *p = strstr(s, v);
	if (!p)
		return xstrdup(s);
	return fmt("%.*s%s%s", (int)(p - s), s, dir, p + strlen(v));
}

int
copyprog(const char *from, const char *to)
{
	size_t n;
	char *s = readfile(from, &n);
	int r = s && writefile(to, s, n) == 0 && chmod(to, 0755) == 0 ? 0 : -1;
	free(s);
	return r;
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
	pid_t pid = start(tu->build, env, log, log, 1);
	free(e_set), free(e_rep), free(e_dir), free(rep), free(log);
	return pid;
}

/* the MPCC_SET of what t's build applied (malloc'd) */
static char *
doneenv(const struct trial *t)
{
	struct setting done = setting_copy(&t->set);
	char *env = setting_env(&done);
	setting_release(&done);
	return env;
}

/* a trial whose build refused some knobs builds what the others give:
 * if a trial that built that (the baseline, the search's base) ran
 * already, this one has nothing new to run */
static int
anew(struct tuner *tu, struct trial *t)
{
	char *env = doneenv(t);
	int r = 0;
	for (int i = 0; i < tu->nt && !r; i++) {
		const struct trial *u = tu->t[i];
		char *ue = u != t && u->verdict >= 0 && u->verdict != V_NOAPPLY && u->verdict != V_BUILD ?
		           doneenv(u) : NULL;
		if (ue && !strcmp(ue, env))
			r = fail(t, V_NOAPPLY, fmt("it builds what t%d built: %s", u->id, t->refused));
		free(ue);
	}
	free(env);
	return r;
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
	if (!r && t->refused)
		r = anew(tu, t);
	if (!r && tu->binary) {
		char *from = tunepath(tu->binary, t->dir), *to = path(t, "binary");
		if (copyprog(from, to) < 0)
			r = fail(t, V_BUILD, fmt("cannot copy --binary '%s' to '%s'", from, to));
		free(from), free(to);
	}
	free(rep), free(log);
	if (r < 0)
		progress(tu, t);
	return r;
}

/* the figure of merit in the run's stdout (else stderr): --time's first
 * group, or the first number of its match, at its last match. The pattern
 * is read as grep reads it: ^ and $ match at every line (REG_NEWLINE) */
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
	char *o = tunepath(tu->output, t->dir), *keep = path(t, "output");
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
	t->cost += wall;
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
badoutput(const struct trial *t, const char *what)
{
	char *o = path(t, "output"), *e = path(t, "run.err");
	char *lo = lastlines(o, 10), *le = lastlines(e, 10);
	killall();
	die("%s\n%s%s  no profile written", what, lo, le);
}

/* the baseline's output must hold numbers, and finite ones */
static void
checkbase(const struct tuner *tu, const struct trial *t)
{
	if (!t->nnum)
		badoutput(t, fmt("the baseline's output holds no number (did the program run? "
		                     "without a GPU it prints none): nothing to compare candidates with"));
	for (long i = 0; i < t->nnum && !tu->nonfinite; i++)
		if (!isfinite(t->num[i]))
			badoutput(t, fmt("the baseline's output holds %g (its number %ld of %ld), where "
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
		fail(t, c, fmt("%ld %s in the output, the baseline has %ld", t->nnum,
		               plural(t->nnum, "number", "numbers"), tu->base->nnum));
		progress(tu, t);
		badoutput(t, fmt("[t%d] %s printed %ld %s where the baseline printed %ld: "
		                     "the outputs cannot be compared", t->id, t->what, t->nnum,
		                     plural(t->nnum, "number", "numbers"), tu->base->nnum));
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

/* runs of t: --runs, at least 5 of the baseline, whose spread is the
 * session's noise, and one of an instrumented build (the timing or shadow
 * build: what it prints counts, not its time) */
static int
runs(const struct tuner *tu, const struct trial *t)
{
	if (instrumented(t))
		return 1;
	return t == tu->base && tu->runs < 5 ? 5 : tu->runs;
}

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

/* start one run of t on GPU slot gpu */
static pid_t
launch(struct tuner *tu, const struct trial *t, int gpu)
{
	char *out = path(t, "run.out"), *err = path(t, "run.err");
	char *e_dir = fmt("MPCC_TUNE_DIR=%s", t->dir), *e_gpu = fmt("CUDA_VISIBLE_DEVICES=%d", gpu);
	const char *env[] = {e_dir, tu->jobs > 1 && !tu->launcher ? e_gpu : NULL, NULL};
	char *cmd = runcmd(tu);
	pid_t pid = start(cmd, env, out, err, 0);
	free(cmd), free(out), free(err), free(e_dir), free(e_gpu);
	return pid;
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
		pid[i] = start(cmd, env, out[i], err[i], 0);
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
					forget(pid[i]), st[i] = status(x);
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

/* ---- the pool: builds and runs as their slots free up ---- */

/* A trial a search asks for is wanted: trials_run() returns once the
 * wanted are done. The guesses given with them go on in the pool across
 * calls, behind the wanted: a guess starts a build only while fewer than
 * GUESSES per GPU are under way and guesses hold under half the build
 * slots, and runs while a GPU is left free for the wanted.
 * A guess no call names any more is dropped before it starts; what still
 * runs when the searches end is stopped (trials_drop()). */
#define GUESSES 2

enum { J_WAIT, J_BUILD, J_BUILT, J_RUN, J_RAN, J_DONE };

struct job {
	struct trial *t;
	int state;      /* J_*; J_RAN: its runs done, waiting for the baseline's verdict */
	int run;        /* runs done */
	int gpu;        /* its slot while it runs */
	int want;       /* asked for by the call under way (else a guess) */
	int order;      /* its place in that call's list */
	pid_t pid;
	double t0;      /* its process's start */
};

static struct pool {
	struct job *j;
	int n, cap;
	int builds, bmax, runs, rmax;
	char *busy;     /* rmax GPU slots */
	double limit;   /* seconds a run may take (0: no limit) */
} P;

static int
inflight(const struct job *j)
{
	return j->state == J_BUILD || j->state == J_BUILT || j->state == J_RUN;
}

/* the trials of the pool that started and have not ended (guesses: only
 * those) */
static int
underway(int guesses)
{
	int n = 0;
	for (int i = 0; i < P.n; i++)
		n += inflight(&P.j[i]) && (!guesses || !P.j[i].want);
	return n;
}

/* the guesses building: at most half the build slots, so that a trial a
 * search asks for finds one */
static int
guessbuilds(void)
{
	int n = 0;
	for (int i = 0; i < P.n; i++)
		n += P.j[i].state == J_BUILD && !P.j[i].want;
	return n;
}

static int
wanted(void)
{
	int n = 0;
	for (int i = 0; i < P.n; i++)
		n += P.j[i].want && P.j[i].state != J_DONE;
	return n;
}

/* a trial stopped before its end (the budget, Ctrl-C) is as if never run */
static void
unrun(struct trial *t)
{
	free(t->times), free(t->walls), free(t->why), free(t->num), free(t->report), free(t->refused);
	t->times = t->walls = t->num = NULL;
	t->why = t->report = t->refused = NULL;
	t->ntimes = 0, t->nnum = 0, t->verdict = -1, t->cost = t->build = 0;
	for (int i = 0; i < t->set.n; i++)
		t->set.k[i].refused = 0;
}

static void
done(struct job *j)
{
	if (j->state == J_RUN)
		P.busy[j->gpu] = 0, P.runs--;
	if (j->state == J_BUILD)
		P.builds--;
	j->state = J_DONE;
}

/* stop what runs in the pool (guesses only, or all); what has not
 * finished stays unrun */
static void
stoppool(int guesses)
{
	pid_t *g = xcalloc(P.n + 1, sizeof *g);
	for (int i = 0; i < P.n; i++)
		if ((P.j[i].state == J_BUILD || P.j[i].state == J_RUN) && (!guesses || !P.j[i].want))
			g[i] = P.j[i].pid;
	stopgroups(g, P.n);
	for (int i = 0; i < P.n; i++)
		if (P.j[i].state != J_DONE && (!guesses || !P.j[i].want)) {
			unrun(P.j[i].t);
			done(&P.j[i]);
		}
	free(g);
}

/* may a build start? A build that does not name $MPCC_TUNE_DIR writes the
 * program the trials share: it waits until no other trial needs it */
static int
canbuild(const struct tuner *tu, const struct job *j)
{
	if (P.builds >= P.bmax)
		return 0;
	if (!j->want && (underway(1) >= GUESSES * P.rmax || 2 * (guessbuilds() + 1) > P.bmax))
		return 0;
	if (apart(tu))
		return 1;
	for (int i = 0; i < P.n; i++)
		if (inflight(&P.j[i]))
			return 0;
	return 1;
}

/* the verdict of a trial whose runs are done, once the baseline has one */
static void
finish(struct tuner *tu, struct job *j)
{
	if (j->t != tu->base && (!tu->base || tu->base->verdict != V_OK))
		return;
	judge(tu, j->t);
	progress(tu, j->t);
	j->state = J_DONE;
}

/* the wanted first, then the guesses in the order given */
static void
startjobs(struct tuner *tu)
{
	for (int i = 0; i < P.n; i++) {
		struct job *j = &P.j[i];
		if (j->state == J_RAN)
			finish(tu, j);
		if (j->state == J_WAIT && canbuild(tu, j)) {
			if (!maystart(tu)) {   /* its search's time is up: it stays unrun */
				done(j);
				continue;
			}
			j->t0 = now();
			j->pid = buildstart(tu, j->t);
			j->state = J_BUILD;
			P.builds++;
		}
		if (j->state == J_BUILT && P.runs < P.rmax - (!j->want && P.rmax > 1)) {
			j->gpu = 0;
			while (P.busy[j->gpu])
				j->gpu++;
			P.busy[j->gpu] = 1;
			j->state = J_RUN;
			P.runs++;
			j->t0 = now();
			j->pid = launch(tu, j->t, j->gpu);
		}
	}
}

/* j's process ended with exit status st (-1: killed over the limit) */
static void
ended(struct tuner *tu, struct job *j, int st)
{
	double wall = now() - j->t0;
	if (j->state == J_BUILD) {
		j->t->build = j->t->cost = wall;
		P.builds--;
		j->state = J_BUILT;
		if (built(tu, j->t, st) < 0)
			j->state = J_DONE;
		return;
	}
	if (ran(tu, j->t, j->run, st, wall) < 0 || ++j->run == runs(tu, j->t)) {
		P.busy[j->gpu] = 0, P.runs--;
		j->state = J_RAN;
		finish(tu, j);
		return;
	}
	j->t0 = now();
	j->pid = launch(tu, j->t, j->gpu);
}

/* wait for a process of the pool to end, or a run to pass its limit */
static void
await(struct tuner *tu)
{
	int st;
	pid_t pid = waitpid(-1, &st, WNOHANG);
	if (pid < 0 && errno != EINTR && errno != ECHILD)
		BUG("waitpid: %s, with %d builds and runs under way", strerror(errno), P.builds + P.runs);
	for (int i = 0; i < P.n; i++) {
		struct job *j = &P.j[i];
		if ((j->state != J_BUILD && j->state != J_RUN) || !j->pid)
			continue;
		if (pid == j->pid) {
			forget(pid);
			ended(tu, j, status(st));
		} else if (j->state == J_RUN && P.limit > 0 && now() - j->t0 > P.limit) {
			reap(j->pid);
			ended(tu, j, -1);
		}
	}
	if (pid <= 0)
		nanosleep(&(struct timespec){0, 1000000}, NULL);
}

static int
bywant(const void *a, const void *b)
{
	const struct job *x = a, *y = b;
	if (x->want != y->want)
		return y->want - x->want;
	return (x->order > y->order) - (x->order < y->order);
}

/* the pool for this call: the jobs of t[], wanted (the first asked) or
 * guesses, in that order; the guesses not named again and not started,
 * and the jobs done, leave it */
static void
refill(struct tuner *tu, struct trial **t, int n, int asked)
{
	int m = 0;
	for (int i = 0; i < P.n; i++) {
		struct job *j = &P.j[i];
		j->want = 0, j->order = n;
		for (int k = 0; k < n; k++)
			if (t[k] == j->t)
				j->want = k < asked, j->order = k;
		if (j->state == J_DONE || (j->state == J_WAIT && j->order == n))
			continue;
		P.j[m++] = *j;
	}
	P.n = m;
	for (int k = 0; k < n; k++) {
		int known = 0;
		for (int i = 0; i < P.n; i++)
			known |= P.j[i].t == t[k];
		if (known || t[k]->verdict >= 0)
			continue;
		free(t[k]->dir);
		t[k]->dir = fmt("%s/t%d", tu->workdir, t[k]->id);
		mkdir(t[k]->dir, 0777);
		vgrow(P.j, P.n, P.cap);
		P.j[P.n++] = (struct job){t[k], J_WAIT, 0, 0, k < asked, k, 0, 0};
	}
	qsort(P.j, P.n, sizeof *P.j, bywant);
}

void
trials_run(struct tuner *tu, struct trial **t, int n, int asked)
{
	if (!P.busy) {
		P.bmax = buildsapart(tu) && tu->bjobs > 0 ? tu->bjobs : 1;
		P.rmax = apart(tu) && tu->jobs > 0 ? tu->jobs : 1;
		P.busy = xcalloc(P.rmax, 1);
	}
	P.limit = tu->base && tu->base->verdict == V_OK ? tu->slow * tu->base->wall + SLACK : 0;
	refill(tu, t, n, asked);
	while ((tu->pending = wanted()) > 0) {
		/* a Ctrl-C, or the searches' time is up: what runs stops now (a
		 * trial that may not start, maystart(), waits for those under way) */
		if (interrupts || (tu->deadline > 0 && now() > tu->deadline)) {
			if (!tu->halt)
				tu->halt = interrupts ? "stopped by Ctrl-C" : "the budget is spent";
			stoppool(0);
			break;
		}
		startjobs(tu);
		tu->inflight = underway(0);
		if (wanted() > 0)
			await(tu);
	}
	tu->pending = tu->inflight = 0;
}

void
trials_drop(struct tuner *tu)
{
	(void)tu;
	for (int i = 0; i < P.n; i++)
		P.j[i].want = 0;
	stoppool(1);
	P.n = 0;
}
