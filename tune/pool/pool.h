/* pool.h: the pool, the only room that starts builds and runs (tune.h):
 * the trials the searches ask for and their guesses, the slots and GPUs
 * they take, and the one loop that waits for them. */
#ifndef MPCC_TUNE_POOL_H
#define MPCC_TUNE_POOL_H

#include "tune/trial/trial.h"

/* a trial a search may ask for soon (speculate()): the search in progress
 * guesses with ranks below RANKS, those of the searches to come above */
#define RANKS 100
struct guess {
	struct trial *t;
	int rank;               /* lower: sooner */
	int owner;              /* the strand that guessed it (strand_id()); 0: none */
};

/* the pool's own state (pool.c's pool_of(); pool.c keeps the jobs under
 * way in a table of its own) */
struct pool {
	int ntrials;            /* trials a search asked for, built and run, the baseline's
	                         * included */
	int nguess;             /* trials built and run as guesses (speculate()) */
	struct guess *spec;     /* speculate(): what may be asked for next, soonest first */
	int nspec, capspec;
	/* build and run trials (pool.c's trials_run, unless a test puts a model
	 * here): t[0..asked) before it returns, the rest (guesses) as slots allow */
	void (*eval)(struct tuner *tu, struct trial **t, int n, int asked);
	void *arg;              /* for eval */
	/* strand.c's, while strands wait: eval may return once it says so
	 * (a strand's trials are done), before the others' */
	int (*ready)(struct tuner *tu);
};

/* seconds a run may take over --slow times the baseline's wall time:
 * a short program's time on a loaded machine (parallel tests, a launcher
 * that queues) varies by more than a few times its own */
#define SLACK 1.0

/* ask.c */
/* the GPUs --jobs gives: trials that run at once, guesses a search may make */
int pool_gpus(const struct tuner *tu);
/* may guesses build (trials and builds side by side), and with --jobs 2
 * or more run on a free GPU? */
int guessing(const struct tuner *tu);
/* may two programs run at once, on GPUs 0 and 1, or two GPUs the launcher
 * gives (the confirmation's rounds)? */
int sidebyside(const struct tuner *tu);
/* the trial of s: from the cache, or new (not yet run) */
struct trial *trial_for(struct tuner *tu, const struct setting *s, double x);
/* a new trial of t's setting, not yet run, for a run more in a directory of
 * its own (the cache still gives t for that setting) */
struct trial *trial_again(struct tuner *tu, const struct trial *t);
/* build and run those of t[] that have not run yet (none once the budget is
 * spent: see halted()); slots left free run the guesses of speculate() */
void tuner_eval(struct tuner *tu, struct trial **t, int n);
/* tuner_eval() of t alone: no guess starts beside it */
void tuner_eval_alone(struct tuner *tu, struct trial *t);
/* t may be asked for soon: run it in a slot a batch leaves free (--jobs),
 * the guesses of lower rank first */
void speculate(struct tuner *tu, struct trial *t, int rank);
/* forget the guesses of rank in [lo, hi) (those of a search that moved on:
 * [0, RANKS); of the searches to come: [RANKS, INT_MAX); every guess); in
 * a strand, only its own */
void speculate_clear(struct tuner *tu, int lo, int hi);
/* do trials run on several GPUs at once (--jobs 2 or more, each trial its
 * own program)? Then searches may run side by side (strands()) */
int pool_apart(const struct tuner *tu);

/* strand.c */
/* run fn(tu, arg[i]) for each i < n side by side, each in a strand of its
 * own (a thread, one running at a time), and return once all returned:
 * the trials they ask for run together (tuner_eval()) */
void strands(struct tuner *tu, int n, void (*fn)(struct tuner *tu, void *arg), void **arg);
/* the strand that runs (from 1), 0: none */
int strand_id(void);
/* in a strand: wait until the pool has run t[0..asked) (and t[asked..n),
 * guesses, as slots allow), with what the other strands asked for */
void strand_wait(struct tuner *tu, struct trial **t, int n, int asked);

/* side.c */
/* a process started beside the trials, for pool_wait() */
struct side {
	pid_t pid;
	double t0;              /* its start (now()) */
	double limit;           /* seconds it may take (0: no limit) */
	int st;                 /* its exit status; -1: killed over the limit */
	double wall;            /* seconds it took */
};
/* run cmd under sh with env pairs (NAME=VALUE; NAME= unsets); 0 or the
 * exit status / 128+signal; *wall in seconds; limit > 0 kills it after that
 * many seconds (then returns -1) */
int shell(struct tuner *tu, const char *cmd, const char *const *env, const char *out,
          const char *err, double limit, double *wall);
/* the program once, as a trial's run is (launcher, MPCC_TUNE_DIR=dir),
 * stdout and stderr to out and err: its exit status, *v its time (figure
 * of merit or wall); -1 if it failed, with *why */
int run_once(struct tuner *tu, const char *dir, const char *out, const char *err, double *v,
             char **why);
/* run_once() of n programs at once, the i-th in dir[i] on GPU i (with
 * --jobs): each its *v and *why; -1 if any failed */
int run_side(struct tuner *tu, int n, char *const *dir, char *const *out, char *const *err,
             double *v, char **why);
/* under the launcher, n pairs of runs at once: the programs in dir[2i]
 * and dir[2i + 1] in turn, as one command of the launcher (a script that
 * times each), so that a pair shares the GPU it gives: each run's *v and
 * *why; -1 if any failed */
int run_pairs(struct tuner *tu, int n, char *const *dir, char *const *out, char *const *err,
              double *v, char **why);
/* build t's setting again (with its environment, the report to rep) */
int build_once(struct tuner *tu, const struct trial *t, const char *rep, const char *log);

/* pool.c */
/* the pool's state, made at its first use */
struct pool *pool_of(struct tuner *tu);
/* the trials a search asked for that were built and run, the baseline's
 * included; the guesses built and run that none asked for */
int pool_asked(const struct tuner *tu);
int pool_guessed(const struct tuner *tu);
/* build, run and compare: the real evaluator. Builds go --build-jobs at a
 * time when --build names $MPCC_TUNE_DIR, else one at a time; runs --jobs
 * at a time (one GPU each) when --run names $MPCC_TUNE_DIR and each trial
 * has its own program (its directory, or its copy of --binary) */
void trials_run(struct tuner *tu, struct trial **t, int n, int asked);
/* stop the guesses still under way and forget them (the searches ended) */
void trials_drop(struct tuner *tu);
/* is t in the pool and not done (waiting, building, running)? */
int pool_pending(const struct trial *t);
/* the GPU a run in slot sees (CUDA_VISIBLE_DEVICES), -1: none set */
int pool_gpu(const struct tuner *tu, int slot);
/* wait for the processes of s[] (their end into each), in the pool's one
 * waiting loop; no budget or Ctrl-C stops them */
void pool_wait(struct tuner *tu, struct side *s, int n);

#endif
