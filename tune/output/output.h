/* output.h: what a session leaves (tune.h): the table on stdout, the
 * profile in .mpcc.yaml, the plots; and --measure's rules of facts. */
#ifndef MPCC_TUNE_OUTPUT_H
#define MPCC_TUNE_OUTPUT_H

#include "tune/answer/answer.h"

/* facts.c */
/* --measure, once the baseline and the timing build (timed) have run: the
 * run's cost, and the facts of each kernel merged into the profile as
 * rules on the kernels the passes that take them can decide on; the exit
 * status */
int measure_facts(struct tuner *tu, const struct trial *timed);

/* table.c */
/* the trials, the searches, the noise and the confirmation, on stdout */
void table_print(const struct tuner *tu, const struct trial *win, const struct confirmation *cf);
/* "trial builds: median 0.61 s, 0.09x the full build (6.71 s, the
 * baseline's)", and where a trial's time goes: its steps, runs, compare */
void table_builds(const struct tuner *tu);
/* how often the model's prediction of a kernel's speed-up was within 20%
 * of the one measured, over the trials that change one kernel */
void table_model(const struct tuner *tu);
/* the units (struct unit) of each pass on each kernel that the winner's
 * build chose, by id: "store on 'k': param 1, 4 narrowed (of 4)" */
void table_units(const struct tuner *tu, const struct trial *win);

/* svg.c */
int svg_write(const struct tuner *tu, const struct trial *win, const char *path);
/* round axis ticks in 1-2-5 steps covering [lo, hi]: their count (at most max) */
int ticks(double lo, double hi, int max, double *t);

/* profile.c */
/* one kernel's facts for one pass (--measure), a rule of the profile, and
 * what became of it */
struct factrule {
	const struct kern *k;
	int pass;
	char *params;           /* kern_facts(k, pass, W_YAML): "warps: 16, trips: [64, 1.5]" */
	char *note;             /* the rule's comment after the kernel's name */
	char *how;              /* set by profile_facts(): "a new rule", "merged into the
	                         * rule at f:l:c", or why none */
	int skip;               /* the profile switches the pass off for the kernel: no rule */
};
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
/* the policy text (of the file path) with the facts merged into the rules
 * of profile name: where the rule that gives a kernel the pass is the
 * kernel's own (its one kernels glob names it), only the parameters the
 * facts are replaced in it; else a rule is added last, with the parameters
 * of the rule that gave it the pass (if any) and the facts. A profile with
 * no rule, or none, is written whole. Every other byte stays. malloc'd;
 * NULL with *why; *nrule: the profile's rules after it */
char *profile_merge(const char *path, const char *text, size_t len, const char *name,
                    struct factrule *f, int nf, int *nrule, char **why);
/* profile_merge() on the file path (created if missing), loaded before it
 * is written: 0, or -1 after a message; dry: print it on stdout instead */
int profile_facts(const char *path, const char *name, struct factrule *f, int nf, int dry);

#endif
