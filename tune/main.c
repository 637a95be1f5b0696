/* main.c: mpcc-tune, the fastest setting within an output tolerance.
 *
 *   mpcc-tune --build CMD --run CMD --qos X [--output FILE|stdout] ...
 *
 * The session: the baseline (every transform off), the kernels and their
 * share of the run, the searches (search.c), a table on stdout, an SVG, and
 * the winning setting written as a profile of .mpcc.yaml, then rebuilt
 * from that profile to check it builds the winning binary. man mpcc-tune. */
#include "tune/output/output.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <glob.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char usage_text[] =
	"usage: mpcc-tune --build CMD --run CMD --qos X [options]\n"
	"       mpcc-tune --measure --build CMD --run CMD [options]\n"
	"  --measure             run the program once instrumented and write what it measured of each\n"
	"                        kernel (warps, loop trips) into the profile; no search\n"
	"  --build CMD           rebuild every source (e.g. 'make -B NVCC=mpcc'); candidates get MPCC_SET\n"
	"  --run CMD             run the program once\n"
	"  --output FILE|stdout  where its result is (default stdout); FILE may name $MPCC_TUNE_DIR\n"
	"  --output-type T       text (every number in it), f32 or f64 (raw arrays)\n"
	"  --metric M            mean-rel (default), max-rel, rel-fro or digits\n"
	"  --qos X               the largest error (the fewest digits) a setting may give\n"
	"  --allow-nonfinite     accept NaN and Inf in the baseline's output\n"
	"  --time wall|REGEX     wall time of the run (default), or a figure of merit in its output\n"
	"  --higher-better       the figure of merit is better higher\n"
	"  --runs N              runs of each candidate, median taken (default 5; the baseline at least 5)\n"
	"  --budget DURATION     the whole session, confirmation included (90s, 15m, 2h)\n"
	"  --max-trials N        stop the searches after N trials\n"
	"  --stop-after K        a kernel's units stop after K in a row gain nothing (default 3; 0: never)\n"
	"  --transform T         %s or auto: the transforms of the pass table\n"
	"  --kernels GLOB        tune only these kernels\n"
	"  --min-share P         tune kernels over P%% of the kernel time (default 5)\n"
	"  --search S            an integer knob: heu (default), linear or exhaustive\n"
	"  --step N              its grid step (default 4)   --lambda-max N (the grid's top, default 64)\n"
	"  --shadow-errors       a knob of sets: rank them by a shadow build's errors (--shadow)\n"
	"  --mode 1|2|3          a knob of sets: GPUMixer's search mode (default 1)\n"
	"  --perf-threshold P    modes 2, 3: %% of the ideal speed-up (Eq. 3)\n"
	"  --ideal-build CMD     builds the all-FP32 program, the ideal of Eq. 3\n"
	"  --min-gain P          a gain counts over P%% and over the baseline's spread (default 1)\n"
	"  --confirm N           interleaved rounds against the baseline before writing (default 7)\n"
	"  --slow X              a run over X times the baseline's time fails (default 3)\n"
	"  --jobs N              run N candidates at once, one GPU each\n"
	"  --build-jobs N        build N candidates at once (default: the cores)\n"
	"  --launcher CMD        prefix every run (e.g. 'srun -n1 --gpus=1'; in a Slurm allocation of\n"
	"                        GPUs with --jobs N, a step on one of its GPUs unless given; '': none)\n"
	"  --binary FILE         the program --build makes: each trial keeps a copy ($MPCC_TUNE_DIR/binary)\n"
	"  --policy FILE         the .mpcc.yaml to write (default: the nearest, else ./.mpcc.yaml)\n"
	"  --profile NAME        the profile to write (default tuned)\n"
	"  --dry-run             print the profile instead of writing it\n"
	"  --svg FILE            the plots (default mpcc-tune.svg)\n"
	"  --workdir DIR         builds, runs and logs (default a temporary directory)\n"
	"  --keep                keep the work directory\n"
	"  --version             print mpcc-tune's version (mpcc's)\n"
	"Without a GPU visible, mpcc-tune stops before building, but with --launcher or\n"
	"MPCC_TUNE_NO_GPU_CHECK=1 (a --run that reaches one another way).\n";

