/* time.c: how long a kernel takes on a target, as written or as a variant
 * (struct variant: f64 operations run in f32, statements folded away,
 * conversions added).
 *
 * Each statement is weighted by how often its block runs (blockfreq()). A
 * warp's time is that of a closed queueing network solved by Mean Value
 * Analysis: the warps an SM scheduler holds (from the registers the
 * variant needs, by liveness) each wait on their own dependences, as one
 * warp alone would take them in order, and queue for the scheduler's issue
 * port, pipes and share of DRAM. The launch is taken to fill the GPU unless
 * the caller says how many warps an SM holds (fewer, the launch's blocks
 * spread over the SMs: latency the warps do not hide then counts). */
#include <math.h>
#include <string.h>

#include "model/cost.h"

/* each instruction's registers, read and written, from def-use */
static void
operands(struct kmodel *a)
{
	const Fn *fn = a->fn;
	Arena *A = fn->mod->arena;
	uint nr = 0, nw = 0;
	for (uint r = 0; r < fn->nreg; r++)
		nr += fn->use[r].nuse, nw += fn->use[r].ndef;
	a->rdo = arena_alloc(A, (a->n + 2) * sizeof *a->rdo);
	a->wro = arena_alloc(A, (a->n + 2) * sizeof *a->wro);
	a->rd = arena_alloc(A, (nr + 1) * sizeof *a->rd);
	a->wr = arena_alloc(A, (nw + 1) * sizeof *a->wr);
	a->esc = arena_alloc(A, (a->n + 1) * 1);
	for (uint r = 0; r < fn->nreg; r++) {
		for (uint j = 0; j < fn->use[r].nuse; j++)
			a->rdo[fn->use[r].use[j] + 1]++;
		for (uint j = 0; j < fn->use[r].ndef; j++)
			a->wro[fn->use[r].def[j] + 1]++;
	}
	for (uint k = 0; k < a->n; k++)
		a->rdo[k + 1] += a->rdo[k], a->wro[k + 1] += a->wro[k];
	uint *fr = arena_alloc(A, (a->n + 1) * sizeof *fr), *fw = arena_alloc(A, (a->n + 1) * sizeof *fw);
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
}

struct kmodel *
kmodel(Fn *fn, const struct facts *f, const double *freq)
{
	Arena *A = fn->mod->arena;
	struct kmodel *km = arena_alloc(A, sizeof *km);
	uint n = km->n = fn->nins;

	km->fn = fn;
	if (f)
		km->facts = *f;
	km->depth = arena_alloc(A, (n + 1) * sizeof *km->depth);
	km->w = arena_alloc(A, (n + 1) * sizeof *km->w);
	km->freq = freq;
	for (uint k = 0; k < n; k++) {
		int inblk = fn->blk && fn->insblk && fn->insblk[k] < fn->nblk;
		km->depth[k] = inblk ? (int)fn->blk[fn->insblk[k]].depth : 0;
		km->w[k] = inblk ? freq[fn->insblk[k]] : 1;
	}
	operands(km);
	streams(km);
	km->live = filllive(fn, 0);
	km->st = arena_alloc(A, (n + 1) * sizeof *km->st);
	km->gone = arena_alloc(A, n + 1);
	km->unit = arena_alloc(A, fn->nreg + 1);
	km->mem = arena_alloc(A, (fn->nblk + 1) * sizeof *km->mem);
	km->best = arena_alloc(A, (fn->nblk + 1) * sizeof *km->best);
	km->rdy = arena_alloc(A, (fn->nreg + 1) * sizeof *km->rdy);
	km->stamp = arena_alloc(A, (fn->nreg + 1) * sizeof *km->stamp);
	km->first = arena_alloc(A, (n + 1) * sizeof *km->first);
	return km;
}

/* the casts of v at each statement: km->first[k] indexes v->cast,
 * km->next[] chains the others at k */
static void
castsat(struct kmodel *km, const struct variant *v)
{
	if (v->ncast > km->capnext) {
		km->capnext = v->ncast;
		km->next = arena_alloc(km->fn->mod->arena, (v->ncast + 1) * sizeof *km->next);
	}
	for (uint k = 0; k <= km->n; k++)
		km->first[k] = -1;
	for (int j = v->ncast; j-- > 0;) {
		km->next[j] = km->first[v->cast[j].at];
		km->first[v->cast[j].at] = j;
	}
}

/* a load that ptxas issues as soon as its address is ready, above the
 * arithmetic before it, to cover its latency: one in a loop (unrolled, its
 * next iterations' loads go first) or from shared memory (a tile's values).
 * Issued in order, each such load and the conversion of its value would
 * sit on the critical path: an n-body kernel's tile loop, lowered with a
 * conversion of every loaded value, ran 1.64x at 8 warps an SM on an H100
 * where in-order issue predicted 1.24x, and 1.38x with this
 * (bench/results/2026-11-25-h100-launch-warps.md). Loads of the
 * kernel's straight-line code stay in order: hoisting those too moved
 * lulesh's calcKinematicsForElems from 1.56x to 1.24x predicted, 1.86x
 * measured. */
static int
hoisted(const struct kmodel *a, uint k)
{
	const Ins *i = &a->fn->ins[k];
	return (i->op == Old || i->op == Oldu) && (a->depth[k] || hasspace(i, "shared"));
}

