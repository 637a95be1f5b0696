/* answer.h: the answer (tune.h): of every trial of the session, the
 * fastest within the QoS whose gain is beyond the noise, confirmed
 * against the baseline in interleaved runs; and what that confirmation
 * and the profile's check take, which the budget keeps aside. */
#ifndef MPCC_TUNE_ANSWER_H
#define MPCC_TUNE_ANSWER_H

#include "tune/search/search.h"

/* the winner's interleaved runs against the baseline (confirm.c) */
struct confirmation {
	int rounds;             /* rounds run */
	double median, lo, hi;  /* the rounds' speed-ups: median and range */
	double basespread;      /* the spread of the baseline's runs in the rounds */
	int ok;                 /* the median beats the noise */
};

/* choose.c */
/* every eligible trial of the session that beats the baseline, fastest
 * first, except that of those within the noise of the fastest the one with
 * the fewest knobs comes first; their count */
int winners(const struct tuner *tu, struct trial ***out);
/* the answer: the fastest trial of the session within the QoS that beats
 * the noise and is confirmed in interleaved runs (up to three tried, as
 * --budget allows); NULL with *note saying why none */
struct trial *choose(struct tuner *tu, struct confirmation *cf, char **note);
/* what the confirmation of one trial and the profile's check take, for
 * the budget to keep aside (budget_start()) */
struct need answer_needs(const struct tuner *tu);

/* confirm.c */
/* run the baseline and t in turn, --confirm rounds, and say whether t's
 * gain holds; prints the rounds and the verdict */
void confirm(struct tuner *tu, struct trial *t, struct confirmation *c);
/* the runs and builds confirm() takes */
struct need confirm_needs(const struct tuner *tu);

#endif
