/* kernels.c: which kernels take the time, and what the shadow build says
 * about each f64 operation of one.
 *
 * Both are builds with the instrumentation pass of the table (struct
 * tuning TUNE_PROBE: transforms/shadow.c) on the program as it is: its
 * timing setting on every kernel gives one line per launch "mpcc-time
 * KERNEL LAUNCHES NS THREADS BLOCK NSMID" on the run's stdout, where NS is
 * the total span of its launches so far, first block's start to last
 * warp's end by %globaltimer, and the launch's threads, a block's and the
 * SMs say how many warps an SM holds at once (the largest launch counts:
 * the model takes it as the fact F_WARPS of model/facts.h, where a pass has
 * a PFACT "warps" parameter); its shadow setting gives "mpcc-shadow KERNEL
 * INS LAUNCHES TOTAL". The timing
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
 * input still has the kernels its own timer measures (issue 27). */
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

/* the mpcc-time lines of the timing run: each kernel's time; the total */
static double
kerneltimes(struct tuner *tu, const char *out, double wall)
{
	double total = 0;
	for (const char *l = out; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l)) {
		char name[4096];
		long launches, threads = 0, block = 0, nsm = 0;
		double ns;
		struct kern *k;
		if (sscanf(l, "mpcc-time %4095s %ld %lf %ld %ld %ld", name, &launches, &ns, &threads, &block,
		           &nsm) < 3 || !(k = kern_byname(tu->k, tu->nk, name)))
			continue;
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
	for (int i = 0; i < tu->nk; i++)
		tu->k[i].hot = tunable(tu, &tu->k[i]) && (total <= 0 || tu->k[i].share * 100 >= tu->o->minshare);
	kernlist(tu, total, wall);
	return t;
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
