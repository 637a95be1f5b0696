/* verify-defined.c: the verifier's reads that no write reaches.
 *
 * Definedness. PTX gives a register read before any write an undefined
 * value; it is not an error, and ptxas accepts it. cicc writes such reads
 * where LLVM had an undef value (a variable the source never sets on some
 * path, a vector lane it never fills), so a register that is written on
 * some paths to a read but not on others is normal PTX. A register read
 * that no write reaches on any path is different: cicc's registers are
 * virtual and named per value, so a read that nothing writes means a pass
 * renamed, dropped or misplaced a definition. That is the error; cicc's
 * own PTX (every file the test suite builds) has none. */
#include "ptx/verify.h"
#include <string.h>

/* definedness (see the top of the file) */

struct flow {
	uint *dense;        /* register -> its bit, ~0u if the body never names it */
	uint nbit, w;       /* bits, and 64-bit words per set */
	Word *must;     /* per block: written on every path to its start */
	Word *may;      /* per block: written on some path to its start */
	Word *genm;     /* per block: written by it, unguarded */
	Word *geny;     /* per block: written by it */
	uint *reg;          /* bit -> its register */
	Word *wrote;    /* written somewhere in the body */
	uchar *told;        /* per bit: already reported */
};

static void
number(struct flow *fl, const Fn *fn, Ref r)
{
	switch (r.kind) {
	case RReg:
		if (!(fn->reg[r.idx].flags & RGSPECIAL) && fl->dense[r.idx] == ~0u) {
			fl->reg[fl->nbit] = r.idx;
			fl->dense[r.idx] = fl->nbit++;
		}
		break;
	case RMem:
		number(fl, fn, fn->mem[r.idx].base);
		number(fl, fn, fn->mem[r.idx].vec);
		break;
	case RVec:
	case RList:
		for (uint j = 0; j < fn->vec[r.idx].n; j++)
			number(fl, fn, fn->vec[r.idx].el[j]);
		break;
	}
}

/* apply f to every register bit that r names */
static void
each(struct flow *fl, const Fn *fn, Ref r, void (*f)(void *, uint), void *arg)
{
	switch (r.kind) {
	case RReg:
		if (fl->dense[r.idx] != ~0u)
			f(arg, fl->dense[r.idx]);
		break;
	case RMem:
		each(fl, fn, fn->mem[r.idx].base, f, arg);
		each(fl, fn, fn->mem[r.idx].vec, f, arg);
		break;
	case RVec:
	case RList:
		for (uint j = 0; j < fn->vec[r.idx].n; j++)
			each(fl, fn, fn->vec[r.idx].el[j], f, arg);
		break;
	}
}

static void set(void *s, uint b) { bset(s, b); }

/* the registers statement i writes: into may, and into must unless guarded
 * (an address [%r] is read even where the operand is written) */
static void
defs(struct flow *fl, const Fn *fn, const Ins *i, Word *must, Word *may)
{
	if (i->op >= NOP)
		return;
	for (uint a = 0; a < i->narg; a++)
		if (isdef(i, a) && i->arg[a].kind != RMem) {
			each(fl, fn, i->arg[a], set, may);
			if (!i->pred.kind)
				each(fl, fn, i->arg[a], set, must);
		}
}

/* a forward problem without kills: start(b) = meet of start(p) | gen(p)
 * over the reachable predecessors, from the entry's empty sets; iterate in
 * reverse post-order until nothing changes */
