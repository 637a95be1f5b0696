/* main.c: mpcc-tune, the fastest setting within an output tolerance.
 *
 *   mpcc-tune --build CMD --run CMD --qos X [--output FILE|stdout] ...
 *
 * The session: the baseline (every transform off), the kernels and their
 * share of the run, the searches (search.c), a table on stdout, an SVG, and
 * the winning setting written as a profile of .mpcc.yaml, then rebuilt
 * from that profile to check it builds the winning binary. man mpcc-tune. */
#include "tune/tune.h"

#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char usage_text[] =
	"usage: mpcc-tune --build CMD --run CMD --qos X [options]\n"
	"  --build CMD           rebuild every source (e.g. 'make -B NVCC=mpcc'); candidates get MPCC_SET\n"
	"  --run CMD             run the program once\n"
	"  --output FILE|stdout  where its result is (default stdout); FILE may name $MPCC_TUNE_DIR\n"
	"  --output-type T       text (every number in it), f32 or f64 (raw arrays)\n"
	"  --metric M            mean-rel (default), max-rel, rel-fro or digits\n"
	"  --qos X               the largest error (the fewest digits) a setting may give\n"
	"  --time wall|REGEX     wall time of the run (default), or a figure of merit in its output\n"
	"  --higher-better       the figure of merit is better higher\n"
	"  --runs N              runs of each candidate, median taken (default 5)\n"
	"  --transform T         sfu (default), fiset, half2 or auto\n"
	"  --kernels GLOB        tune only these kernels\n"
	"  --min-share P         tune kernels over P% of the run (default 5)\n"
	"  --search S            sfu: heu (default), linear or exhaustive\n"
	"  --step N              sfu: lambda grid step (default 4)   --lambda-max N (default 64)\n"
	"  --shadow              fiset: rank sets by a shadow build's errors\n"
	"  --mode 1|2|3          fiset: search mode of GPUMixer (default 1)\n"
	"  --perf-threshold P    fiset modes 2, 3: % of the ideal speed-up (Eq. 3)\n"
	"  --ideal-build CMD     builds the all-FP32 program, the ideal of Eq. 3\n"
	"  --min-gain P          keep a knob only if it gains over P% (default 1)\n"
	"  --slow X              a run over X times the baseline's time fails (default 3)\n"
	"  --jobs N              run N candidates at once, one GPU each\n"
	"  --build-jobs N        build N candidates at once (default 1)\n"
	"  --launcher CMD        prefix every run (e.g. 'srun -n1 --gpus=1')\n"
	"  --binary FILE         the program file, compared when the profile is checked\n"
	"  --policy FILE         the .mpcc.yaml to write (default: the nearest, else ./.mpcc.yaml)\n"
	"  --profile NAME        the profile to write (default tuned)\n"
	"  --dry-run             print the profile instead of writing it\n"
	"  --svg FILE            the plots (default mpcc-tune.svg)\n"
	"  --workdir DIR         builds, runs and logs (default a temporary directory)\n"
	"  --keep                keep the work directory\n";

static _Noreturn void
usage(int rc)
{
	fputs(usage_text, rc ? stderr : stdout);
	exit(rc);
}

static int
word(const char *opt, const char *v, const char *const *w)
{
	for (int i = 0; w[i]; i++)
		if (!strcmp(v, w[i]))
			return i;
	struct buf b = BUF_INIT;
	for (int i = 0; w[i]; i++)
		buf_printf(&b, "%s%s", i ? ", " : "", w[i]);
	die("%s must be one of %s, not '%s'", opt, b.s, v);
}

static double
num(const char *opt, const char *v, double lo)
{
	char *end;
	double x = strtod(v, &end);
	if (!*v || *end || !(x >= lo))
		die("%s must be a number of at least %g, not '%s'", opt, lo, v);
	return x;
}

enum {
	O_BUILD = 256, O_RUN, O_OUTPUT, O_OTYPE, O_METRIC, O_QOS, O_TIME, O_HIGHER, O_RUNS,
	O_TRANSFORM, O_KERNELS, O_MINSHARE, O_SEARCH, O_STEP, O_LMAX, O_SHADOW, O_MODE, O_PERF,
	O_IDEAL, O_MINGAIN, O_SLOW, O_JOBS, O_BJOBS, O_LAUNCHER, O_BINARY, O_POLICY, O_PROFILE, O_DRYRUN,
	O_SVG, O_WORKDIR, O_KEEP, O_HELP,
};

