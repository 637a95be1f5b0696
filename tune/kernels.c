/* kernels.c: which kernels take the time, and what the shadow build says
 * about each f64 operation of one.
 *
 * Both are builds with the shadow pass (transforms/shadow.c) on the program
 * as it is: measure=time on every kernel gives one line per launch
 * "mpcc-time KERNEL LAUNCHES NS" on the run's stdout, where NS is the total
 * span of its launches so far, first block's start to last warp's end by
 * %globaltimer; measure=error gives "mpcc-shadow KERNEL INS LAUNCHES
 * TOTAL". The last line of a kernel holds its totals. The timing build's
 * report lists every kernel the program has, with its names. */
#include "tune/tune.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

static int
passindex(const char *name)
{
	for (int i = 0; i < npass; i++)
		if (!strcmp(passes[i]->schema.name, name))
			return i;
	return -1;
}

static struct kern *
kernel(struct tuner *tu, const char *mangled)
{
	for (int i = 0; i < tu->nk; i++)
		if (!strcmp(tu->k[i].mangled, mangled))
			return &tu->k[i];
	return NULL;
}

/* every kernel the report names, once */
static void
fromreport(struct tuner *tu, const char *rep)
{
	for (const char *l = rep ? rep : ""; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : "") {
		char *m = jget(l, "mangled"), *d = jget(l, "demangled");
		if (m && !kernel(tu, m)) {
			tu->k = xrealloc(tu->k, (tu->nk + 1) * sizeof *tu->k);
			tu->k[tu->nk++] = (struct kern){xstrdup(m), xstrdup(d ? d : m), 0, 0, 0, 0};
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
wanted(const struct tuner *tu, const struct kern *k)
{
	if (!tu->kernels)
		return 1;
	char *s = xstrndup(k->demangled, strcspn(k->demangled, "("));
	int ok = !fnmatch(tu->kernels, k->mangled, 0) || !fnmatch(tu->kernels, k->demangled, 0) ||
	         !fnmatch(tu->kernels, s, 0);
	free(s);
	return ok;
}

void
find_kernels(struct tuner *tu)
{
	struct setting s = {0};
	setting_add(&s, passindex("shadow"), "*", "measure=time");
	struct trial *t = trial_for(tu, &s, -1);
	setting_release(&s);
	free(t->what);
	t->what = xstrdup("timing build (shadow:measure=time on every kernel)");
	tuner_eval(tu, &t, 1);
	if (t->verdict == V_BUILD || t->verdict == V_NOAPPLY)
		die("the timing build failed: %s", t->why);
	fromreport(tu, t->report);
	char *out = runout(t);
	int timed = 0;
	double wall = t->ntimes ? t->walls[t->ntimes - 1] : 0;
	for (char *l = out; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l)) {
		char name[4096];
		long launches;
		double ns;
		if (sscanf(l, "mpcc-time %4095s %ld %lf", name, &launches, &ns) != 3)
			continue;
		struct kern *k = kernel(tu, name);
		if (!k)
			continue;
		k->launches = launches;
		k->ns = ns;
		k->share = wall > 0 ? ns * 1e-9 / wall : 0;
		timed = 1;
	}
	free(out);
	qsort(tu->k, tu->nk, sizeof *tu->k, byshare);
	for (int i = 0; i < tu->nk; i++)
		tu->k[i].hot = wanted(tu, &tu->k[i]) && (!timed || tu->k[i].share * 100 >= tu->minshare);
	fprintf(stderr, "mpcc-tune: kernels (timing build: %%globaltimer around each launch; "
	        "run %.3g s, %.2fx the baseline's %.3g s):\n", wall,
	        tu->base->wall > 0 ? wall / tu->base->wall : 0, tu->base->wall);
	if (!timed)
		fprintf(stderr, "mpcc-tune: warning: no 'mpcc-time' line in the run's stdout (does it "
		        "reach mpcc-tune?): every kernel%s is tuned\n", tu->kernels ? " --kernels names" : "");
	for (int i = 0; i < tu->nk; i++)
		fprintf(stderr, "  %5.1f%%  %8.3f ms  %6ld launches  %s%s\n", 100 * tu->k[i].share,
		        tu->k[i].ns * 1e-6, tu->k[i].launches, tu->k[i].demangled,
		        tu->k[i].hot ? "  (tuned)" : "");
}

/* the op names the shadow build's report gives for kernel */
static char *
opname(const char *report, const char *kernel, long ins)
{
	char *r = NULL;
	for (const char *l = report ? report : ""; *l && !r; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : "") {
		char *m = jget(l, "mangled"), *st = m && !strcmp(m, kernel) ? jget(l, "stats") : NULL;
		char *ops = st ? jget(st, "ops") : NULL;
		for (const char *o = ops ? strchr(ops, '{') : NULL; o && !r; o = strchr(o + 1, '{')) {
			char *obj = xstrndup(o, strcspn(o, "}") + 1), *i = jget(obj, "ins");
			if (i && atol(i) == ins)
				r = jget(obj, "op");
			free(obj), free(i);
		}
		free(m), free(st), free(ops);
	}
	return r ? r : xstrdup("?");
}

int
shadow_totals(struct tuner *tu, const char *kernel, struct optotal **out)
{
	struct setting s = {0};
	setting_add(&s, passindex("shadow"), kernel, "measure=error");
	struct trial *t = trial_for(tu, &s, -1);
	setting_release(&s);
	tuner_eval(tu, &t, 1);
	*out = NULL;
	if (t->verdict == V_BUILD || t->verdict == V_NOAPPLY) {
		fprintf(stderr, "mpcc-tune: the shadow build failed: %s\n", t->why);
		return 0;
	}
	fprintf(stderr, "mpcc-tune: shadow run of '%s': %.3g s, %.2fx the baseline\n", kernel, t->wall,
	        t->wall / tu->base->wall);
	char *text = runout(t);
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
			(*out)[n++] = (struct optotal){ins, 0, 0, opname(t->report, kernel, ins)};
		}
		(*out)[k].err = err;
		(*out)[k].count = launches;
	}
	free(text);
	return n;
}
