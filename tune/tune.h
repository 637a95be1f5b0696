/* tune.h: mpcc-tune, laid out in the order it works.
 *
 * A tuning session builds the user's program with no transform (the
 * baseline), finds the kernels that take a share of the run (kernels.c),
 * then tries settings: each is a list of knobs (a pass, a kernel, the pass's
 * parameters), given to the build through MPCC_SET (policies/override.c),
 * built, checked in the build's report, run several times, and compared with
 * the baseline's output (trial.c, output.c). The searches (search.c) choose
 * which settings to try; the results go to a table, an SVG (svg.c) and a
 * profile of .mpcc.yaml (profile.c).
 *
 * Layers: tune -> driver -> transforms -> policies -> ptx -> common. */
#ifndef MPCC_TUNE_H
#define MPCC_TUNE_H

#include "common/util.h"
#include "transforms/pass.h"

#include <regex.h>

/* one rule of a setting: pass (passes[] index) on kernel with params */
struct knob {
	int pass;
	char *kernel;     /* the mangled name, as the report gives it */
	char *params;     /* text form "lambda=32" */
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
	V_COUNT,      /* another count of numbers than the baseline's */
	V_NOTIME,     /* --time's pattern is not in the output */
};
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
	double x;               /* the searched value (lambda, a count of sets), for plots */
	int verdict;
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
};

/* one kernel of the program and what the timing build saw of it */
struct kern {
	char *mangled, *demangled;
	double ns;              /* time in the kernel over the run, ns (0: unknown) */
	long launches;
	double share;           /* ns / the run's wall time */
	int hot;
};

/* one search over one knob, for the table, the SVG and the summary */
struct curve {
	char *kernel;           /* demangled */
	const char *pass;
	const char *how;        /* "heu", "linear", "exhaustive", "mode 1" ... */
	struct trial **t;       /* the trials of this search, in the order run */
	int n;
	struct trial *best;     /* NULL: nothing met the QoS */
	int runs;               /* trials it built and ran (the cache's not counted) */
};

enum { S_HEU, S_LINEAR, S_EXHAUSTIVE };   /* --search */
enum { O_TEXT, O_F32, O_F64 };            /* --output-type */

struct tuner {
	/* options */
	const char *build, *run, *output, *timepat, *launcher, *kernels;
	const char *policy, *profile, *svg, *workdir, *ideal, *binary, *transform;
	int otype, metric, higher, runs, jobs, bjobs, search, step, lmax, mode, dryrun, keep, shadow;
	double qos, perf, minshare, mingain, slow;   /* minshare, mingain, perf: % */
	regex_t re;
	/* state */
	struct trial *base, *idealt;
	struct trial **t;       /* every trial, the cache of settings */
	int nt, cap;
	struct kern *k;
	int nk;
	struct curve **c;
	int nc, capc;
	int ntrials;            /* trials built and run, the baseline's included */
	int left;               /* trials the search in progress may still run, after
	                         * the batch being run (-1: not known) */
	int after;              /* trials of the batch after those being run */
	/* build and run trials (trial.c's trials_run; tests put a model here) */
	void (*eval)(struct tuner *tu, struct trial **t, int n);
	void *arg;              /* for eval */
};

/* setting.c */
void setting_add(struct setting *s, int pass, const char *kernel, const char *params);
struct setting setting_copy(const struct setting *s);
void setting_release(struct setting *s);
char *setting_env(const struct setting *s);       /* "off;sfu:lambda=32,kernels=k" */
char *setting_words(const struct setting *s, const struct kern *k, int nk);
/* the trial of s: from the cache, or new (not yet run) */
struct trial *trial_for(struct tuner *tu, const struct setting *s, double x);
/* build and run those of t[] that have not run yet; with --jobs, in parallel */
void tuner_eval(struct tuner *tu, struct trial **t, int n);
struct curve *curve_new(struct tuner *tu, const char *kernel, const char *pass, const char *how);
void curve_add(struct curve *c, struct trial *t);

/* trial.c */
/* build, run and compare: the real evaluator */
void trials_run(struct tuner *tu, struct trial **t, int n);
void progress(const struct tuner *tu, const struct trial *t, const char *left);
/* run cmd under sh with MPCC_SET=set (NULL: unset) and env pairs; 0 or the
 * exit status / 128+signal; *wall in seconds; limit > 0 kills it after that
 * many seconds (then returns -1) */
int shell(const char *cmd, const char *const *env, const char *out, const char *err,
          double limit, double *wall);

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

/* kernels.c */
/* every kernel and its share of the run, from a build with the shadow
 * pass's timers; marks the hot ones; prints the list */
void find_kernels(struct tuner *tu);
/* the shadow build: each f64 op's error total, by statement index, for kernel */
struct optotal {
	long ins;               /* statement index in the kernel as nvcc wrote it */
	double err;             /* sum of |v64 - v32| / |v64| over every thread */
	double count;           /* executions */
	char *op;
};
int shadow_totals(struct tuner *tu, const char *kernel, struct optotal **out);

/* search.c */
/* the percentage of the ideal speed-up (003, Eq. 3) that t reaches */
double ofideal(const struct tuner *tu, const struct trial *t);
struct trial *search_sfu(struct tuner *tu, const struct setting *base, const struct kern *k);
struct trial *search_fiset(struct tuner *tu, const struct setting *base, const struct kern *k);
struct trial *search_half2(struct tuner *tu, const struct setting *base, const struct kern *k);
struct trial *search_auto(struct tuner *tu);
/* the fastest trial meeting the QoS among t[] (NULL if none) */
struct trial *fastest(const struct tuner *tu, struct trial **t, int n);

/* profile.c */
/* the YAML of profile name for setting s (rules with the kernels' names) */
char *profile_yaml(const struct setting *s, const struct kern *k, int nk, const char *name,
                   const char *indent);
/* put profile name into the policy file path (created if missing): its
 * other bytes unchanged. 0, or -1 after a message. */
int profile_write(const char *path, const char *name, const struct setting *s,
                  const struct kern *k, int nk);
/* the text of a policy with profile name (for s) replaced or added, every
 * other byte as it was (malloc'd); NULL with *why (malloc'd) if the file
 * cannot be edited that way */
char *profile_edit(const char *text, size_t len, const char *name, const struct setting *s,
                   const struct kern *k, int nk, char **why);

/* svg.c */
int svg_write(const struct tuner *tu, const char *path);

#endif
