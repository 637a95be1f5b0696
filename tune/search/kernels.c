/* kernels.c: which kernels take the time, and what the shadow build says
 * about each f64 operation of one.
 *
 * Both are builds with the instrumentation pass of the table (struct
 * tuning TUNE_PROBE: transforms/shadow.c) on the program as it is: its
 * timing setting on every kernel gives one line per launch "mpcc-time
 * KERNEL LAUNCHES NS THREADS BLOCK NSMID START END" on the run's stdout,
 * where NS is the total span of its launches so far, first block's start to
 * last warp's end by %globaltimer, the launch's threads, a block's and the
 * SMs say how many warps an SM holds at once (the largest launch counts:
 * the model takes it as the fact F_WARPS of model/facts.h, where a pass has
 * a PFACT "warps" parameter), and START and END are the launch's span
 * (older builds' lines end earlier: what they leave out is not known).
 * Where spans of different kernels overlap (streams), each one's time
 * measures the others too: its figures are said to be confounded and
 * decide nothing (struct kern's beside); its shadow setting gives
 * "mpcc-shadow KERNEL INS LAUNCHES TOTAL". The timing
 * run also counts each loop's trips: "mpcc-trips KERNEL LAUNCHES LOOP HEADS
 * ENTRIES", the loops numbered from 1 in the order their headers come in
 * the kernel's PTX, and the timing build's stats say how many loops there
 * are, whether they were counted, and the hash of the PTX (the facts go
 * into the settings beside warps: setting_launch()). The last line of a
 * kernel (or of a loop) holds its totals; the shadow build's stats list
 * the ops shadowed and how many the kernel has (roles ROPS, RNOPS): fewer
 * listed, a sample. The timing build's report lists every kernel the program has,
 * with its names.
 *
 * Kernels are ranked and chosen by their share of the time of every kernel,
 * not of the run's wall time: a program that spends most of its run reading
 * input still has the kernels its own timer measures (issue 27). A kernel
 * whose time is confounded is chosen whatever its share: on a public
 * hydrodynamics proxy app, one of several streams read 1.63x faster in a
 * build that did not change it (issue 49).
 *
 * --measure also times the candidates of the pass that takes the fact
 * F_MEASURED (fiset's sets=auto and sets=all) with the same timers, and
 * the timing build once more for the noise: measure_candidates(). */
#include "tune/search/search.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* the instrumentation pass with setting probe (its timing or shadow
 * setting) on kernel */
static struct trial *
probebuild(struct tuner *tu, const char *kernel, int shadow)
{
	int p = pass_probe();
	if (p < 0)
		die("no pass of the table instruments builds for mpcc-tune (struct tuning TUNE_PROBE)");
	struct setting s = {0};
	setting_add(&s, p, kernel, shadow ? passes[p]->tune->shadow : passes[p]->tune->timing);
	struct trial *t = trial_for(tu, &s, -1);
	setting_release(&s);
	return t;
}

/* every kernel the report names, once */
static void
fromreport(struct tuner *tu, const char *rep)
{
	for (const char *l = rep ? rep : ""; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : "") {
		char *m = jget(l, "mangled"), *d = jget(l, "demangled");
		if (m && !kern_byname(tu->k, tu->nk, m)) {
			tu->k = xrealloc(tu->k, (tu->nk + 1) * sizeof *tu->k);
			tu->k[tu->nk++] = (struct kern){.mangled = xstrdup(m), .demangled = xstrdup(d ? d : m),
			                                .src = jget(l, "src")};
		}
		free(m), free(d);
	}
}

/* the lines of the last run's stdout that start with tag */
static char *
runout(const struct trial *t)
{
	char *p = fmt("%s/run.out", t->dir);
	size_t n;
	char *s = readfile(p, &n);
	free(p);
	return s ? s : xstrdup("");
}

static int
byshare(const void *a, const void *b)
{
	const struct kern *x = a, *y = b;
	return (x->share < y->share) - (x->share > y->share);
}

static int
tunable(const struct tuner *tu, const struct kern *k)
{
	if (!tu->o->kernels)
		return 1;
	/* its short name here keeps a template's return type, where a
	 * policy's (kernel_shortname()) drops it */
	char *s = xstrndup(k->demangled, strcspn(k->demangled, "("));
	int ok = kernel_named(tu->o->kernels, k->mangled, k->demangled, s);
	free(s);
	return ok;
}

