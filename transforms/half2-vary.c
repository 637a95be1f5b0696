/* half2-vary.c: the divergence analysis of pairing: what differs between
 * the two logical threads (lanes) of a pair.
 *
 * It finds, to a fixed point:
 *  - varying registers: written from a varying operand or guard, from the
 *    lanes' own special registers (%tid; %ctaid with pairing blocks) or
 *    per-lane objects (.local arrays; .shared ones with pairing blocks),
 *    by an atomic (each lane gets its own old value), or written in a
 *    block that runs under a mask while a waiting lane will still read the
 *    register (the value then differs between the lanes);
 *  - varying branches: guarded by a varying predicate;
 *  - the frontier F(b) of each block: the blocks where a lane may be
 *    waiting while b runs, when the thread always runs the lowest block
 *    (in layout order) that a lane waits for. A varying branch leaves its
 *    lanes at both successors; a block runs under a mask iff F(b) is not
 *    empty (half2.c explains the scheme).
 * Liveness comes from ptx/live.c, with a guarded write not killing. */
#include "transforms/half2.h"

#include <string.h>

/* ---- visiting operands ---- */

struct visit {
	struct h2 *h;
	h2_regfn *f;
	void *arg;
};

static void
visit1(void *arg, uint r, int def)
{
	struct visit *v = arg;
	v->f(v->h, r, def, v->arg);
}

void
h2_visit(struct h2 *h, const Ins *i, h2_regfn *f, void *arg)
{
	struct visit v = {h, f, arg};
	forregs(h->fn, i, visit1, &v);
}

int
h2_refsym(const struct h2 *h, Ref r, const uchar *set)
{
	const Fn *fn = h->fn;
	switch (r.kind) {
	case RSym:
		return r.idx < h->nsym && set[r.idx];
	case RMem:
		return h2_refsym(h, fn->mem[r.idx].base, set);
	case RVec:
	case RList:
		for (uint k = 0; k < fn->vec[r.idx].n; k++)
			if (h2_refsym(h, fn->vec[r.idx].el[k], set))
				return 1;
	}
	return 0;
}

int
h2_atomic(const Ins *i)
{
	return i->op == Oatom || i->op == Ored;
}

int
h2_memop(const Ins *i)
{
	return i->op == Old || i->op == Oldu || i->op == Ost || i->op == Oprefetch
	       || i->op == Oprefetchu || h2_atomic(i);
}

struct vq {
	int vary;
};

static void
vqreg(struct h2 *h, uint r, int def, void *arg)
{
	(void)def;
	struct vq *q = arg;
	if (h->vary[r] || h->lanespec[r])
		q->vary = 1;
}

int
h2_varying(const struct h2 *h, const Ins *i)
{
	struct vq q = {h2_atomic(i)};
	for (uint k = 0; k < i->narg && !q.vary; k++)
		q.vary = h2_refsym(h, i->arg[k], h->lanesym);
	h2_visit((struct h2 *)h, i, vqreg, &q);
	return q.vary;
}

/* ---- cfg facts ---- */

static Word *
rows(struct h2 *h, uint n, uint w)
{
	return arena_alloc(h->a, ((size_t)n * w + 1) * sizeof(Word));
}

static void
terms(struct h2 *h)
{
	Fn *fn = h->fn;
	h->term = arena_alloc(h->a, (h->nblk + 1) * sizeof *h->term);
	for (uint b = 0; b < h->nblk; b++) {
		h->term[b] = ~0u;
		for (uint k = fn->blk[b].end; k > fn->blk[b].first; k--)
			if (fn->ins[k - 1].op < NOP) {
				if (opinfo[fn->ins[k - 1].op].jmp)
					h->term[b] = k - 1;
				break;
			}
	}
}

/* ---- the frontier ---- */

/* every block of P may run next with the later ones of P waiting */
static int
close(struct h2 *h, const uint *p, uint np)
{
	int ch = 0;
	for (uint a = 0; a < np; a++)
		for (uint b = 0; b < np; b++) {
			Word *f = h->front + p[a] * h->bw;
			if (p[b] > p[a] && !bget(f, p[b])) {
				bset(f, p[b]);
				ch = 1;
			}
		}
	return ch;
}

static int
empty(const Word *s, uint w)
{
	for (uint k = 0; k < w; k++)
		if (s[k])
			return 0;
	return 1;
}

/* the blocks of F(b), and then some: collect into p (room for nblk + 2) */
static uint
members(const struct h2 *h, uint b, uint *p)
{
	uint n = 0;
	for (uint w = 0; w < h->nblk; w++)
		if (bget(h->front + b * h->bw, w))
			p[n++] = w;
	return n;
}

