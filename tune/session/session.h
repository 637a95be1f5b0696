/* session.h: the session, the lowest room of tune/ (tune.h): what a
 * session may spend, Ctrl-C, and the progress lines. It calls only
 * tune.h's files. The builds and runs are common/spawn.h's: each a process
 * group of its own in spawn's table, started (spawn_start()) only by the
 * pool (pool/) through trial/, waited for in the pool's one loop
 * (spawn_any()), stopped by spawn_stop() or, all of them, killall(). */
#ifndef MPCC_TUNE_SESSION_H
#define MPCC_TUNE_SESSION_H

#include "common/spawn.h"
#include "tune/tune.h"

/* progress.c */
/* one line per trial: its verdict, the trials done and planned, the time,
 * the ETA and the best so far */
void progress(const struct tuner *tu, const struct trial *t);

/* budget.c */
/* "90s", "15m", "2h", "1h30m", or seconds: seconds; -1 if not a duration */
double duration(const char *s);
/* the seconds a trial takes, build and runs, from those that ran */
double trialcost(const struct tuner *tu);
/* set the searches' end (tu->deadline), as the builds so far make the reserve */
void budget_update(struct tuner *tu);
/* after the baseline: set the time kept for the confirmation and the check aside */
void budget_start(struct tuner *tu);
/* a search of weight w starts; rest: the weights of it and the searches after
 * it. It may spend its share of the time left to the searches */
void budget_search(struct tuner *tu, double w, double rest);
/* is the budget spent: would need more seconds from now pass end (a time
 * of now(); 0: no end)? The only function of tune/ that says so */
int spent(double end, double need);
/* the trials that ran */
int tried(const struct tuner *tu);
/* must the search in progress stop (the budget, --max-trials, Ctrl-C)? why
 * (its own share spent, or tu->halt), NULL if not */
const char *halted(struct tuner *tu);
/* the estimate of trials a search of pass will run */
int planned(const struct tuner *tu, int pass);

/* signal.c */
/* Ctrl-C: the first stops the searches, the second the session; SIGTERM
 * and SIGHUP stop what runs and the session */
void catchint(void);
extern volatile sig_atomic_t interrupts;
extern volatile sig_atomic_t writing;   /* the profile is being written: said at a second Ctrl-C */
/* stop every build and run under way, common/spawn.c's live groups (the
 * second Ctrl-C, SIGTERM, atexit(); from a signal handler too) */
void killall(void);

#endif