/* the transforms --transform takes, from the pass table, joined by sep */
static char *
transforms(const char *sep)
{
	struct buf b = BUF_INIT;
	for (int i = 0; i < npass; i++)
		if (pass_tuned(i))
			buf_printf(&b, "%s%s", b.n ? sep : "", pass_name(i));
	return buf_take(&b);
}

static _Noreturn void
usage(int rc)
{
	char *tr = transforms(", ");
	fprintf(rc ? stderr : stdout, usage_text, tr);
	free(tr);
	exit(rc);
}

static int
transform(const char *v)
{
	int p = pass_find(v);
	if (pass_tuned(p))
		return p;
	if (!strcmp(v, "auto"))
		return -1;
	const char *names[MAXPASS + 1];
	int n = 0;
	for (int i = 0; i < npass; i++)
		if (pass_tuned(i))
			names[n++] = pass_name(i);
	names[n++] = "auto";
	die("%s", unknown_msg("transform", v, " for --transform", names, n));
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
	O_SVG, O_WORKDIR, O_KEEP, O_HELP, O_CONFIRM, O_NONFINITE, O_BUDGET, O_MAXTRIALS, O_STOPAFTER,
	O_VERSION, O_MEASURE,
};

static const struct option longopts[] = {
	{"build", 1, 0, O_BUILD}, {"run", 1, 0, O_RUN}, {"output", 1, 0, O_OUTPUT},
	{"output-type", 1, 0, O_OTYPE}, {"metric", 1, 0, O_METRIC}, {"qos", 1, 0, O_QOS},
	{"time", 1, 0, O_TIME}, {"higher-better", 0, 0, O_HIGHER}, {"runs", 1, 0, O_RUNS},
	{"transform", 1, 0, O_TRANSFORM}, {"kernels", 1, 0, O_KERNELS},
	{"min-share", 1, 0, O_MINSHARE}, {"search", 1, 0, O_SEARCH}, {"step", 1, 0, O_STEP},
	{"lambda-max", 1, 0, O_LMAX}, {"shadow-errors", 0, 0, O_SHADOW}, {"mode", 1, 0, O_MODE},
	{"perf-threshold", 1, 0, O_PERF}, {"ideal-build", 1, 0, O_IDEAL},
	{"min-gain", 1, 0, O_MINGAIN}, {"slow", 1, 0, O_SLOW}, {"jobs", 1, 0, O_JOBS}, {"build-jobs", 1, 0, O_BJOBS},
	{"launcher", 1, 0, O_LAUNCHER}, {"binary", 1, 0, O_BINARY}, {"policy", 1, 0, O_POLICY},
	{"profile", 1, 0, O_PROFILE}, {"dry-run", 0, 0, O_DRYRUN}, {"svg", 1, 0, O_SVG},
	{"workdir", 1, 0, O_WORKDIR}, {"keep", 0, 0, O_KEEP}, {"help", 0, 0, O_HELP},
	{"confirm", 1, 0, O_CONFIRM}, {"allow-nonfinite", 0, 0, O_NONFINITE},
	{"budget", 1, 0, O_BUDGET}, {"max-trials", 1, 0, O_MAXTRIALS}, {"stop-after", 1, 0, O_STOPAFTER},
	{"version", 0, 0, O_VERSION}, {"measure", 0, 0, O_MEASURE}, {0, 0, 0, 0},
};

