/* tune.h: mpcc-tune, laid out in the order it works.
 *
 * A tuning session builds the user's program with no transform (the
 * baseline) and runs it several times, which tells how much its time
 * varies (the noise); finds the kernels that take a share of the kernel
 * time (search/kernels.c); then tries settings: each is a list of knobs (a
 * pass, a kernel, the pass's parameters), given to the build through
 * MPCC_SET (policies/override.c), built, checked in the build's report, run
 * several times, and compared with the baseline's output (trial/). The
 * searches choose which settings to try: search/search.c turns one pass's
 * knob on one kernel (a grid, its words, or the units its stats list, in
 * GPUMixer's modes: search/units.c), search/auto.c composes them over
 * kernels and passes. The answer is the fastest trial of the session
 * within the QoS whose gain is beyond the noise (answer/choose.c),
 * confirmed against the baseline in interleaved runs (answer/confirm.c);
 * then a table, an SVG and a profile of .mpcc.yaml (output/). What tune
 * knows of a pass, it reads in the pass table (passes.c): no pass is named
 * in tune/.
 *
 * Only the pool (pool/) starts builds and runs: the trials the searches ask
 * for, and with --jobs N the guesses at what they will ask for next
 * (speculate()), which fill the slots a batch leaves free: the first
 * trials of the kernels still to search, the next lists of a growing list
 * of units. With --jobs N the searches of different kernels run side by
 * side, each in a strand of the pool (pool/strand.c), and their winners
 * are composed (search/compose.c). What a session may spend (--budget,
 * --max-trials, Ctrl-C) and what it says of its progress is the
 * session's (session/).
 *
 * struct tuner holds the options, which the session only reads, and what
 * every room reads: the baseline, its noise, the trials, the kernels. Each
 * room keeps its own state in a struct of its header (struct session,
 * struct pool, struct searches), made at its first use and changed only
 * by its own files; a room below is told what it must know of those above
 * (the pool's trials under way, session_running(); the searches' plan,
 * session_plan(); what the answer needs, answer_needs() given to
 * budget_start()), and never reads their state.
 *
 * The rooms of tune/, each a folder with one header, the highest first.
 * Files call only files later in this list, so a room calls only the
 * rooms below it, and its header includes the header of the room below
 * (tests/driver/t-layers.sh, t-tune-contract.sh):
 *   main.c     the options and the session, start to end
 *   output/    facts.c table.c profile.c svg.c: --measure's facts, the table,
 *              the profile, the plots
 *   answer/    choose.c confirm.c: the fastest trial within the QoS beyond
 *              the noise, confirmed against the baseline; what that takes
 *   search/    auto.c compose.c search.c units.c kernels.c curve.c: the
 *              searches, what they try and keep, side by side and composed
 *   pool/      ask.c strand.c side.c pool.c: the trials asked for and
 *              guessed, the searches side by side, their build and run
 *              slots and GPUs, the one waiting loop
 *   trial/     judge.c run.c build.c: one trial's build, runs and verdict
 *   session/   progress.c budget.c signal.c: the budget, Ctrl-C, the
 *              progress lines (the processes are common/spawn.c's)
 *   .          measure.c setting.c apart.c passes.c numbers.c (tune.h):
 *              what every room reads: settings, the pass table, numbers
 *
 * Layers: tune -> driver -> transforms -> policies -> model -> ptx -> common. */
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
	V_WORDS,      /* the output's words differ from the baseline's (PASS, FAIL) */
};
/* a trial not run yet has verdict -1 */
extern const char *const verdictname[];

enum { M_MEAN, M_MAX, M_FRO, M_DIGITS };   /* --metric */

/* what numbers.c measures of one output against the baseline's */
struct errors {
	double mean, max, fro, digits;
	long n;
};

/* where a trial's build goes: the kinds of mpcc's steps (stepnames[]) */
enum { ST_TRANSFORM, ST_PTXAS, ST_HOST, ST_LINK, ST_OTHER, NSTEPS };
extern const char *const stepnames[];

