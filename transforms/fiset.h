/* fiset.h: what the files of the fiset pass share (fiset.c: the pass, the
 * choice of sets and what it reports and warns of; fiset-sets.c: the sets,
 * the casts a choice needs and its predicted speedup; fiset-audit.c: f64 in
 * float code for the warning; fiset-lower.c: the rewrite). Private to those
 * files. */
#ifndef MPCC_FISET_H
#define MPCC_FISET_H

#include "ptx/ptx.h"
#include "transforms/pass.h"

#define MAXT 16         /* targets a kernel is predicted for */

struct set {
	int id;
	uint first;          /* first instruction */
	int ops, casts, folded, movs;
	int depth;
	int accidental;      /* every entry a cvt.f64.f32 or constant, every exit a cvt to f32 */
	double rac;          /* ops / casts; INFINITY without casts */
	uint promo;          /* line of the first cvt.f64.f32 it folds (accidental), 0 */
	int ftz;             /* a conversion it folds flushes f32 subnormals (.ftz: cicc's
	                      * -ftz=1, under -use_fast_math): its f32 form flushes too */
	double pred[MAXT];   /* predicted kernel speedup per target */
	int lower;           /* chosen */
	const char *why;     /* why not chosen (static, or text in fs.a) */
};

/* the analysis of one kernel; everything in a (dropped by fs_done) */
struct fs {
	Arena *a;
	Fn *fn;
	uint n;              /* fn->nins at analysis */
	int *cls;            /* per instruction: class (model.h) if lowerable, else -1 */
	int *set;            /* per instruction: set index or -1 */
	int *depth;          /* per instruction: loop depth */
	uint *ord;           /* per instruction: ordinal among instructions (ordinals()) */
	int *web;            /* per instruction: union-find */
	const char **nolow;  /* per instruction: why an f64 operation is not
	                      * lowerable (its constant), or NULL */
	struct set *s;
	int ns;
	int nf64;            /* f64 arithmetic instructions in the kernel */
	int refused;         /* operations left out for an unfoldable constant */
	struct kmodel *km;   /* the kernel for the model; NULL without sets */
	double base[MAXT][2];   /* per target: the kernel's time as it stands (and its
	                         * arithmetic's); 0: not yet */
	const struct target *t[MAXT];
	int tsm[MAXT];
	int nt;
	const char *tnames;  /* "sm_90, sm_86" */
	/* what the model weighs blocks and launches with */
	const char *facts;   /* "measured", "none", or "dropped: why" */
	struct facts known;  /* the facts it takes: those measured, none where dropped */
	const char *decided; /* how sets=auto chose: "predicted", or the measured
	                      * speed-ups of its candidates that decided */
	double *freq;        /* per block: how often it runs (blockfreq()) */
	struct passctx *cx;  /* fs_analyze()'s, and its facts */
	const struct facts *given;
	/* the choice cch as ptxas compiles it, per target: the registers a
	 * thread and the bytes it spills and reloads, [0] of the kernel as
	 * written, [1] lowered (-1: ptxas could not say: no ptxas, or a target
	 * older than the PTX's); compiled: 0 where no target's is known */
	int creg[MAXT][2], cspill[MAXT][2][2];
	int compiled;
	uchar *cch;
	uint *order;         /* the loops in the order trips lists them (looporder()) */
	uchar *from;         /* per block: where that comes from (FQ_) */
};

enum { X_CAST, X_MOV, X_FOLD, X_DEAD };
/* one edit of a plan: insert a cast (or a mov from an f32 source) before
 * or after an instruction, or rewrite an exit conversion, or drop an entry
 * conversion that nothing reads any more */
struct edit {
	int kind;
	uint at;          /* instruction */
	int after;
	uint reg;         /* the f64 register */
	int dir;          /* 0: into f32 (entry), 1: back to f64 (exit) */
};

struct plan {
	Arena *a;         /* the analysis' (fs.a) */
	struct edit *e;
	uint n, cap;
	int casts, folded;
};

/* fiset-sets.c */
/* sets, their casts and predictions on the targets of cx, weighed with the
 * facts f measured of the kernel (NULL: none) where they hold for fn */
void fs_analyze(struct fs *a, struct passctx *cx, Fn *fn, const struct facts *f);
void fs_done(struct fs *a);
/* the registers the chosen instructions (ch[k]) read (in) and write (low) */
void fs_touched(const struct fs *a, const uchar *ch, uchar *in, uchar *low);
/* the edits that lowering the chosen instructions needs */
void fs_plan(const struct fs *a, const uchar *ch, struct plan *p);
/* the predicted speedup of lowering ch on target j: x[0] of the kernel,
 * x[1] of its arithmetic alone; where ch is the choice fiset.c's compile()
 * compiled, with the registers and spills ptxas gives the kernel and ch
 * lowered (a->creg, a->cspill), else with those liveness counts */
void fs_predict(struct fs *a, int j, const uchar *ch, double x[2]);
void fs_choose(const struct fs *a, uchar *ch, int set, int on);   /* set's instructions in ch */
int f64reg(const Fn *fn, Ref r);
/* i is cvt.rn.f32.f64 (any float rounding, .ftz or not): an exit to f32 */
int fs_exitf32(const Ins *i);
uint firstsrc(const Ins *i);    /* the first argument that is an operand */
/* the f64 registers i reads, into regs (at most 8) */
int srcregs(const Fn *fn, const Ins *i, uint *regs);

/* fiset-audit.c */
/* fn does f64 arithmetic, and loads and stores no f64 data (.local, a
 * call's .param and the math library's tables aside); refreshes defuse */
int fs_floatcode(Fn *fn);
/* the f64 arithmetic of a float-code kernel analysed in a, by the line of
 * each promotion into f64, and what the choice ch (of rule, "fiset: {}")
 * does to it: findings into *out, in the module's arena; their number */
int fs_promotions(const struct fs *a, const uchar *ch, const char *kernel, const char *rule,
                  struct finding **out);

/* fiset-lower.c */
/* apply plan p of the chosen instructions ch */
void fs_lower(struct fs *a, const uchar *ch, const struct plan *p);

#endif
