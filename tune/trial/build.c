/* build.c: build a trial and check its build's report.
 *
 * The build runs `sh -c BUILD` with MPCC_SET (the setting), MPCC_REPORT (a
 * fresh file in the trial's directory) and MPCC_TUNE_DIR (that directory)
 * in its environment. A build counts only if its report shows the knobs of
 * the setting applied with exactly their parameters: the exit status alone
 * would accept a make that rebuilt nothing. A knob its kernel refuses is
 * said and left out; the others run. */
#include "tune/trial/trial.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int
trial_fail(struct trial *t, int verdict, char *why)
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
		if (m && tr && kernel_named(k->kernel, m, NULL, NULL) && !strcmp(tr, pass)) {
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
			return trial_fail(t, V_NOAPPLY, why);
		}
		k->refused = !r;
		done += r;
		if (!r)
			buf_printf(&no, "%s%s", no.n ? "; " : "", why);
		free(why);
	}
	if (t->set.n && !done)
		return trial_fail(t, V_NOAPPLY, buf_take(&no));
	free(t->refused);
	t->refused = no.n ? buf_take(&no) : NULL;
	buf_release(&no);
	return 0;
}

char *
trial_path(const struct trial *t, const char *name)
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
	return copyfile(from, to) == 0 && chmod(to, 0755) == 0 ? 0 : -1;
}

pid_t
build_start(struct tuner *tu, const struct trial *t, const char *rep, const char *log, int niced)
{
	char *e_set = fmt("MPCC_SET=%s", t->env), *e_rep = fmt("MPCC_REPORT=%s", rep),
	     *e_dir = fmt("MPCC_TUNE_DIR=%s", t->dir), *steps = trial_path(t, "steps.log");
	char *e_steps = fmt("MPCC_STEP_LOG=%s", steps);
	const char *env[] = {e_set, e_rep, e_dir, e_steps, NULL};
	unlink(rep), unlink(steps);
	/* a trial's build is niced, so that the runs beside it (--jobs) keep
	 * the CPU they time; its log is stdout and stderr, as 2>&1 */
	const char *line = t->cmd ? t->cmd : tu->o->build;
	pid_t pid = spawn_start(&(struct spawn){.line = line, .env = env, .out = log, .err = log,
	                                       .nullin = 1, .group = 1, .nice = niced ? 10 : 0});
	free(e_set), free(e_rep), free(e_dir), free(e_steps), free(steps);
	return pid;
}

/* start the build of t: its pid */
pid_t
trial_build(struct tuner *tu, struct trial *t)
{
	char *rep = trial_path(t, "report.jsonl"), *log = trial_path(t, "build.log");
	pid_t pid = build_start(tu, t, rep, log, 1);
	free(rep), free(log);
	return pid;
}

/* a trial whose build refused some knobs builds what the others give:
 * if a trial that built that (the baseline, the search's base) ran
 * already, this one has nothing new to run */
static int
anew(struct tuner *tu, struct trial *t)
{
	char *env = setting_env_applied(&t->set);
	int r = 0;
	for (int i = 0; i < tu->nt && !r; i++) {
		const struct trial *u = tu->t[i];
		char *ue = u != t && u->verdict >= 0 && u->verdict != V_NOAPPLY && u->verdict != V_BUILD ?
		           setting_env_applied(&u->set) : NULL;
		if (ue && !strcmp(ue, env))
			r = trial_fail(t, V_NOAPPLY, fmt("it builds what t%d built: %s", u->id, t->refused));
		free(ue);
	}
	free(env);
	return r;
}

const char *const stepnames[] = {"transform", "ptxas", "host", "link", "other"};

/* the seconds of t's build's steps by kind, from mpcc's lines
 * "KIND SECONDS HOW" (MPCC_STEP_LOG), and how many the step cache kept
 * (HOW hit or embed) of those it keeps (and miss); what mpcc did not run
 * (make, the other commands of --build) is not there */
static void
steptimes(struct trial *t)
{
	char *path = trial_path(t, "steps.log"), *text = readfile(path, NULL);
	memset(t->steps, 0, sizeof t->steps);
	t->hits = t->keyed = 0;
	for (char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l)) {
		char kind[16], how[16] = "";
		double s;
		int k = 0;
		if (sscanf(l, "%15s %lf %15s", kind, &s, how) < 2 || !(s >= 0))
			continue;
		while (k < ST_OTHER && strcmp(kind, stepnames[k]))
			k++;
		t->steps[k] += s;
		t->hits += !strcmp(how, "hit") || !strcmp(how, "embed");
		t->keyed += !strcmp(how, "hit") || !strcmp(how, "embed") || !strcmp(how, "miss");
	}
	free(text), free(path);
}

/* the build of t ended with status st: did it apply the setting? */
int
trial_built(struct tuner *tu, struct trial *t, int st)
{
	char *rep = trial_path(t, "report.jsonl"), *log = trial_path(t, "build.log");
	size_t n;
	free(t->report);
	t->report = readfile(rep, &n);
	steptimes(t);
	int r = 0;
	if (st)
		r = trial_fail(t, V_BUILD, fmt("--build exited with %d (see %s)", st, log));
	else
		r = checkreport(t);
	if (!r && t->refused)
		r = anew(tu, t);
	if (!r && tu->o->binary) {
		char *from = tunepath(tu->o->binary, t->dir), *to = trial_path(t, "binary");
		if (copyprog(from, to) < 0)
			r = trial_fail(t, V_BUILD, fmt("cannot copy --binary '%s' to '%s'", from, to));
		free(from), free(to);
	}
	free(rep), free(log);
	if (r < 0)
		progress(tu, t);
	return r;
}
