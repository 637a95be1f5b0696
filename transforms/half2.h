/* half2.h: what the files of the half2 pass share, in the order the pass
 * runs them (half2.c, the pass, calls each; no file calls back into
 * half2.c, and half2-x2.c, what an x2 instruction can do, calls none):
 * half2-refuse.c (what pairing cannot keep correct), half2-vary.c (the
 * divergence analysis), half2-pack.c (which registers live packed),
 * half2-advice.c (will it pay on each target: the model's bound; the
 * report), half2-emit.c (the body and its control flow) over
 * half2-lanes.c (its statements, per lane or in x2). Private to them. */
#ifndef MPCC_HALF2_H
#define MPCC_HALF2_H

#include "ptx/ptx.h"
#include "transforms/pass.h"

enum { TYPE, PAIRING, FORCE };   /* the parameters */
enum { F16 = LN_F16, BF16 = LN_BF16, F32 = LN_F32 };   /* type: model.h's lanes */
enum { THREADS, BLOCKS };        /* pairing */

#define DONE 0xFFFFFFFFu         /* the pc of a lane that returned */

struct h2 {
	struct passctx *cx;
	Fn *fn;
	Module *m;
	Arena *a;                 /* the analysis' memory */
	int type, pairing, force;
	int tgt;                  /* the PTX's .target: what ptxas lets it use */
	int isa;                  /* its .version x 10 */

	/* the analysis (half2-refuse.c, half2-vary.c, half2-pack.c) */
	uint nreg, nblk, rw, bw;  /* registers, blocks; words of a register set, of a block set */
	Live *live;               /* the registers live into each block (a guarded
	                           * write does not kill) */
	Word *front;              /* per block: F(b), where a lane may wait while b runs */
	Word *seen;               /* per block: registers that a lane waiting in F(b) reads */
	uchar *vary;              /* per register: may differ between the lanes */
	uchar *packed;            /* per register: a varying f32 held in one x2 register */
	uchar *scoped;            /* per register: declared inside { } (never packed) */
	uchar *bcast;             /* per register: a uniform f32 that x2 instructions read:
	                           * it gets an x2 twin holding it in both lanes */
	uchar *lanespec;          /* per register: 1 + x/y/z of the special register that differs
	                           * between the lanes (%tid; %ctaid with pairing blocks) */
	uchar *lanesym;           /* per module symbol: an object each lane has its own of */
	uint nsym;
	uchar *varybr;            /* per block: its branch may go different ways in the lanes */
	uint *term;               /* per block: its last jump (bra ret exit), ~0u: falls through */
	uchar *div;               /* per block: F(b) is not empty: it runs under a lane mask */
	double *weight;           /* per block: how often it runs (loop trip counts, guessed) */
	int retdiv;               /* a lane may return while the other goes on */
	int usecomp[3];           /* which of the lane specials' x y z are read */
	int nvarybr, ndiv;

	/* the cost model and advice (half2-advice.c) */
	struct pipes orig, pair;  /* per logical-thread pair, as written and paired */
	int nx2, nlane, nuniform, npack, nunpack;   /* instructions, unweighted */
	int nx2mov;          /* moves and selects of packed values: one b32 instruction */
	int rangeover, rangeunder;                  /* f32 constants outside the type's range */
	int nsm;
	int sm[16];
	double speedup[16];       /* predicted, per target */
	const char *bound[16];    /* what bounds the original on that target */
	int regs[16][2];          /* per target bound by memory: ptxas's registers a thread
	                           * before and after pairing (-1: unknown) */

	/* the rewrite (half2-emit.c) */
	uint *l1;                 /* per register: the lane-1 copy of a varying register */
	uint *pk;                 /* per register: the x2 register of a packed one, or
	                           * the x2 twin of a broadcast one */
	uint *sym1;               /* per module symbol: lane 1's copy */
	uchar *invar;             /* per statement of src: a per-lane object declared
	                           * inside { }: its copy follows it */
	uint lreg[2][3];          /* the lanes' %tid (or %ctaid) x y z */
	uint pc[2], lv[2], msk[2], kw;
	uint tb[6], th[2], tp[3], ttmp;
	uint *blbl;               /* per block: its label (a masked block's direct entry) */
	uint *dlbl;               /* per block: a masked block's entry from dispatch */
	uint *tblk;               /* per block: the block its branch goes to */
	const Ins *src;           /* the body as it was */
	uint start;               /* where its declarations end */
	uint nsrc;
	Ins *out;
	uint nout, capout;
	uint *zero;               /* x2 registers a blend reads: 0 at the entry */
	uint nzero, capzero;
};