static void
frontier(struct h2 *h)
{
	Fn *fn = h->fn;
	uint *p = arena_alloc(h->a, (h->nblk + 2) * sizeof *p);
	memset(h->front, 0, (size_t)h->nblk * h->bw * sizeof(Word));
	for (int changed = 1; changed;) {
		changed = 0;
		for (uint k = 0; k < fn->nrpo; k++) {
			uint b = fn->rpo[k], n;
			const Blk *bk = &fn->blk[b];
			if (!h->varybr[b] && empty(h->front + b * h->bw, h->bw))
				continue;
			if (h->varybr[b] || bk->nsucc <= 1) {
				n = members(h, b, p);
				for (uint s = 0; s < bk->nsucc; s++)
					p[n++] = bk->succ[s];
				changed |= close(h, p, n);
				continue;
			}
			for (uint s = 0; s < bk->nsucc; s++) {
				n = members(h, b, p);
				p[n++] = bk->succ[s];
				changed |= close(h, p, n);
			}
		}
	}
	for (uint b = 0; b < h->nblk; b++) {
		h->div[b] = !empty(h->front + b * h->bw, h->bw);
		Word *s = h->seen + (size_t)b * h->rw;
		memset(s, 0, h->rw * sizeof *s);
		for (uint w = 0; w < h->nblk; w++)
			if (bget(h->front + b * h->bw, w))
				bor(s, h->live->in + (size_t)w * h->live->nw, h->live->nw);
	}
}

/* ---- divergence ---- */

struct mark {
	int changed;
	const Word *only;   /* NULL: every write; else only the registers in it */
};

static void
markdef(struct h2 *h, uint r, int def, void *arg)
{
	struct mark *mk = arg;
	if (!def || (h->fn->reg[r].flags & RGSPECIAL) || h->vary[r])
		return;
	if (mk->only && !bget(mk->only, r))
		return;
	h->vary[r] = 1;
	mk->changed = 1;
}

static int
varybranch(const struct h2 *h, uint b)
{
	uint t = h->term[b];
	if (t == ~0u)
		return 0;
	const Ins *i = &h->fn->ins[t];
	return i->pred.kind == RReg && h->vary[i->pred.idx];
}

static int
step(struct h2 *h)
{
	Fn *fn = h->fn;
	struct mark mk = {0, NULL};
	for (uint k = 0; k < fn->nins; k++)
		if (fn->ins[k].op < NOP && h2_varying(h, &fn->ins[k]))
			h2_visit(h, &fn->ins[k], markdef, &mk);
	for (uint b = 0; b < h->nblk; b++)
		h->varybr[b] = (uchar)varybranch(h, b);
	frontier(h);
	for (uint b = 0; b < h->nblk; b++) {
		if (!h->div[b])
			continue;
		struct mark m2 = {0, h->seen + (size_t)b * h->rw};
		for (uint k = fn->blk[b].first; k < fn->blk[b].end; k++)
			if (fn->ins[k].op < NOP)
				h2_visit(h, &fn->ins[k], markdef, &m2);
		mk.changed |= m2.changed;
	}
	return mk.changed;
}

void
h2_divergence(struct h2 *h)
{
	Fn *fn = h->fn;
	fillcfg(fn);
	fillloops(fn);
	filldefuse(fn);
	h->nreg = fn->nreg;
	h->nblk = fn->nblk;
	h->rw = (h->nreg + 63) / 64 + 1;
	h->bw = (h->nblk + 63) / 64 + 1;
	h->vary = arena_alloc(h->a, h->nreg + 1);
	h->varybr = arena_alloc(h->a, h->nblk + 1);
	h->div = arena_alloc(h->a, h->nblk + 1);
	h->front = rows(h, h->nblk, h->bw);
	h->seen = rows(h, h->nblk, h->rw);
	terms(h);
	h->live = filllive(fn, LGUARDED);
	while (step(h))
		;
	h->weight = blockfreq(fn, NULL, 0, 8, NULL);
	for (uint b = 0; b < h->nblk; b++) {
		uint t = h->term[b];
		h->nvarybr += h->varybr[b];
		h->ndiv += h->div[b];
		if (t != ~0u && (fn->ins[t].op == Oret || fn->ins[t].op == Oexit)
		    && (h->div[b] || h->varybr[b]))
			h->retdiv = 1;
	}
	for (uint r = 0; r < h->nreg; r++)
		if (h->lanespec[r])
			h->usecomp[h->lanespec[r] - 1] = 1;
}

/* Does block b end through the lanes' pcs and a dispatch? Not if its
 * branch is uniform and it runs unmasked, or runs masked but every block
 * it may go to comes before any block a lane may be waiting at: the
 * running lanes then go on together, their mask with them. */
int
h2_protocol(const struct h2 *h, uint b)
{
	const Fn *fn = h->fn;
	if (h->varybr[b])
		return 1;
	if (!h->div[b])
		return 0;
	uint t = h->term[b];
	if (t != ~0u && (fn->ins[t].op == Oret || fn->ins[t].op == Oexit))
		return 1;
	uint low = 0;
	while (low < h->nblk && !bget(h->front + (size_t)b * h->bw, low))
		low++;
	for (uint s = 0; s < fn->blk[b].nsucc; s++)
		if (fn->blk[b].succ[s] >= low)
			return 1;
	return 0;
}

