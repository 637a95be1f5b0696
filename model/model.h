/* model.h: the machine model. What a target's SM does per clock, and how
 * long a kernel's PTX takes there, asked by every pass that decides by cost
 * (doc/DESIGN.md, "What each op costs"). LLVM keeps TargetTransformInfo apart
 * from its transforms for the same reason: every pass asks one model, so
 * mending the model mends every decision.
 *
 *   target.c   the rows: thread-instructions per clock per SM by pipe,
 *              resident warps, DRAM bandwidth, each with where it comes from
 *   cost.c     one PTX instruction on a target: its SASS by pipe, issue
 *              slots, latency, DRAM bytes
 *   time.c     a kernel on a target: each warp waits on its own dependences
 *              and queues for its scheduler's issue port, pipes and DRAM
 *              (Mean Value Analysis), as many warps as its registers allow
 *   facts.c    what a run measured of a kernel: the one list of facts that
 *              every layer expands (facts.h, apart so that the policy
 *              layer may read it without the IR)
 *   bound.c    a throughput bound from work counted by pipe, and the work
 *              pairing adds (half2's advice)
 *
 * A kernel is modelled as written, or as a variant: some f64 operations
 * run in their f32 form, some statements cost nothing (folded), and
 * conversions are added beside others (fiset's lowering).
 *
 * Layers: transforms -> model -> ptx -> common. */
#ifndef MPCC_MODEL_H
#define MPCC_MODEL_H

#include "model/facts.h"
#include "ptx/ptx.h"

/* target.c */
/* What one SM of a target does per clock: thread-instructions per clock
 * per SM (an f16x2 instruction counts once). */
struct target {
	int sm;             /* 90 */
	int maxwarps;       /* resident warps per SM */
	double ffma;        /* f32 add/mul/fma */
	double dfma;        /* f64 add/mul/fma */
	double hfma2;       /* f16x2 (and bf16x2) add/mul/fma instructions */
	double mufu;        /* rcp rsqrt ex2 lg2 sin cos (XU pipe) */
	double f2f;         /* conversions to or from f64 (XU pipe on sm_90) */
	double alu;         /* compare, select, min/max, logic, integer add (FSETP FSEL FMNMX LOP3) */
	double cvt16;       /* f16 packs and unpacks (F2FP, PRMT) */
	double issue;       /* instructions of any kind: 4 schedulers x 32 lanes */
	double bw;          /* DRAM bytes per clock per SM (datasheet; sm_90 measured) */
	const char *source; /* where the row's figures come from */
};
/* the row for sm (90; a newer minor version takes its major's last row),
 * NULL if unknown */
const struct target *target(int sm);
/* the most resident warps per SM of any target of sm's major version or
 * newer (where a PTX for sm may be JIT-compiled); 64 if none is known */
int mostwarps(int sm);
/* warps of a kernel an SM of sm_NN holds, as its registers a thread allow:
 * 64K registers, given out 256 (8 a thread) a warp at a time */
int regwarps(int sm, int regs);
/* the most registers a thread ptxas gives fn: 255, .maxnreg, or what
 * .minnctapersm blocks of .maxntid (or .reqntid) threads leave of an SM's
 * 64K (ptxas spills the rest: __launch_bounds__) */
int capregs(const Fn *fn);
/* "compute_90", "sm_90a", "sm_90" -> 90; -1 if not an arch name */
int archnum(const char *arch);

/* cost.c */
/* classes of floating-point operations that have an f64 and an f32 form
 * of the same meaning, costed alike */
enum { CADD, CDIV, CSQRT, CRCP, CRSQRT, CMIN, CSETP, CSELP, CMOV, CRND, CCVT, NCLASS };
/* the class of f64 operation i, or -1 (not f64, or no f32 form: a
 * division that does not round to nearest, zero or an infinity is none) */
int f64class(const Ins *i);
/* does the class compute (not mov or selp, which only move values)? */
int arithclass(int cls);

/* time.c */
/* the trips a loop is taken to run per entry where neither a run measured
 * them nor a constant bound counts them */
