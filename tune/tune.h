/* tune.h: mpcc-tune, laid out in the order it works.
 *
 * A tuning session builds the user's program with no transform (the
 * baseline) and runs it several times, which tells how much its time
 * varies (the noise); finds the kernels that take a share of the kernel
 * time (kernels.c); then tries settings: each is a list of knobs (a pass, a
 * kernel, the pass's parameters), given to the build through MPCC_SET
 * (policies/override.c), built, checked in the build's report, run several
 * times, and compared with the baseline's output (trial.c, output.c). The
 * searches choose which settings to try: search.c turns one pass's knob on
 * one kernel (a grid, its words, or the units its stats list, in GPUMixer's
 * modes: units.c), auto.c composes them over kernels and passes. The
 * answer is the fastest trial of the session within the QoS whose gain is
 * beyond the noise (measure.c), confirmed against the baseline in
 * interleaved runs (confirm.c); then a table, an SVG (svg.c) and a profile
 * of .mpcc.yaml (profile.c). What tune knows of a pass, it reads in the
 * pass table (table.c): no pass is named in tune/.
 *
 * What a session may spend (--budget, --max-trials, Ctrl-C) and what it
 * says of its progress is budget.c's. With --jobs N the searches hand over
 * guesses at what they will ask for next (speculate()), which fill the
 * slots a batch leaves free: the first trials of the kernels still to
 * search, the next lists of a growing list of units.
 *
 * Files call only files later in this list (tests/driver/t-tune-contract.sh):
 *   main.c  confirm.c  auto.c  search.c  units.c  kernels.c  setting.c
 *   profile.c  trial.c  budget.c  svg.c  measure.c  table.c  output.c  knob.c
 *
 * Layers: tune -> driver -> transforms -> policies -> ptx -> common. */
#ifndef MPCC_TUNE_H
#define MPCC_TUNE_H

#include "common/util.h"
#include "transforms/pass.h"

#include <regex.h>
#include <signal.h>
#include <sys/types.h>

/* one rule of a setting: pass (passes[] index) on kernel with params */
struct knob {
	int pass;
	char *kernel;     /* the mangled name, as the report gives it */
	char *params;     /* text form "lambda=32" */
	int refused;      /* its trial's build left the kernel alone: a copy of
	                   * the setting (what a search keeps, a profile) leaves it out */
};

/* what one candidate build gets: MPCC_SET = "off;" + one item per knob */
struct setting {
	struct knob *k;
	int n;
};

enum {            /* trial.verdict */
	V_OK,         /* built, ran, compared: see meets */
	V_BUILD,      /* the build failed */
	V_NOAPPLY,    /* the build's report does not show the setting applied */
	V_CRASH,      /* a run exited non-zero or was killed by a signal */
	V_TIMEOUT,    /* a run took over slow x the baseline's wall time */
	V_SLOW,       /* the figure of merit is over slow x the baseline's */
	V_NAN,        /* NaN or Inf where the baseline has a finite number */
	V_COUNT,      /* another count of numbers than the baseline's (ends the session) */
	V_NOTIME,     /* --time's pattern is not in the output */
};
/* a trial not run yet has verdict -1 */
extern const char *const verdictname[];

enum { M_MEAN, M_MAX, M_FRO, M_DIGITS };   /* --metric */

/* what output.c measures of one output against the baseline's */
struct errors {
	double mean, max, fro, digits;
	long n;
};

struct trial {
	int id;                 /* t<id>/ in the work directory; 0 is the baseline */
	struct setting set;
	char *env;              /* MPCC_SET */
	char *what;             /* the setting in words, for progress and tables */
	double x;               /* the searched value (lambda, a count of sets), for plots;
	                         * < 0: a probe, not on a search's curve */
	int verdict;            /* V_*; -1: not run yet */
	char *why;              /* what failed, for a verdict other than V_OK */
	double time;            /* median of the runs: seconds of wall time or the figure of merit */
	double wall;            /* median wall time, seconds */
	double *times;          /* of each run: --time's figure of merit, else the wall time */
	double *walls;
	int ntimes;
	struct errors e;
	double err;             /* e's value for --metric */
	int meets;              /* V_OK and within --qos */
	char *dir;              /* its directory: build and run logs, output, report */
	double *num;            /* the numbers of its output (first run) */
	long nnum;
	char *report;           /* the build's report lines (MPCC_REPORT) */
	char *refused;          /* the knobs its build refused, with why (NULL: none); it
	                         * ran with the others */
	int asked;              /* a search asked for it (else a guess that was not needed) */
	double build, cost;     /* seconds of wall time: its build; its build and runs */
};