/* the blocks an SM holds at once at most: 32 on sm_80, sm_90 and sm_100
 * (16 on sm_75 and sm_86, 24 on sm_89, where this overstates a launch of
 * small blocks); gpp's solver launches blocks of one warp */
#define MAXBLOCKS 32

/* the warps an SM holds at once in a launch of threads in blocks of block
 * over nsm SMs */
static int
launchwarps(long threads, long block, long nsm)
{
	long blocks = (threads + block - 1) / block, per = (blocks + nsm - 1) / nsm;
	long w = (per < MAXBLOCKS ? per : MAXBLOCKS) * ((block + 31) / 32);
	return w < 64 ? (int)w : 64;
}

/* one end of a launch's span: at ns by %globaltimer, kernel k (tu->k's
 * index) starts (1) or ends (-1) */
struct edge {
	unsigned long long at;
	int k, d;
};

static int
byat(const void *a, const void *b)
{
	const struct edge *x = a, *y = b;
	if (x->at != y->at)
		return x->at < y->at ? -1 : 1;
	return x->d - y->d;   /* an end before a start at the same ns: they touch, no overlap */
}

/* the spans of the launches, a start and an end edge each, in e (2 n of
 * them): each kernel's time beside another kernel's launch (or another of
 * its own), into its beside (NULL: none) */
static void
overlaps(struct tuner *tu, struct edge *e, int n)
{
	if (!n)
		return;   /* the old lines: no span */
	int nk = tu->nk, *on = xcalloc(nk, sizeof *on), *act = xmalloc((nk + 1) * sizeof *act), na = 0;
	char *with = xcalloc((size_t)nk * nk, 1);
	double *mine = xcalloc(nk, sizeof *mine), *shared = xcalloc(nk, sizeof *shared);
	qsort(e, n, sizeof *e, byat);
	for (int i = 0; i < n; i++) {
		double dt = i ? (double)(e[i].at - e[i - 1].at) : 0;
		int many = na > 1 || (na == 1 && on[act[0]] > 1);
		for (int a = 0; a < na; a++) {
			mine[act[a]] += dt;
			shared[act[a]] += many ? dt : 0;
			for (int b = 0; b < na && many && dt > 0; b++)
				with[act[a] * nk + act[b]] |= a != b || on[act[a]] > 1;
		}
		int k = e[i].k, at = 0;
		while (at < na && act[at] != k)
			at++;
		if (e[i].d > 0 && on[k]++ == 0)
			act[na++] = k;
		else if (e[i].d < 0 && --on[k] == 0)
			act[at] = act[--na];
	}
	for (int a = 0; a < nk; a++) {
		struct buf b = BUF_INIT;
		for (int c = 0; c < nk; c++)
			if (with[a * nk + c])
				buf_printf(&b, "%s%s", b.n ? ", " : "", c == a ? "launches of its own" :
				           tu->k[c].demangled);
		if (b.n && mine[a] > 0) {
			double p = 100 * shared[a] / mine[a];
			tu->k[a].beside = fmt("%s for %.*f%% of its time", b.s, p < 1 ? 2 : 0, p);
		}
		buf_release(&b);
	}
	free(on), free(act), free(with), free(mine), free(shared);
}

/* one mpcc-time line: its fields (those it does not give stay 0) */
struct timeline {
	char name[4096];
	long launches, threads, block, nsm;
	unsigned long long start, end;
	double ns;
};

/* line l as an mpcc-time line of a kernel of tu->k, into x: the kernel,
 * NULL if it is not one; *got: how many fields it gives */
static struct kern *
timeline(const struct tuner *tu, const char *l, struct timeline *x, int *got)
{
	memset(x, 0, sizeof *x);
	*got = sscanf(l, "mpcc-time %4095s %ld %lf %ld %ld %ld %llu %llu", x->name, &x->launches,
	              &x->ns, &x->threads, &x->block, &x->nsm, &x->start, &x->end);
	return *got < 3 ? NULL : kern_byname(tu->k, tu->nk, x->name);
}

