/* fiset.c: FP64 -> FP32 lowering of fast imprecise sets (paper 003,
 * GPUMixer), decided per target by a cost model.
 *
 * Analysis. The nodes are the f64 operations that have an f32 form of the
 * same meaning (add sub mul fma mad div sqrt rcp rsqrt min max abs neg
 * copysign, cvt.rXi.f64.f64, setp selp mov); everything else that reads or
 * writes an f64 register ends a set (loads, stores, calls, params,
 * conversions, atomics, b64 bit patterns, libdevice's bit tricks). A
 * register written in several places (a loop-carried accumulator) is one
 * "web": its writers are lowered together or not at all. Webs joined by
 * def-use through f64 registers form a set, as Algorithm 1 grows one from a
 * seed and merges the overlapping ones; a set does not cross a loop-depth
 * boundary (a value computed in a loop and used after it is a set's exit),
 * so a loop's body and what follows the loop are separate sets. An f64
 * immediate is folded to f32 unless it would change class (above FLT_MAX,
 * or below FLT_MIN and not zero): then its operation ends the set. Set ids
 * number the sets by their first instruction, so the same PTX gives the same
 * ids (with or without -lineinfo, on every chain).
 *
 * Casts. A value entering a set gets one cvt.rn.f32.f64, placed after each
 * of its definitions or before each use in the set, whichever runs less
 * often by loop depth (section 4.4: a loop-invariant load is cast once
 * before the loop, an accumulator is cast once after it). A value that
 * entered through cvt.f64.f32 needs no cast (the f32 source is used), and a
 * value that leaves through cvt.rn.f32.f64 (or a cvt to an integer) needs
 * none either: so f64 in float code folds away entirely ("accidental FP64").
 *
 * Cost model (see "What each op costs" in DESIGN.md). Each PTX operation
 * costs, per target, so many instructions on each pipe (DFMA, FMA, XU, ALU)
 * and issue slots, counted from the SASS ptxas makes of it (the table ops[]
 * below), and has a latency measured on an H100; a global load or store
 * outside loops costs its bytes of DRAM bandwidth (on the costliest path
 * through the kernel's branches). Each instruction is weighted by LOOPW to
 * the power of its loop depth. A warp's time is that of a closed queueing
 * network solved by Mean Value Analysis: the warps an SM scheduler holds
 * (from the registers the variant needs, by liveness) each wait on their
 * own dependences, as one warp alone would take them in order, and queue
 * for the scheduler's issue port, pipes and share of DRAM. A set's
 * predicted speedup is the kernel's time before over after lowering it.
 * sets=auto lowers, per chain, the sets predicted to pay on every sm_NN the
 * chain builds (and f64 in float code always).
 *
 * needs: nothing; breaks: cfg defuse loops of fn */
#define _GNU_SOURCE   /* open_memstream */
#include <float.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ptx/ptx.h"
#include "transforms/pass.h"

enum { SETS, MIN_RATIO, MAX_SETS };
enum { S_AUTO, S_BEST, S_ALL };

static int
streq(Str s, const char *t)
{
	return s.n == strlen(t) && !memcmp(s.s, t, s.n);
}

static int
strpre(Str s, const char *t)
{
	return s.n >= strlen(t) && !memcmp(s.s, t, strlen(t));
}

static int
contains(Str s, const char *t)
{
	size_t n = strlen(t);
	for (uint k = 0; k + n <= s.n; k++)
		if (!memcmp(s.s + k, t, n))
			return 1;
	return 0;
}

/* ---- what each operation costs ---- */

/* operation classes that have an f64 and an f32 form */
enum { CADD, CDIV, CSQRT, CRCP, CRSQRT, CMIN, CSETP, CSELP, CMOV, CRND, CCVT, NCLASS };

/* SASS instructions by pipe of one PTX operation in the fast path ptxas
 * makes of it (sm_80, sm_86, sm_89 and sm_90 give the same counts within one
 * instruction; bench/fiset/probe.cu's s_* kernels, CUDA 13.0), and the
 * operations per clock per SM measured on an H100 (probe.cu's t_* loops):
 * the long sequences run slower than their instruction count says (their
 * steps depend on each other), which the model keeps as a floor. dfma:
 * DFMA DADD DMUL DSETP; fma: FFMA FMUL FADD IMAD; xu: MUFU F2F FRND FCHK
 * (div.rn.f32's range check: ncu counts 7 XU instructions a pair in LJ's
 * lowered loop, its 3 F2F, 2 MUFU.RCP and 2 FCHK); alu: FSETP FSEL SEL
 * FMNMX LOP3 ISETP IADD3 VIADD MOV; other: BRA BSSY BSYNC CALL (issue slots
 * only). */
struct opcost {
	double dfma, fma, xu, alu, other;
	double rate90;     /* measured on sm_90, 0: the pipes say it */
	double lat;        /* clocks from issue to result, one warp, on sm_90 */
};
/* latencies: probe.cu's l_* kernels on an H100 (one warp, one dependent
 * chain; mul and the other one-instruction forms as add; setp and selp
 * share their pair's latency, selp taking an ALU step). The other targets
 * have no latency row: the model uses these. */
static const struct opcost ops[NCLASS][2] = {   /* [class][0: f64, 1: f32] */
	[CADD] = {{1, 0, 0, 0, 0, 0, 8.5}, {0, 1, 0, 0, 0, 0, 5.0}},
	[CDIV] = {{8, 3, 1, 3, 4, 4.54, 125.8}, {0, 7, 2, 1, 4, 7.10, 58.5}},
	[CSQRT] = {{8, 3, 1, 6, 4, 4.15, 93.5}, {0, 4, 1, 3, 5, 9.57, 56.5}},
	[CRCP] = {{5, 0, 1, 5, 4, 7.35, 74.4}, {0, 3, 1, 4, 5, 9.38, 78.1}},
	[CRSQRT] = {{5, 2, 1, 4, 4, 6.31, 68.3}, {0, 2, 1, 1, 0, 15.85, 40.3}},
	[CMIN] = {{1, 2, 0, 5, 0, 14.06, 25.0}, {0, 0, 0, 1, 0, 0, 4.9}},
	[CSETP] = {{1, 0, 0, 0, 0, 0, 10.1}, {0, 0, 0, 1, 0, 0, 4.4}},
	[CSELP] = {{0, 0, 0, 2, 0, 0, 4.5}, {0, 0, 0, 1, 0, 0, 4.5}},
	[CMOV] = {{0, 0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0, 0}},
	[CRND] = {{0, 0, 1, 0, 0, 14.16, 19.0}, {0, 0, 1, 0, 0, 15.92, 17.0}},
	[CCVT] = {{0, 0, 1, 0, 0, 0, 18}, {0, 0, 1, 0, 0, 0, 18}},   /* F2F f64<->f32 */
};
/* latencies of the rest (sm_90, probe.cu): integer add and logic, IMAD, a
 * conversion on the XU pipe (as cvt.rni.f32), and loads (l_chase: a
 * dependent chain of loads, one thread) that hit L1 (a load in a loop,
 * which the model takes to hit as it counts no DRAM bytes for it, and
 * shared memory, the same SRAM), L2 (atomics) or go to DRAM */
#define LATALU 3.5
#define LATIMAD 5.0
#define LATXU 17.0
#define LATL1 42.1
#define LATL2 284.8
#define LATDRAM 689.5

/* issue slots a warp's f64 instruction takes: probe.cu on an H100 issues
 * an f64 fma with one or with two independent f32 fmas in 2.47 and 3.38
 * clocks a warp, and an f32 fma alone in 1.15 (the loop's own instructions
 * are the 0.15): so 1.32 and 1.24 slots for the f64 one, not 1 */
#define DFISSUE 1.3

/* a loop runs this many times per entry, for weighing by loop depth */
#define LOOPW 64.0

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

/* conversions to and from f64: on the XU pipe beside MUFU where the f64
 * unit is faster than MUFU (sm_80, sm_90, sm_100; on sm_90 probe.cu's
 * t_downmufu takes the sum of F2F's and MUFU's times, t_downdfma the larger
 * of F2F's and DFMA's),
 * through the f64 unit on the parts whose f64 rate is 1/64 of f32 (the
 * guide gives both at 2 per clock there) */
static struct step
addf2f(const struct target *t, struct load *l, double w)
{
	l->r[t->dfma < t->mufu ? R_DFMA : R_XU] += w / t->f2f;
	l->r[R_ISSUE] += w / t->issue;
	return (struct step){1, ops[CCVT][0].lat};
}

static struct step
addclass(const struct target *t, struct load *l, int cls, int f32, double w)
{
	const struct opcost *c = &ops[cls][f32];
	if (cls == CCVT)
		return addf2f(t, l, w);
	double n = c->dfma * DFISSUE + c->fma + c->xu + c->alu + c->other;
	l->r[R_DFMA] += w * c->dfma / t->dfma;
	l->r[R_FMA] += w * c->fma / t->ffma;
	l->r[R_XU] += w * c->xu / t->mufu;
	l->r[R_ALU] += w * c->alu / t->alu;
	l->r[R_ISSUE] += w * n / t->issue;
	if (c->rate90)
		l->r[R_LAT] += w / c->rate90;
	return (struct step){n, c->lat};
}

