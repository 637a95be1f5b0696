/* sfu.h: the sfu pass (sfu.c). These prototypes belong in pass.h; they live
 * here until the integrator moves them (see NEEDS-FROM-PTX.md). */
#ifndef MPCC_SFU_H
#define MPCC_SFU_H

#include <stdio.h>
#include "policies/policy.h"
#include "ptx/ptx.h"

/* what the fast body approximates, by kind: the f32 approx instructions it
 * holds and the FP64 operations the pass rewrote */
struct sfu_stats {
	int trans, div, sqrt, rcp;              /* ex2/lg2/sin/cos/tanh, div, (r)sqrt, rcp .approx */
	int f64div, f64rcp, f64sqrt, f64rsqrt;  /* FP64 rewrites */
};

/* keep only the body every warp takes: SFU_COLLAPSE0 at lambda 0 (the
 * module is left as it was; the default: on an H100 the unused fast body cost
 * Black-Scholes 1.4-2% at lambda 0, over the 1% the issue allows), and
 * SFU_COLLAPSE64 at lambda 64 (off by default: there the two-body kernel
 * measured as fast as or faster than the fast-math one, bilateral by 2%) */
enum { SFU_COLLAPSE0 = 1, SFU_COLLAPSE64 = 2 };

/* sfu.c */
/* Merge kernel fn of m with its twin in fast (NULL: a copy of fn, FP64
 * rewrites only) into one warp-partitioned entry; the rest of m is left as
 * it was. 0: done (at lambda 0 with SFU_COLLAPSE0: m unchanged); -1: left
 * alone, *why says why.
 * needs: m and fast from the same source and cicc; breaks: cfg defuse of fn */
int sfu(Module *m, Fn *fn, Module *fast, const struct sfu_params *p, int flags,
        struct sfu_stats *st, const char **why);
/* "lambda=N,fast=F.ptx,approx=div+sqrt,newton=1,collapse=0|1|2,kernels=GLOB" */
int sfu_params_parse(const char *s, struct sfu_params *p, int *flags, char **fastpath,
                     char **kernels, char **err);
void sfu_params_json(const struct sfu_params *p, char *buf, size_t cap);
void sfu_stats_json(const struct sfu_stats *st, char *buf, size_t cap);
/* mpcc-opt -p sfu:ARGS: sfu on every kernel of the PTX text in that ARGS
 * selects, notes to msg; the new text (malloc'd) */
char *sfu_opt(const char *args, const char *in, FILE *msg);
struct hook;
/* the driver's hook for one kernel whose rule has an sfu block: sfu() with
 * h->fastptx's module (parsed once per mask into cache[AX_ALL + 1]) and one
 * report line. 0 if the kernel was transformed. */
int sfu_kernel(Module *m, Fn *fn, const struct sfu_params *p, const struct hook *h,
               Module **cache);
/* the same over a whole PTX text: every kernel whose rule has sfu; the new
 * text (malloc'd), or NULL if nothing changed */
char *sfu_module(const char *text, const struct hook *h);

#endif