/* the mpcc-time lines of the timing run: each kernel's time, and where
 * they give each launch's span (START END), what overlapped; the total */
static double
kerneltimes(struct tuner *tu, const char *out, double wall)
{
	double total = 0;
	struct edge *e = NULL;
	int n = 0, cap = 0;
	for (const char *l = out; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l)) {
		struct timeline x;
		int got;
		struct kern *k = timeline(tu, l, &x, &got);
		long launches = x.launches, threads = x.threads, block = x.block, nsm = x.nsm;
		unsigned long long start = x.start, end = x.end;
		double ns = x.ns;
		if (!k)
			continue;
		if (got == 8 && end >= start) {
			if (n + 2 > cap)
				e = xrealloc(e, (cap = 2 * cap + 64) * sizeof *e);
			e[n++] = (struct edge){start, (int)(k - tu->k), 1};
			e[n++] = (struct edge){end, (int)(k - tu->k), -1};
		}
		struct fact *warps = &k->facts.f[F_WARPS];
		if (threads > 0 && block > 0 && nsm > 0 && launchwarps(threads, block, nsm) > warps->i)
			warps->i = launchwarps(threads, block, nsm);
		total += ns - k->ns;   /* the last line of a kernel holds its total */
		k->launches = launches;
		k->ns = ns;
		k->wallshare = wall > 0 ? ns * 1e-9 / wall : 0;
	}
	for (int i = 0; i < tu->nk; i++)
		tu->k[i].share = total > 0 ? tu->k[i].ns / total : 0;
	overlaps(tu, e, n);
	free(e);
	return total;
}

/* loops a kernel may have, as the trips lines number them: more is a
 * garbled line */
#define MAXLOOPS 100000

/* the mpcc-trips lines of the timing run: each loop's totals (its last
 * line), its mean trip count per entry (0: never entered) */
static void
looptrips(struct tuner *tu, const char *out)
{
	for (const char *l = out; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l)) {
		char name[4096];
		long launches, loop;
		double heads, entries;
		struct kern *k;
		if (sscanf(l, "mpcc-trips %4095s %ld %ld %lf %lf", name, &launches, &loop, &heads,
		           &entries) != 5 || !(k = kern_byname(tu->k, tu->nk, name)) || loop < 1 || loop > MAXLOOPS ||
		    !(heads >= 0) || !(entries >= 0))
			continue;
		struct fact *t = &k->facts.f[F_TRIPS];
		if (loop > t->n) {
			t->xs = xrealloc(t->xs, loop * sizeof *t->xs);
			for (long i = t->n; i < loop; i++)
				t->xs[i] = NAN;   /* no line yet */
			t->n = loop;
		}
		t->xs[loop - 1] = entries > 0 ? heads / entries : 0;
	}
}

static void
notrips(struct kern *k, char *why)
{
	struct fact *t = &k->facts.f[F_TRIPS];
	free(t->xs);
	t->xs = NULL;
	t->n = 0;
	free(k->nocount);
	k->nocount = why;
}

/* what the timing build's report says of k's loops (stats "loops",
 * "counted" and "why") and of its PTX ("ptx_hash"), checked against the
 * trips lines: trip counts that are not every loop's are none */
static void
loopfacts(struct kern *k, const char *report)
{
	int applied;
	char *st = report_stats(report, pass_probe(), k->mangled, &applied);
	char *loops = st ? jget(st, "loops") : NULL, *counted = st ? jget(st, "counted") : NULL,
	     *hash = st ? jget(st, "ptx_hash") : NULL;
	long n = loops ? strtol(loops, NULL, 10) : -1;
	struct fact *t = &k->facts.f[F_TRIPS];
	if (hash && strcmp(hash, "null"))
		k->facts.f[F_PTX].s = xstrdup(hash);
	if (counted && strcmp(counted, "true")) {
		char *why = jget(st, "why");
		if (!why || !strcmp(why, "null"))
			free(why), why = xstrdup("not counted");
		notrips(k, why);
	} else if (k->launches > 0 && n == 0) {
		notrips(k, NULL);
		t->xs = xmalloc(sizeof *t->xs);   /* known: no loop */
	} else if (n > 0 && !t->n) {
		notrips(k, NULL);   /* no line: not launched, or its stdout did not reach us */
	} else if (n > 0 && t->n != n)
		notrips(k, fmt("%d loops in the trips lines, %ld in the kernel", t->n, n));
	for (int i = 0; i < t->n; i++)
		if (isnan(t->xs[i])) {
			notrips(k, fmt("no trips line for loop %d", i + 1));
			break;
		}
	free(st), free(loops), free(counted), free(hash);
}