struct trial {
	int id;                 /* t<id>/ in the work directory; 0 is the baseline */
	const char *cmd;        /* its build command; NULL: --build (--ideal-build's is its own) */
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
	char *words;            /* its stdout's words (outnumbers()); NULL: --output */
	char *report;           /* the build's report lines (MPCC_REPORT) */
	char *refused;          /* the knobs its build refused, with why (NULL: none); it
	                         * ran with the others */
	int asked;              /* a search asked for it (else a guess that was not needed) */
	double build, cost;     /* seconds of wall time: its build; its build and runs */
	double steps[NSTEPS];   /* seconds of its build's steps of each kind (mpcc's
	                         * MPCC_STEP_LOG, summed over the compiles) */
	int keyed, hits;        /* its build's steps the step cache keeps, and of them
	                         * those it had (a build made before: a warm cache) */
	double judged;          /* seconds its output's comparison took */
};

/* one kernel of the program and what the timing build saw of it */
struct kern {
	char *mangled, *demangled;
	double ns;              /* time in the kernel over the run, ns (0: unknown) */
	long launches;
	double share;           /* ns / the time of every kernel: what ranks and filters */
	double wallshare;       /* ns / the run's wall time, shown beside it */
	int picked;             /* --kernels picks it (every kernel without one) */
	int hot;                /* picked, and takes --min-share of the kernel time */
	struct facts facts;     /* what the timing build measured (search/kernels.c): the
	                         * warps an SM holds at once in its launches; each loop's
	                         * mean trip count per entry into it, the loops in the
	                         * order their headers come in the kernel's PTX
	                         * (mpcc-trips lines); the hash of its PTX as nvcc wrote
	                         * it, the one the others were measured on */
	char *nocount;          /* why the timing build did not count its loops (NULL: it
	                         * did, or did not say) */
	char *src;              /* its source file, as the build named it (NULL: not known) */
	char **with;            /* per pass: the parameters beyond the knob that its trials
	                         * carry (a fallback probe applied; NULL: none) */
	double *predicted;      /* per pass (NULL: none checked): the speed-up the pass */
	double *timed;          /* predicts with its widest setting, and the one the
	                         * kernel's own time measured in a timed build of it,
	                         * against the plain timing build's (0: none) */
	char *beside;           /* the kernels its launches overlapped in time (several
	                         * streams), and for how much of its time: its time measures
	                         * them too and decides nothing (NULL: its time is its own) */
};

enum { S_HEU, S_LINEAR, S_EXHAUSTIVE };   /* --search */
enum { O_TEXT, O_F32, O_F64 };            /* --output-type */

/* what the command line says: main.c's options() fills it, and the
 * session reads it and never changes it */
struct options {
	const char *build, *run, *output, *timepat, *launcher, *kernels;
	const char *policy, *profile, *svg, *workdir, *ideal, *binary;
	int transform;          /* a passes[] index, or -1: auto */
	int otype, metric, higher, runs, jobs, bjobs, search, step, lmax, mode, dryrun, keep, shadow;
	int confirm, nonfinite, maxtrials, stopafter;
	int measure;            /* --measure: the facts of one run into the profile, no search */
	double qos, perf, minshare, mingain, slow;   /* minshare, mingain, perf: % */
	double budget;          /* --budget, seconds (0: none) */
	regex_t re;
};

/* each room's own state, declared in its header (tune.h's list): only
 * its files change it */
struct session;
struct pool;
struct searches;