static void
solve(struct flow *fl, const Fn *fn)
{
	uint w = fl->w;

	for (uint b = 0; b < fn->nblk; b++) {
		for (uint k = fn->blk[b].first; k < fn->blk[b].end; k++)
			defs(fl, fn, &fn->ins[k], fl->genm + b * w, fl->geny + b * w);
		if (b != fn->rpo[0])
			memset(fl->must + b * w, 0xff, w * sizeof *fl->must);
	}
	for (int changed = 1; changed;) {
		changed = 0;
		for (uint r = 1; r < fn->nrpo; r++) {
			uint b = fn->rpo[r];
			Word *m = fl->must + b * w, *y = fl->may + b * w;
			for (uint j = 0; j < fn->blk[b].npred; j++) {
				uint p = fn->blk[b].pred[j];
				if (fn->blk[p].rpo == ~0u)
					continue;
				for (uint x = 0; x < w; x++) {
					Word nm = m[x] & (fl->must[p * w + x] | fl->genm[p * w + x]);
					Word ny = y[x] | fl->may[p * w + x] | fl->geny[p * w + x];
					changed |= nm != m[x] || ny != y[x];
					m[x] = nm, y[x] = ny;
				}
			}
		}
	}
}

struct use {
	V *v;
	struct flow *fl;
	uint k;
	const Word *may;
};

static void
checkuse(void *arg, uint b)
{
	struct use *u = arg;
	Str s;

	if (bget(u->may, b) || !bget(u->fl->wrote, b) || u->fl->told[b])
		return;
	u->fl->told[b] = 1;
	s = regspan(u->v, u->fl->reg[b]);
	errat(u->v, u->k, "'%.*s' is read here, but none of its writes reaches here", (int)s.n, s.s);
}

/* walk each reachable block from its start sets; report reads that no
 * write reaches */
static void
reads(V *v, struct flow *fl)
{
	Fn *fn = v->fn;
	uint w = fl->w;
	Word *m = arena_alloc(v->m->arena, 2 * w * sizeof *m), *y = m + w;

	for (uint r = 0; r < fn->nrpo; r++) {
		uint b = fn->rpo[r];
		memcpy(m, fl->must + b * w, w * sizeof *m);
		memcpy(y, fl->may + b * w, w * sizeof *m);
		for (uint k = fn->blk[b].first; k < fn->blk[b].end; k++) {
			const Ins *i = &fn->ins[k];
			struct use u = {v, fl, k, y};
			if (i->op >= NOP)
				continue;
			each(fl, fn, i->pred, checkuse, &u);
			for (uint a = 0; a < i->narg; a++)
				if (!isdef(i, a) || i->arg[a].kind == RMem)
					each(fl, fn, i->arg[a], checkuse, &u);
			defs(fl, fn, i, m, y);
		}
	}
}

void
defined(V *v)
{
	Fn *fn = v->fn;
	Arena *a = v->m->arena;
	struct flow fl = {0};
	size_t n;

	fillcfg(fn);
	fl.dense = arena_alloc(a, (fn->nreg + 1) * sizeof *fl.dense);
	fl.reg = arena_alloc(a, (fn->nreg + 1) * sizeof *fl.reg);
	memset(fl.dense, 0xff, (fn->nreg + 1) * sizeof *fl.dense);
	for (uint k = 0; k < fn->nins; k++)
		if (fn->ins[k].op < NOP) {
			number(&fl, fn, fn->ins[k].pred);
			for (uint j = 0; j < fn->ins[k].narg; j++)
				number(&fl, fn, fn->ins[k].arg[j]);
		}
	if (!fl.nbit || !fn->nrpo)
		return;
	fl.w = nwords(fl.nbit);
	n = (size_t)fn->nblk * fl.w * sizeof(Word);
	fl.must = arena_alloc(a, n);
	fl.may = arena_alloc(a, n);
	fl.genm = arena_alloc(a, n);
	fl.geny = arena_alloc(a, n);
	fl.told = arena_alloc(a, fl.nbit + 1);
	fl.wrote = arena_alloc(a, fl.w * sizeof *fl.wrote);
	solve(&fl, fn);
	for (size_t x = 0; x < (size_t)fn->nblk * fl.w; x++)
		fl.wrote[x % fl.w] |= fl.geny[x];
	reads(v, &fl);
}
