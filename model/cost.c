/* cost.c: what one PTX instruction costs on a target: its SASS by pipe,
 * its issue slots and its latency, and the DRAM bytes of a global access.
 *
 * The counts are the SASS ptxas makes of each PTX operation, the rates the
 * target's row (target.c), the latencies measured on an H100 (the
 * measurements: bench/results/2026-11-23-h100-fiset-latency.md, latencies
 * and loads; -issue.md, issue slots and FCHK; -model.md, F2F beside MUFU;
 * doc/DESIGN.md, "What each op costs"). A global
 * load or store outside loops costs its bytes of DRAM bandwidth; inside a
 * loop it is taken to hit L1 (the model cannot see reuse distances),
 * unless it streams (streams()). */
#include <math.h>
#include <string.h>

#include "model/cost.h"

/* SASS instructions by pipe of one PTX operation in the fast path ptxas
 * makes of it (sm_80, sm_86, sm_89 and sm_90 give the same counts within one
 * instruction; bench/fiset/probe.cu's s_* kernels, CUDA 13.0), and the
 * operations per clock per SM measured on an H100 (probe.cu's t_* loops;
 * these counts and rate90 are recorded here only, rerun probe.cu to check):
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

/* issue slots a warp's f64 instruction takes (bench/results/
 * 2026-11-23-h100-fiset-issue.md, t_dfma_ffma): probe.cu on an H100 issues
 * an f64 fma with one or with two independent f32 fmas in 2.47 and 3.38
 * clocks a warp, and an f32 fma alone in 1.15 (the loop's own instructions
 * are the 0.15): so 1.32 and 1.24 slots for the f64 one, not 1 */
#define DFISSUE 1.3

/* conversions to and from f64: on the XU pipe beside MUFU where the f64
 * unit is faster than MUFU (sm_80, sm_90, sm_100; on sm_90 probe.cu's
 * t_downmufu takes the sum of F2F's and MUFU's times, t_downdfma the larger
 * of F2F's and DFMA's),
 * through the f64 unit on the parts whose f64 rate is 1/64 of f32 (the
 * guide gives both at 2 per clock there) */
struct step
addf2f(const struct target *t, struct load *l, double w)
{
	l->r[t->dfma < t->mufu ? R_DFMA : R_XU] += w / t->f2f;
	l->r[R_ISSUE] += w / t->issue;
	return (struct step){1, ops[CCVT][0].lat};
}

