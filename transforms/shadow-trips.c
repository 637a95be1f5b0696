/* shadow-trips.c: measure=time also counts each loop's trips (shadow.c is
 * the pass; shadow.h).
 *
 * A loop (fillloops(): a natural loop, one per header; numbered as
 * looporder() orders them, by where the header comes in the text) gets two
 * per-thread .u32 counters, zeroed at entry: HEADS, added to at the start
 * of the header block, and BACK, added to on each taken back edge. Its
 * entries are HEADS - BACK, since every other edge into a header comes from
 * outside the loop. Counting back edges rather than entries splits no
 * edge: the add of a latch that ends in "@p bra H" goes before the branch
 * under the same guard, that of a latch that falls through into H at its
 * end (after a branch elsewhere, which jumps over it). Inside the loops
 * that is one add per header and one per back edge, so that the timing
 * build still times the plain code. Where a back edge cannot take its add
 * so (brx.idx, a header or latch inside a { } scope), no loop of the kernel
 * is counted: a profile would read partial counts as the kernel's.
 *
 * At the exit block each thread adds its counts into the .global u64
 * totals: a whole warp sums its lanes by shfl first (in u64: 32 lanes' u32
 * counts may pass 2^32) and lane 0 adds the sums with red.add; a partial
 * warp adds lane by lane, as measure=error's sums do. */
#include "transforms/shadow.h"

#include <stdlib.h>

/* one add of a counter: before statement at, under guard pred (R0: none) */
struct site {
	uint at;
	uint loop;      /* the loop's position in looporder() */
	int back;       /* 0: its HEADS; 1: its BACK */
	Ref pred;
	int neg;        /* INEGPRED */
};

struct plan {
	struct site *s;
	uint n;
	const char *why;    /* NULL: every loop has its sites */
};

/* per statement, how many { } are open where an insertion before it goes */
static uint *
scopes(const Fn *fn)
{
	uint *d = arena_alloc(fn->mod->arena, (fn->nins + 1) * sizeof *d), n = 0;
	for (uint k = 0; k <= fn->nins; k++) {
		d[k] = n;
		if (k < fn->nins && fn->ins[k].op == Oopen)
			n++;
		else if (k < fn->nins && fn->ins[k].op == Oclose && n)
			n--;
	}
	return d;
}

/* the last instruction of block b, ~0u if it has none */
static uint
lastins(const Fn *fn, uint b)
{
	for (uint k = fn->blk[b].end; k > fn->blk[b].first; k--)
		if (fn->ins[k - 1].op < NOP)
			return k - 1;
	return ~0u;
}

/* i is a bra to block h */
static int
branchesto(const Fn *fn, const Ins *i, uint h)
{
	if (i->op != Obra || !i->narg || i->arg[i->narg - 1].kind != RLbl)
		return 0;
	uint at = fn->lbl[i->arg[i->narg - 1].idx].ins;
	return at < fn->nins && fn->insblk[at] == h;
}

static int
inloop(const Loop *l, uint b)
{
	for (uint k = 0; k < l->nblk; k++)
		if (l->blk[k] == b)
			return 1;
	return 0;
}

/* HEADS's add of header block h: after its label (and a .pragma
 * "nounroll", which ptxas wants before the header's first instruction) */
static const char *
headsite(const Fn *fn, const uint *depth, uint h, struct site *s)
{
	const Blk *b = &fn->blk[h];
	uint k = b->first;
	if (k >= b->end || fn->ins[k].op != Olabel)
		return "starts with no label";
	while (k < b->end && (fn->ins[k].op == Olabel || fn->ins[k].op == Oraw))
		k++;
	s->at = k;
	return depth[b->first] || depth[k] ? "is inside a { } scope" : NULL;
}

/* BACK's add of the back edge from block l (the latch) to header h: before
 * a branch to h under its guard (none if l also falls through into h), or
 * at the end of l where l falls through into h */
static const char *
backsite(const Fn *fn, const uint *depth, uint l, uint h, struct site *s)
{
	uint t = lastins(fn, l);
	const Ins *i = t != ~0u ? &fn->ins[t] : NULL;
	int jumps = i && opinfo[i->op].jmp && !i->pred.kind;
	int falls = l + 1 == h && !jumps;
	if (i && i->op == Obrx)
		return "is a brx.idx";
	if (i && branchesto(fn, i, h)) {
		s->at = t;
		s->pred = falls ? REF(R0, 0) : i->pred;
		s->neg = falls ? 0 : i->flags & INEGPRED;
	} else if (falls) {
		s->at = fn->blk[l].end;
	} else {
		return "neither branches to the header nor falls through into it";
	}
	return depth[s->at] ? "is inside a { } scope" : NULL;
}

