/* pass.h: the passes, their one table, and the pipeline that the driver's
 * PTX hook calls.
 *
 * A pass is one file with one entry in the table of passes.c (STYLE.md,
 * Example 4; DESIGN.md, "Adding a pass"): its schema (the parameters, which
 * the policy layer reads from .mpcc.yaml rules and mpcc-opt from -p
 * NAME:key=value,...), what it does to one kernel, and optionally what it
 * says for --mpcc-explain and dumps for mpcc-opt -d NAME. The pipeline, the
 * report, explain and mpcc-opt all walk the table; nothing else names a pass.
 *
 * Layers: driver -> transforms -> policies -> ptx -> common. This header may
 * include policies/ and ptx/; nothing below includes it. */
#ifndef MPCC_PASS_H
#define MPCC_PASS_H

#include "common/util.h"
#include "policies/policy.h"
#include "ptx/ptx.h"

/* what the fast path of sfu may approximate: the bits of its 'approx' set */
enum {
	AX_TRANS = 1 << 0,  /* sin cos exp log ... through the SFU (cicc -fast-math) */
	AX_DIV = 1 << 1,    /* f32 div.approx/div.full (cicc -prec_div=0), f64 div through rcp.approx */
	AX_SQRT = 1 << 2,   /* sqrt.approx (cicc -prec_sqrt=0), f64 sqrt through rsqrt.approx */
	AX_RCP = 1 << 3,    /* rcp.approx for f32 and f64 */
	AX_FTZ = 1 << 4,    /* flush denormals (cicc -ftz=1) */
	AX_ALL = (1 << 5) - 1,
};

/* What the driver tells the pipeline about one PTX file that cicc wrote and
 * that ptxas and fatbinary will read next. */
struct hook {
	const char *src;       /* the .cu input that produced the PTX */
	const char *arch;      /* "compute_90" */
	const int *sm;         /* the sm_NN that ptxas builds from this PTX (90 for sm_90) */
	int nsm;               /* 0: the PTX is only embedded (JIT-compiled at load) */
	int jit;               /* a fatbinary step embeds the PTX too: newer GPUs JIT-compile it */
	const struct profile *prof;  /* effective profile; NULL: identity round trip */
	/* The PTX of the same source from a second cicc run with the fast-math
	 * flags for the approximations in mask (AX_*); NULL if it failed. The
	 * driver owns the file, runs cicc at most once per mask, keeps it under
	 * --keep. */
	const char *(*fastptx)(void *drv, uint mask);
	void *drv;
	struct reports *reports; /* report lines go here; the driver writes them once
	                        * the PTX reached the output (NULL: none wanted) */
	int dryrun;            /* --mpcc-dryrun: say what would run, change nothing */
	struct args *kernels;  /* the mangled names of the module's kernels go here (may be NULL) */
	struct tally *tally;   /* what became of the kernels, counted (may be NULL) */
	FILE *explain;         /* --mpcc-explain: print explain_kernel() per entry here, change nothing */
};

/* target.c */
/* What one SM of a target does per clock, for the passes' cost models and
 * advice: thread-instructions per clock per SM (an f16x2 instruction counts
 * once). Rows from the CUDA C++ Programming Guide's arithmetic throughput
 * table; the sm_90 row as measured with shared/probes/rates.cu on an H100. */