static const struct option longopts[] = {
	{"build", 1, 0, O_BUILD}, {"run", 1, 0, O_RUN}, {"output", 1, 0, O_OUTPUT},
	{"output-type", 1, 0, O_OTYPE}, {"metric", 1, 0, O_METRIC}, {"qos", 1, 0, O_QOS},
	{"time", 1, 0, O_TIME}, {"higher-better", 0, 0, O_HIGHER}, {"runs", 1, 0, O_RUNS},
	{"transform", 1, 0, O_TRANSFORM}, {"kernels", 1, 0, O_KERNELS},
	{"min-share", 1, 0, O_MINSHARE}, {"search", 1, 0, O_SEARCH}, {"step", 1, 0, O_STEP},
	{"lambda-max", 1, 0, O_LMAX}, {"shadow", 0, 0, O_SHADOW}, {"mode", 1, 0, O_MODE},
	{"perf-threshold", 1, 0, O_PERF}, {"ideal-build", 1, 0, O_IDEAL},
	{"min-gain", 1, 0, O_MINGAIN}, {"slow", 1, 0, O_SLOW}, {"jobs", 1, 0, O_JOBS}, {"build-jobs", 1, 0, O_BJOBS},
	{"launcher", 1, 0, O_LAUNCHER}, {"binary", 1, 0, O_BINARY}, {"policy", 1, 0, O_POLICY},
	{"profile", 1, 0, O_PROFILE}, {"dry-run", 0, 0, O_DRYRUN}, {"svg", 1, 0, O_SVG},
	{"workdir", 1, 0, O_WORKDIR}, {"keep", 0, 0, O_KEEP}, {"help", 0, 0, O_HELP}, {0, 0, 0, 0},
};

static void
options(struct tuner *tu, int argc, char **argv)
{
	static const char *const otypes[] = {"text", "f32", "f64", NULL},
	                         *const metrics[] = {"mean-rel", "max-rel", "rel-fro", "digits", NULL},
	                         *const searches[] = {"heu", "linear", "exhaustive", NULL},
	                         *const transforms[] = {"sfu", "fiset", "half2", "auto", NULL},
	                         *const modes[] = {"1", "2", "3", NULL};
	int qos = 0, c;
	*tu = (struct tuner){.left = -1, .output = "stdout", .runs = 5, .step = 4, .lmax = 64, .mode = 1,
	                     .minshare = 5, .mingain = 1, .slow = 3, .jobs = 1, .bjobs = 1, .profile = "tuned",
	                     .svg = "mpcc-tune.svg", .transform = "sfu"};
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1)
		switch (c) {
		case O_BUILD: tu->build = optarg; break;
		case O_RUN: tu->run = optarg; break;
		case O_OUTPUT: tu->output = optarg; break;
		case O_OTYPE: tu->otype = word("--output-type", optarg, otypes); break;
		case O_METRIC: tu->metric = word("--metric", optarg, metrics); break;
		case O_QOS: tu->qos = num("--qos", optarg, 0), qos = 1; break;
		case O_TIME: tu->timepat = strcmp(optarg, "wall") ? optarg : NULL; break;
		case O_HIGHER: tu->higher = 1; break;
		case O_RUNS: tu->runs = num("--runs", optarg, 1); break;
		case O_TRANSFORM: tu->transform = transforms[word("--transform", optarg, transforms)]; break;
		case O_KERNELS: tu->kernels = optarg; break;
		case O_MINSHARE: tu->minshare = num("--min-share", optarg, 0); break;
		case O_SEARCH: tu->search = word("--search", optarg, searches); break;
		case O_STEP: tu->step = num("--step", optarg, 1); break;
		case O_LMAX: tu->lmax = num("--lambda-max", optarg, 1); break;
		case O_SHADOW: tu->shadow = 1; break;
		case O_MODE: tu->mode = 1 + word("--mode", optarg, modes); break;
		case O_PERF: tu->perf = num("--perf-threshold", optarg, 0); break;
		case O_IDEAL: tu->ideal = optarg; break;
		case O_MINGAIN: tu->mingain = num("--min-gain", optarg, 0); break;
		case O_SLOW: tu->slow = num("--slow", optarg, 1); break;
		case O_JOBS: tu->jobs = num("--jobs", optarg, 1); break;
		case O_BJOBS: tu->bjobs = num("--build-jobs", optarg, 1); break;
		case O_LAUNCHER: tu->launcher = optarg; break;
		case O_BINARY: tu->binary = optarg; break;
		case O_POLICY: tu->policy = optarg; break;
		case O_PROFILE: tu->profile = optarg; break;
		case O_DRYRUN: tu->dryrun = 1; break;
		case O_SVG: tu->svg = optarg; break;
		case O_WORKDIR: tu->workdir = optarg; break;
		case O_KEEP: tu->keep = 1; break;
		case O_HELP: usage(0);
		default: usage(1);
		}
	if (optind < argc)
		die("unexpected argument '%s' (mpcc-tune --help)", argv[optind]);
	if (!tu->build || !tu->run || !qos)
		die("--build, --run and --qos are required (mpcc-tune --help)");
	if (tu->lmax > 64)
		die("--lambda-max must be at most 64, not %d", tu->lmax);
	if (tu->timepat) {
		int e = regcomp(&tu->re, tu->timepat, REG_EXTENDED);
		if (e) {
			char msg[256];
			regerror(e, &tu->re, msg, sizeof msg);
			die("--time '%s': %s", tu->timepat, msg);
		}
	}
	if ((tu->jobs > 1 || tu->bjobs > 1) &&
	    !(strstr(tu->build, "MPCC_TUNE_DIR") && strstr(tu->run, "MPCC_TUNE_DIR")))
		warn("--jobs/--build-jobs: --build and --run do not name $MPCC_TUNE_DIR, so every "
		     "candidate builds the same files: one candidate at a time");
}