/* the sites of loop number n (lp) into pl; NULL, or why it has none */
static const char *
loopsites(Fn *fn, const uint *depth, const Loop *lp, uint n, struct plan *pl)
{
	Arena *A = fn->mod->arena;
	const Blk *h = &fn->blk[lp->head];
	struct site s = {.loop = n};
	const char *why = headsite(fn, depth, lp->head, &s);
	if (why)
		return arena_fmt(A, "loop %u's header (PTX line %u) %s", n + 1, fn->ins[h->first].line, why);
	pl->s[pl->n++] = s;
	for (uint j = 0; j < h->npred; j++) {
		uint l = h->pred[j], t = lastins(fn, l);
		if (!inloop(lp, l))
			continue;
		s = (struct site){.loop = n, .back = 1};
		if ((why = backsite(fn, depth, l, lp->head, &s)))
			return arena_fmt(A, "loop %u's back edge at PTX line %u %s", n + 1,
			                 fn->ins[t != ~0u ? t : fn->blk[l].first].line, why);
		pl->s[pl->n++] = s;
	}
	return NULL;
}

/* every add the counters need, or why some back edge cannot take one */
static struct plan
plan(Fn *fn)
{
	fillcfg(fn);
	fillloops(fn);
	filldefuse(fn);
	uint *depth = scopes(fn), *order = looporder(fn), max = 0;
	for (uint k = 0; k < fn->nloop; k++)
		max += 1 + fn->blk[fn->loop[k].head].npred;
	struct plan pl = {arena_alloc(fn->mod->arena, (max + 1) * sizeof *pl.s), 0, NULL};
	for (uint n = 0; n < fn->nloop && !pl.why; n++)
		pl.why = loopsites(fn, depth, &fn->loop[order[n]], n, &pl);
	return pl;
}

struct trips
trips_plan(Fn *fn)
{
	struct plan pl = plan(fn);
	return (struct trips){fn->nloop, pl.why};
}

/* the last site first, so that each insertion moves only what follows it */
static int
later(const void *a, const void *b)
{
	const struct site *x = a, *y = b;
	if (x->at != y->at)
		return x->at < y->at ? 1 : -1;
	if (x->back != y->back)
		return x->back < y->back ? 1 : -1;
	return x->loop < y->loop ? 1 : x->loop > y->loop ? -1 : 0;
}

/* the exit block's lines, and the registers they use */
struct tail {
	Arena *a;
	const char **l;
	uint n;
	const char *p;          /* the module-level prefix */
	const char *first, *e, *v, *w, *lo, *hi, *lo2, *hi2;
};

/* the sum of the u32 x over the whole warp, added to Ptrips[slot] by lane 0
 * (shfl.bfly on the two halves of its u64, 5 steps) */
static void
warpadd(struct tail *t, const char *x, uint slot)
{
	t->l[t->n++] = arena_fmt(t->a, "cvt.u64.u32 %s, %s;", t->v, x);
	for (int off = 16; off >= 1; off /= 2) {
		t->l[t->n++] = arena_fmt(t->a, "mov.b64 {%s, %s}, %s;", t->lo, t->hi, t->v);
		t->l[t->n++] = arena_fmt(t->a, "shfl.sync.bfly.b32 %s, %s, %d, 31, 0xFFFFFFFF;",
		                         t->lo2, t->lo, off);
		t->l[t->n++] = arena_fmt(t->a, "shfl.sync.bfly.b32 %s, %s, %d, 31, 0xFFFFFFFF;",
		                         t->hi2, t->hi, off);
		t->l[t->n++] = arena_fmt(t->a, "mov.b64 %s, {%s, %s};", t->w, t->lo2, t->hi2);
		t->l[t->n++] = arena_fmt(t->a, "add.u64 %s, %s, %s;", t->v, t->v, t->w);
	}
	t->l[t->n++] = arena_fmt(t->a, "@%s red.global.add.u64 [%strips+%u], %s;", t->first, t->p,
	                         8 * slot, t->v);
}