/* one kernel of the program and what the timing build saw of it */
struct kern {
	char *mangled, *demangled;
	double ns;              /* time in the kernel over the run, ns (0: unknown) */
	long launches;
	double share;           /* ns / the time of every kernel: what ranks and filters */
	double wallshare;       /* ns / the run's wall time, shown beside it */
	int hot;
	int warps;              /* warps an SM holds at once in its launches, 0: unknown */
};

/* one search over one knob, for the table, the SVG and the summary */
struct curve {
	char *kernel;           /* demangled */
	int pass;
	const char *how;        /* "heu", "linear", "exhaustive", "mode 1" ... */
	struct trial **t;       /* the trials of this search, in the order run */
	int n;
	struct trial *best;     /* NULL: nothing met the QoS */
	int runs;               /* trials it built and ran (the cache's not counted) */
	char *stop;             /* why it stopped, in words */
};

/* the winner's interleaved runs against the baseline (confirm.c) */
struct confirmation {
	int rounds;             /* rounds run */
	double median, lo, hi;  /* the rounds' speed-ups: median and range */
	double basespread;      /* the spread of the baseline's runs in the rounds */
	int ok;                 /* the median beats the noise */
};

/* a trial a search may ask for soon (speculate()): the search in progress
 * guesses with ranks below RANKS, those of the searches to come above */
#define RANKS 100
struct guess {
	struct trial *t;
	int rank;               /* lower: sooner */
};

enum { S_HEU, S_LINEAR, S_EXHAUSTIVE };   /* --search */
enum { O_TEXT, O_F32, O_F64 };            /* --output-type */

struct tuner {
	/* options */
	const char *build, *run, *output, *timepat, *launcher, *kernels;
	const char *policy, *profile, *svg, *workdir, *ideal, *binary;
	int transform;          /* a passes[] index, or -1: auto */
	int otype, metric, higher, runs, jobs, bjobs, search, step, lmax, mode, dryrun, keep, shadow;
	int confirm, nonfinite, maxtrials, stopafter;
	double qos, perf, minshare, mingain, slow;   /* minshare, mingain, perf: % */
	double budget;          /* --budget, seconds (0: none) */
	regex_t re;
	/* state */
	struct trial *base, *idealt;
	double noise;           /* the baseline's runs: (max - min) / median */
	struct trial **t;       /* every trial, the cache of settings */
	int nt, cap;
	struct kern *k;
	int nk;
	struct curve **c;
	int nc, capc;
	int ntrials;            /* trials a search asked for, built and run, the baseline's
	                         * included */
	int nguess;             /* trials built and run as guesses (speculate()) */
	int left;               /* trials the search in progress may still run, after
	                         * the batch being run (-1: not known) */
	int later;              /* trials the searches after it will likely run */
	int pending;            /* trials of the batch being run not done yet */
	int inflight;           /* of them, those that started */
	struct guess *spec;     /* speculate(): what may be asked for next, soonest first */
	int nspec, capspec;
	/* the budget (budget.c) */
	double t0;              /* the session's start (now()) */
	double tsearch;         /* when the searches started */
	double deadline;        /* no trial starts after it, or runs on past it (0: none) */
	double until;           /* the search in progress starts no trial after it */
	double reserve;         /* seconds kept for the confirmation and the check */
	const char *halt;       /* why every search stops now (NULL: go on) */
	/* build and run trials (trial.c's trials_run; tests put a model here):
	 * t[0..asked) before it returns, the rest (guesses) as slots allow */
	void (*eval)(struct tuner *tu, struct trial **t, int n, int asked);
	/* the guesses of the searches to come, made again from what is known
	 * before each batch (auto.c); NULL: none */
	void (*ahead)(struct tuner *tu);
	void *arg;              /* for eval */
};

/* confirm.c */
/* run the baseline and t in turn, --confirm rounds, and say whether t's
 * gain holds; prints the rounds and the verdict */
void confirm(struct tuner *tu, struct trial *t, struct confirmation *c);

