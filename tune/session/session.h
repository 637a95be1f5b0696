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

/* what the budget keeps aside for what follows the searches (the
 * answer's: the confirmation and the profile's check), in runs as long as
 * the baseline's and builds as long as the trials' */
struct need {
	int runs, builds;
};

/* the session's own state (budget.c): what it may still spend, why the
 * searches stop, and what the rooms above tell it (session_running(),
 * session_plan()) for halted() and the progress lines; they change it only
 * through the functions below */
struct session {
	double tsearch;         /* when the searches started (0: not yet) */
	double deadline;        /* no trial starts after it, or runs on past it (0: none) */
	double until;           /* the search in progress starts no trial after it */
	struct need keep;       /* what the confirmation and the check take */
	double reserve;         /* seconds kept for them */
	const char *halt;       /* why every search stops now (NULL: go on) */
	int pending;            /* the pool's trials of the batch being run not done yet */
	int inflight;           /* of them, those that started */
	int left;               /* the trials the search in progress may still run, after
	                         * the batch being run (-1: not known) */
	int later;              /* the trials the searches after it will likely run */
};

/* progress.c */
/* one line per trial: its verdict, the trials done and planned, the time,
 * the ETA and the best so far */
void progress(struct tuner *tu, const struct trial *t);

/* budget.c */
/* the session's state, made at its first use */
struct session *session_of(struct tuner *tu);
/* the pool says how many trials of the batch it runs are not done yet, and
 * how many of them started */
void session_running(struct tuner *tu, int pending, int inflight);
/* the searches say how many trials the search in progress may still run
 * after the batch being run (-1: not known), and the searches after it */
void session_plan(struct tuner *tu, int left, int later);
/* why every search stops now (NULL: they go on) */
const char *session_halt(struct tuner *tu);
/* every search stops now, for why (the first reason given stays) */
void session_stop(struct tuner *tu, const char *why);
/* "90s", "15m", "2h", "1h30m", or seconds: seconds; -1 if not a duration */
double duration(const char *s);
/* the seconds a trial takes, build and runs, from those that ran */
double trialcost(const struct tuner *tu);
/* after the baseline: the searches start, and with --budget the time of
 * keep (the confirmation and the check) is set aside */
void budget_start(struct tuner *tu, struct need keep);
/* the search in progress starts no trial after until (0: its share is
 * the searches' time): set it, and return what it was (strands each keep
 * their own) */
double budget_until(struct tuner *tu, double until);
/* may a trial start now? With the searches under way, one that would end
 * after their end (by the trials so far) may not, and the searches stop */
int budget_maystart(struct tuner *tu);
/* has the searches' time passed, or Ctrl-C stopped them? (then they stop) */
int budget_over(struct tuner *tu);
/* the searches are over: nothing stops what runs now (the confirmation) */
void budget_end(struct tuner *tu);
/* does the time kept for the confirmation and the check still fit in
 * --budget (or is there none)? */
int budget_fits(struct tuner *tu);
/* a search of weight w starts; rest: the weights of it and the searches after
 * it. It may spend its share of the time left to the searches */
void budget_search(struct tuner *tu, double w, double rest);
/* is the budget spent: would need more seconds from now pass end (a time
 * of now(); 0: no end)? The only function of tune/ that says so */
int spent(double end, double need);
/* the trials that ran */
int tried(const struct tuner *tu);
/* must the search in progress stop (the budget, --max-trials, Ctrl-C)? why
 * (its own share spent, or session_halt()), NULL if not */
const char *halted(struct tuner *tu);

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