/* this lane's u32 x added to Ptrips[slot] */
static void
laneadd(struct tail *t, const char *x, uint slot)
{
	t->l[t->n++] = arena_fmt(t->a, "cvt.u64.u32 %s, %s;", t->v, x);
	t->l[t->n++] = arena_fmt(t->a, "red.global.add.u64 [%strips+%u], %s;", t->p, 8 * slot, t->v);
}

/* loop n's heads and entries (c: HEADS and BACK of loop n at 2n, 2n + 1)
 * added to Ptrips by add */
static void
loopadds(struct tail *t, const Fn *fn, const uint *c, uint n,
         void (*add)(struct tail *, const char *, uint))
{
	const char *h = regstr(fn, c[2 * n]), *b = regstr(fn, c[2 * n + 1]);
	add(t, h, 2 * n);
	t->l[t->n++] = arena_fmt(t->a, "sub.u32 %s, %s, %s;", t->e, h, b);
	add(t, t->e, 2 * n + 1);
}

/* every loop's counts into the totals: by warp when the whole warp is
 * here, else lane by lane */
static const char **
flushlines(Fn *fn, const char *p, const uint *c, uint nl)
{
	Arena *A = fn->mod->arena;
	struct tail t = {.a = A, .l = arena_alloc(A, (10 + 60 * nl) * sizeof *t.l), .p = p};
	const char *mask = regstr(fn, newreg(fn, Tb32)), *full = regstr(fn, newreg(fn, Tpred));
	t.first = regstr(fn, newreg(fn, Tpred));
	t.e = regstr(fn, newreg(fn, Tu32));
	t.v = regstr(fn, newreg(fn, Tb64));
	t.w = regstr(fn, newreg(fn, Tb64));
	t.lo = regstr(fn, newreg(fn, Tb32));
	t.hi = regstr(fn, newreg(fn, Tb32));
	t.lo2 = regstr(fn, newreg(fn, Tb32));
	t.hi2 = regstr(fn, newreg(fn, Tb32));
	newlbl(fn, "$L__mpcc_trips_lanes");
	newlbl(fn, "$L__mpcc_trips_done");
	t.l[t.n++] = arena_fmt(A, "activemask.b32 %s;", mask);
	t.l[t.n++] = arena_fmt(A, "setp.eq.b32 %s, %s, 0xFFFFFFFF;", full, mask);
	t.l[t.n++] = arena_fmt(A, "mov.u32 %s, %%laneid;", t.lo);
	t.l[t.n++] = arena_fmt(A, "setp.eq.u32 %s, %s, 0;", t.first, t.lo);
	t.l[t.n++] = arena_fmt(A, "@!%s bra $L__mpcc_trips_lanes;", full);
	for (uint n = 0; n < nl; n++)
		loopadds(&t, fn, c, n, warpadd);
	t.l[t.n++] = "bra.uni $L__mpcc_trips_done;";
	t.l[t.n++] = "$L__mpcc_trips_lanes:";
	for (uint n = 0; n < nl; n++)
		loopadds(&t, fn, c, n, laneadd);
	t.l[t.n++] = "$L__mpcc_trips_done:";
	t.l[t.n] = NULL;
	return t.l;
}

const char **
trips_count(Fn *fn, const char *p)
{
	fillcfg(fn);
	fillloops(fn);
	uint nl = fn->nloop, *c = arena_alloc(fn->mod->arena, (2 * nl + 1) * sizeof *c);
	/* the counters first: their declarations move the statements */
	for (uint k = 0; k < 2 * nl; k++)
		c[k] = newreg(fn, Tu32);
	struct plan pl = plan(fn);
	if (pl.why)
		BUG("shadow: trips counted where %s", pl.why);
	qsort(pl.s, pl.n, sizeof *pl.s, later);
	for (uint k = 0; k < pl.n; k++) {
		const char *r = regstr(fn, c[2 * pl.s[k].loop + pl.s[k].back]);
		Ins *i = mkinsf(fn, "add.u32 %s, %s, 1;", r, r);
		i->pred = pl.s[k].pred;
		i->flags |= pl.s[k].neg;
		ins_insert(fn, pl.s[k].at, i);
	}
	uint at = bodystart(fn);
	for (uint k = 0; k < 2 * nl; k++)
		ins_insert(fn, at + k, mkinsf(fn, "mov.u32 %s, 0;", regstr(fn, c[k])));
	return flushlines(fn, p, c, nl);
}