/* ---- which instructions are f64 operations with an f32 form ---- */

struct fs;
static int f64reg(const Fn *fn, Ref r);

/* the class of an f64 operation, or -1 */
static int
f64class(const Ins *i)
{
	if (i->op >= NOP || i->ty != Tf64)
		return -1;
	switch (i->op) {
	case Oadd: case Osub: case Omul: case Ofma: case Omad: case Oabs: case Oneg:
	case Ocopysign:
		return CADD;
	case Odiv: return CDIV;
	case Osqrt: return CSQRT;
	case Orcp: return CRCP;
	case Orsqrt: return CRSQRT;
	case Omin: case Omax: return CMIN;
	case Osetp: return CSETP;
	case Oselp: return CSELP;
	case Omov: return streq(i->name, "mov.f64") ? CMOV : -1;
	case Ocvt:
		if (streq(i->name, "cvt.rni.f64.f64") || streq(i->name, "cvt.rzi.f64.f64") ||
		    streq(i->name, "cvt.rmi.f64.f64") || streq(i->name, "cvt.rpi.f64.f64"))
			return CRND;
		return -1;
	}
	return -1;
}

static int
arith(int cls)
{
	return cls != CMOV && cls != CSELP;
}

/* the f64 value of an immediate 0dXXXXXXXXXXXXXXXX; 0 if another form */
static int
immval(const Fn *fn, Ref r, double *v)
{
	Str t = fn->imm[r.idx].text;
	if (t.n != 18 || (memcmp(t.s, "0d", 2) && memcmp(t.s, "0D", 2)))
		return 0;
	char buf[20];
	memcpy(buf, t.s + 2, 16);
	buf[16] = 0;
	char *end;
	unsigned long long u = strtoull(buf, &end, 16);
	if (*end)
		return 0;
	memcpy(v, &u, sizeof *v);
	return 1;
}

/* can the f64 immediate become an f32 one of the same class? (a rounded
 * value is fine; overflow to inf or underflow to a subnormal is not) */
static int
foldable(double v)
{
	double a = fabs(v);
	if (isnan(v) || isinf(v) || a == 0)
		return 1;
	return a <= FLT_MAX && (double)(float)a <= FLT_MAX && a >= FLT_MIN;
}

static int
f64reg(const Fn *fn, Ref r)
{
	return r.kind == RReg && fn->reg[r.idx].ty == Tf64 && !(fn->reg[r.idx].flags & RGSPECIAL);
}

/* the first argument that is an operand (not a result) */
static uint
firstsrc(const Ins *i)
{
	if (i->op == Osetp)
		return i->narg > 1 && i->arg[1].bar ? 2 : 1;
	return 1;
}

/* i is an f64 operation whose operands all lower: f64 registers, or
 * immediates that fold (the predicate operands of setp and selp stay);
 * *why says what else it holds */
static int
lowerable(const Fn *fn, const Ins *i, const char **why)
{
	int cls = f64class(i);
	*why = NULL;
	if (cls < 0)
		return 0;
	if (cls != CSETP && !f64reg(fn, i->arg[0]))
		return 0;
	if (i->op == Odiv && !contains(i->name, ".rn") && !contains(i->name, ".rz") &&
	    !contains(i->name, ".rm") && !contains(i->name, ".rp"))
		return 0;
	uint n = i->narg;
	if (cls == CSELP)
		n = 3;   /* selp d, a, b, p */
	if (cls == CSETP && n == firstsrc(i) + 3)
		n--;     /* setp.lt.and.f64 p, a, b, q */
	for (uint k = firstsrc(i); k < n; k++) {
		Ref r = i->arg[k];
		double v;
		if (r.neg || r.bar)
			return 0;
		if (r.kind == RImm) {
			if (!immval(fn, r, &v))
				return 0;
			if (!foldable(v))
				return *why = "an f64 constant out of f32 range", 0;
			continue;
		}
		if (!f64reg(fn, r))
			return 0;
	}
	return 1;
}

/* ---- the analysis of one function ---- */

struct set {
	int id;
	uint first;          /* first instruction */
	int ops, casts, folded, movs;
	int depth;
	int accidental;      /* every entry a cvt.f64.f32 or constant, every exit a cvt to f32 */
	double rac;          /* ops / casts; INFINITY without casts */
	uint promo;          /* line of the first cvt.f64.f32 it folds (accidental), 0 */
	double pred[16];     /* predicted kernel speedup per target of cx */
	int lower;           /* chosen */
	const char *why;     /* why not chosen (static text or owned by the fs) */
	char *whyown;
};

struct fs {
	Fn *fn;
	uint n;              /* fn->nins at analysis */
	int *cls;            /* per instruction: class if lowerable, else -1 */
	int *set;            /* per instruction: set index or -1 */
	int *depth;          /* per instruction: loop depth */
	uint *ord;           /* per instruction: ordinal among instructions */
	int *web;            /* per instruction: union-find */
	uint *rdo, *rd;      /* registers instruction k reads: rd[rdo[k] .. rdo[k + 1]) */
	uint *wro, *wr;      /* and writes */
	uchar *esc;          /* per instruction: a register it writes is read in another block */
	uint64_t *liveout;   /* per block: nw words, the registers live out of it */
	uint nw;
	double base[16][2];  /* per target: the kernel's time as it stands (and its arithmetic's); 0: not yet */
	struct set *s;
	int ns;
	int nf64;            /* f64 arithmetic instructions in the kernel */
	int refused;         /* operations left out for an unfoldable constant */
	const struct target *t[16];
	int tsm[16];
	int nt;
	char *tnames;        /* "sm_90, sm_86" */
};

static int
find(int *p, int x)
{
	while (p[x] != x)
		x = p[x] = p[p[x]];
	return x;
}

static void
unite(int *p, int a, int b)
{
	a = find(p, a), b = find(p, b);
	if (a != b)
		p[a < b ? b : a] = a < b ? a : b;   /* the root is the first instruction */
}

static double
weight(const struct fs *a, uint k)
{
	return pow(LOOPW, a->depth[k]);
}

/* every definition of each f64 register lowerable, else none of them:
 * a register is f32 everywhere or nowhere */
static void
pinregs(Fn *fn, int *cls)
{
	for (int changed = 1; changed;) {
		changed = 0;
		for (uint r = 0; r < fn->nreg; r++) {
			Use *u = &fn->use[r];
			int bad = 0;
			if (fn->reg[r].ty != Tf64 || !u->ndef)
				continue;
			for (uint d = 0; d < u->ndef; d++)
				bad |= cls[u->def[d]] < 0 || cls[u->def[d]] == CSETP;
			for (uint d = 0; bad && d < u->ndef; d++)
				if (cls[u->def[d]] >= 0 && cls[u->def[d]] != CSETP) {
					cls[u->def[d]] = -1;
					changed = 1;
				}
		}
	}
}

/* a register that is f32 when its writers are: every writer lowerable */
static int
lowreg(const struct fs *a, uint r)
{
	const Use *u = &a->fn->use[r];
	if (a->fn->reg[r].ty != Tf64 || !u->ndef)
		return 0;
	for (uint d = 0; d < u->ndef; d++)
		if (a->cls[u->def[d]] < 0)
			return 0;
	return 1;
}

/* the f64 registers instruction k reads, into regs (at most 8) */
static int
srcregs(const Fn *fn, const Ins *i, uint *regs)
{
	int n = 0;
	if (i->pred.kind == RReg && f64reg(fn, i->pred))
		regs[n++] = i->pred.idx;
	for (uint k = 0; k < i->narg && n < 8; k++) {
		Ref r = i->arg[k];
		if (isdef(i, k))
			continue;
		if (f64reg(fn, r))
			regs[n++] = r.idx;
		else if (r.kind == RMem && f64reg(fn, fn->mem[r.idx].base))
			regs[n++] = fn->mem[r.idx].base.idx;
		else if (r.kind == RVec || r.kind == RList)
			for (uint j = 0; j < fn->vec[r.idx].n && n < 8; j++)
				if (f64reg(fn, fn->vec[r.idx].el[j]))
					regs[n++] = fn->vec[r.idx].el[j].idx;
	}
	return n;
}

static void
webs(struct fs *a)
{
	Fn *fn = a->fn;
	for (uint k = 0; k < a->n; k++)
		a->web[k] = k;
	for (uint r = 0; r < fn->nreg; r++)
		if (lowreg(a, r))
			for (uint d = 1; d < fn->use[r].ndef; d++)
				unite(a->web, fn->use[r].def[0], fn->use[r].def[d]);
}

