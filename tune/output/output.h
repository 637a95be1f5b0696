/* output.h: what a session leaves (tune.h): the table on stdout, the
 * profile in .mpcc.yaml, the plots. */
#ifndef MPCC_TUNE_OUTPUT_H
#define MPCC_TUNE_OUTPUT_H

#include "tune/search/search.h"

/* table.c */
/* the trials, the searches, the noise and the confirmation, on stdout */
void table_print(const struct tuner *tu, const struct trial *win, const struct confirmation *cf);
/* the builds' times: the baseline's (every step run) and the trials' */
void table_builds(const struct tuner *tu);
/* how often the model's prediction of a kernel's speed-up was within 20%
 * of the one measured, over the trials that change one kernel */
void table_model(const struct tuner *tu);

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

#endif
