/* pass.h: the passes and the pipeline that the driver's PTX hook calls.
 * A pass is one file with one entry point (STYLE.md, Example 4). */
#ifndef MPCC_PASS_H
#define MPCC_PASS_H

#include "common/util.h"
#include "policies/policy.h"
#include "ptx/ptx.h"

/* What the driver tells the pipeline about one PTX file that cicc wrote and
 * that ptxas and fatbinary will read next. */
struct hook {
	const char *src;       /* the .cu input that produced the PTX */
	const char *arch;      /* "compute_90" */
	const struct profile *prof;  /* effective profile; NULL: identity round trip */
	/* The PTX of the same source from a second cicc run with the fast-math
	 * flags for the approximations in mask (AX_*); NULL if it failed. The
	 * driver owns the file, runs cicc at most once per mask, keeps it under
	 * --keep. */
	const char *(*fastptx)(void *drv, uint mask);
	void *drv;
	const char *report;    /* --mpcc-report file or NULL: one JSON line per kernel and transform */
	int dryrun;            /* --mpcc-dryrun: say what would run, change nothing */
	FILE *explain;         /* --mpcc-explain: print explain_kernel() per entry here, change nothing */
};

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
/* Does the fast body of kernel fn (of the accurate module) need the
 * fast-math cicc run for mask, or are the FP64 rewrites all it can get?
 * Transcendentals and ftz need it; div and sqrt only where fn or a .func it
 * calls holds an f32 div, rcp or sqrt that those flags change; rcp never
 * (no cicc flag). */
int sfu_needs_fast(const Fn *fn, uint mask);
/* "lambda=N,fast=F.ptx,approx=div+sqrt,newton=1,collapse=0|1|2,kernels=GLOB" */
int sfu_params_parse(const char *s, struct sfu_params *p, int *flags, char **fastpath,
                     char **kernels, char **err);
void sfu_stats_json(const struct sfu_stats *st, char *buf, size_t cap);
/* mpcc-opt -p sfu:ARGS: sfu() on every kernel of m that ARGS selects, a
 * note per kernel to msg; -1 after an error in ARGS */
int sfu_opt(Module *m, const char *args, FILE *msg);

/* pipeline.c */
/* Rewrite the PTX file at path in place with the transforms that h->prof
 * selects. 0: written (possibly unchanged); -1: the file is left as it was
 * and a reason was printed (the driver then goes on with nvcc's PTX). */
int pipeline(const char *path, const struct hook *h);
/* The fast-math cicc runs that h->fastptx will surely be asked for on src
 * whatever its kernels are called: bit M for approximation mask M of each
 * sfu rule whose files globs match src and that approximates
 * transcendentals or flushes denormals. The driver starts them alongside
 * the accurate cicc; other masks are run on demand, and only when
 * sfu_needs_fast() says the kernel has something they change. */
uint pipeline_fastmasks(const struct profile *p, const char *src);

#endif
