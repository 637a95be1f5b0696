/* search.h: the searches (tune.h): what they try and what they keep;
 * they ask the pool for trials. */
#ifndef MPCC_TUNE_SEARCH_H
#define MPCC_TUNE_SEARCH_H

#include "tune/pool/pool.h"

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

/* the searches' own state (curve.c) */
struct searches {
	struct curve **c;       /* every search so far */
	int nc, capc;
	int left;               /* trials the search in progress may still run, after
	                         * the batch being run (-1: not known) */
	int later;              /* trials the searches after it will likely run */
	/* the guesses of the searches to come, made again from what is known
	 * before each batch (auto.c's, called by search_ask()); NULL: none */
	void (*ahead)(struct tuner *tu);
};

/* auto.c */
/* one pass (--transform) on every hot kernel in turn, each on what the
 * earlier kept; or, with auto, each pass's advice from a probe build, then
 * the (kernel, pass) pairs greedily. With --jobs N and each trial its own
 * program, the kernels' searches side by side, each on the baseline, and
 * their winners composed. Every trial stays a candidate. */
void search_all(struct tuner *tu);

/* compose.c */
/* the winners of searches run side by side (parts[i], each a setting of
 * one kernel's knobs on the baseline), in one trial of all's knobs (theirs,
 * in the order the searches would have run one after another): where it
 * misses the QoS or the speed its parts promise, the part that costs most
 * is dropped and the rest tried, while two are left. The trial that
 * holds, or NULL */
struct trial *compose(struct tuner *tu, const struct setting *all, struct trial **parts, int n);

/* search.c */
/* the estimate of trials a search of pass will run */
int planned(const struct tuner *tu, int pass);
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
 * instrumentation pass's timers; marks the hot ones; prints the list. The
 * timing build's trial */
struct trial *find_kernels(struct tuner *tu);
/* the timing build's trial, asked for with the baseline: it builds once
 * the baseline's build is done and runs while the baseline runs, on
 * another GPU where there is one */
struct trial *timing_build(struct tuner *tu);
/* --measure, timed the plain timing build's trial: the kernel's speed-up
 * with each candidate of the pass whose schema takes the fact F_MEASURED
 * (its defaults, and its tuning's strongest: fiset's sets=auto and
 * sets=all), each a timing build with the pass on every hot kernel, and
 * the noise, from the plain timing build run again: into each hot kernel's
 * F_MEASURED, [defaults, strongest, noise] (1 for a candidate that left
 * the kernel as it was), where the times are its own (not beside other
 * kernels) and a candidate changed it; printed, each kernel left out with
 * why. How many kernels have it */
int measure_candidates(struct tuner *tu, const struct trial *timed);
/* the model checked on the program's own kernels (issue 49): for each pass
 * tuned that predicts a kernel's speed-up, a timing build with its widest
 * setting (its tuning's fallback, else its strongest) on every hot kernel,
 * not yet run: into t[], how many (at most max) */
int model_twins(struct tuner *tu, struct trial **t, int max);
/* once they ran: each hot kernel a twin changed, its time its own, gets
 * the pass's prediction and its own timed speed-up (struct kern's
 * predicted and timed) */
void model_check(struct tuner *tu, struct trial *const *t, int n);
/* the shadow build: each f64 op's error total, by statement index, for kernel */
struct optotal {
	long ins;               /* statement index in the kernel as nvcc wrote it */
	double err;             /* sum of |v64 - v32| / |v64| over every thread */
	double count;           /* executions */
	char *op;
};
/* *sampled: its stats list fewer ops than the kernel has: a sample */
int shadow_totals(struct tuner *tu, const char *kernel, struct optotal **out, int *sampled);


/* curve.c */
/* build and run those of t[] that have not run yet (tuner_eval()), the
 * guesses of the searches to come made again first (the searches' ahead) */
void search_ask(struct tuner *tu, struct trial **t, int n);
/* the searches' state, made at its first use */
struct searches *searches_of(struct tuner *tu);
/* the searches so far, into *c: their count */
int search_curves(const struct tuner *tu, struct curve *const **c);
/* the trials the search in progress may still run (-1: not known), and
 * those the searches after it will likely run, as the session is told
 * (session_plan()); search_left() returns what it replaces */
int search_left(struct tuner *tu, int left);
void search_later(struct tuner *tu, int later);
/* the trial of base with one more knob, or with its knob of pass on kernel set anew */
struct trial *withknob(struct tuner *tu, const struct setting *base, int pass, const char *kernel,
                       const char *params, double x);
struct curve *curve_new(struct tuner *tu, const char *kernel, int pass, const char *how);
void curve_add(struct curve *c, struct trial *t);
void curve_stop(struct curve *c, char *why);     /* takes why (malloc'd); prints it */
/* t did not run because the search must stop (halted()): stop c, saying why */
int curve_cut(struct tuner *tu, struct curve *c, const struct trial *t);

#endif
