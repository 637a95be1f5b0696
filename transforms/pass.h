/* pass.h: the passes and the pipeline that the driver's PTX hook calls.
 * A pass is one file with one entry point (STYLE.md, Example 4). */
#ifndef MPCC_PASS_H
#define MPCC_PASS_H

#include "common/util.h"
#include "policies/policy.h"

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

/* pipeline.c */
/* Rewrite the PTX file at path in place with the transforms that h->prof
 * selects. 0: written (possibly unchanged); -1: the file is left as it was
 * and a reason was printed (the driver then goes on with nvcc's PTX). */
int pipeline(const char *path, const struct hook *h);

#endif