/* one option c with its argument v */
static void
option(struct options *o, int c, const char *v, int *qos)
{
	static const char *const otypes[] = {"text", "f32", "f64", NULL},
	                         *const metrics[] = {"mean-rel", "max-rel", "rel-fro", "digits", NULL},
	                         *const searches[] = {"heu", "linear", "exhaustive", NULL},
	                         *const modes[] = {"1", "2", "3", NULL};
	switch (c) {
	case O_BUILD: o->build = v; break;
	case O_RUN: o->run = v; break;
	case O_OUTPUT: o->output = v; break;
	case O_OTYPE: o->otype = word("--output-type", v, otypes); break;
	case O_METRIC: o->metric = word("--metric", v, metrics); break;
	case O_QOS: o->qos = num("--qos", v, 0), *qos = 1; break;
	case O_NONFINITE: o->nonfinite = 1; break;
	case O_TIME: o->timepat = strcmp(v, "wall") ? v : NULL; break;
	case O_HIGHER: o->higher = 1; break;
	case O_RUNS: o->runs = num("--runs", v, 1); break;
	case O_BUDGET:
		if ((o->budget = duration(v)) <= 0)
			die("--budget must be a duration such as 90s, 15m or 2h, not '%s'", v);
		break;
	case O_MAXTRIALS: o->maxtrials = num("--max-trials", v, 1); break;
	case O_STOPAFTER: o->stopafter = num("--stop-after", v, 0); break;
	case O_TRANSFORM: o->transform = transform(v); break;
	case O_KERNELS: o->kernels = v; break;
	case O_MINSHARE: o->minshare = num("--min-share", v, 0); break;
	case O_SEARCH: o->search = word("--search", v, searches); break;
	case O_STEP: o->step = num("--step", v, 1); break;
	case O_LMAX: o->lmax = num("--lambda-max", v, 1); break;
	case O_SHADOW: o->shadow = 1; break;
	case O_MODE: o->mode = 1 + word("--mode", v, modes); break;
	case O_PERF: o->perf = num("--perf-threshold", v, 0); break;
	case O_IDEAL: o->ideal = v; break;
	case O_MINGAIN: o->mingain = num("--min-gain", v, 0); break;
	case O_CONFIRM: o->confirm = num("--confirm", v, 7); break;
	case O_SLOW: o->slow = num("--slow", v, 1); break;
	case O_JOBS: o->jobs = num("--jobs", v, 1); break;
	case O_BJOBS: o->bjobs = num("--build-jobs", v, 1); break;
	case O_LAUNCHER: o->launcher = v; break;
	case O_BINARY: o->binary = v; break;
	case O_POLICY: o->policy = v; break;
	case O_PROFILE: o->profile = v; break;
	case O_DRYRUN: o->dryrun = 1; break;
	case O_SVG: o->svg = v; break;
	case O_WORKDIR: o->workdir = v; break;
	case O_KEEP: o->keep = 1; break;
	case 'h':
	case O_HELP: usage(0);
	case O_VERSION: printf("mpcc-tune %s\n", MPCC_VERSION), exit(0);
	case O_MEASURE: o->measure = 1; break;
	default: BUG("option %d has no case", c);
	}
}

/* getopt_long's '?' (an unknown option, or a value where none is taken)
 * and ':' (no value), said as mpcc says it of its own options: a typo
 * gets did-you-mean, not the whole usage */
static _Noreturn void
badopt(char *const *argv, int c)
{
	const char *arg = argv[optind - 1];
	char *name = xstrndup(arg, strcspn(arg, "="));
	const char *names[countof(longopts)];
	int n = 0;
	if (c == ':')
		die("option '%s' needs a value", name);
	if (optopt >= O_BUILD)
		die("option '%s' takes no value", name);
	if (optopt)
		die("unknown option '-%c' (mpcc-tune --help lists mpcc-tune's options)", optopt);
	for (; longopts[n].name; n++)
		names[n] = longopts[n].name;
	unknown_option(name, "--", names, n, "mpcc-tune --help");
	exit(1);
}

/* the first pass of the table that is tuned: --transform's default */
static int
firsttuned(void)
{
	for (int i = 0; i < npass; i++)
		if (pass_tuned(i))
			return i;
	die("no pass of the table is tuned (struct tuning TUNE_TRANSFORM)");
}

