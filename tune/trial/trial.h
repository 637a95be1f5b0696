/* trial.h: one trial, built, run and judged (tune.h): the pool starts
 * its processes, this room says what they are and what they gave. */
#ifndef MPCC_TUNE_TRIAL_H
#define MPCC_TUNE_TRIAL_H

#include "tune/session/session.h"

/* judge.c */
/* the verdict of a trial whose runs all finished */
void trial_judge(struct tuner *tu, struct trial *t);
/* the last lines of a file, indented, for messages (malloc'd) */
char *lastlines(const char *path, int n);

/* run.c */
/* the figure of merit of --time in text: 0, or -1 if none */
int fom(const struct tuner *tu, const char *text, double *v);
/* after one run: its time, and for the first its output; -1 if it failed */
int trial_ran(struct tuner *tu, struct trial *t, int run, int st, double wall);
/* the runs t takes */
int trial_runs(const struct tuner *tu, const struct trial *t);
/* --run, after the --launcher prefix (malloc'd) */
char *runcmd(const struct tuner *tu);
/* start the program once, as a trial's run is (--launcher, MPCC_TUNE_DIR=dir,
 * CUDA_VISIBLE_DEVICES=gpu unless gpu < 0), stdout and stderr to out and err */
pid_t run_start(struct tuner *tu, const char *dir, int gpu, const char *out, const char *err);
/* start one run of t on GPU gpu (-1: the one it is given) */
pid_t trial_launch(struct tuner *tu, const struct trial *t, int gpu);

/* build.c */
/* t failed with verdict (why malloc'd): -1 */
int trial_fail(struct trial *t, int verdict, char *why);
/* name in t's directory (malloc'd) */
char *trial_path(const struct trial *t, const char *name);
/* s with $MPCC_TUNE_DIR replaced by dir (malloc'd) */
char *tunepath(const char *s, const char *dir);
/* copy the program from to to, executable: 0, or -1 */
int copyprog(const char *from, const char *to);
/* start a build of t's setting (MPCC_SET, MPCC_REPORT=rep,
 * MPCC_TUNE_DIR), its output to log; niced: as the pool's builds are */
pid_t build_start(struct tuner *tu, const struct trial *t, const char *rep, const char *log, int niced);
/* start the build of t: its pid */
pid_t trial_build(struct tuner *tu, struct trial *t);
/* the build of t ended with status st: did it apply the setting? 0, or -1 */
int trial_built(struct tuner *tu, struct trial *t, int st);

#endif