/* sets: webs joined through the registers they write and read, at one loop depth */
static void
components(struct fs *a)
{
	Fn *fn = a->fn;
	int *wd = xcalloc(a->n + 1, sizeof *wd), *p = xcalloc(a->n + 1, sizeof *p);
	for (uint k = 0; k < a->n; k++) {
		p[k] = k;
		if (a->cls[k] >= 0) {
			int w = find(a->web, k);
			wd[w] = a->depth[k] > wd[w] ? a->depth[k] : wd[w];
		}
	}
	for (uint k = 0; k < a->n; k++) {
		if (a->cls[k] < 0)
			continue;
		unite(p, k, find(a->web, k));
		uint regs[8];
		int nr = srcregs(fn, &fn->ins[k], regs);
		for (int j = 0; j < nr; j++) {
			if (!lowreg(a, regs[j]))
				continue;
			uint d = fn->use[regs[j]].def[0];
			if (wd[find(a->web, d)] == wd[find(a->web, k)])
				unite(p, k, d);
		}
	}
	/* number the sets by their first instruction */
	int *idx = xcalloc(a->n + 1, sizeof *idx);
	for (uint k = 0; k < a->n; k++)
		idx[k] = -1;
	for (uint k = 0; k < a->n; k++) {
		a->set[k] = -1;
		if (a->cls[k] < 0)
			continue;
		int root = find(p, k);
		if (idx[root] < 0) {
			a->s = xrealloc(a->s, (a->ns + 1) * sizeof *a->s);
			memset(&a->s[a->ns], 0, sizeof *a->s);
			a->s[a->ns].first = k;
			idx[root] = a->ns++;
		}
		struct set *s = &a->s[idx[root]];
		a->set[k] = idx[root];
		s->ops += arith(a->cls[k]);
		s->movs += !arith(a->cls[k]);
		s->depth = a->depth[k] > s->depth ? a->depth[k] : s->depth;
	}
	/* a group of moves and selects alone is no set */
	int n = 0, *renum = xcalloc(a->ns + 1, sizeof *renum);
	for (int j = 0; j < a->ns; j++) {
		renum[j] = a->s[j].ops ? n : -1;
		if (a->s[j].ops)
			a->s[n++] = a->s[j];
	}
	for (uint k = 0; k < a->n; k++)
		if (a->set[k] >= 0)
			a->set[k] = renum[a->set[k]];
	a->ns = n;
	for (int j = 0; j < n; j++)
		a->s[j].id = j;
	free(renum);
	free(idx);
	free(wd);
	free(p);
}

/* ---- the casts a choice needs ---- */

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
	struct edit *e;
	int n, cap;
	int casts, folded;
};

static void
push(struct plan *p, struct edit e)
{
	if (p->n == p->cap)
		p->e = xrealloc(p->e, (p->cap = p->cap ? 2 * p->cap : 16) * sizeof *p->e);
	p->e[p->n++] = e;
	p->casts += e.kind == X_CAST;
	p->folded += e.kind == X_FOLD || e.kind == X_DEAD;
}

/* cvt.f64.f32 r, x: an entry from f32 */
static int
fromf32(const Fn *fn, uint k)
{
	const Ins *i = &fn->ins[k];
	return i->op == Ocvt && streq(i->name, "cvt.f64.f32") && i->narg == 2 &&
	       i->arg[1].kind == RReg;
}

/* a use of r that reads it as f32 just as well: cvt.*.f32.f64 (the
 * rounding to f32 is the lowered operation's own), cvt.*.s32.f64 (to an
 * integer) */
static int
tof32(const Fn *fn, uint k, uint r)
{
	const Ins *i = &fn->ins[k];
	if (i->op != Ocvt || i->narg != 2 || i->arg[1].kind != RReg || i->arg[1].idx != r ||
	    i->arg[0].kind != RReg)
		return 0;
	if (strpre(i->name, "cvt.rn.f32.f64") || strpre(i->name, "cvt.rz.f32.f64") ||
	    strpre(i->name, "cvt.rm.f32.f64") || strpre(i->name, "cvt.rp.f32.f64"))
		return fn->reg[i->arg[0].idx].ty == Tf32 && i->name.n == 14;
	static const char *const ints[] = {".s32.f64", ".u32.f64", ".s64.f64", ".u64.f64"};
	for (size_t j = 0; j < countof(ints); j++)
		if (i->name.n > 12 && !memcmp(i->name.s + i->name.n - 8, ints[j], 8) &&
		    (strpre(i->name, "cvt.rni.") || strpre(i->name, "cvt.rzi.") ||
		     strpre(i->name, "cvt.rmi.") || strpre(i->name, "cvt.rpi.")) &&
		    !contains(i->name, ".sat"))
			return 1;
	return 0;
}

/* the entry of register r into the chosen instructions */
static void
entry(const struct fs *a, const uchar *ch, uint r, struct plan *p)
{
	const Fn *fn = a->fn;
	const Use *u = &fn->use[r];
	double wa = 0, wb = 0;
	int all32 = u->ndef > 0, outside = 0;
	for (uint d = 0; d < u->ndef; d++) {
		wa += weight(a, u->def[d]);
		all32 &= fromf32(fn, u->def[d]);
	}
	for (uint j = 0; j < u->nuse; j++) {
		if (ch[u->use[j]])
			wb += weight(a, u->use[j]);
		else
			outside = 1;
	}
	if (all32) {     /* f64 in float code: use the f32 source */
		for (uint d = 0; d < u->ndef; d++) {
			push(p, (struct edit){X_MOV, u->def[d], 1, r, 0});
			if (!outside)
				push(p, (struct edit){X_DEAD, u->def[d], 0, r, 0});
		}
		return;
	}
	if (u->ndef && wa <= wb) {
		for (uint d = 0; d < u->ndef; d++)
			push(p, (struct edit){X_CAST, u->def[d], 1, r, 0});
		return;
	}
	for (uint j = 0; j < u->nuse; j++)
		if (ch[u->use[j]])
			push(p, (struct edit){X_CAST, u->use[j], 0, r, 0});
}

/* the exit of lowered register r to the instructions outside */
static void
leave(const struct fs *a, const uchar *ch, uint r, struct plan *p)
{
	const Fn *fn = a->fn;
	const Use *u = &fn->use[r];
	double wa = 0, wb = 0;
	int need = 0;
	for (uint j = 0; j < u->nuse; j++) {
		uint k = u->use[j];
		if (ch[k])
			continue;
		if (tof32(fn, k, r)) {
			push(p, (struct edit){X_FOLD, k, 0, r, 1});
			continue;
		}
		need = 1;
		wb += weight(a, k);
	}
	if (!need)
		return;
	for (uint d = 0; d < u->ndef; d++)
		wa += weight(a, u->def[d]);
	if (wa <= wb) {
		for (uint d = 0; d < u->ndef; d++)
			push(p, (struct edit){X_CAST, u->def[d], 1, r, 1});
		return;
	}
	for (uint j = 0; j < u->nuse; j++) {
		uint k = u->use[j];
		if (!ch[k] && !tof32(fn, k, r))
			push(p, (struct edit){X_CAST, k, 0, r, 1});
	}
}

/* the edits that lowering the chosen instructions (ch[k]) needs */
static void
plan(const struct fs *a, const uchar *ch, struct plan *p)
{
	const Fn *fn = a->fn;
	memset(p, 0, sizeof *p);
	uchar *in = xcalloc(fn->nreg + 1, 1), *low = xcalloc(fn->nreg + 1, 1);
	for (uint k = 0; k < a->n; k++) {
		if (!ch[k])
			continue;
		uint regs[8];
		int nr = srcregs(fn, &fn->ins[k], regs);
		for (int j = 0; j < nr; j++)
			in[regs[j]] = 1;
		if (a->cls[k] != CSETP)
			low[fn->ins[k].arg[0].idx] = 1;
	}
	for (uint r = 0; r < fn->nreg; r++) {
		if (in[r] && !low[r])
			entry(a, ch, r, p);
		if (low[r])
			leave(a, ch, r, p);
	}
	free(in);
	free(low);
}

/* ---- the model ---- */

/* the kernel parameter an address comes from (following add, cvta, mov
 * and mad back to the ld.param of the pointer), or the register itself */
static uint
addrroot(const Fn *fn, Ref r)
{
	for (int step = 0; step < 12 && r.kind == RReg; step++) {
		const Use *u = &fn->use[r.idx];
		if (u->ndef != 1)
			break;
		const Ins *d = &fn->ins[u->def[0]];
		if (d->op == Old && d->narg == 2 && d->arg[1].kind == RMem &&
		    fn->mem[d->arg[1].idx].base.kind == RSym)
			return 1u << 31 | fn->mem[d->arg[1].idx].base.idx;
		if ((d->op != Oadd && d->op != Ocvta && d->op != Omov && d->op != Osub) || d->narg < 2)
			break;
		/* of a + b, the operand that is a pointer: the one defined by a
		 * cvta, a param or an add of its own, else the first */
		Ref nx = d->arg[1];
		if (d->op == Oadd && d->narg == 3 && d->arg[2].kind == RReg && nx.kind == RReg &&
		    fn->use[nx.idx].ndef == 1 && fn->ins[fn->use[nx.idx].def[0]].op == Omul)
			nx = d->arg[2];
		r = nx;
	}
	return r.kind == RReg ? r.idx : ~0u;
}

/* DRAM bytes of global access k outside loops: its size for the first
 * access through a pointer and for every store, a quarter of it for further
 * loads through the same pointer (neighbours in a stencil mostly hit the
 * caches) */