/* the options a search takes, which --measure has no use for */
static const int searchopts[] = {
	O_QOS, O_METRIC, O_HIGHER, O_RUNS, O_BUDGET, O_MAXTRIALS, O_STOPAFTER, O_TRANSFORM,
	O_MINSHARE, O_SEARCH, O_STEP, O_LMAX, O_SHADOW, O_MODE, O_PERF, O_IDEAL, O_MINGAIN,
	O_CONFIRM, O_SVG,
};

/* --measure: one note for the search's options given, which it ignores;
 * every kernel --kernels selects gets its facts, and each program runs once */
static void
measureopts(struct options *o, const char *given)
{
	struct buf b = BUF_INIT;
	for (size_t i = 0; i < countof(searchopts); i++)
		for (int j = 0; given[searchopts[i] - O_BUILD] && longopts[j].name; j++)
			if (longopts[j].val == searchopts[i])
				buf_printf(&b, "%s--%s", b.n ? ", " : "", longopts[j].name);
	if (b.n)
		note("--measure searches nothing: it ignores %s", b.s);
	buf_release(&b);
	o->minshare = 0, o->runs = 1, o->ideal = NULL;
}

/* is prog a file of PATH that can run? */
static int
onpath(const char *prog)
{
	const char *path = getenv("PATH");
	int found = 0;
	for (const char *p = path ? path : ""; *p && !found; p += *p == ':') {
		size_t n = strcspn(p, ":");
		char *f = fmt("%.*s/%s", (int)n, p, prog);
		found = n && access(f, X_OK) == 0;
		free(f);
		p += n;
	}
	return found;
}

/* does Slurm job id hold GPUs (gres:gpu or gres/gpu in what scontrol says
 * of it: TresPerJob, TresPerNode, TRES)? The environment does not say so
 * under every form (salloc --gres) */
static int
slurmgpus(struct tuner *tu, const char *job)
{
	char *out = fmt("%s/slurm-job", tu->o->workdir), *line = fmt("scontrol show job -o %s", job);
	double wall;
	int st = shell(tu, line, NULL, out, out, 0, &wall);
	char *text = st ? NULL : readfile(out, NULL);
	int gpus = text && (strstr(text, "gres:gpu") || strstr(text, "gres/gpu"));
	unlink(out);
	free(out), free(line), free(text);
	return gpus;
}

/* --jobs N inside a Slurm allocation (salloc, sbatch: SLURM_JOB_ID) that
 * holds GPUs, no --launcher given: each run a step of its own on one GPU of
 * the allocation (of any of its nodes); the builds stay here. --launcher
 * '' runs them here */
static void
slurm(struct options *o, struct tuner *tu)
{
	const char *job = getenv("SLURM_JOB_ID");
	if (o->launcher && !*o->launcher)
		o->launcher = NULL;
	else if (!o->launcher && job && *job && o->jobs > 1 && onpath("srun") && slurmgpus(tu, job)) {
		o->launcher = "srun --exact --nodes=1 --ntasks=1 --gpus=1 --quiet";
		note("Slurm job %s: each run is a step of its own on one GPU of the allocation ('%s'); "
		     "--launcher '' runs them here", job, o->launcher);
	}
}

static void
options(struct options *o, int argc, char **argv)
{
	int qos = 0, c;
	char given[O_MEASURE - O_BUILD + 1] = {0};
	*o = (struct options){.output = "stdout", .runs = 5, .step = 4, .lmax = 64, .mode = 1,
	                      .minshare = 5, .mingain = 1, .slow = 3, .jobs = 1, .profile = "tuned",
	                      .svg = "mpcc-tune.svg", .transform = firsttuned(), .confirm = 7,
	                      .stopafter = 3};
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	o->bjobs = cores > 0 ? cores : 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1)
		if (c == '?' || c == ':')
			badopt(argv, c);
		else
			option(o, c, optarg, &qos), given[c - O_BUILD] = 1;
	if (optind < argc)
		die("unexpected argument '%s' (mpcc-tune --help)", argv[optind]);
	if (o->measure && (!o->build || !o->run))
		die("--measure needs --build and --run (mpcc-tune --help)");
	if (!o->build || !o->run || (!qos && !o->measure))
		die("--build, --run and --qos are required (mpcc-tune --help)");
	if (o->measure)
		measureopts(o, given);
	if (o->timepat) {
		/* as grep reads it: ^ and $ at every line */
		int e = regcomp(&o->re, o->timepat, REG_EXTENDED | REG_NEWLINE);
		if (e) {
			char msg[256];
			regerror(e, &o->re, msg, sizeof msg);
			die("--time '%s': %s", o->timepat, msg);
		}
	}
}