/* auto.c */
/* one pass (tu->transform) on every hot kernel in turn, each on what the
 * earlier kept; or, with auto, each pass's advice from a probe build, then
 * the (kernel, pass) pairs greedily. Every trial stays a candidate. */
void search_all(struct tuner *tu);

/* search.c */
/* add a knob of pass on kernel k to base and search its values (by the
 * knob's kind: a grid, each word, or the units, units.c); the fastest
 * trial that meets the QoS, or NULL */
struct trial *search_knob(struct tuner *tu, const struct setting *base, const struct kern *k,
                          int pass);
struct trial *search_grid(struct tuner *tu, const struct setting *base, const struct kern *k, int pass);
/* the trials the search of pass on k over base asks for first (at most 8), into t: their count */
int search_first(struct tuner *tu, const struct setting *base, const struct kern *k, int pass,
                 struct trial **t);
struct trial *search_words(struct tuner *tu, const struct setting *base, const struct kern *k, int pass);
/* search_first(), and where those trials ran and tell, the trials after
 * them (a list of units: the first lists, as if each met the QoS) */
int search_next(struct tuner *tu, const struct setting *base, const struct kern *k, int pass,
                struct trial **t);

/* units.c */
/* the units of a PSETS knob (GPUMixer's FISets, 003 4.5): all, the pass's
 * own choice (the knob's default), then units added one at a time in the
 * mode's order while the QoS holds */
struct trial *search_units(struct tuner *tu, const struct setting *base, const struct kern *k, int pass);
/* the first lists of units (at most max, and --jobs) that the search over
 * base will ask for, all (sets=all over base) having run: into t, their
 * count; 0 where the order needs a shadow build */
int units_first(struct tuner *tu, const struct setting *base, const struct kern *k, int pass,
                struct trial *all, struct trial **t, int max);

/* kernels.c */
/* every kernel and its share of the kernel time, from a build with the
 * instrumentation pass's timers; marks the hot ones; prints the list */
void find_kernels(struct tuner *tu);
/* the timing build, a guess while the baseline builds and runs */
void timing_ahead(struct tuner *tu);
/* the shadow build: each f64 op's error total, by statement index, for kernel */
struct optotal {
	long ins;               /* statement index in the kernel as nvcc wrote it */
	double err;             /* sum of |v64 - v32| / |v64| over every thread */
	double count;           /* executions */
	char *op;
};
/* *sampled: its stats list fewer ops than the kernel has: a sample */
int shadow_totals(struct tuner *tu, const char *kernel, struct optotal **out, int *sampled);

/* setting.c */
char *setting_words(const struct setting *s, const struct kern *k, int nk);
/* the trial of s: from the cache, or new (not yet run) */
struct trial *trial_for(struct tuner *tu, const struct setting *s, double x);
/* the kernel of that mangled name, NULL if the timing build named none */
struct kern *kern_byname(const struct tuner *tu, const char *mangled);
/* setting_add(), with the kernel's warps an SM holds (its timing build)
 * added to params where the pass has a PLAUNCH parameter */
void setting_launch(const struct tuner *tu, struct setting *s, int pass, const char *kernel,
                    const char *params);
/* the trial of base with one more knob */
struct trial *withknob(struct tuner *tu, const struct setting *base, int pass, const char *kernel,
                       const char *params, double x);
/* build and run those of t[] that have not run yet (none once the budget is
 * spent: see halted()); slots left free run the guesses of speculate() */
void tuner_eval(struct tuner *tu, struct trial **t, int n);
/* t may be asked for soon: run it in a slot a batch leaves free (--jobs),
 * the guesses of lower rank first */
void speculate(struct tuner *tu, struct trial *t, int rank);
/* forget the guesses of rank in [lo, hi) (those of a search that moved on:
 * [0, RANKS); of the searches to come: [RANKS, INT_MAX); every guess) */
void speculate_clear(struct tuner *tu, int lo, int hi);
struct curve *curve_new(struct tuner *tu, const char *kernel, int pass, const char *how);
void curve_add(struct curve *c, struct trial *t);
void curve_stop(struct curve *c, char *why);     /* takes why (malloc'd); prints it */
/* t did not run because the search must stop (halted()): stop c, saying why */
int curve_cut(struct tuner *tu, struct curve *c, const struct trial *t);


/* trial.c */
/* build, run and compare: the real evaluator. Builds go --build-jobs at a
 * time when --build names $MPCC_TUNE_DIR, else one at a time; runs --jobs
 * at a time (one GPU each) when --run names $MPCC_TUNE_DIR and each trial
 * has its own program (its directory, or its copy of --binary) */