struct tuner {
	const struct options *o;   /* read-only */
	double t0;              /* the session's start (now()) */
	/* what every room reads: the baseline, the trials, the kernels */
	struct trial *base, *idealt;
	double noise;           /* the baseline's runs: (max - min) / median, an outlier
	                         * left out (steady()) */
	int outlier;            /* the baseline's run left out (-1: none) */
	char *wordsvary;        /* where the baseline's words differ between its runs
	                         * (then no trial's are compared); NULL: they agree */
	char *vary;             /* per number of the baseline's output (nvary of them): 1
	                         * where its runs differ by more than the QoS allows one
	                         * number and 0.1% (a rate printed alone): left out of
	                         * the comparisons (compare()); NULL: none */
	long nvary;
	char *varysaid;         /* the first such number's values, in words */
	long varyat;            /* its index */
	int warm;               /* the step cache held steps when the session began (a
	                         * build made before through mpcc, MPCC_STEP_CACHE set) */
	struct trial **t;       /* every trial, the cache of settings */
	int nt, cap;
	struct kern *k;
	int nk;
	/* the rooms', each made at its first use */
	struct session *ses;    /* session/budget.c's session_of() */
	struct pool *pool;      /* pool/pool.c's pool_of() */
	struct searches *srch;  /* search/curve.c's searches_of() */
};

/* measure.c */
double speedup(const struct tuner *tu, const struct trial *t);   /* over the baseline */
/* the relative spread of v: (max - min) / median */
double spread(const double *v, int n);
/* spread() with an outlier left out: a value whose gap to the nearest
 * other is over 3 times the spread of the others (then *out is its index;
 * -1: none, with fewer than 4 values too) */
double steady(const double *v, int n, int *out);
/* the gain a trial must reach to count as faster: the baseline's noise,
 * or --min-gain when larger (a fraction: 0.05) */
double threshold(const struct tuner *tu);
/* is a faster than b by more than threshold()? */
int beats(const struct tuner *tu, const struct trial *a, const struct trial *b);
/* does t's setting hold a pass that is not a transform (the timing or shadow build)? */
int instrumented(const struct trial *t);
/* how many times --slow an instrumented build's run may take: its
 * instrumentation costs what it costs (on public programs the timing
 * build's figure of merit read 3.4x the plain build's for s3d's 54 short
 * kernels, 7.9x for a thrust transform), and its time decides nothing;
 * the limit still stops a run that hangs */
#define INSTRUMENTED_SLOW 4
/* may t be the answer: ran, met the QoS, no instrumentation, not a baseline? */
int eligible(const struct tuner *tu, const struct trial *t);
/* the fastest eligible trial among t[] (NULL if none) */
struct trial *fastest(const struct tuner *tu, struct trial **t, int n);
/* the percentage of the ideal speed-up (003, Eq. 3) that t reaches */
double ofideal(const struct tuner *tu, const struct trial *t);
/* a kernel's measured speed-up is said only where the noise moves it by at
 * most this fraction of itself: half the 20% within which the model counts
 * as right */
#define MEASURED_ERR 0.1
/* the kernel that t alone changes (one knob applied, on one kernel; else
 * NULL), with the speed-up its pass predicts for it (*pred, the worst
 * target; 0: none) and the one measured (*meas): x in T = T0 (1 - w + w/x),
 * T and T0 the times of t and of the baseline, w the kernel's share of the
 * run (the timing build's wallshare); 0 where the noise would move x by
 * over MEASURED_ERR of itself (x threshold() / w), inf where t gained more
 * than the kernel's whole time; 0 too where the kernel ran beside others
 * (its beside: its share confounded) */
const struct kern *kernel_speedup(const struct tuner *tu, const struct trial *t, double *pred,
                                  double *meas);


/* setting.c */
void setting_add(struct setting *s, int pass, const char *kernel, const char *params);
struct setting setting_copy(const struct setting *s);   /* without the refused knobs */
void setting_release(struct setting *s);
char *setting_env(const struct setting *s);       /* "off;sfu:lambda=32,kernels=k" */
char *setting_env_applied(const struct setting *s);   /* the same, without the refused knobs */
char *setting_words(const struct setting *s, const struct kern *k, int nk);
/* the kernel of k[0..nk) of that mangled name, NULL if none: the one
 * lookup of a kernel by name in tune/ (the timing build's list, or a copy) */