static double
membytes(const struct fs *a, uint k, int *hit)
{
	static const double bytes[NTYPE] = {
		[Tb8] = 1, [Tu8] = 1, [Ts8] = 1, [Tb16] = 2, [Tu16] = 2, [Ts16] = 2,
		[Tf16] = 2, [Tbf16] = 2, [Tb32] = 4, [Tu32] = 4, [Ts32] = 4, [Tf32] = 4,
		[Tf16x2] = 4, [Tbf16x2] = 4, [Tb64] = 8, [Tu64] = 8, [Ts64] = 8, [Tf64] = 8,
		[Tb128] = 16,
	};
	const Fn *fn = a->fn;
	const Ins *i = &fn->ins[k];
	double b = bytes[i->ty] ? bytes[i->ty] : 4;
	if (contains(i->name, ".v2"))
		b *= 2;
	if (contains(i->name, ".v4"))
		b *= 4;
	if (i->op == Ost || i->op == Ored)
		return b;
	Ref m = i->narg > 1 ? i->arg[1] : (Ref){0};
	if (m.kind != RMem)
		return b;
	uint root = addrroot(fn, fn->mem[m.idx].base);
	for (uint j = 0; j < k; j++) {
		const Ins *e = &fn->ins[j];
		if (e->op == Old && !a->depth[j] && e->narg > 1 && e->arg[1].kind == RMem &&
		    !contains(e->name, ".param") && addrroot(fn, fn->mem[e->arg[1].idx].base) == root)
			return *hit = 1, b / 4;
	}
	return b;
}

/* what instruction k costs on t as it stands (f32: its lowered form): its
 * load on the resources, into l, and its step in the warp's stream */
static struct step
inscost(const struct fs *a, const struct target *t, uint k, int f32, struct load *l)
{
	const Fn *fn = a->fn;
	const Ins *i = &fn->ins[k];
	double w = weight(a, k);
	int cls;
	if (i->op >= NOP)
		return (struct step){0, 0};
	if ((cls = f64class(i)) >= 0)
		return addclass(t, l, cls, f32, w);
	switch (i->op) {
	case Omov: case Ocvta:
		if (i->narg > 1 && i->arg[1].kind == RReg && (fn->reg[i->arg[1].idx].flags & RGSPECIAL)) {
			l->r[R_ISSUE] += w / t->issue;
			return (struct step){1, LATALU};
		}
		return (struct step){0, 0};
	case Old: case Oldu: case Ost: case Oatom: case Ored: {
		if (contains(i->name, ".param"))
			return (struct step){0, 0};
		l->r[R_ISSUE] += w / t->issue;
		int store = i->op == Ost || i->op == Ored, hit = 0;
		if (a->depth[k] || contains(i->name, ".shared") || contains(i->name, ".const") ||
		    contains(i->name, ".local"))
			return (struct step){1, store ? 0 : LATL1};
		l->r[R_MEM] += w * membytes(a, k, &hit) / t->bw;
		if (store)
			return (struct step){1, 0};
		if (i->op == Oatom)
			return (struct step){1, LATL2};
		/* a further load through a pointer: a quarter of its bytes
		 * come from DRAM in membytes(), so a quarter of it waits as long */
		return (struct step){1, hit ? 0.75 * LATL1 + 0.25 * LATDRAM : LATDRAM};
	}
	case Ocvt:
		if (contains(i->name, "f64"))
			return addf2f(t, l, w);
		l->r[R_XU] += w / t->mufu;
		l->r[R_ISSUE] += w / t->issue;
		return (struct step){1, LATXU};
	case Oex2: case Olg2: case Osin: case Ocos: case Otanh:
		return addclass(t, l, CRSQRT, 1, w);
	case Obra: case Oret: case Oexit: case Ocall: case Obar: case Obarrier:
		l->r[R_ISSUE] += w / t->issue;
		return (struct step){1, 0};
	}
	if (i->ty == Tf32) {
		switch (i->op) {
		case Odiv: return addclass(t, l, contains(i->name, ".rn") ? CDIV : CRSQRT, 1, w);
		case Osqrt: return addclass(t, l, contains(i->name, ".rn") ? CSQRT : CRSQRT, 1, w);
		case Orcp: return addclass(t, l, contains(i->name, ".rn") ? CRCP : CRSQRT, 1, w);
		case Orsqrt: return addclass(t, l, CRSQRT, 1, w);
		case Omin: case Omax: return addclass(t, l, CMIN, 1, w);
		case Osetp: return addclass(t, l, CSETP, 1, w);
		case Oselp: return addclass(t, l, CSELP, 1, w);
		default: return addclass(t, l, CADD, 1, w);
		}
	}
	l->r[R_ISSUE] += w / t->issue;
	if (i->op == Omul || i->op == Omad || i->op == Omul24 || i->op == Omad24) {
		l->r[R_FMA] += w / t->ffma;     /* IMAD */
		return (struct step){1, LATIMAD};
	}
	l->r[R_ALU] += w / t->alu;
	return (struct step){1, LATALU};
}

/* the cast edits of p at each instruction: first[k] indexes p->e, next[]
 * chains the others at k */
static int *
castsat(const struct fs *a, const struct plan *p, int **next)
{
	int *first = xcalloc(a->n + 1, sizeof *first);
	*next = xcalloc(p->n + 1, sizeof **next);
	for (uint k = 0; k <= a->n; k++)
		first[k] = -1;
	for (int j = p->n; j-- > 0;)
		if (p->e[j].kind == X_CAST) {
			(*next)[j] = first[p->e[j].at];
			first[p->e[j].at] = j;
		}
	return first;
}

/* One warp alone: its clocks through the kernel, each block weighted by
 * its loop depth. In a block, each instruction issues in order as soon as
 * its operands are ready (st[k]: slots and latency; values from other
 * blocks are ready at the block's start), and the block lasts until its
 * last issue or until the values it hands to other blocks (or to its own
 * next iteration) are ready, whichever is later. A cast of p takes an
 * issue slot and delays its value but holds up nothing else: ptxas places
 * it where its operand is ready (a cast after a load is not issued before
 * the load returns). */
static double
alone(const struct fs *a, const struct step *st, const uchar *gone, const struct plan *p)
{
	const Fn *fn = a->fn;
	double *rdy = xcalloc(fn->nreg + 1, sizeof *rdy), total = 0;
	uint *stamp = xcalloc(fn->nreg + 1, sizeof *stamp);
	int *next, *first = castsat(a, p, &next);
	double cvt = ops[CCVT][0].lat;
#define READY(r) (stamp[r] == b + 1 ? rdy[r] : 0)
	for (uint b = 0; b < fn->nblk; b++) {
		const Blk *bk = &fn->blk[b];
		double clk = 0, end = 0;
		for (uint k = bk->first; k < bk->end && k < a->n; k++) {
			const Ins *i = &fn->ins[k];
			if (i->op >= NOP)
				continue;
			double in = 0;
			for (uint j = a->rdo[k]; j < a->rdo[k + 1]; j++)
				in = fmax(in, READY(a->rd[j]));
			for (int e = first[k]; e >= 0; e = next[e])
				if (!p->e[e].after) {   /* a cast of an operand before k */
					clk++;
					in = fmax(in, READY(p->e[e].reg) + cvt);
				}
			double at = fmax(clk, in), done = gone[k] ? in : at + st[k].lat;
			clk = at + (gone[k] ? 0 : st[k].slots);
			for (uint j = a->wro[k]; j < a->wro[k + 1]; j++) {
				rdy[a->wr[j]] = done;
				stamp[a->wr[j]] = b + 1;
			}
			for (int e = first[k]; e >= 0; e = next[e])
				if (p->e[e].after) {    /* a cast of k's result */
					uint r = p->e[e].reg;
					clk++;
					rdy[r] = READY(r) + cvt;
					stamp[r] = b + 1;
				}
			if (a->esc[k])
				for (uint j = a->wro[k]; j < a->wro[k + 1]; j++)
					end = fmax(end, rdy[a->wr[j]]);
		}
		total += pow(LOOPW, bk->depth) * fmax(end, clk);
	}
#undef READY
	free(rdy);
	free(stamp);
	free(first);
	free(next);
	return total;
}

/* live = the registers live before instruction k, from those live after
 * it; *units (if unit is not NULL) follows their 32-bit registers */
static void
liveback(const struct fs *a, uint k, uint64_t *live, const uchar *unit, int *units)
{
	for (uint j = a->wro[k]; j < a->wro[k + 1]; j++) {
		uint r = a->wr[j];
		if (unit && live[r / 64] >> r % 64 & 1)
			*units -= unit[r];
		live[r / 64] &= ~(1ull << r % 64);
	}
	for (uint j = a->rdo[k]; j < a->rdo[k + 1]; j++) {
		uint r = a->rd[j];
		if (unit && !(live[r / 64] >> r % 64 & 1))
			*units += unit[r];
		live[r / 64] |= 1ull << r % 64;
	}
}

/* the registers live out of each block, into a->liveout (a->nw words a
 * block), by the usual backward dataflow */