static const char *kept;   /* the work directory while it is not removed */
static int keep_asked;
static pid_t self;

/* a tune that stops on an error, or with --keep, leaves its work directory
 * (builds, runs and logs): say where */
static void
keptnote(void)
{
	if (kept && getpid() == self)
		note("the work directory %s is kept%s", kept,
		     keep_asked ? " (--keep)" : ": its logs say what failed; remove it when done");
}

static void
workdir(struct tuner *tu)
{
	if (tu->workdir) {
		if (mkdir(tu->workdir, 0777) < 0 && access(tu->workdir, W_OK) < 0)
			die("cannot make the work directory '%s'", tu->workdir);
		char *abs = realpath(tu->workdir, NULL);
		tu->workdir = abs;
		return;
	}
	char *t = fmt("%s/mpcc-tune-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(t))
		die("cannot make a temporary directory");
	tu->workdir = t;
}

static void
keepnote(const struct tuner *tu)
{
	kept = tu->workdir;
	keep_asked = tu->keep;
	self = getpid();
	atexit(keptnote);
}

/* the baseline (and the ideal build of Eq. 3) */
static void
baseline(struct tuner *tu)
{
	struct setting none = {0};
	tu->base = trial_for(tu, &none, 0);
	tuner_eval(tu, &tu->base, 1);
	if (tu->base->verdict != V_OK)
		die("the baseline failed: %s", tu->base->why);
	if (!tu->ideal)
		return;
	const char *build = tu->build;
	struct trial *t = xcalloc(1, sizeof *t);
	t->id = tu->nt;
	t->env = xstrdup("off");
	t->what = xstrdup("ideal build (--ideal-build)");
	t->x = -1;
	t->verdict = -1;
	vgrow(tu->t, tu->nt, tu->cap);
	tu->t[tu->nt++] = t;
	tu->build = tu->ideal;
	tuner_eval(tu, &t, 1);
	tu->build = build;
	tu->idealt = t;
}

static void
table(const struct tuner *tu)
{
	printf("\n| trial | setting | time | speedup | %s | verdict |\n|---|---|---:|---:|---:|---|\n",
	       tu->metric == M_DIGITS ? "digits" : (const char *[]){"mean rel err", "max rel err",
	                                                            "rel Frobenius"}[tu->metric]);
	for (int i = 0; i < tu->nt; i++) {
		const struct trial *t = tu->t[i];
		if (t->verdict < 0)
			continue;
		printf("| t%d | %s | ", t->id, t->what);
		if (t->verdict == V_OK)
			printf("%.4g | %.3fx | %.3g | %s |\n", t->time,
			       tu->higher ? t->time / tu->base->time : tu->base->time / t->time, t->err,
			       t == tu->base ? "baseline" : t->x < 0 ? "probe" : t->meets ? "meets" : "over the QoS");
		else
			printf("- | - | - | %s: %s |\n", verdictname[t->verdict], t->why ? t->why : "");
	}
	printf("\n| kernel | transform | search | trials | best |\n|---|---|---|---:|---|\n");
	for (int i = 0; i < tu->nc; i++) {
		const struct curve *c = tu->c[i];
		printf("| %s | %s | %s | %d | %s |\n", c->kernel, c->pass, c->how, c->runs,
		       c->best ? c->best->what : "none met the QoS");
	}
}

/* the policy file to write: --policy, the nearest .mpcc.yaml, ./.mpcc.yaml */
static char *
policyfile(const struct tuner *tu)
{
	if (tu->policy)
		return xstrdup(tu->policy);
	char cwd[PATH_MAX];
	if (!getcwd(cwd, sizeof cwd))
		return xstrdup(".mpcc.yaml");
	for (;;) {
		char *p = fmt("%s/.mpcc.yaml", cwd);
		if (access(p, F_OK) == 0)
			return p;
		free(p);
		char *slash = strrchr(cwd, '/');
		if (!slash || slash == cwd)
			return xstrdup(".mpcc.yaml");
		*slash = 0;
	}
}

/* the report's lines as a sorted list of what was done, without where the
 * rule came from: a profile and MPCC_SET must give the same */
static char *
doneset(const char *report)
{
	static const char *const keys[] = {"src", "arch", "mangled", "transform", "params",
	                                   "applied", "stats"};
	char **v = NULL;
	int n = 0, cap = 0;
	for (const char *l = report ? report : ""; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : "") {
		if (*l == '\n')
			continue;
		struct buf b = BUF_INIT;
		for (size_t k = 0; k < countof(keys); k++) {
			char *x = jget(l, keys[k]);
			buf_printf(&b, "%s\t", x ? x : "");
			free(x);
		}
		vgrow(v, n, cap);
		v[n++] = buf_take(&b);
	}
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && strcmp(v[j - 1], v[j]) > 0; j--) {
			char *x = v[j];
			v[j] = v[j - 1], v[j - 1] = x;
		}
	struct buf b = BUF_INIT;
	for (int i = 0; i < n; i++)
		buf_printf(&b, "%s\n", v[i]), free(v[i]);
	free(v);
	return buf_take(&b);
}