struct kern *kern_byname(const struct kern *k, int nk, const char *mangled);
/* the parameters beyond the knob that k's trials of pass carry (NULL: none) */
const char *kern_with(const struct kern *k, int pass);
/* the fact (model/facts.h's F_ ID) the timing build measures that parameter
 * i of pass takes, a PFACT parameter; -1: none */
int fact_param(int pass, int i);
/* the facts the timing build measured of k, as the parameters of pass that
 * take them (the hash only beside another fact): "warps=16,trips=[64,1.5],
 * ptx=1a2b3c4d" (W_TEXT) or "warps: 16, trips: [64, 1.5], ptx: 1a2b3c4d"
 * (W_YAML); "" if none */
char *kern_facts(const struct kern *k, int pass, int style);
/* the trip counts of k joined by sep ("64,1.5,0"), "-" when not known */
char *kern_trips(const struct kern *k, const char *sep);
/* setting_add(), with the kernel's facts (kern_facts()) added to params */
void setting_launch(const struct tuner *tu, struct setting *s, int pass, const char *kernel,
                    const char *params);

/* apart.c */
/* do the builds and the runs go on side by side (each trial has its own
 * program; parallel runs need each trial's output of its own too)? */
int apart(const struct tuner *tu);
/* may builds go on side by side (each into its own directory)? */
int buildsapart(const struct tuner *tu);

/* passes.c */
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
/* DIR/run-PASS.jsonl: the file that the runs of a trial in dir write what
 * pass did at run time to, under its struct tuning's runreport (malloc'd);
 * NULL: it has none */
char *pass_runreport(int pass, const char *dir);
/* the stats of pass on kernel (mangled) in a build's report (malloc'd),
 * NULL if no line; *applied */
char *report_stats(const char *report, int pass, const char *kernel, int *applied);
double stats_predicted(const char *stats, int pass);   /* the worst target's; 0: none */
int stats_units(const char *stats, int pass, struct unit **out);
/* the name of the key of role in pass's units ("r_ac" for RRATIO), NULL: none */
const char *unit_key(int pass, int role);
void units_release(struct unit *u, int n);
/* how many operations an instrumented build's stats list (ROPS), and in
 * *of how many the kernel has (RNOPS; more than listed: a sample) */
int stats_nops(const char *stats, int pass, long *of);
/* the opcode of instruction ordinal ins in an instrumented build's stats */
char *stats_opname(const char *stats, int pass, long ins);


/* numbers.c */
/* the numbers of text (every decimal, nan and inf), or of raw f32/f64 */
double *numbers(const char *text, size_t len, int type, long *n);
/* the numbers of stdout text and, into *words, its words (each number as
 * '#'), leaving out mpcc's own lines ("mpcc-") and timers: the lines that
 * match re (the figure of merit), lines of the same words, and lines that
 * name a time or a rate; into *timers (if given) the words of the timers,
 * but re's lines */
double *outnumbers(const char *text, size_t len, const regex_t *re, long *n, char **words,
                   char **timers);
/* where words b differ from the baseline's a, in words; NULL: nowhere */
char *wordsdiffer(const char *a, const char *b);
/* compare x with the baseline b, but the numbers skip marks (NULL: none),
 * unless x's is NaN or Inf (V_NAN), or of another sign or 10x off (then
 * counted): 0, or V_NAN / V_COUNT */
int compare(const double *b, long nb, const double *x, long nx, const char *skip, struct errors *e);
/* the most the baseline's runs may differ in one number, relatively, for
 * it to be compared */
double qos_one(const struct tuner *tu);
double metric(const struct errors *e, int m);
int qos_met(const struct tuner *tu, const struct errors *e);   /* within --qos? */
double median(double *v, int n);


#endif