static void
liveness(struct fs *a)
{
	const Fn *fn = a->fn;
	uint nw = a->nw = (fn->nreg + 63) / 64, nb = fn->nblk;
	uint64_t *out = a->liveout = xcalloc((size_t)nb * nw + 1, 8);
	uint64_t *in = xcalloc((size_t)nb * nw + 1, 8), *cur = xcalloc(nw + 1, 8);
	for (int changed = 1; changed;) {
		changed = 0;
		for (uint b = nb; b-- > 0;) {
			uint64_t *o = out + (size_t)b * nw;
			for (uint s = 0; s < fn->blk[b].nsucc; s++)
				for (uint w = 0; w < nw; w++)
					o[w] |= in[(size_t)fn->blk[b].succ[s] * nw + w];
			memcpy(cur, o, nw * 8);
			for (uint k = fn->blk[b].end; k-- > fn->blk[b].first;)
				if (k < a->n)
					liveback(a, k, cur, NULL, NULL);
			if (memcmp(cur, in + (size_t)b * nw, nw * 8)) {
				memcpy(in + (size_t)b * nw, cur, nw * 8);
				changed = 1;
			}
		}
	}
	free(in);
	free(cur);
}

/* the registers a thread needs: the most 32-bit registers live at once
 * (an f64 or other 64-bit value takes two, one once lowered; predicates
 * none) */
static int
pressure(const struct fs *a, const uchar *ch)
{
	const Fn *fn = a->fn;
	uint nw = a->nw;
	uint64_t *cur = xcalloc(nw + 1, 8);
	uchar *unit = xcalloc(fn->nreg + 1, 1);
	for (uint r = 0; r < fn->nreg; r++) {
		const Use *u = &fn->use[r];
		int ty = fn->reg[r].ty, low = 0, in = ty == Tf64 && u->nuse > 0;
		if (ch && ty == Tf64) {
			low = u->ndef > 0;
			for (uint d = 0; d < u->ndef; d++)
				low &= ch[u->def[d]];
			for (uint j = 0; j < u->nuse; j++)
				in &= ch[u->use[j]];
			low |= in;
		}
		unit[r] = (fn->reg[r].flags & RGSPECIAL) || ty == Tpred ? 0 :
		          ty == Tb128 ? 4 :
		          ty == Tb64 || ty == Tu64 || ty == Ts64 || ty == Tf64 ? 2 - low : 1;
	}
	int most = 0;
	for (uint b = 0; b < fn->nblk; b++) {
		memcpy(cur, a->liveout + (size_t)b * nw, nw * 8);
		int live = 0;
		for (uint w = 0; w < nw; w++)
			for (uint64_t x = cur[w]; x; x &= x - 1)
				live += unit[w * 64 + __builtin_ctzll(x)];
		for (uint k = fn->blk[b].end; k-- > fn->blk[b].first;) {
			if (k >= a->n)
				continue;
			liveback(a, k, cur, unit, &live);
			most = live > most ? live : most;
		}
	}
	free(cur);
	free(unit);
	return most;
}

/* the most of c[] that one path from the entry through the blocks
 * collects (a branch's two sides are not both taken: a kernel that stores
 * its output on one path or the other writes it once), back edges left out */
static double
costliest(const Fn *fn, const double *c)
{
	double *best = xcalloc(fn->nblk + 1, sizeof *best), most = 0;
	for (uint j = 0; j < fn->nrpo; j++) {
		uint b = fn->rpo[j];
		double in = 0;
		for (uint e = 0; e < fn->blk[b].npred; e++) {
			uint q = fn->blk[b].pred[e];
			if (fn->blk[q].rpo < j)
				in = fmax(in, best[q]);
		}
		best[b] = in + c[b];
		most = fmax(most, best[b]);
	}
	free(best);
	return most;
}

/* warps one SM scheduler completes per clock: exact Mean Value Analysis
 * (Reiser and Lavenberg, 1980) of a closed queueing network of n warps,
 * each waiting z clocks on its own dependences and d[k] clocks at each
 * resource k, queueing behind the other warps there. One warp takes
 * z + sum d; many warps, the busiest d; in between more than either. */
static double
mva(const double *d, int nd, double z, int n)
{
	double q[NRES] = {0}, x = 0;
	for (int w = 1; w <= n; w++) {
		double r[NRES], sum = z;
		for (int k = 0; k < nd; k++)
			sum += r[k] = d[k] * (1 + q[k]);
		x = w / sum;
		for (int k = 0; k < nd; k++)
			q[k] = x * r[k];
	}
	return x;
}

/* the kernel's time on t, clocks of one SM scheduler per warp, with the
 * chosen instructions lowered as p says: tm[0] whole, tm[1] with DRAM
 * bandwidth left out (its arithmetic).
 * The warps a scheduler holds come from the registers (the launch is
 * assumed to fill the GPU); each waits on its own dependences as one warp
 * alone would, and the warps queue for the scheduler's resources. */
static void
modeltime(const struct fs *a, const struct target *t, const uchar *ch, const struct plan *p,
          double tm[2])
{
	const Fn *fn = a->fn;
	struct load l = {{0}};
	struct plan none = {0};
	struct step *st = xcalloc(a->n + 1, sizeof *st);
	uchar *gone = xcalloc(a->n + 1, 1);
	if (!p)
		p = &none;
	for (int j = 0; j < p->n; j++)
		if (p->e[j].kind == X_DEAD || p->e[j].kind == X_FOLD)
			gone[p->e[j].at] = 1;   /* dropped, or a mov */
	double *mem = xcalloc(fn->nblk + 1, sizeof *mem);
	for (uint k = 0; k < a->n; k++) {
		double m = l.r[R_MEM];
		if (!gone[k])
			st[k] = inscost(a, t, k, ch && ch[k], &l);
		if (fn->insblk && fn->insblk[k] < fn->nblk)
			mem[fn->insblk[k]] += l.r[R_MEM] - m;
	}
	l.r[R_MEM] = costliest(fn, mem);
	free(mem);
	for (int j = 0; j < p->n; j++)
		if (p->e[j].kind == X_CAST)
			addf2f(t, &l, weight(a, p->e[j].at));
	double d[NRES], sum = 0, z = alone(a, st, gone, p);
	for (int k = 0; k < NRES; k++)
		sum += d[k] = 128 * l.r[k];
	z = z > sum ? z - sum : 0;
	double n = regwarps(t->sm, pressure(a, ch)) / 4.0;
	int lo = n < 1 ? 1 : (int)n;
	for (int arith = 0; arith < 2; arith++) {
		int nd = NRES - arith;      /* arith: DRAM left out */
		double x = mva(d, nd, z, lo), f = n - lo;
		if (f > 0)
			x += f * (mva(d, nd, z, lo + 1) - x);
		tm[arith] = x > 0 ? 1 / x : 0;
	}
	free(st);
	free(gone);
}

/* the predicted speedup of lowering ch on target j of a: x[0] of the
 * kernel, x[1] of its arithmetic alone */
static void
predictx(struct fs *a, int j, const uchar *ch, double x[2])
{
	struct plan p;
	plan(a, ch, &p);
	if (!a->base[j][0])
		modeltime(a, a->t[j], NULL, NULL, a->base[j]);
	double t1[2];
	modeltime(a, a->t[j], ch, &p, t1);
	free(p.e);
	for (int k = 0; k < 2; k++)
		x[k] = t1[k] > 0 ? a->base[j][k] / t1[k] : 1;
}

static double
predict(struct fs *a, int j, const uchar *ch)
{
	double x[2];
	predictx(a, j, ch, x);
	return x[0];
}

static void
choose(const struct fs *a, uchar *ch, int set, int on)
{
	for (uint k = 0; k < a->n; k++)
		if (a->set[k] == set)
			ch[k] = on;
}

/* casts, folds, r_ac, accidental and predictions of each set alone */
static void
measure(struct fs *a)
{
	const Fn *fn = a->fn;
	uchar *ch = xcalloc(a->n + 1, 1);
	for (int s = 0; s < a->ns; s++) {
		struct set *st = &a->s[s];
		struct plan p;
		choose(a, ch, s, 1);
		plan(a, ch, &p);
		st->casts = p.casts;
		st->folded = p.folded;
		st->rac = p.casts ? (double)st->ops / p.casts : INFINITY;
		st->accidental = !p.casts && p.folded > 0;
		for (int j = 0; j < p.n; j++)
			if (p.e[j].kind == X_MOV && !st->promo)
				st->promo = insline(fn, p.e[j].at, NULL);
		free(p.e);
		for (int j = 0; j < a->nt; j++)
			st->pred[j] = predict(a, j, ch);
		choose(a, ch, s, 0);
	}
	free(ch);
}

static void
targets(struct fs *a, const struct passctx *cx)
{
	struct buf b = BUF_INIT;
	for (int j = 0; j < cx->nsm && a->nt < 16; j++) {
		const struct target *t = target(cx->sm[j]);
		int dup = 0;
		for (int i = 0; i < a->nt; i++)
			dup |= a->tsm[i] == cx->sm[j];
		if (!t || dup)
			continue;
		a->t[a->nt] = t;
		a->tsm[a->nt++] = cx->sm[j];
	}
	if (!a->nt && cx->nsm == 0) {
		int sm = archnum(cx->arch);
		if (sm > 0 && target(sm)) {
			a->t[0] = target(sm);
			a->tsm[a->nt++] = sm;
		}
	}
	for (int j = 0; j < a->nt; j++)
		buf_printf(&b, "%ssm_%d", j ? ", " : "", a->tsm[j]);
	a->tnames = buf_take(&b);
}