double
addspill(const struct target *t, struct load *l, int st, int ld)
{
	l->r[R_ISSUE] += (st + ld) / 4.0 / t->issue;
	return ld / 4.0 * LATL1;
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

double
f2flat(void)
{
	return ops[CCVT][0].lat;
}

/* the class of an f64 operation, or -1 */
int
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

int
arithclass(int cls)
{
	return cls != CMOV && cls != CSELP;
}

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

/* per register, bit 1: it may differ between the threads of a warp
 * (%tid, %laneid, an atomic's result, or written from such a register; a
 * value written under a branch that splits the warp is not counted); bit
 * 2: it comes from memory (written by a load, not of a parameter, or from
 * such a register) */
enum { VARY = 1, LOADED = 2 };

struct reads {
	const uchar *f;
	int any;
};

static void
readflags(void *arg, uint r, int def)
{
	struct reads *a = arg;
	if (!def)
		a->any |= a->f[r];
}

static void
addrflags(const struct kmodel *km, uchar *f)
{
	const Fn *fn = km->fn;
	char buf[64];
	struct reads a = {f, 0};
	for (uint r = 0; r < fn->nreg; r++)
		f[r] = (fn->reg[r].flags & RGSPECIAL) &&
		       (startswith(regname(fn, r, buf, sizeof buf), "%tid") ||
		        startswith(buf, "%laneid")) ? VARY : 0;
	for (int more = 1; more;) {
		more = 0;
		for (uint k = 0; k < km->n; k++) {
			const Ins *i = &fn->ins[k];
			a.any = i->op == Oatom ? VARY | LOADED : 0;
			if ((i->op == Old || i->op == Oldu) && !hasspace(i, "param"))
				a.any |= LOADED;
			forregs(fn, i, readflags, &a);
			for (uint j = km->wro[k]; j < km->wro[k + 1]; j++)
				if ((f[km->wr[j]] | a.any) != f[km->wr[j]])
					f[km->wr[j]] |= a.any, more = 1;
		}
	}
}

/* is register r written in loop l (index + 1 into fn->loop) or one inside it? */
static int
writtenin(const Fn *fn, uint r, uint l)
{
	for (uint j = 0; j < fn->use[r].ndef; j++) {
		uint b = fn->insblk[fn->use[r].def[j]];
		for (uint in = b < fn->nblk ? fn->blk[b].loop : 0; in; in = fn->loop[in - 1].parent)
			if (in == l)
				return 1;
	}
	return 0;
}

/* A global load in a loop whose address differs between the threads of a
 * warp and moves each trip (a register written in the loop), not through a
 * value loaded from memory: each trip brings every thread new bytes, which
 * L1 cannot hold. Its bytes are charged at DRAM bandwidth each trip and it
 * waits as long as a DRAM load: the model cannot see whether the stream
 * fits in L2, and at L2's rate (bench/probes/rates.cu: 31.9 bytes a clock
 * an SM on an H200, DRAM 17.2) gpp's solver, whose streams do not fit,
 * stays predicted 1.26x where it runs 1.03x. The other loads in loops
 * take L1: the same address each trip, one address a warp shares (an
 * n-body tile's particle), or a gather through loaded indices (a
 * neighbour list's positions, shared by neighbours). */
void
streams(struct kmodel *km)
{
	const Fn *fn = km->fn;
	Arena *A = fn->mod->arena;
	uchar *f = arena_alloc(A, fn->nreg + 1);
	km->stream = arena_alloc(A, km->n + 1);
	if (!fn->insblk || !fn->blk)
		return;
	addrflags(km, f);
	for (uint k = 0; k < km->n; k++) {
		const Ins *i = &fn->ins[k];
		uint b = fn->insblk[k];
		if ((i->op != Old && i->op != Oldu) || b >= fn->nblk || !fn->blk[b].loop ||
		    i->narg < 2 || i->arg[1].kind != RMem || hasspace(i, "param") ||
		    hasspace(i, "shared") || hasspace(i, "const") || hasspace(i, "local"))
			continue;
		Ref a = fn->mem[i->arg[1].idx].base;
		km->stream[k] = a.kind == RReg && f[a.idx] == VARY && writtenin(fn, a.idx, fn->blk[b].loop);
	}
}

/* DRAM bytes of global access k outside loops: its size for the first
 * access through a pointer and for every store, a quarter of it for further
 * loads through the same pointer (neighbours in a stencil mostly hit the
 * caches) */
static double
membytes(const struct kmodel *km, uint k, int *hit)
{
	const Fn *fn = km->fn;
	const Ins *i = &fn->ins[k];
	double b = dram_bytes(i);
	if (i->op == Ost || i->op == Ored)
		return b;
	Ref m = i->narg > 1 ? i->arg[1] : (Ref){0};
	if (m.kind != RMem)
		return b;
	uint root = addrroot(fn, fn->mem[m.idx].base);
	for (uint j = 0; j < k; j++) {
		const Ins *e = &fn->ins[j];
		if (e->op == Old && !km->depth[j] && e->narg > 1 && e->arg[1].kind == RMem &&
		    !hasspace(e, "param") && addrroot(fn, fn->mem[e->arg[1].idx].base) == root)
			return *hit = 1, b / 4;
	}
	return b;
}

/* what instruction k costs on t as it stands (f32: its lowered form): its
 * load on the resources, into l, and its step in the warp's stream */
struct step
inscost(const struct kmodel *km, const struct target *t, uint k, int f32, struct load *l)
{
	const Fn *fn = km->fn;
	const Ins *i = &fn->ins[k];
	double w = km->w[k];
	int cls;
	Mods md;
	if (i->op >= NOP)
		return (struct step){0, 0};
	modsplit(i, &md);
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
		if (modspace(&md, "param"))
			return (struct step){0, 0};
		l->r[R_ISSUE] += w / t->issue;
		int store = i->op == Ost || i->op == Ored, hit = 0;
		if (km->stream[k]) {
			l->r[R_MEM] += w * dram_bytes(i) / t->bw;
			return (struct step){1, LATDRAM};
		}
		if (km->depth[k] || modspace(&md, "shared") || modspace(&md, "const") ||
		    modspace(&md, "local"))
			return (struct step){1, store ? 0 : LATL1};
		l->r[R_MEM] += w * membytes(km, k, &hit) / t->bw;
		if (store)
			return (struct step){1, 0};
		if (i->op == Oatom)
			return (struct step){1, LATL2};
		/* a further load through a pointer: a quarter of its bytes
		 * come from DRAM in membytes(), so a quarter of it waits as long */
		return (struct step){1, hit ? 0.75 * LATL1 + 0.25 * LATDRAM : LATDRAM};
	}
	case Ocvt:
		if (modtype(&md, Tf64))
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
		case Odiv: return addclass(t, l, modhas(&md, "rn") ? CDIV : CRSQRT, 1, w);
		case Osqrt: return addclass(t, l, modhas(&md, "rn") ? CSQRT : CRSQRT, 1, w);
		case Orcp: return addclass(t, l, modhas(&md, "rn") ? CRCP : CRSQRT, 1, w);
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