/* the loops column: "64,1.5,0", "none" (no loop), "-" (not known); at
 * most 6 of them, then the count */
static char *
looplist(const struct kern *k)
{
	const struct fact *trips = &k->facts.f[F_TRIPS];
	if (trips->xs && !trips->n)
		return xstrdup("none");
	if (trips->n <= 6)
		return kern_trips(k, ",");
	struct kern six = *k;
	six.facts.f[F_TRIPS].n = 6;
	char *t = kern_trips(&six, ","), *r = fmt("%s,... (%d)", t, trips->n);
	free(t);
	return r;
}

static void
kernlist(const struct tuner *tu, double total, double wall)
{
	fprintf(stderr, "mpcc-tune: kernels (timing build: %%globaltimer around each launch; run %.3g s, "
	        "%.2fx the baseline's %.3g s; kernels %.3g ms, %.1f%% of the run):\n", wall,
	        tu->base->wall > 0 ? wall / tu->base->wall : 0, tu->base->wall, total * 1e-6,
	        wall > 0 ? 100 * total * 1e-9 / wall : 0);
	if (total <= 0)
		fprintf(stderr, "mpcc-tune: warning: no 'mpcc-time' line in the run's stdout (does it "
		        "reach mpcc-tune?): %s\n", tu->o->measure ? "nothing is measured" : tu->o->kernels ?
		        "every kernel --kernels names is tuned" : "every kernel is tuned");
	fprintf(stderr, "  %% of kernel time  %% of run        ms   launches  warps/SM  "
	        "loops (trips)  kernel\n");
	for (int i = 0; i < tu->nk; i++) {
		const struct kern *k = &tu->k[i];
		char w[16] = "-", *t = looplist(k);
		if (k->facts.f[F_WARPS].i)
			snprintf(w, sizeof w, "%ld", k->facts.f[F_WARPS].i);
		fprintf(stderr, "  %15.1f%%  %7.1f%%  %8.3f  %9ld  %8s  %13s  %s%s\n", 100 * k->share,
		        100 * k->wallshare, k->ns * 1e-6, k->launches, w, t, k->demangled,
		        k->hot && !tu->o->measure ? "  (tuned)" : "");
		free(t);
	}
}

/* the kernels whose time measures their neighbours too, said once */
static void
confounded(const struct tuner *tu)
{
	int said = 0;
	for (int i = 0; i < tu->nk; i++)
		if (tu->k[i].beside) {
			if (!said++)
				fprintf(stderr, "mpcc-tune: kernels ran side by side (their launches overlap in "
				        "time: several streams), so a kernel's time measures its neighbours too: "
				        "these kernels' times are confounded and decide nothing (they leave no "
				        "kernel out of the tuning and check no model; the program's time "
				        "decides):\n");
			fprintf(stderr, "  %s: beside %s\n", tu->k[i].demangled, tu->k[i].beside);
		}
}

static struct trial *
timing(struct tuner *tu)
{
	struct trial *t = probebuild(tu, "*", 0);
	free(t->what);
	t->what = xstrdup("timing build (every kernel timed)");
	return t;
}

struct trial *
timing_build(struct tuner *tu)
{
	return timing(tu);
}