static void
fs_free(struct fs *a)
{
	for (int s = 0; s < a->ns; s++)
		free(a->s[s].whyown);
	free(a->s);
	free(a->cls);
	free(a->set);
	free(a->depth);
	free(a->ord);
	free(a->web);
	free(a->rdo);
	free(a->rd);
	free(a->wro);
	free(a->wr);
	free(a->esc);
	free(a->liveout);
	free(a->tnames);
}

/* each instruction's registers, read and written, from def-use */
static void
operands(struct fs *a)
{
	const Fn *fn = a->fn;
	uint nr = 0, nw = 0;
	for (uint r = 0; r < fn->nreg; r++)
		nr += fn->use[r].nuse, nw += fn->use[r].ndef;
	a->rdo = xcalloc(a->n + 2, sizeof *a->rdo);
	a->wro = xcalloc(a->n + 2, sizeof *a->wro);
	a->rd = xcalloc(nr + 1, sizeof *a->rd);
	a->wr = xcalloc(nw + 1, sizeof *a->wr);
	a->esc = xcalloc(a->n + 1, 1);
	for (uint r = 0; r < fn->nreg; r++) {
		for (uint j = 0; j < fn->use[r].nuse; j++)
			a->rdo[fn->use[r].use[j] + 1]++;
		for (uint j = 0; j < fn->use[r].ndef; j++)
			a->wro[fn->use[r].def[j] + 1]++;
	}
	for (uint k = 0; k < a->n; k++)
		a->rdo[k + 1] += a->rdo[k], a->wro[k + 1] += a->wro[k];
	uint *fr = xcalloc(a->n + 1, sizeof *fr), *fw = xcalloc(a->n + 1, sizeof *fw);
	for (uint r = 0; r < fn->nreg; r++) {
		const Use *u = &fn->use[r];
		for (uint j = 0; j < u->nuse; j++)
			a->rd[a->rdo[u->use[j]] + fr[u->use[j]]++] = r;
		for (uint j = 0; j < u->ndef; j++) {
			uint d = u->def[j];
			a->wr[a->wro[d] + fw[d]++] = r;
			for (uint x = 0; x < u->nuse && fn->insblk; x++)
				a->esc[d] |= fn->insblk[u->use[x]] != fn->insblk[d];
		}
	}
	free(fr);
	free(fw);
}

static void
analyze(struct fs *a, struct passctx *cx, Fn *fn)
{
	memset(a, 0, sizeof *a);
	a->fn = fn;
	a->n = fn->nins;
	fillcfg(fn);
	fillloops(fn);
	filldefuse(fn);
	a->cls = xcalloc(a->n + 1, sizeof *a->cls);
	a->set = xcalloc(a->n + 1, sizeof *a->set);
	a->depth = xcalloc(a->n + 1, sizeof *a->depth);
	a->ord = xcalloc(a->n + 1, sizeof *a->ord);
	a->web = xcalloc(a->n + 1, sizeof *a->web);
	uint ord = 0;
	for (uint k = 0; k < a->n; k++) {
		const Ins *i = &fn->ins[k];
		const char *why;
		a->depth[k] = fn->blk && fn->insblk ? (int)fn->blk[fn->insblk[k]].depth : 0;
		a->ord[k] = i->op < NOP ? ord++ : ord;
		a->cls[k] = lowerable(fn, i, &why) ? f64class(i) : -1;
		a->refused += why != NULL;
		a->nf64 += f64class(i) >= 0 && arith(f64class(i));
	}
	pinregs(fn, a->cls);
	webs(a);
	components(a);
	if (a->ns) {    /* what the model needs */
		operands(a);
		liveness(a);
	}
	targets(a, cx);
	measure(a);
}

/* ---- choosing ---- */

static int
bypred(const struct fs *a, int x, int y)
{
	double px = 1e300, py = 1e300;
	for (int j = 0; j < a->nt; j++) {
		px = a->s[x].pred[j] < px ? a->s[x].pred[j] : px;
		py = a->s[y].pred[j] < py ? a->s[y].pred[j] : py;
	}
	if (!a->nt)
		px = a->s[x].rac, py = a->s[y].rac;
	return px > py ? -1 : px < py ? 1 : x - y;
}

/* the sets in order of predicted gain (worst target), best first */
static int *
ranked(const struct fs *a)
{
	int *r = xcalloc(a->ns + 1, sizeof *r);
	for (int s = 0; s < a->ns; s++)
		r[s] = s;
	for (int i = 1; i < a->ns; i++)
		for (int j = i; j > 0 && bypred(a, r[j - 1], r[j]) > 0; j--) {
			int t = r[j];
			r[j] = r[j - 1];
			r[j - 1] = t;
		}
	return r;
}

static void
setwhy(struct set *s, char *why)
{
	free(s->whyown);
	s->whyown = why;
	s->why = why;
}

/* auto: each set (best first) that makes the kernel at least 0.5% faster on
 * every target, with the sets taken before it; f64 in float code always.
 * Where the model finds the kernel bound by DRAM either way, a set is taken
 * when it makes the kernel's arithmetic at least ARITHGAIN faster and the
 * whole no slower: the DRAM estimate is the model's weakest part (it cannot
 * see which loads the caches serve), and if the kernel really is bound by
 * DRAM, lowering costs no time. */
#define ARITHGAIN 1.05
static void
chooseauto(struct fs *a, uchar *ch, const int *rank, int max)
{
	double *cur = xcalloc(2 * a->nt + 1, sizeof *cur), *curx = cur + a->nt;
	int n = 0;
	for (int j = 0; j < a->nt; j++)
		cur[j] = curx[j] = 1;
	for (int i = 0; i < a->ns; i++) {
		struct set *s = &a->s[rank[i]];
		if (n == max) {
			s->why = "max_sets reached";
			continue;
		}
		choose(a, ch, rank[i], 1);
		double p[16], px[16];
		int pays = 1, worst = 0, bymem = -1;
		for (int j = 0; j < a->nt; j++) {
			double x[2];
			predictx(a, j, ch, x);
			p[j] = x[0];
			px[j] = x[1];
			if (p[j] >= cur[j] * 1.005)
				continue;
			if (p[j] >= cur[j] * 0.999 && px[j] >= curx[j] * ARITHGAIN) {
				bymem = j;
				continue;
			}
			pays = 0;
			worst = j;
		}
		if (s->accidental)
			pays = 1;
		if (!a->nt && !s->accidental) {
			pays = 0;
			s->why = "no target known to the cost model (only f64 in float code is lowered)";
		}
		if (!pays) {
			choose(a, ch, rank[i], 0);
			if (a->nt)
				setwhy(s, fmt("predicted %.3fx on sm_%d: does not pay", s->pred[worst],
				              a->tsm[worst]));
			continue;
		}
		s->lower = 1;
		if (bymem >= 0 && !s->accidental)
			setwhy(s, fmt("bound by DRAM in the model on sm_%d (predicted %.3fx), "
			              "its arithmetic %.3fx faster", a->tsm[bymem], p[bymem] / cur[bymem],
			              px[bymem] / curx[bymem]));
		n++;
		for (int j = 0; j < a->nt; j++)
			cur[j] = p[j], curx[j] = px[j];
	}
	free(cur);
}

static void
pick(struct fs *a, const struct params *p, uchar *ch)
{
	const struct value *v = &p->v[SETS];
	int max = p->v[MAX_SETS].i, *rank = ranked(a), n = 0;
	double minr = p->v[MIN_RATIO].x;
	if (v->i == S_AUTO) {
		chooseauto(a, ch, rank, max);
		free(rank);
		return;
	}
	for (int i = 0; i < a->ns; i++) {
		struct set *s = &a->s[rank[i]];
		int want;
		if (v->i == SETS_IDS) {
			want = 0;
			for (int j = 0; j < v->nids; j++)
				want |= v->ids[j] == s->id;
			s->why = "not among the ids asked for";
		} else {
			int limit = v->i == S_BEST ? 1 : v->i == SETS_N ? (int)v->x : a->ns;
			want = n < limit && s->rac >= minr;
			s->why = s->rac < minr ? "r_ac below min_ratio" : "not among the best asked for";
		}
		if (want && n >= max) {
			s->why = "max_sets reached";
			want = 0;
		}
		if (!want)
			continue;
		s->lower = 1;
		n++;
		choose(a, ch, rank[i], 1);
	}
	free(rank);
}

/* ---- lowering ---- */

static char *
reftext(const Fn *fn, Ref r)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	if (!f)
		die("cannot print to memory");
	printref(f, fn, r);
	fclose(f);
	return buf;
}

static char *
rname(const Fn *fn, uint r)
{
	char buf[64];
	return xstrdup(regname(fn, r, buf, sizeof buf));
}

static char *
guardtext(const Fn *fn, const Ins *i)
{
	if (!i->pred.kind)
		return xstrdup("");
	char *g = reftext(fn, i->pred), *s = fmt("@%s%s ", i->flags & INEGPRED ? "!" : "", g);
	free(g);
	return s;
}

