/* facts.c: mpcc-tune --measure, what one run of the program measures of
 * each kernel, written as rules of a profile.
 *
 * The plain program (the baseline) and the timing build have run once each
 * (main.c, search/kernels.c): each kernel's share of the kernel time, its
 * launches, the warps an SM holds, each loop's mean trip count per entry,
 * and the hash of the PTX they were measured on. Those facts are parameters
 * of the passes whose schema takes them (fact_param()), so a rule carries
 * them, as profile-guided compilers keep counts beside a build. One more
 * build, not run, has each such pass on every kernel with its defaults: a
 * kernel it reports no statistics on (for fiset: one without f64
 * arithmetic) gets no rule. The rules are merged into the profile
 * (profile_facts()): a kernel's own rule keeps its other parameters and
 * passes. */
#include "tune/output/output.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* does pass take facts (fact_param())? */
static int
takesfacts(int pass)
{
	for (int i = 0; i < passes[pass]->schema.nparam; i++)
		if (fact_param(pass, i) >= 0)
			return 1;
	return 0;
}

/* the build with every pass that takes facts on every kernel, with its
 * defaults: its report (malloc'd), NULL if it failed */
static char *
probe(struct tuner *tu)
{
	struct setting s = {0};
	for (int p = 0; p < npass; p++)
		if (takesfacts(p))
			setting_add(&s, p, "*", "");
	char *dir = fmt("%s/facts", tu->o->workdir), *rep = fmt("%s/report.jsonl", dir),
	     *log = fmt("%s/build.log", dir), *text = NULL;
	struct trial t = {.env = setting_env(&s), .dir = dir};
	size_t n;
	mkdir(dir, 0777);
	if (build_once(tu, &t, rep, log))
		error("the build that tells which kernels take facts failed (see %s)", log);
	else
		text = readfile(rep, &n);
	setting_release(&s);
	free(t.env), free(dir), free(rep), free(log);
	return text;
}

/* why the probe's report gives pass no statistics on kernel (malloc'd),
 * NULL where it does: the kernel has something for the pass to decide */
static char *
nostats(const char *rep, int pass, const char *kernel)
{
	char *why = NULL;
	for (const char *l = rep; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : "") {
		char *m = jget(l, "mangled"), *tr = jget(l, "transform"), *st = NULL;
		if (m && tr && !strcmp(m, kernel) && !strcmp(tr, pass_name(pass))) {
			st = jget(l, "stats");
			if (st && strcmp(st, "null") && strcmp(st, "{}")) {
				free(m), free(tr), free(st), free(why);
				return NULL;
			}
			if (!why)
				why = jget(l, "reason");
		}
		free(m), free(tr), free(st);
	}
	return why ? why : fmt("no report line for %s on it", pass_name(pass));
}

/* the facts of every kernel --kernels selects for every pass that takes
 * them, where the pass has something to decide; the others said in no */
static int
gather(const struct tuner *tu, const char *rep, struct factrule **out, struct buf *no)
{
	int n = 0;
	*out = NULL;
	for (int i = 0; i < tu->nk; i++)
		for (int p = 0; p < npass; p++) {
			const struct kern *k = &tu->k[i];
			char *par = takesfacts(p) && k->hot ? kern_facts(k, p, W_YAML) : NULL;
			char *why = par && *par ? nostats(rep, p, k->mangled) : NULL;
			if (par && *par && !why) {
				*out = xrealloc(*out, (n + 1) * sizeof **out);
				(*out)[n++] = (struct factrule){k, p, par, fmt(": %.1f%% of kernel time, %ld %s",
				              100 * k->share, k->launches, plural(k->launches, "launch", "launches")),
				              NULL, 0};
				continue;
			}
			if (takesfacts(p))
				buf_printf(no, "  %s: no %s rule: %s\n", k->demangled, pass_name(p), !k->hot ?
				           "--kernels leaves it out" : *par ? why : k->launches ?
				           "the run measured no fact the pass takes" : "not launched in the run");
			free(par), free(why);
		}
	return n;
}

/* the measure run's cost, and whether its output is the plain run's */
static int
cost(const struct tuner *tu, const struct trial *timed)
{
	double wall = timed->ntimes ? timed->walls[timed->ntimes - 1] : 0;
	if (timed->verdict != V_OK) {
		error("the measure run failed: %s", timed->why ? timed->why : "?");
		return -1;
	}
	fprintf(stderr, "mpcc-tune: measure run %.3g s, %.2fx the plain run's %.3g s\n", wall,
	        tu->base->wall > 0 ? wall / tu->base->wall : 0, tu->base->wall);
	if (timed->e.max > 0)
		warn("the measure run's output differs from the plain run's (largest relative "
		     "difference %.3g): the instrumentation must not change what the program computes, "
		     "unless its output varies from run to run%s", timed->e.max, tu->o->timepat ? "" :
		     " (a time it prints counts too: --time PATTERN leaves the lines it matches out)");
	return 0;
}

int
measure_facts(struct tuner *tu, const struct trial *timed)
{
	struct factrule *f;
	char *rep;
	if (cost(tu, timed) < 0 || !(rep = probe(tu)))
		return 1;
	int measured = 0, nf, rc = 0;
	for (int i = 0; i < tu->nk; i++)
		measured |= tu->k[i].launches > 0;
	if (!measured) {
		error("no kernel was measured (no 'mpcc-time' line): profile '%s' left as it was",
		      tu->o->profile);
		free(rep);
		return 1;
	}
	measure_candidates(tu, timed);
	struct buf no = BUF_INIT;
	nf = gather(tu, rep, &f, &no);
	char *p = profile_path(tu);
	if (nf)
		rc = profile_facts(p, tu->o->profile, f, nf, tu->o->dryrun);
	fprintf(stderr, "mpcc-tune: the facts as rules of profile '%s':\n", tu->o->profile);
	for (int i = 0; i < nf && !rc; i++)
		fprintf(stderr, "  %s: %s: {%s}: %s%s%s\n", f[i].k->demangled, pass_name(f[i].pass),
		        f[i].params, f[i].how, f[i].k->nocount ? "; its loops' trips were not counted: " : "",
		        f[i].k->nocount ? f[i].k->nocount : "");
	fprintf(stderr, "%s", no.n ? no.s : "");
	buf_release(&no);
	if (!nf && !rc)
		fprintf(stderr, "mpcc-tune: no kernel has facts a pass takes: profile '%s' left as it was\n",
		        tu->o->profile);
	else if (!rc) {
		if (tu->o->dryrun)
			fprintf(stderr, "mpcc-tune: --dry-run: %s printed, not written\n", p);
		else
			fprintf(stderr, "mpcc-tune: profile '%s' written to %s: build with MPCC_PROFILE=%s%s; "
			        "mpcc --mpcc-explain shows the facts each kernel's rule carries\n", tu->o->profile,
			        p, tu->o->profile, tu->o->policy ? " and MPCC_POLICY=that file" : "");
	}
	for (int i = 0; i < nf; i++)
		free(f[i].params), free(f[i].note), free(f[i].how);
	free(f), free(p), free(rep);
	return rc ? 1 : 0;
}