struct target {
	int sm;             /* 90 */
	int maxwarps;       /* resident warps per SM */
	double ffma;        /* f32 add/mul/fma */
	double dfma;        /* f64 add/mul/fma */
	double hfma2;       /* f16x2 (and bf16x2) add/mul/fma instructions */
	double mufu;        /* rcp rsqrt ex2 lg2 sin cos (XU pipe) */
	double f2f;         /* conversions to or from f64 (XU pipe on sm_90) */
	double alu;         /* compare, select, min/max, logic, integer add (FSETP FSEL FMNMX LOP3) */
	double issue;       /* instructions of any kind: 4 schedulers x 32 lanes */
	double bw;          /* DRAM bytes per clock per SM (datasheet; sm_90 measured) */
	const char *source; /* "guide" or "measured (rates.cu, H100)" */
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
/* "compute_90", "sm_90a", "sm_90" -> 90; -1 if not an arch name */
int archnum(const char *arch);

/* per pass (passes[t]), outcomes of kernels on each PTX (a kernel of two
 * -gencode chains counts twice), for mpcc --mpcc-summary */
struct tally {
	int applied[MAXPASS], advised[MAXPASS], refused[MAXPASS];
};

/* One run of the passes over a module: what every pass may ask. */
struct passctx {
	Module *m;
	const char *src;        /* for messages: the .cu (driver) or the .ptx (mpcc-opt) */
	const char *arch;       /* "compute_90" of the PTX, NULL if unknown */
	const int *sm;          /* the targets ptxas builds from it (see struct hook) */
	int nsm;
	int jit;                /* embedded as PTX too (see struct hook) */
	const struct hook *h;   /* the driver's hook; NULL under mpcc-opt */
	Module *fast[AX_ALL + 1];  /* sfu: the fast-math twins by mask, parsed once */
	Module **loaded;        /* passctx_load(): modules by path, parsed once */
	char **loadedpath;
	int nloaded;
};
/* the sm_NN of the module's .target (sm_90 -> 90), else of the driver's
 * arch; -1 if neither says */
int ptxsm(const struct passctx *cx);
/* the module at path, parsed once per run (NULL with a message if bad) */
Module *passctx_load(struct passctx *cx, const char *path);
/* the driver's fast-math twin of cx->m for mask, parsed once; NULL if none */
Module *passctx_fast(struct passctx *cx, uint mask);
void passctx_release(struct passctx *cx);   /* frees what was parsed, not m */

/* what became of one kernel: why NULL means applied (both malloc'd) */
struct outcome {
	char *why;              /* why the kernel was left as it was */
	char *stats;            /* a JSON object of the pass's statistics, or NULL */
	int advised;            /* with why: the pass's own answer, nothing to do or will
	                         * not pay, not a refusal: the report and explain say
	                         * it, no warning, never an error (on_unsupported is for
	                         * what a rule asked and could not get) */
};

struct pass {
	struct schema schema;   /* name, parameters, explain's words */
	/* Rewrite kernel fn of cx->m (a .entry with a body) as p says. 0:
	 * applied; -1: fn is left exactly as it was, o->why says why. */
	int (*apply)(struct passctx *cx, Fn *fn, const struct params *p, struct outcome *o);
	/* optional: what the pass sees in fn, for --mpcc-explain (lines
	 * starting with 11 spaces) */
	void (*explain)(FILE *out, struct passctx *cx, Fn *fn, const struct params *p);
	/* optional: mpcc-opt -d NAME after the pass ran on fn */
	void (*dump)(FILE *out, struct passctx *cx, Fn *fn, const struct params *p);	/* optional: the fast-math cicc runs (bit M: approximation mask M) that
	 * a rule with p will ask for whatever its kernels are, so that the
	 * driver starts them beside the accurate cicc */
	uint (*fastmasks)(const struct params *p);
};

/* passes.c */
/* every pass, in the order the pipeline runs them on a kernel */
extern const struct pass *const passes[];
extern const int npass;
void passes_init(void);     /* hand the schemas to the policy layer; call once first */
const struct pass *findpass(const char *name, size_t n);   /* NULL if none */

/* sfu.c (its struct pass, like every pass's, is named only in passes.c) */
/* the fast body's approximations, by kind: the f32 approx instructions it
 * holds and the FP64 operations the pass rewrote */
struct sfu_stats {
	int trans, div, sqrt, rcp;              /* ex2/lg2/sin/cos/tanh, div, (r)sqrt, rcp .approx */
	int f64div, f64rcp, f64sqrt, f64rsqrt;  /* FP64 rewrites */
	const char *kept;  /* "both" bodies, or the one every warp takes: "accurate", "fast" */
};
struct sfu_params {
	int lambda;       /* 0..64: warps with %warpid < lambda take the fast path */
	uint approx;      /* AX_* */
	int newton;       /* 1: one Newton step refines the f64 approximations */
	int allfast;      /* lambda from which every warp of every GPU that runs
	                   * the PTX takes the fast body (64 if unknown) */
};
/* keep only the body every warp takes: SFU_COLLAPSE0 at lambda 0 (the
 * module is left as it was: on an H100 the unused fast body cost
 * Black-Scholes 1.4-2% at lambda 0, over the 1% the issue allows), and
 * SFU_COLLAPSEFAST at lambda >= allfast (the kernel is then the fast-math
 * one: on an H100 the two-body kernel at lambda 64 took 1.17x the
 * fast-math time on the MRI-Q bench, bilateral 0.98x). Both by default. */
enum { SFU_COLLAPSE0 = 1, SFU_COLLAPSEFAST = 2 };
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

/* pipeline.c */
/* Rewrite the PTX file at path in place with the passes that h->prof
 * selects. 0: written (possibly unchanged); -1: the file is left as it was
 * and a reason was printed (the driver then goes on with nvcc's PTX); 1:
 * left as it was, and a transform a rule asked for was refused under
 * on_unsupported: error (said): the compile fails. */
int pipeline(const char *path, const struct hook *h);
/* The fast-math cicc runs that h->fastptx will likely be asked for on src,
 * before cicc has named its kernels: the passes' fastmasks() of every rule
 * whose files globs match src and one of whose kernels globs may name a
 * kernel of text (n bytes; cicc's preprocessed input; NULL: any may). The
 * driver starts them beside the accurate cicc and stops those nobody asked
 * for; other masks run on demand (sfu: only when sfu_needs_fast() says the
 * kernel has something they change). */
uint pipeline_fastmasks(const struct profile *p, const char *src, const char *text, size_t n);

#endif