/* bf16x2 add, mul, setp, ex2 and tanh: sm_90 and PTX ISA 7.8 (else the
 * fma forms of sm_80) */
static inline int h2_bf16sm90(const struct h2 *h) { return h->tgt >= 90 && h->isa >= 78; }

/* half2-x2.c: what one x2 instruction can do on the target */
int h2_pairable(const struct h2 *h, const Ins *i);
int h2_pairsetp(const struct h2 *h, const Ins *i);
int h2_packedsrc(const struct h2 *h, const Ins *i);   /* a source operand is packed */
int h2_x2mov(const struct h2 *h, const Ins *i);
uint h2_packconst(const struct h2 *h, float f, int *risk);

/* half2-vary.c: the divergence analysis */
/* visit every register operand of i: f(h, r, def, arg) */
typedef void h2_regfn(struct h2 *h, uint r, int def, void *arg);
void h2_visit(struct h2 *h, const Ins *i, h2_regfn *f, void *arg);
/* does r (an operand) name one of the module symbols in set? */
int h2_refsym(const struct h2 *h, Ref r, const uchar *set);
/* does i need a copy per lane (a varying operand, result or guard, a lane
 * object, an atomic)? */
int h2_varying(const struct h2 *h, const Ins *i);
int h2_atomic(const Ins *i);
int h2_memop(const Ins *i);    /* loads and stores, which a dead lane must not issue */
/* cfg, liveness, then varying registers and frontiers to a fixed point */
void h2_divergence(struct h2 *h);
/* does block b end by setting the lanes' next blocks and dispatching? */
int h2_protocol(const struct h2 *h, uint b);

/* half2-refuse.c: what pairing cannot keep correct */
/* what the kernel does that pairing cannot keep correct (in h->a), or NULL */
const char *h2_refusal(struct h2 *h);
/* what the divergence shows pairing cannot keep (a barrier under a mask) */
const char *h2_divrefusal(struct h2 *h);

/* half2-pack.c: which registers live packed */
void h2_pack(struct h2 *h);
/* will i run as one x2 instruction? */
int h2_isx2(const struct h2 *h, const Ins *i);

/* half2-advice.c: will pairing pay, and the report */
void h2_advise(struct h2 *h);
/* on the targets bound by memory, the occupancy regs[][] leaves: pairing
 * gains there what model.h's pairing_memgain() says, or loses */
void h2_occupancy(struct h2 *h);
const char *h2_notpaying(const struct h2 *h);   /* why pairing will not pay, or NULL */
/* why half precision cannot be trusted with the kernel, or NULL */
const char *h2_precision(const struct h2 *h);
char *h2_stats(const struct h2 *h);       /* the report's JSON */
void h2_explain(FILE *out, const struct h2 *h, int paired);   /* paired: the build pairs it */

/* half2-lanes.c: the statements of the paired body */
void h2_put(struct h2 *h, const Ins *i);                 /* append i */
void h2_emit(struct h2 *h, const char *f, ...) __attribute__((format(printf, 2, 3)));
void h2_label(struct h2 *h, uint l);                     /* append "L:" */
const char *h2_lblname(struct h2 *h, uint l);
const char *h2_lname(struct h2 *h, uint r, int lane);    /* register r as lane sees it */
const char *h2_mask(struct h2 *h, uint b, int lane);     /* lane's mask in block b */
const char *h2_at(struct h2 *h, const char *g);          /* "@g " or "" */
/* statement i of block b, for both lanes */
void h2_instruction(struct h2 *h, uint b, const Ins *i);

/* half2-emit.c: the rewrite */
void h2_transform(struct h2 *h);

#endif