/* tmpxft_<8 hex>_<8 hex>: nvcc's temporary names, different every build */
static void
masknames(char *s, size_t n)
{
	for (size_t i = 0; i + 24 <= n; i++)
		if (!memcmp(s + i, "tmpxft_", 7) && s[i + 15] == '_')
			memset(s + i + 7, 'X', 8), memset(s + i + 16, 'X', 8);
}

static int
samebinary(const char *a, const char *b)
{
	size_t na, nb;
	char *x = readfile(a, &na), *y = readfile(b, &nb);
	int same = x && y && na == nb;
	if (same) {
		masknames(x, na), masknames(y, nb);
		same = !memcmp(x, y, na);
	}
	free(x), free(y);
	return same;
}

/* rebuild from the profile and compare with the winner's build */
static int
check(struct tuner *tu, const struct trial *win, const char *policy)
{
	char *dir = fmt("%s/check", tu->workdir), *rep = fmt("%s/report.jsonl", dir),
	     *log = fmt("%s/build.log", dir);
	mkdir(dir, 0777);
	unlink(rep);
	char *e_rep = fmt("MPCC_REPORT=%s", rep), *e_prof = fmt("MPCC_PROFILE=%s", tu->profile),
	     *e_pol = tu->policy ? fmt("MPCC_POLICY=%s", policy) : xstrdup("MPCC_POLICY="),
	     *e_dir = fmt("MPCC_TUNE_DIR=%s", dir);
	const char *env[] = {"MPCC_SET=", e_rep, e_prof, e_pol, e_dir, NULL};
	double wall;
	int st = shell(tu->build, env, log, log, 0, &wall), ok = 0;
	size_t n;
	char *text = readfile(rep, &n), *a = doneset(text), *b = doneset(win->report);
	if (st)
		error("the build with profile '%s' failed (see %s)", tu->profile, log);
	else if (strcmp(a, b))
		error("the build with profile '%s' is not the winner's:\n--- profile\n%s--- winner\n%s",
		      tu->profile, a, b);
	else
		ok = 1;
	if (ok && tu->binary) {
		char *w = fmt("%s/binary", win->dir);
		if (!(ok = samebinary(w, tu->binary)))
			error("'%s' built from profile '%s' differs from the winner's", tu->binary, tu->profile);
		free(w);
	}
	if (ok)
		fprintf(stderr, "mpcc-tune: checked: MPCC_PROFILE=%s builds what the winner built "
		        "(%s)\n", tu->profile, tu->binary ? "same report lines, same binary" : "same report lines");
	free(text), free(a), free(b), free(dir), free(rep), free(log);
	free(e_rep), free(e_prof), free(e_pol), free(e_dir);
	return ok ? 0 : -1;
}