struct trial *
find_kernels(struct tuner *tu)
{
	struct trial *t = timing(tu);
	search_ask(tu, &t, 1);
	if (t->verdict < 0)
		die("the timing build did not run (%s): no profile written", session_halt(tu) ? session_halt(tu) : "?");
	if (t->verdict == V_BUILD || t->verdict == V_NOAPPLY)
		die("the timing build failed: %s", t->why);
	fromreport(tu, t->report);
	char *out = runout(t);
	double wall = t->ntimes ? t->walls[t->ntimes - 1] : 0, total = kerneltimes(tu, out, wall);
	looptrips(tu, out);
	for (int i = 0; i < tu->nk; i++)
		loopfacts(&tu->k[i], t->report);
	free(out);
	qsort(tu->k, tu->nk, sizeof *tu->k, byshare);
	for (int i = 0; i < tu->nk; i++) {
		struct kern *k = &tu->k[i];
		k->picked = tunable(tu, k);
		k->hot = k->picked && (total <= 0 || k->beside || k->share * 100 >= tu->o->minshare);
	}
	kernlist(tu, total, wall);
	confounded(tu);
	return t;
}

/* each kernel's time in t's run (its last mpcc-time line), into ns[] by
 * tu->k's index (0: none) */
static void
runtimes(const struct tuner *tu, const struct trial *t, double *ns)
{
	char *out = runout(t);
	for (int i = 0; i < tu->nk; i++)
		ns[i] = 0;
	for (const char *l = out; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l)) {
		struct timeline x;
		int got;
		struct kern *k = timeline(tu, l, &x, &got);
		if (k)
			ns[k - tu->k] = x.ns;
	}
	free(out);
}

/* a candidate of F_MEASURED: the timing build with pass on every hot
 * kernel, with params and the kernel's facts; timed 0: the plain build of
 * the same */
static struct trial *
candidate(struct tuner *tu, int pass, const char *params, int timed)
{
	int p = pass_probe();
	struct setting s = {0};
	if (timed)
		setting_add(&s, p, "*", passes[p]->tune->timing);
	for (int i = 0; i < tu->nk; i++)
		if (tu->k[i].hot)
			setting_launch(tu, &s, pass, tu->k[i].mangled, params);
	struct trial *t = trial_for(tu, &s, -1);
	setting_release(&s);
	return t;
}

/* the pass whose schema takes the fact F_MEASURED, -1: none */
static int
measuredpass(void)
{
	for (int p = 0; p < npass; p++)
		for (int i = 0; i < passes[p]->schema.nparam; i++)
			if (fact_param(p, i) == F_MEASURED)
				return p;
	return -1;
}

/* the program rejected t's run: it exited non-zero, said other words than
 * the baseline (FAIL for PASS) or printed NaN */
static int
rejected(const struct trial *t)
{
	return t->verdict == V_CRASH || t->verdict == V_WORDS || t->verdict == V_NAN;
}

/* t changed kernel i, and the program rejected its run: why, else NULL */
static char *
failed(const struct tuner *tu, const struct trial *t, int pass, int i)
{
	int applied = 0;
	free(report_stats(t->report, pass, tu->k[i].mangled, &applied));
	return applied && rejected(t) ? fmt("%s: %s", verdictname[t->verdict], t->why) : NULL;
}

/* the speed-up of kernel i in candidate t (where the pass did not change
 * it, or t built what the plain timing build did, it is the plain build's
 * kernel: 1; where the program rejected a run that changed it, 0: a
 * candidate never taken); 0 where not known (*why) */
static double
candup(const struct tuner *tu, const struct trial *t, int pass, int i, double plain,
       const double *ns, int *changed, const char **why)
{
	int applied = 0;
	char *st = report_stats(t->report, pass, tu->k[i].mangled, &applied);
	free(st);
	if (t->verdict == V_NOAPPLY)
		return 1;
	*changed += applied;
	if (applied && rejected(t))
		return 0;
	if (t->verdict != V_OK)
		*why = "a candidate's build or run failed";
	else if (!applied)
		return 1;
	else if (ns[i] <= 0)
		*why = "no time of it in a candidate's run";
	else
		return plain / ns[i];
	return 0;
}

/* Where the plain build of candidate c changed kernel k alone, its run
 * says how much faster the program ran; where that and k's time in the
 * timing builds disagree on whether it ran faster, beyond the noise, the
 * instrumentation misled (its own code changes a kernel bound by latency:
 * HeCBench's kalman, 8 warps an SM and 1 KB spilled a thread, read 0.98x
 * with sets=all timed and 1.37x by its own timer, built plainly): the
 * plain run's figure replaces it, k's x from the run's time by its share
 * (kernel_speedup()), else the run's own speed-up. Into *why: what was
 * taken */