void trials_run(struct tuner *tu, struct trial **t, int n, int asked);
/* stop the guesses still under way and forget them (the searches ended) */
void trials_drop(struct tuner *tu);

/* run cmd under sh with env pairs (NAME=VALUE; NAME= unsets); 0 or the
 * exit status / 128+signal; *wall in seconds; limit > 0 kills it after that
 * many seconds (then returns -1) */
int shell(const char *cmd, const char *const *env, const char *out, const char *err,
          double limit, double *wall);
/* the program once, as a trial's run is (launcher, MPCC_TUNE_DIR=dir),
 * stdout and stderr to out and err: its exit status, *v its time (figure
 * of merit or wall); -1 if it failed, with *why */
int run_once(struct tuner *tu, const char *dir, const char *out, const char *err, double *v,
             char **why);
/* run_once() of n programs at once, the i-th in dir[i] on GPU i (with
 * --jobs): each its *v and *why; -1 if any failed */
int run_side(struct tuner *tu, int n, char *const *dir, char *const *out, char *const *err,
             double *v, char **why);
/* s with $MPCC_TUNE_DIR replaced by dir (malloc'd) */
char *tunepath(const char *s, const char *dir);
/* copy the program from to to, executable: 0, or -1 */
int copyprog(const char *from, const char *to);
/* build t's setting again (with its environment, the report to rep) */
int build_once(struct tuner *tu, const struct trial *t, const char *rep, const char *log);
/* the last lines of a file, indented, for messages (malloc'd) */
char *lastlines(const char *path, int n);

/* budget.c */
double now(void);
/* do the builds and the runs go on side by side (each trial has its own
 * program; parallel runs need each trial's output of its own too)? */
int apart(const struct tuner *tu);
/* may builds go on side by side (each into its own directory)? */
int buildsapart(const struct tuner *tu);
/* may guesses run (--jobs, trials side by side, builds side by side)? */
int guessing(const struct tuner *tu);
/* the process groups of the builds and runs under way */
void remember(pid_t pid);
void forget(pid_t pid);
/* stop groups g[0..n): SIGINT, SIGKILL 4 s later for what is left */
void stopgroups(pid_t *g, int n);
/* stop every build and run under way (the second Ctrl-C; from a signal handler too) */
void killall(void);
/* "90s", "15m", "2h", "1h30m", or seconds: seconds; -1 if not a duration */
double duration(const char *s);
/* after the baseline: set the time kept for the confirmation and the check aside */
void budget_start(struct tuner *tu);
/* a search of weight w starts; rest: the weights of it and the searches after
 * it. It may spend its share of the time left to the searches */
void budget_search(struct tuner *tu, double w, double rest);
/* must the search in progress stop (the budget, --max-trials, Ctrl-C)? why
 * (its own share spent, or tu->halt), NULL if not */
const char *halted(struct tuner *tu);
/* may a trial start now? (sets tu->halt when the session's time is up) */
int maystart(struct tuner *tu);
/* the estimate of trials a search of pass will run */
int planned(const struct tuner *tu, int pass);
/* one line per trial: its verdict, the trials done and planned, the time,
 * the ETA and the best so far */
void progress(const struct tuner *tu, const struct trial *t);
/* Ctrl-C: the first stops the searches, the second the session; SIGTERM
 * and SIGHUP stop what runs and the session */
void catchint(void);
extern volatile sig_atomic_t interrupts;
extern volatile sig_atomic_t writing;   /* the profile is being written: said at a second Ctrl-C */

/* measure.c */
double speedup(const struct tuner *tu, const struct trial *t);   /* over the baseline */
/* the relative spread of v: (max - min) / median */
double spread(const double *v, int n);
/* the gain a trial must reach to count as faster: the baseline's noise,
 * or --min-gain when larger (a fraction: 0.05) */
double threshold(const struct tuner *tu);
/* is a faster than b by more than threshold()? */
int beats(const struct tuner *tu, const struct trial *a, const struct trial *b);
/* does t's setting hold a pass that is not a transform (the timing or shadow build)? */
int instrumented(const struct trial *t);
/* may t be the answer: ran, met the QoS, no instrumentation, not a baseline? */
int eligible(const struct tuner *tu, const struct trial *t);
/* the fastest eligible trial among t[] (NULL if none) */
struct trial *fastest(const struct tuner *tu, struct trial **t, int n);
/* every eligible trial of the session that beats the baseline, fastest
 * first, except that of those within the noise of the fastest the one with
 * the fewest knobs comes first; their count */