/* One warp alone: its clocks through the kernel, each block weighted by
 * its loop depth. In a block, each instruction issues in order as soon as
 * its operands are ready, a hoisted() load as soon as its own are (st[k]:
 * slots and latency; values from other blocks are ready at the block's
 * start), and the block lasts until its last issue or until the values it
 * hands to other blocks (or to its own next iteration) are ready,
 * whichever is later. A cast of v takes an
 * issue slot and delays its value but holds up nothing else: ptxas places
 * it where its operand is ready (a cast after a load is not issued before
 * the load returns). */
static double
alone(struct kmodel *a, const struct variant *v)
{
	const Fn *fn = a->fn;
	const struct step *st = a->st;
	const uchar *gone = a->gone;
	double *rdy = a->rdy, total = 0;
	uint *stamp = a->stamp;
	double cvt = f2flat();
	memset(rdy, 0, (fn->nreg + 1) * sizeof *rdy);
	memset(stamp, 0, (fn->nreg + 1) * sizeof *stamp);
	castsat(a, v);
	const int *next = a->next, *first = a->first;
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
				if (!v->cast[e].after) {   /* a cast of an operand before k */
					clk++;
					in = fmax(in, READY(v->cast[e].reg) + cvt);
				}
			int early = hoisted(a, k);
			double at = early ? in : fmax(clk, in), done = gone[k] ? in : at + st[k].lat;
			clk = (early ? clk : at) + (gone[k] ? 0 : st[k].slots);
			for (uint j = a->wro[k]; j < a->wro[k + 1]; j++) {
				rdy[a->wr[j]] = done;
				stamp[a->wr[j]] = b + 1;
			}
			for (int e = first[k]; e >= 0; e = next[e])
				if (v->cast[e].after) {    /* a cast of k's result */
					uint r = v->cast[e].reg;
					clk++;
					rdy[r] = READY(r) + cvt;
					stamp[r] = b + 1;
				}
			if (a->esc[k])
				for (uint j = a->wro[k]; j < a->wro[k + 1]; j++)
					end = fmax(end, rdy[a->wr[j]]);
		}
		total += a->freq[b] * fmax(end, clk);
	}
#undef READY
	return total;
}

/* the registers a thread has: the most 32-bit registers live at once (an
 * f64 value held in f32 takes one), as far as its launch bounds allow.
 * lulesh 2.0's CalcKinematicsAndMonotonicQGradient_kernel, bounded to 64
 * threads and 8 blocks an SM, needs 209 by liveness and ptxas gives it 128
 * (spilling 176 bytes): 16 warps an SM, not 9, before and after lowering */
static int
regs(struct kmodel *km, const struct variant *v)
{
	const Fn *fn = km->fn;
	if (v->regs > 0)
		return v->regs;
	for (uint r = 0; r < fn->nreg; r++)
		km->unit[r] = regunits(fn, r) - (v->low && v->low[r]);
	int p = pressure(fn, km->live, km->unit), most = capregs(fn);
	return p < most ? p : most;
}

/* the most of c[] that one path from the entry through the blocks
 * collects (a branch's two sides are not both taken: a kernel that stores
 * its output on one path or the other writes it once), back edges left out */
static double
costliest(const struct kmodel *km, const double *c)
{
	const Fn *fn = km->fn;
	double *best = km->best, most = 0;
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

void
kmodel_time(struct kmodel *a, const struct target *t, const struct variant *v, double tm[2])
{
	const Fn *fn = a->fn;
	struct load l = {{0}};
	struct variant none = {0};
	struct step *st = a->st;
	uchar *gone = a->gone;
	double *mem = a->mem;
	if (!v)
		v = &none;
	memset(st, 0, (a->n + 1) * sizeof *st);
	memset(mem, 0, (fn->nblk + 1) * sizeof *mem);
	for (uint k = 0; k < a->n; k++)
		gone[k] = v->gone && v->gone[k];
	for (uint k = 0; k < a->n; k++) {
		double m = l.r[R_MEM];
		if (!gone[k])
			st[k] = inscost(a, t, k, v->f32 && v->f32[k], &l);
		if (fn->insblk && fn->insblk[k] < fn->nblk)
			mem[fn->insblk[k]] += l.r[R_MEM] - m;
	}
	l.r[R_MEM] = costliest(a, mem);
	for (int j = 0; j < v->ncast; j++)
		addf2f(t, &l, a->w[v->cast[j].at]);
	double wait = addspill(t, &l, v->spill[0], v->spill[1]);
	double d[NRES], sum = 0, z = alone(a, v) + wait;
	for (int k = 0; k < NRES; k++)
		sum += d[k] = 128 * l.r[k];
	z = z > sum ? z - sum : 0;
	int most = regwarps(t->sm, regs(a, v));
	long warps = a->facts.f[F_WARPS].i;
	double n = (warps > 0 && warps < most ? warps : most) / 4.0;
	int lo = n < 1 ? 1 : (int)n;
	for (int arith = 0; arith < 2; arith++) {
		int nd = NRES - arith;      /* arith: DRAM left out */
		double x = mva(d, nd, z, lo), f = n - lo;
		if (f > 0)
			x += f * (mva(d, nd, z, lo + 1) - x);
		tm[arith] = x > 0 ? 1 / x : 0;
	}
}