/* "0d3FE0000000000000" -> "0f3F000000" */
static char *
imm32(const Fn *fn, Ref r)
{
	double v;
	if (!immval(fn, r, &v))
		BUG("fiset: immediate");
	float f = (float)v;
	uint32_t u;
	memcpy(&u, &f, sizeof u);
	return fmt("0f%08X", u);
}

/* name with every .f64 made .f32 */
static char *
name32(Str s)
{
	char *n = xstrndup(s.s, s.n);
	for (char *p = n; (p = strstr(p, ".f64")); p += 4)
		memcpy(p, ".f32", 4);
	return n;
}

struct lower {
	struct fs *a;
	uint *s32;     /* per register: its f32 shadow (lowered, or entered), ~0u */
	uint shift, from;   /* declarations inserted at from: old index k >= from is k + shift */
};

static uint
newidx(const struct lower *lw, uint k)
{
	return k >= lw->from ? k + lw->shift : k;
}

static void
replace(Fn *fn, uint at, const char *text)
{
	Ins *i = mkins(fn, text);
	if (!i)
		BUG("fiset: cannot build '%s'", text);
	ins_replace(fn, at, i);
}

/* rewrite chosen instruction k (new index at) in f32 */
static void
rewrite(struct lower *lw, uint k, uint at)
{
	Fn *fn = lw->a->fn;
	const Ins *i = &fn->ins[at];
	struct buf b = BUF_INIT;
	char *g = guardtext(fn, i), *nm = name32(i->name);
	buf_printf(&b, "%s%s ", g, nm);
	for (uint j = 0; j < i->narg; j++) {
		Ref r = i->arg[j];
		char *t;
		if (j)
			buf_puts(&b, r.bar ? "|" : ", ");
		if (f64reg(fn, r) && lw->s32[r.idx] != ~0u)
			t = rname(fn, lw->s32[r.idx]);
		else if (r.kind == RImm && j >= firstsrc(i))
			t = imm32(fn, r);
		else
			t = reftext(fn, r);
		buf_puts(&b, t);
		free(t);
	}
	buf_puts(&b, ";");
	replace(fn, at, b.s);
	(void)k;
	free(g);
	free(nm);
	buf_release(&b);
}

struct ins1 {
	uint at;      /* new index to insert at */
	int seq;
	char *text;
};

static int
byat(const void *x, const void *y)
{
	const struct ins1 *a = x, *b = y;
	if (a->at != b->at)
		return a->at > b->at ? -1 : 1;
	return a->seq > b->seq ? -1 : a->seq < b->seq;
}

/* apply the plan: shadows, rewrites, casts; 0 or -1 with *why */
static void
lowerall(struct fs *a, const uchar *ch, const struct plan *p)
{
	Fn *fn = a->fn;
	struct lower lw = {a, xcalloc(fn->nreg + 1, sizeof(uint)), 0, 0};
	uint nreg0 = fn->nreg;
	for (uint r = 0; r < nreg0; r++)
		lw.s32[r] = ~0u;
	/* the shadows: declared together after the last .reg */
	uchar *need = xcalloc(nreg0 + 1, 1);
	for (uint k = 0; k < a->n; k++)
		if (ch[k]) {
			uint regs[8];
			int nr = srcregs(fn, &fn->ins[k], regs);
			for (int j = 0; j < nr; j++)
				need[regs[j]] = 1;
			if (a->cls[k] != CSETP)
				need[fn->ins[k].arg[0].idx] = 1;
		}
	int first = 1;
	for (uint r = 0; r < nreg0; r++) {
		if (!need[r])
			continue;
		uint before = fn->nins;
		lw.s32[r] = newreg(fn, Tf32);
		if (first) {
			/* where the declaration went: the first statement that moved */
			for (uint k = 0; k < fn->nins; k++)
				if (fn->ins[k].op == Oreg && fn->ins[k].narg &&
				    fn->ins[k].arg[0].kind == RReg && fn->ins[k].arg[0].idx == lw.s32[r]) {
					lw.from = k;
					break;
				}
			first = 0;
		}
		lw.shift += fn->nins - before;
	}
	free(need);
	/* casts, movs and folds, computed on the old indices before rewriting */
	struct ins1 *add = xcalloc(p->n + 1, sizeof *add);
	int nadd = 0;
	uchar *dead = xcalloc(a->n + 1, 1);
	for (int j = 0; j < p->n; j++) {
		const struct edit *e = &p->e[j];
		uint at = newidx(&lw, e->at);
		const Ins *i = &fn->ins[at];
		char *sh = rname(fn, lw.s32[e->reg]), *r = rname(fn, e->reg), *g;
		switch (e->kind) {
		case X_CAST:
			g = e->after ? guardtext(fn, i) : xstrdup("");
			add[nadd++] = (struct ins1){at + e->after, j,
			                            e->dir ? fmt("%scvt.f64.f32 %s, %s;", g, r, sh)
			                                   : fmt("%scvt.rn.f32.f64 %s, %s;", g, sh, r)};
			free(g);
			break;
		case X_MOV: {
			char *src = reftext(fn, i->arg[1]);
			g = guardtext(fn, i);
			add[nadd++] = (struct ins1){at + 1, j, fmt("%smov.f32 %s, %s;", g, sh, src)};
			free(src);
			free(g);
			break;
		}
		case X_DEAD:
			dead[e->at] = 1;
			break;
		case X_FOLD: {
			char *d = reftext(fn, i->arg[0]), *nm;
			g = guardtext(fn, i);
			if (fn->reg[i->arg[0].idx].ty == Tf32 && strpre(i->name, "cvt.r") && i->name.n == 14)
				nm = xstrdup("mov.f32");
			else
				nm = name32(i->name);
			char *t = fmt("%s%s %s, %s;", g, nm, d, sh);
			replace(fn, at, t);
			free(t), free(d), free(nm), free(g);
			break;
		}
		}
		free(sh);
		free(r);
	}
	for (uint k = 0; k < a->n; k++)
		if (ch[k])
			rewrite(&lw, k, newidx(&lw, k));
	/* insert from the end, so that the positions still to use do not move;
	 * the dropped entries first, from the end too */
	for (uint k = a->n; k-- > 0;)
		if (dead[k]) {
			uint at = newidx(&lw, k);
			ins_remove(fn, at);
			for (int j = 0; j < nadd; j++)
				if (add[j].at > at)
					add[j].at--;
		}
	qsort(add, nadd, sizeof *add, byat);
	for (int j = 0; j < nadd; j++) {
		Ins *i = mkins(fn, add[j].text);
		if (!i)
			BUG("fiset: cannot build '%s'", add[j].text);
		ins_insert(fn, add[j].at, i);
		free(add[j].text);
	}
	free(add);
	free(dead);
	free(lw.s32);
}

/* ---- report, explain, dump ---- */

static void
jsonnum(struct buf *b, double x)
{
	if (isinf(x) || isnan(x))
		buf_puts(b, "null");
	else
		buf_printf(b, "%.3f", x);
}

static void
lines(struct buf *b, const struct fs *a, int s, const char *sep)
{
	uint last = 0;
	int n = 0;
	/* the distinct .loc lines of the set, in order, at most 8 */
	uint seen[8];
	for (uint k = 0; k < a->n && n < 8; k++) {
		if (a->set[k] != s)
			continue;
		uint l = insline(a->fn, k, NULL);
		int dup = 0;
		for (int j = 0; j < n; j++)
			dup |= seen[j] == l;
		if (!l || dup || l == last)
			continue;
		seen[n] = l;
		buf_printf(b, "%s%u", n ? sep : "", l);
		n++;
		last = l;
	}
}

static void
setjson(struct buf *b, const struct fs *a, int s)
{
	const struct set *st = &a->s[s];
	buf_printf(b, "{\"id\":%d,\"ops\":%d,\"casts\":%d,\"folded\":%d,\"r_ac\":", st->id, st->ops,
	           st->casts, st->folded);
	jsonnum(b, st->rac);
	buf_printf(b, ",\"depth\":%d,\"f64_in_float_code\":%s,\"lines\":[", st->depth,
	           st->accidental ? "true" : "false");
	lines(b, a, s, ",");
	buf_puts(b, "],\"ins\":[");   /* ordinals, as the shadow pass numbers them */
	for (uint k = 0, n = 0; k < a->n; k++)
		if (a->set[k] == s)
			buf_printf(b, "%s%u", n++ ? "," : "", a->ord[k]);
	buf_puts(b, "],\"promotion_line\":");
	if (st->promo)
		buf_printf(b, "%u", st->promo);
	else
		buf_puts(b, "null");
	buf_puts(b, ",\"predicted\":{");
	for (int j = 0; j < a->nt; j++) {
		buf_printf(b, "%s\"sm_%d\":", j ? "," : "", a->tsm[j]);
		jsonnum(b, st->pred[j]);
	}
	buf_printf(b, "},\"lowered\":%s,\"why\":", st->lower ? "true" : "false");
	buf_json(b, st->lower ? NULL : st->why);
	buf_puts(b, ",\"because\":");
	buf_json(b, st->lower ? st->whyown : NULL);
	buf_puts(b, "}");
}