static struct trial *
search(struct tuner *tu)
{
	if (!strcmp(tu->transform, "auto"))
		return search_auto(tu);
	struct setting cur = {0};
	struct trial *best = tu->base;
	for (int i = 0; i < tu->nk; i++) {
		if (!tu->k[i].hot)
			continue;
		struct trial *t = !strcmp(tu->transform, "sfu") ? search_sfu(tu, &cur, &tu->k[i])
		                  : !strcmp(tu->transform, "fiset") ? search_fiset(tu, &cur, &tu->k[i])
		                                                    : search_half2(tu, &cur, &tu->k[i]);
		double gain = t ? (tu->higher ? t->time / best->time : best->time / t->time) : 0;
		if (t && t->meets && gain > 1 + tu->mingain / 100) {
			setting_release(&cur);
			cur = setting_copy(&t->set);
			best = t;
		}
	}
	setting_release(&cur);
	return best == tu->base ? NULL : best;
}

int
main(int argc, char **argv)
{
	struct tuner tu;
	progname = "mpcc-tune";
	passes_init();
	options(&tu, argc, argv);
	workdir(&tu);
	keepnote(&tu);
	tu.eval = trials_run;
	fprintf(stderr, "mpcc-tune: work directory %s\n", tu.workdir);
	baseline(&tu);
	find_kernels(&tu);
	struct trial *win = search(&tu);
	table(&tu);
	if (svg_write(&tu, tu.svg) < 0)
		error("cannot write '%s'", tu.svg);
	else
		fprintf(stderr, "mpcc-tune: plots in %s\n", tu.svg);
	fprintf(stderr, "mpcc-tune: %d trials built and run (the baseline's included)\n", tu.ntrials);
	int rc = 0;
	if (!win) {
		fprintf(stderr, "mpcc-tune: no setting met the QoS and ran faster: the profile keeps "
		        "nvcc's code (no rules)\n");
		win = tu.base;
	}
	if (tu.dryrun) {
		char *y = profile_yaml(&win->set, tu.k, tu.nk, tu.profile, "  ");
		printf("\n%s", y);
		free(y);
		fprintf(stderr, "mpcc-tune: winner %s (--dry-run: nothing written)\n", win->what);
	} else {
		char *p = policyfile(&tu);
		rc = profile_write(p, tu.profile, &win->set, tu.k, tu.nk) < 0 || check(&tu, win, p) < 0;
		if (!rc)
			fprintf(stderr, "mpcc-tune: profile '%s' written to %s: build with MPCC_PROFILE=%s%s\n",
			        tu.profile, p, tu.profile, tu.policy ? " and MPCC_POLICY=that file" : "");
		free(p);
	}
	if (!tu.keep && !rc) {
		char *rm = fmt("rm -rf '%s'", tu.workdir);
		if (system(rm))
			warn("cannot remove '%s'", tu.workdir);
		else
			kept = NULL;
		free(rm);
	}
	return rc;
}