/* why no GPU is visible here (malloc'd), NULL when one is: every GPU
 * hidden by CUDA_VISIBLE_DEVICES, else none that the driver shows: its
 * device files (what a container is given), the GPUs its module lists
 * (loaded at boot where there is one), WSL's /dev/dxg. Cheap, no CUDA
 * library linked, and no process started: tune/ waits for its processes
 * in the pool's one loop (t-layers.sh) */
static char *
nogpu(void)
{
	const char *v = getenv("CUDA_VISIBLE_DEVICES");
	if (v && (!*v || startswith(v, "-1") || !strcmp(v, "NoDevFiles")))
		return fmt("CUDA_VISIBLE_DEVICES='%s' hides every GPU", v);
	glob_t g;
	int found = glob("/dev/nvidia[0-9]*", 0, NULL, &g) == 0 || access("/dev/dxg", F_OK) == 0;
	globfree(&g);
	DIR *d = found ? NULL : opendir("/proc/driver/nvidia/gpus");
	for (struct dirent *e; d && !found && (e = readdir(d));)
		found = e->d_name[0] != '.';
	if (d)
		closedir(d);
	return found ? NULL : xstrdup("no /dev/nvidia0, /proc/driver/nvidia/gpus or /dev/dxg");
}

/* mpcc-tune times the program's kernels on a GPU: without one visible, say
 * so before the first build, where a session once learned it after a full
 * build and run. --launcher sends the runs where it places them, and
 * MPCC_TUNE_NO_GPU_CHECK=1 is for a --run that reaches a GPU another way
 * (or a program that needs none: the tests' fake) */