static double
plainly(struct tuner *tu, const struct trial *tp, const struct kern *k, double x, double noise,
        char **why)
{
	double pred, meas, r = speedup(tu, tp), th = threshold(tu);
	if (tp->verdict != V_OK || kernel_speedup(tu, tp, &pred, &meas) != k)
		return x;   /* not run, or another kernel changed too: no plain figure of k */
	if (!((r > 1 + th && x <= 1 + noise) || (r < 1 - th && x >= 1 - noise)))
		return x;
	double y = meas > 0 && isfinite(meas) ? meas : r;
	free(*why);
	*why = fmt(" (timed %.2fx; the plain build ran the program %.2fx: the instrumentation misled, "
	           "%.2fx taken)", x, r, y);
	return y;
}

int
measure_candidates(struct tuner *tu, const struct trial *timed)
{
	int pass = measuredpass(), n = 0;
	if (pass < 0 || pass_probe() < 0)
		return 0;
	struct trial *t[5] = {candidate(tu, pass, "", 1),
	                      candidate(tu, pass, passes[pass]->tune->strongest, 1),
	                      trial_again(tu, timed),
	                      candidate(tu, pass, "", 0),
	                      candidate(tu, pass, passes[pass]->tune->strongest, 0)};
	search_ask(tu, t, 5);
	double *ns[3];
	for (int c = 0; c < 3; c++)
		runtimes(tu, t[c], ns[c] = xmalloc((tu->nk + 1) * sizeof *ns[c]));
	const struct param *knob = pass_knob(pass);
	char *def = fmt("%s=%s", knob->name, knob->def);
	fprintf(stderr, "mpcc-tune: %s's candidates measured, per kernel: its speed-up with %s and "
	        "with %s, and how much its time moved between two plain timing runs (the noise):\n",
	        pass_name(pass), def, passes[pass]->tune->strongest);
	for (int i = 0; i < tu->nk; i++) {
		struct kern *k = &tu->k[i];
		const char *why = NULL;
		int changed = 0;
		double plain = (k->ns + ns[2][i]) / 2, x[2] = {0, 0}, noise = 0;
		if (!k->hot)
			continue;
		if (k->beside)
			why = "its time is confounded (it ran beside other kernels)";
		else if (k->ns <= 0 || ns[2][i] <= 0 || t[2]->verdict != V_OK)
			why = "no time of it in the plain timing runs";
		for (int c = 0; c < 2 && !why; c++)
			x[c] = candup(tu, t[c], pass, i, plain, ns[c], &changed, &why);
		if (!why && !changed)
			why = "neither candidate changed it";
		if (!why) {
			/* in hundredths, as the profile writes it, rounded up: the noise
			 * is never said smaller than it was */
			noise = fabs(k->ns - ns[2][i]) / plain;
			noise = ceil(100 * (noise > tu->noise ? noise : tu->noise) - 1e-9);
			noise = noise > 0 ? noise / 100 : 0;
			char *how[2] = {NULL, NULL}, *fail[2];
			for (int c = 0; c < 2; c++) {
				/* a run the program rejected, timed or plain: 0, never taken */
				fail[c] = failed(tu, t[c], pass, i);
				if (!fail[c])
					fail[c] = failed(tu, t[3 + c], pass, i);
				x[c] = fail[c] ? 0 : plainly(tu, t[3 + c], k, x[c], noise, &how[c]);
			}
			struct fact *f = &k->facts.f[F_MEASURED];
			f->xs = xrealloc(f->xs, 3 * sizeof *f->xs);
			f->xs[0] = x[0], f->xs[1] = x[1], f->xs[2] = noise, f->n = 3;
			n++;
			fprintf(stderr, "  %s:", k->demangled);
			for (int c = 0; c < 2; c++) {
				const char *name = c ? passes[pass]->tune->strongest : def;
				if (fail[c])
					fprintf(stderr, " 0x with %s (its run failed, %s),", name, fail[c]);
				else
					fprintf(stderr, " %.2fx with %s%s,", x[c], name, how[c] ? how[c] : "");
				free(how[c]), free(fail[c]);
			}
			fprintf(stderr, " noise %.0f%%\n", 100 * noise);
		} else
			fprintf(stderr, "  %s: not measured: %s\n", k->demangled, why);
	}
	for (int c = 0; c < 3; c++)
		free(ns[c]);
	free(def);
	return n;
}