int winners(const struct tuner *tu, struct trial ***out);
/* the percentage of the ideal speed-up (003, Eq. 3) that t reaches */
double ofideal(const struct tuner *tu, const struct trial *t);

/* svg.c */
int svg_write(const struct tuner *tu, const struct trial *win, const char *path);
/* round axis ticks in 1-2-5 steps covering [lo, hi]: their count (at most max) */
int ticks(double lo, double hi, int max, double *t);

/* profile.c */
/* the policy file to write: --policy, the nearest .mpcc.yaml, ./.mpcc.yaml (malloc'd) */
char *profile_path(const struct tuner *tu);
/* rebuild from the profile (in policy) and compare with the winner's
 * build: the same report lines (and --binary's bytes); 0, or -1 after a
 * message */
int profile_check(struct tuner *tu, const struct trial *win, const char *policy);
/* the YAML of profile name for setting s (rules with the kernels' names);
 * an empty s says why in a comment (note) */
char *profile_yaml(const struct setting *s, const struct kern *k, int nk, const char *name,
                   const char *indent, const char *note);
/* put profile name into the policy file path (created if missing): its
 * other bytes unchanged. 0, or -1 after a message. */
int profile_write(const char *path, const char *name, const struct setting *s,
                  const struct kern *k, int nk, const char *note);
/* the text of a policy with profile name (for s) replaced or added, every
 * other byte as it was (malloc'd); NULL with *why (malloc'd) if the file
 * cannot be edited that way */
char *profile_edit(const char *text, size_t len, const char *name, const struct setting *s,
                   const struct kern *k, int nk, const char *note, char **why);

/* table.c */
/* one unit of a kernel as a pass's stats list it (RUNITS: a FISet) */
struct unit {
	long id;                /* RID */
	double ratio;           /* RRATIO (inf: no cast) */
	double pred;            /* RPREDICTED, the worst target; 0: none */
	int chosen;             /* RCHOSEN */
	long *ins;              /* RINS */
	int nins;
	double err;             /* the shadow build's error total of its instructions */
};
int pass_find(const char *name);       /* passes[] index, -1 if none */
int pass_probe(void);                  /* the instrumentation (TUNE_PROBE), -1 if none */
int pass_tuned(int pass);              /* TUNE_TRANSFORM: searched */
const struct param *pass_knob(int pass);   /* the parameter its search turns */
const char *pass_name(int pass);
/* the stats of pass on kernel (mangled) in a build's report (malloc'd),
 * NULL if no line; *applied */
char *report_stats(const char *report, int pass, const char *kernel, int *applied);
double stats_predicted(const char *stats, int pass);   /* the worst target's; 0: none */
int stats_units(const char *stats, int pass, struct unit **out);
void units_release(struct unit *u, int n);
/* how many operations an instrumented build's stats list (ROPS), and in
 * *of how many the kernel has (RNOPS; more than listed: a sample) */
int stats_nops(const char *stats, int pass, long *of);
/* the opcode of instruction ordinal ins in an instrumented build's stats */
char *stats_opname(const char *stats, int pass, long ins);

/* output.c */
/* the numbers of text (every decimal, nan and inf), or of raw f32/f64 */
double *numbers(const char *text, size_t len, int type, long *n);
/* the numbers of stdout text, leaving out lines that match re (the figure
 * of merit) and mpcc's own lines ("mpcc-") */
double *outnumbers(const char *text, size_t len, const regex_t *re, long *n);
/* compare x with the baseline b: 0, or V_NAN / V_COUNT */
int compare(const double *b, long nb, const double *x, long nx, struct errors *e);
double metric(const struct errors *e, int m);
int qos_met(const struct tuner *tu, const struct errors *e);   /* within --qos? */
double median(double *v, int n);

/* knob.c */
void setting_add(struct setting *s, int pass, const char *kernel, const char *params);
struct setting setting_copy(const struct setting *s);   /* without the refused knobs */
void setting_release(struct setting *s);
char *setting_env(const struct setting *s);       /* "off;sfu:lambda=32,kernels=k" */

#endif