static void
gpucheck(const struct options *o)
{
	const char *skip = getenv("MPCC_TUNE_NO_GPU_CHECK"), *job = getenv("SLURM_JOB_ID");
	char *why;
	/* with a launcher, or --jobs inside a Slurm job (slurm()), the runs go
	 * where it sends them */
	if ((o->launcher && *o->launcher) || (job && *job && o->jobs > 1) ||
	    (skip && *skip && strcmp(skip, "0")) || !(why = nogpu()))
		return;
	die("no GPU is visible here (%s): mpcc-tune needs one to time the program's kernels, and "
	    "built nothing (with --launcher the runs go where it sends them; "
	    "MPCC_TUNE_NO_GPU_CHECK=1 goes on without one)", why);
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
workdir(struct options *o)
{
	if (o->workdir) {
		if (mkdir(o->workdir, 0777) < 0 && access(o->workdir, W_OK) < 0)
			die("cannot make the work directory '%s'", o->workdir);
		char *abs = realpath(o->workdir, NULL);
		o->workdir = abs;
		return;
	}
	char *t = fmt("%s/mpcc-tune-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(t))
		die("cannot make a temporary directory");
	o->workdir = t;
}

/* does the step cache hold steps already (a build made before with it)? */
static int
warmcache(const char *dir)
{
	DIR *d = dir && *dir ? opendir(dir) : NULL;
	struct dirent *e;
	int n = 0;
	while (d && !n && (e = readdir(d)))
		n = strlen(e->d_name) == 32;   /* an entry: the hex of its key */
	if (d)
		closedir(d);
	return n;
}

static void
keepnote(const struct options *o)
{
	kept = o->workdir;
	keep_asked = o->keep;
	self = getpid();
	atexit(keptnote);
}

/* the spread of the baseline's runs, an outlier left out: the noise */
static void
noise(struct tuner *tu)
{
	const struct trial *b = tu->base;
	tu->noise = steady(b->times, b->ntimes, &tu->outlier);
	if (tu->o->measure)
		return;
	fprintf(stderr, "mpcc-tune: noise: the baseline's %d runs spread over ", b->ntimes);
	if (tu->outlier >= 0) {
		double x = b->times[tu->outlier], *rest = xmalloc(b->ntimes * sizeof *rest);
		int m = 0;
		for (int i = 0; i < b->ntimes; i++)
			if (i != tu->outlier)
				rest[m++] = b->times[i];
		fprintf(stderr, "%.1f%%, but run %d (%.4g, %.2fx the others' median) is an outlier, its "
		        "gap to the nearest run over 3 times their spread: left out, the other %d runs "
		        "spread over ", 100 * spread(b->times, b->ntimes), tu->outlier + 1, x,
		        x / median(rest, m), m);
		free(rest);
	}
	fprintf(stderr, "%.1f%%: a setting counts as faster beyond %.1f%%\n", 100 * tu->noise,
	        100 * threshold(tu));
}

/* the ideal build of Eq. 3 (--ideal-build), with no transform */
static void
ideal(struct tuner *tu)
{
	struct trial *t = xcalloc(1, sizeof *t);
	t->id = tu->nt;
	t->cmd = tu->o->ideal;
	t->env = xstrdup("off");
	t->what = xstrdup("ideal build (--ideal-build)");
	t->x = -1;
	t->verdict = -1;
	vgrow(tu->t, tu->nt, tu->cap);
	tu->t[tu->nt++] = t;
	tuner_eval_alone(tu, t);   /* no guess starts beside the ideal's build */
	tu->idealt = t;
}

/* the baseline, the timing build beside it (and the ideal build of Eq. 3);
 * the baseline's runs' spread is the noise */
static void
baseline(struct tuner *tu)
{
	struct setting none = {0};
	tu->base = trial_for(tu, &none, 0);
	struct trial *t[2] = {tu->base, timing_build(tu)};
	tuner_eval(tu, t, 2);
	if (tu->base->verdict != V_OK) {
		char *o = fmt("%s/run.out", tu->base->dir), *e = fmt("%s/run.err", tu->base->dir);
		char *lo = lastlines(o, 10), *le = lastlines(e, 10);
		die("the baseline failed: %s\n%s%s  no profile written", tu->base->why ? tu->base->why :
		    session_halt(tu) ? session_halt(tu) : "it did not run", lo, le);
	}
	noise(tu);
	if (tu->o->ideal)
		ideal(tu);
}

/* the trials of a setting (not the baseline, not instrumented) that ran */
static int
candidates(const struct tuner *tu)
{
	int n = 0;
	for (int i = 0; i < tu->nt; i++)
		n += tu->t[i]->set.n && !instrumented(tu->t[i]) && tu->t[i]->verdict >= 0;
	return n;
}

/* the profile for win (or none): printed, or written and checked; 0 or -1 */
static int
writeprofile(struct tuner *tu, const struct trial *win, const char *note)
{
	/* what the winner's build applied: a kernel that refused its knob is nvcc's */
	struct setting none = {0}, s = win ? setting_copy(&win->set) : none;
	if (tu->o->dryrun) {
		char *y = profile_yaml(&s, tu->k, tu->nk, tu->o->profile, "  ", note);
		printf("\n%s", y);
		free(y);
		fprintf(stderr, "mpcc-tune: --dry-run: nothing written\n");
		setting_release(&s);
		return 0;
	}
	char *p = profile_path(tu);
	writing = 1;
	int rc = profile_write(p, tu->o->profile, &s, tu->k, tu->nk, note) < 0 ||
	         profile_check(tu, win ? win : tu->base, p) < 0 ? -1 : 0;
	if (!rc)
		fprintf(stderr, "mpcc-tune: profile '%s' written to %s: build with MPCC_PROFILE=%s%s\n",
		        tu->o->profile, p, tu->o->profile, tu->o->policy ? " and MPCC_POLICY=that file" : "");
	free(p);
	setting_release(&s);
	return rc;
}

/* the work directory goes after a session that ended well, unless --keep */
static int
cleanup(const struct tuner *tu, int rc)
{
	if (!tu->o->keep && !rc) {
		if (rmtree(tu->o->workdir) < 0)
			warn("cannot remove '%s': %s", tu->o->workdir, strerror(errno));
		else
			kept = NULL;
	}
	return rc;
}

int
main(int argc, char **argv)
{
	static struct options o;
	struct tuner tu;
	struct confirmation cf;
	char *note;
	progname = "mpcc-tune";
	passes_init();
	options(&o, argc, argv);
	gpucheck(&o);
	tu = (struct tuner){.o = &o, .t0 = now(), .outlier = -1};
	if (o.jobs > 1 && !apart(&tu))
		warn("--jobs: --run does not name $MPCC_TUNE_DIR, or --build does not and there is no "
		     "--binary, so every candidate runs the same program: one candidate at a time");
	workdir(&o);
	keepnote(&o);
	slurm(&o, &tu);
	/* every build of the session, the baseline's first, shares one cache of
	 * nvcc's steps (driver/stepcache.c); MPCC_STEP_CACHE set (empty: none) wins */
	char *cache = fmt("%s/cache", o.workdir);
	setenv("MPCC_STEP_CACHE", cache, 0);
	tu.warm = warmcache(getenv("MPCC_STEP_CACHE"));
	free(cache);
	/* and reads a report's outcomes, never ptxas's figures, whose two
	 * ptxas -v runs a file took 27% of a timing build of S3D.cu */
	setenv("MPCC_REPORT_NO_PTXAS", "1", 0);
	catchint();
	atexit(killall);   /* a session that dies leaves no build or run behind */
	fprintf(stderr, "mpcc-tune: work directory %s\n", o.workdir);
	baseline(&tu);
	struct trial *timed = find_kernels(&tu);
	if (o.measure)
		return cleanup(&tu, measure_facts(&tu, timed));
	budget_start(&tu, answer_needs(&tu));
	search_all(&tu);
	trials_drop(&tu);
	const char *stopped = session_halt(&tu);
	if (stopped)
		fprintf(stderr, "mpcc-tune: the searches stopped: %s\n", stopped);
	budget_end(&tu);   /* the confirmation runs */
	if (stopped && !candidates(&tu)) {   /* nothing measured: the profile stays as it is */
		error("the searches tried no setting (%s): profile '%s' left as it was", stopped,
		      o.profile);
		return 1;
	}
	struct trial *win = choose(&tu, &cf, &note);
	table_print(&tu, win, &cf);
	if (svg_write(&tu, win, o.svg) < 0)
		error("cannot write '%s'", o.svg);
	else
		fprintf(stderr, "mpcc-tune: plots in %s\n", o.svg);
	fprintf(stderr, "mpcc-tune: %d %s built and run (the baseline's included)", pool_asked(&tu),
	        plural(pool_asked(&tu), "trial", "trials"));
	if (pool_guessed(&tu))
		fprintf(stderr, ", and %d guesses run that no search asked for", pool_guessed(&tu));
	fprintf(stderr, "; %.0f s\n", now() - tu.t0);
	table_builds(&tu);
	table_model(&tu);
	if (win) {
		fprintf(stderr, "mpcc-tune: winner: %s, %.3fx (confirmed: median %.3fx of %d interleaved "
		        "rounds), error %.3g\n", win->what, speedup(&tu, win), cf.median, cf.rounds, win->err);
		table_units(&tu, win);
	} else
		fprintf(stderr, "mpcc-tune: no rule: %s; the profile keeps nvcc's code\n", note);
	return cleanup(&tu, writeprofile(&tu, win, note) < 0);
}