#define LOOPGUESS 64.0
/* a conversion added between f64 and f32: before or after statement at */
struct cast {
	uint at;
	int after;
	uint reg;           /* the f64 register converted */
};
/* how a kernel differs from its PTX as written; a NULL array: nowhere */
struct variant {
	const uchar *f32;   /* per statement: an f64 operation run in its f32 form */
	const uchar *gone;  /* per statement: costs nothing (dropped, or folded into a mov) */
	const uchar *low;   /* per register: an f64 value held in one 32-bit register */
	const struct cast *cast;
	int ncast;
	/* as ptxas compiled it (0: not known): the registers a thread, which
	 * decide how many warps an SM holds where liveness errs both ways
	 * (bench/results/2026-11-29-h200-regs.md), and the bytes a thread
	 * spills and reloads, each a local access a warp waits on */
	int regs;
	int spill[2];       /* bytes stored, bytes loaded */
};
/* a kernel prepared for the model: how often each statement runs, each
 * statement's registers, liveness; in the module's arena */
struct kmodel;
/* needs cfg loops defuse of fn, which must not change while km is used;
 * f: what a run measured of it (NULL: nothing; F_WARPS, the resident warps
 * per SM its launches give, 0: as many as its registers allow); freq: how
 * often each block runs (blockfreq(), from F_TRIPS where measured) */
struct kmodel *kmodel(Fn *fn, const struct facts *f, const double *freq);
/* the kernel's time on t, clocks of one SM scheduler per warp: tm[0] the
 * whole, tm[1] with DRAM left out (its arithmetic); v NULL: as written */
void kmodel_time(struct kmodel *km, const struct target *t, const struct variant *v, double tm[2]);

/* bound.c */
/* work by pipe: instructions (and DRAM bytes), each weighted by how often
 * it runs */
struct pipes {
	double fp32;    /* f32 add/mul/fma */
	double x2;      /* f16x2/bf16x2 arithmetic */
	double mufu;    /* ex2 lg2 sin cos rcp rsqrt and the like */
	double cvt;     /* f16 packs and unpacks */
	double other;   /* integer, compare, move, branch, load/store issue */
	double bytes;   /* global and local memory, loads and stores */
};
/* add what f32, f64 or integer instruction i issues, w times */
void pipes_add(struct pipes *c, const Ins *i, double w);
/* add the DRAM bytes of load, store or atomic i (dram_bytes()), w times */
void pipes_mem(struct pipes *c, const Ins *i, double w);
/* What pairing logical threads adds, w times each. lanes: what a paired
 * register holds; sm: the PTX's .target (what ptxas may use) */
enum { LN_F16, LN_BF16, LN_F32 };
/* an x2 instruction i; emul: bf16 add, sub and mul are emulated (no bf16x2
 * form before sm_90 and PTX 7.8) */
void pipes_x2(struct pipes *c, const Ins *i, int emul, double w);
void pipes_x2sel(struct pipes *c, double w);   /* a selp of packed values */
void pipes_twin(struct pipes *c, double w);    /* an f32 value into both lanes */
void pipes_pack(struct pipes *c, int lanes, int sm, double w);   /* two f32 into one */
void pipes_unpack(struct pipes *c, int lanes, double w);         /* and back */
void pipes_guard(struct pipes *c, double w);   /* a guard anded with the lane mask */
/* a block that runs under a lane mask, dispatching to next blocks */
void pipes_dispatch(struct pipes *c, int next, double w);
void pipes_prologue(struct pipes *c);           /* once a kernel: the lanes' setup */
/* DRAM bytes one copy of load, store or atomic i moves (shared, param and
 * const memory stay on the SM; 0 for other instructions) */
double dram_bytes(const Ins *i);
/* clocks per SM of work c on t: its busiest resource (issue, a pipe or
 * DRAM), named in *bound if bound is not NULL */
double pipes_time(const struct pipes *c, const struct target *t, const char **bound);
/* what pairing logical threads gains on a kernel bound by DRAM that keeps
 * its resident warps: not bytes (storage stays f32) but more of them in
 * flight a warp, and the index work shared (measured on sm_90) */
double pairing_memgain(const struct target *t);
/* where a block's frequency comes from: the weakest source among its loops
 * (FQ_ENTRY: in no loop, it runs once a thread) */
enum { FQ_ENTRY, FQ_MEASURED, FQ_COUNTED, FQ_GUESSED };
/* How often each block of fn runs per entry: the product of its loops'
 * trips. A loop's trips are trips[i] where a run measured them (i its
 * place in looporder(); trips NULL: none measured, else ntrips ==
 * fn->nloop), else its count where it counts to a constant, else guess.
 * 0 for an unreachable block. from (NULL, or a block each): the FQ_ source.
 * needs cfg loops defuse; in the module's arena. One function for every
 * pass's weights. */
double *blockfreq(Fn *fn, const double *trips, int ntrips, double guess, uchar *from);

#endif