/* the pass a twin checks: the one of its setting that is not the probe */
static int
twinpass(const struct trial *t)
{
	for (int i = 0; i < t->set.n; i++)
		if (t->set.k[i].pass != pass_probe())
			return t->set.k[i].pass;
	return -1;
}

int
model_twins(struct tuner *tu, struct trial **t, int max)
{
	int n = 0;
	for (int p = 0; p < npass && n < max; p++) {
		const struct tuning *tn = passes[p]->tune;
		if (pass_tuned(p) && (tu->o->transform < 0 || p == tu->o->transform) &&
		    field_role(passes[p]->stats, RPREDICTED))
			t[n++] = candidate(tu, p, tn->fallback ? tn->fallback : tn->strongest, 1);
	}
	return n;
}

void
model_check(struct tuner *tu, struct trial *const *t, int n)
{
	double *ns = xmalloc((tu->nk + 1) * sizeof *ns);
	for (int c = 0; c < n; c++) {
		int pass = twinpass(t[c]);
		int v = t[c]->verdict;
		if (pass < 0 || v < 0 || v == V_BUILD || v == V_NOAPPLY || v == V_CRASH || v == V_TIMEOUT)
			continue;   /* not applied, or not run to its end: nothing timed (its
			             * output and figure of merit decide nothing here) */
		runtimes(tu, t[c], ns);
		for (int i = 0; i < tu->nk; i++) {
			struct kern *k = &tu->k[i];
			int applied = 0;
			char *st = k->hot ? report_stats(t[c]->report, pass, k->mangled, &applied) : NULL;
			double pred = applied ? stats_predicted(st, pass) : 0;
			free(st);
			if (pred <= 0)
				continue;
			if (!k->predicted) {
				k->predicted = xcalloc(npass, sizeof *k->predicted);
				k->timed = xcalloc(npass, sizeof *k->timed);
			}
			k->predicted[pass] = pred;
			k->timed[pass] = !k->beside && k->ns > 0 && ns[i] > 0 ? k->ns / ns[i] : 0;
		}
	}
	free(ns);
}

int
shadow_totals(struct tuner *tu, const char *kernel, struct optotal **out, int *sampled)
{
	struct trial *t = probebuild(tu, kernel, 1);
	search_ask(tu, &t, 1);
	*out = NULL;
	*sampled = 0;
	if (t->verdict < 0 || t->verdict == V_BUILD || t->verdict == V_NOAPPLY) {
		fprintf(stderr, "mpcc-tune: the shadow build %s: %s\n", t->verdict < 0 ? "did not run" :
		        "failed", t->verdict < 0 ? (session_halt(tu) ? session_halt(tu) : "?") : t->why);
		return 0;
	}
	int applied;
	char *text = runout(t), *st = report_stats(t->report, pass_probe(), kernel, &applied);
	long of, listed = stats_nops(st, pass_probe(), &of);
	*sampled = of > listed;
	fprintf(stderr, "mpcc-tune: shadow run of '%s': %.3g s, %.2fx the baseline", kernel, t->wall,
	        t->wall / tu->base->wall);
	if (*sampled)
		fprintf(stderr, "; errors estimated from a sample of %ld of %ld ops", listed, of);
	fputc('\n', stderr);
	int n = 0;
	for (char *l = text; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l)) {
		char name[4096];
		long ins, launches;
		double err;
		if (sscanf(l, "mpcc-shadow %4095s %ld %ld %lf", name, &ins, &launches, &err) != 4 ||
		    strcmp(name, kernel))
			continue;
		int k = 0;
		while (k < n && (*out)[k].ins != ins)
			k++;
		if (k == n) {
			*out = xrealloc(*out, (n + 1) * sizeof **out);
			(*out)[n++] = (struct optotal){ins, 0, 0, stats_opname(st, pass_probe(), ins)};
		}
		(*out)[k].err = err;
		(*out)[k].count = launches;
	}
	free(text), free(st);
	return n;
}
