/* cost.h: what the model's own files share (cost.c: one instruction on a
 * target; time.c: a kernel on a target). Not for the passes: they ask
 * model.h. */
#ifndef MPCC_MODEL_COST_H
#define MPCC_MODEL_COST_H

#include "model/model.h"

/* the resources a warp queues for on its SM scheduler (a quarter of the
 * SM): the issue port, the pipes, the long f64 and f32 sequences at their
 * measured rate, DRAM bandwidth (last, so the arithmetic alone is the
 * first NRES - 1) */
enum { R_ISSUE, R_FMA, R_DFMA, R_XU, R_ALU, R_LAT, R_MEM, NRES };
struct load {
	double r[NRES];    /* clocks of one SM per thread */
};

/* what one instruction takes in one warp's own stream: issue slots, and
 * clocks from its issue until its result is ready */
struct step {
	double slots, lat;
};

struct kmodel {
	Fn *fn;
	uint n;              /* fn->nins when prepared */
	int *depth;          /* per statement: loop depth */
	double *w;           /* per statement: how often it runs (its block's freq) */
	const double *freq;  /* per block: how often it runs (blockfreq()) */
	uint *rdo, *rd;      /* the registers statement k reads: rd[rdo[k] .. rdo[k + 1]) */
	uint *wro, *wr;      /* and writes */
	uchar *esc;          /* per statement: a register it writes is read in another block */
	uchar *stream;       /* per statement: a load in a loop that reads new bytes each trip */
	Live *live;          /* any write kills */
	struct facts facts;  /* kmodel()'s f: F_WARPS, the resident warps per SM the
	                      * launches give; 0: as the registers allow (the
	                      * launch fills the GPU) */
	/* scratch of kmodel_time(), reused */
	struct step *st;
	uchar *gone, *unit;
	double *mem, *best, *rdy;
	uint *stamp;
	int *first, *next;
	int capnext;
};

/* cost.c */
/* fill km->stream (needs its operands) */
void streams(struct kmodel *km);
/* an f64 <-> f32 conversion, w times: its load, into l, and its step */
struct step addf2f(const struct target *t, struct load *l, double w);
/* statement k (f32: an f64 operation in its f32 form) */
struct step inscost(const struct kmodel *km, const struct target *t, uint k, int f32,
                    struct load *l);
double f2flat(void);     /* clocks from a conversion's issue to its result */
/* what spilled registers cost a thread: st and ld bytes of local stores
 * and reloads (4 a thread each, once a thread), into l; the clocks a warp
 * waits on the reloads */
double addspill(const struct target *t, struct load *l, int st, int ld);

#endif