static char *
stats(struct fs *a, const uchar *ch, int nlow, int after)
{
	struct buf b = BUF_INIT;
	buf_printf(&b, "{\"f64_ops\":%d,\"sets\":%d,\"lowered\":%d,\"f64_ops_after\":%d,"
	           "\"refused_constants\":%d,\"predicted\":{", a->nf64, a->ns, nlow, after, a->refused);
	for (int j = 0; j < a->nt; j++) {
		buf_printf(&b, "%s\"sm_%d\":", j ? "," : "", a->tsm[j]);
		jsonnum(&b, nlow ? predict(a, j, ch) : 1.0);
	}
	buf_puts(&b, "},\"set\":[");
	for (int s = 0; s < a->ns; s++) {
		if (s)
			buf_puts(&b, ",");
		setjson(&b, a, s);
	}
	buf_puts(&b, "]}");
	return buf_take(&b);
}

static void
setwords(FILE *out, const struct fs *a, int s)
{
	const struct set *st = &a->s[s];
	struct buf b = BUF_INIT;
	lines(&b, a, s, ",");
	fprintf(out, "           set %d: %d ops, %d casts", st->id, st->ops, st->casts);
	if (st->casts)
		fprintf(out, " (r_ac %.2f)", st->rac);
	if (st->folded)
		fprintf(out, ", %d conversions folded", st->folded);
	fprintf(out, ", loop depth %d", st->depth);
	if (b.n)
		fprintf(out, ", lines %s", b.s);
	if (st->accidental) {
		fprintf(out, "; f64 in float code");
		if (st->promo)
			fprintf(out, " (promoted at line %u)", st->promo);
	}
	fprintf(out, "\n           ");
	for (int j = 0; j < a->nt; j++)
		fprintf(out, "%spredicted %.3fx on sm_%d", j ? ", " : "", st->pred[j], a->tsm[j]);
	if (!a->nt)
		fprintf(out, "no prediction (no target known to the cost model)");
	if (st->lower)
		fprintf(out, "; lowered%s%s\n", st->whyown ? ": " : "", st->whyown ? st->whyown : "");
	else
		fprintf(out, "; left in f64: %s\n", st->why);
	buf_release(&b);
}

/* the dump: what the tuner reads (see mpcc-opt(1), "-d fiset") */
static void
dumptext(FILE *out, const struct fs *a, const char *kname)
{
	const Fn *fn = a->fn;
	fprintf(out, "fiset\t%s\tsets=%d\tf64_ops=%d\ttargets=", kname, a->ns, a->nf64);
	for (int j = 0; j < a->nt; j++)
		fprintf(out, "%ssm_%d", j ? "," : "", a->tsm[j]);
	fprintf(out, "\n");
	for (int s = 0; s < a->ns; s++) {
		const struct set *st = &a->s[s];
		struct buf b = BUF_INIT;
		lines(&b, a, s, ",");
		fprintf(out, "set\t%s\t%d\tops=%d\tcasts=%d\tfolded=%d\tr_ac=", kname, st->id, st->ops,
		        st->casts, st->folded);
		if (st->casts)
			fprintf(out, "%.3f", st->rac);
		else
			fprintf(out, "inf");
		fprintf(out, "\tdepth=%d\tfloat_code=%d\tlines=%s\tlowered=%d", st->depth, st->accidental,
		        b.n ? b.s : "-", st->lower);
		for (int j = 0; j < a->nt; j++)
			fprintf(out, "\tsm_%d=%.3f", a->tsm[j], st->pred[j]);
		fprintf(out, "\n");
		buf_release(&b);
		for (uint k = 0; k < a->n; k++) {
			if (a->set[k] != s)
				continue;
			fprintf(out, "op\t%s\t%d\t%u\t%u\t", kname, st->id, a->ord[k], insline(fn, k, NULL));
			printins(out, fn, &fn->ins[k]);
			fprintf(out, "\n");
		}
	}
}

/* what apply saw, for mpcc-opt -d fiset (which runs after apply changed fn) */
static struct {
	const Fn *fn;
	char *text;
} last;

static void
remember(const struct fs *a, const char *kname)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	if (!f)
		die("cannot print to memory");
	dumptext(f, a, kname);
	fclose(f);
	free(last.text);
	last.fn = a->fn;
	last.text = buf;
}

/* an id asked for that the kernel has no set of: say so in the reason */
static void
warn_ids(struct fs *a, long id)
{
	for (int s = 0; s < a->ns; s++)
		if (!a->s[s].lower)
			setwhy(&a->s[s], fmt("not among the ids asked for (no set with id %ld: the kernel "
			                     "has %d sets)", id, a->ns));
}

static int
apply(struct passctx *cx, Fn *fn, const struct params *p, struct outcome *o)
{
	struct fs a;
	char *kname = symstr(cx->m, fn->sym);
	analyze(&a, cx, fn);
	uchar *ch = xcalloc(a.n + 1, 1);
	int nlow = 0, rc = -1;
	o->advised = 1;   /* but for ids asked for, or no cost model to ask */
	if (a.nf64 == 0)
		o->why = xstrdup("no f64 arithmetic");
	else if (a.ns == 0)
		o->why = xstrdup("no set of f64 operations with an f32 form (every f64 value "
		                 "comes from or goes to a load, store, call or bit pattern)");
	else {
		pick(&a, p, ch);
		for (int s = 0; s < a.ns; s++)
			nlow += a.s[s].lower;
		for (int j = 0; p->v[SETS].i == SETS_IDS && j < p->v[SETS].nids; j++)
			if (p->v[SETS].ids[j] >= a.ns)
				warn_ids(&a, p->v[SETS].ids[j]);
		if (!nlow) {
			int *rank = ranked(&a);
			o->why = fmt("no set chosen: set %d (the best) %s", a.s[rank[0]].id, a.s[rank[0]].why);
			o->advised = p->v[SETS].i != SETS_IDS && (p->v[SETS].i != S_AUTO || a.nt);
			free(rank);
		}
	}
	int after = a.nf64;
	if (nlow) {
		struct plan pl;
		plan(&a, ch, &pl);
		for (uint k = 0; k < a.n; k++)
			after -= ch[k] && arith(a.cls[k]);
		o->stats = stats(&a, ch, nlow, after);
		remember(&a, kname);
		lowerall(&a, ch, &pl);
		free(pl.e);
		rc = 0;
	} else {
		if (a.ns)
			o->stats = stats(&a, ch, 0, after);
		remember(&a, kname);
	}
	free(ch);
	free(kname);
	fs_free(&a);
	return rc;
}

static void
explain(FILE *out, struct passctx *cx, Fn *fn, const struct params *p)
{
	struct fs a;
	analyze(&a, cx, fn);
	uchar *ch = xcalloc(a.n + 1, 1);
	if (!a.nf64)
		fprintf(out, "           no f64 arithmetic\n");
	else if (!a.ns)
		fprintf(out, "           %d f64 operations, no set with an f32 form\n", a.nf64);
	else {
		pick(&a, p, ch);
		fprintf(out, "           %d f64 operations in %d sets; cost model for %s\n", a.nf64,
		        a.ns, a.nt ? a.tnames : "no known target");
		for (int s = 0; s < a.ns; s++)
			setwords(out, &a, s);
	}
	free(ch);
	fs_free(&a);
}

static void
dump(FILE *out, struct passctx *cx, Fn *fn, const struct params *p)
{
	(void)cx, (void)p;
	if (last.fn == fn && last.text)
		fputs(last.text, out);
	free(last.text);
	last.text = NULL;
	last.fn = NULL;
}

static void
describe(FILE *out, const struct params *p)
{
	static const char *const which[] = {
		"the sets of f64 operations that the cost model predicts to pay on each target",
		"the set of f64 operations that the cost model ranks best",
		"every set of f64 operations",
	};
	const struct value *v = &p->v[SETS];
	fprintf(out, "           lowers to f32 ");
	if (v->i >= 0)
		fprintf(out, "%s\n", which[v->i]);
	else if (v->i == SETS_N)
		fprintf(out, "the %ld best sets of f64 operations\n", (long)v->x);
	else
		for (int i = 0; i < v->nids; i++)
			fprintf(out, "%s%ld%s", i ? ", " : "the sets of f64 operations with ids ", v->ids[i],
			        i == v->nids - 1 ? "\n" : "");
}

static const char *const sets[] = {"auto", "best", "all", NULL};

static const struct param params[] = {
	[SETS] = {"sets", PSETS, 0, 1, 1e6, sets, NULL, "auto",
	          "which sets to lower: auto (those the cost model says pay on each target), "
	          "best, all, the N best, or a list of set ids"},
	[MIN_RATIO] = {"min_ratio", PNUM, 0, 0, 1e9, NULL, NULL, "1.5",
	               "the arithmetic-to-cast ratio r_ac a set must reach for best, all and N "
	               "(Algorithm 1); auto decides by the cost model"},
	[MAX_SETS] = {"max_sets", PINT, 0, 1, 1000, NULL, NULL, "64",
	              "at most this many sets are lowered in one kernel"},
};

const struct pass fiset_pass = {
	.schema = {"fiset", "FP64 -> FP32 lowering of the groups of f64 operations that pay",
	           params, countof(params), describe},
	.apply = apply,
	.explain = explain,
	.dump = dump,
};
