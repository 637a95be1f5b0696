/* half2-emit.c: the rewrite, once the analysis accepted the kernel.
 *
 * The body is rebuilt into a new statement array (the declarations stay in
 * front, where newreg() adds the new registers): the prologue that gives
 * each lane its logical identity, then every block of the original in
 * layout order, its statements as half2-lanes.c writes them; block ends
 * follow the scheme of half2.c: blocks that run under a mask or end in a
 * varying branch set each lane's next block (pc) and go to the lowest one
 * some lane waits for. */
#include "transforms/half2.h"

#include <stdlib.h>
#include <string.h>

/* ---- block ends ---- */

enum { TFALL, TBRA, TCBRA, TRET, TCRET };

struct end {
	int kind;
	uint t, n;        /* branch target and fall-through blocks (~0u: none) */
	const Ins *i;     /* the jump, or NULL */
};

static void
blockend(struct h2 *h, uint b, struct end *e)
{
	uint t = h->term[b];
	e->n = b + 1 < h->nblk ? b + 1 : ~0u;
	e->t = ~0u;
	e->i = t == ~0u ? NULL : &h->src[t];
	if (!e->i) {
		e->kind = TFALL;
		return;
	}
	if (e->i->op == Obra) {
		e->t = h->tblk[b];
		e->kind = e->i->pred.kind ? TCBRA : TBRA;
	} else
		e->kind = e->i->pred.kind ? TCRET : TRET;
}

static const char *
pcval(struct h2 *h, uint blk)
{
	char buf[16];
	snprintf(buf, sizeof buf, "%d", blk == DONE ? -1 : (int)blk);
	return arena_strdup(h->m->arena, buf);
}

/* lane l's next block: pc = where it goes, under guard g */
static void
setpc(struct h2 *h, const struct end *e, int l, const char *g)
{
	const char *pc = regstr(h->fn, h->pc[l]), *p = NULL;
	uint x = e->kind == TBRA ? e->t : e->kind == TRET ? DONE : e->n;
	if (e->kind == TCBRA || e->kind == TCRET) {
		uint yes = e->kind == TCBRA ? e->t : DONE, no = e->n;
		if (e->i->flags & INEGPRED)
			yes = no, no = e->kind == TCBRA ? e->t : DONE;
		p = h2_lname(h, e->i->pred.idx, l);
		h2_emit(h, "%sselp.u32 %s, %s, %s, %s;", h2_at(h, g), pc, pcval(h, yes), pcval(h, no), p);
	} else
		h2_emit(h, "%smov.u32 %s, %s;", h2_at(h, g), pc, pcval(h, x));
}

static int
cmpu(const void *a, const void *b)
{
	uint x = *(const uint *)a, y = *(const uint *)b;
	return (x > y) - (x < y);
}

/* where dispatch enters block x: before the masks of a block that runs
 * under one */
static const char *
entry(struct h2 *h, uint x)
{
	return h2_lblname(h, h->div[x] ? h->dlbl[x] : h->blbl[x]);
}

/* go to the lowest of the blocks c[] that a lane waits for */
static void
dispatch(struct h2 *h, uint *c, uint n)
{
	const char *q = regstr(h->fn, h->tp[2]), *p0 = regstr(h->fn, h->pc[0]), *p1 = regstr(h->fn, h->pc[1]);
	qsort(c, n, sizeof *c, cmpu);
	for (uint k = 0; k + 1 < n; k++) {
		h2_emit(h, "setp.eq.u32 %s, %s, %u;", q, p0, c[k]);
		h2_emit(h, "setp.eq.or.u32 %s, %s, %u, %s;", q, p1, c[k], q);
		h2_emit(h, "@%s bra %s;", q, entry(h, c[k]));
	}
	if (c[n - 1] == DONE)
		h2_emit(h, "ret;");
	else
		h2_emit(h, "bra %s;", entry(h, c[n - 1]));
}

static uint
addcand(uint *c, uint n, uint x)
{
	for (uint k = 0; k < n; k++)
		if (c[k] == x)
			return n;
	c[n] = x;
	return n + 1;
}

/* the blocks a jump may go to (DONE for a return) */
static uint
targets(const struct end *e, uint *x)
{
	switch (e->kind) {
	case TFALL: x[0] = e->n; return e->n != ~0u;
	case TBRA: x[0] = e->t; return 1;
	case TCBRA: x[0] = e->t, x[1] = e->n; return 2;
	case TRET: x[0] = DONE; return 1;
	}
	x[0] = DONE, x[1] = e->n;
	return 2;
}

/* the jump as it was (a conditional bra.uni loses .uni: two logical warps
 * share a warp now), and a fall-through into a masked block skips its
 * masks (they carry over) */
static void
keepjump(struct h2 *h, const struct end *e)
{
	if (e->i) {
		Ins c = *e->i;
		if (c.pred.kind && c.op == Obra && c.name.n == 7 && !memcmp(c.name.s, "bra.uni", 7)) {
			c.name = str(h->m, "bra");
			ins_touch(&c);
		}
		h2_put(h, &c);
	}
	if ((e->kind == TFALL || e->kind == TCBRA || e->kind == TCRET) && e->n != ~0u && h->div[e->n])
		h2_emit(h, "bra %s;", h2_lblname(h, h->blbl[e->n]));
}

/* the end of block b. Where no lane can be waiting for an earlier block,
 * the jump stays as it was: the lanes that run go on together, their
 * masks with them (into a masked block from an unmasked one: every live
 * lane). Else each lane that runs sets its next block, and the thread
 * goes to the lowest block some lane waits for. */
static void
endblock(struct h2 *h, uint b)
{
	struct end e;
	uint x[2], nx;
	blockend(h, b, &e);
	nx = targets(&e, x);
	if (!h2_protocol(h, b)) {
		int todiv = 0;
		for (uint k = 0; k < nx; k++)
			todiv |= x[k] != DONE && x[k] != ~0u && h->div[x[k]];
		{
			if (!h->div[b] && todiv)
				for (int l = 0; l < 2; l++)
					h2_emit(h, "%s %s, %s;", l == 0 && !h->retdiv ? "setp.eq.u32" : "mov.pred",
					     regstr(h->fn, h->msk[l]), l == 0 && !h->retdiv ? "0, 0" : regstr(h->fn, h->lv[l]));
			keepjump(h, &e);
			return;
		}
	}
	uint *c = arena_alloc(h->a, (h->nblk + 3) * sizeof *c), n = 0;
	for (uint w = 0; w < h->nblk; w++)
		if (bget(h->front + (size_t)b * h->bw, w))
			c[n++] = w;
	for (uint k = 0; k < nx; k++)
		if (x[k] != ~0u)
			n = addcand(c, n, x[k]);
	if (!n)
		BUG("half2: block %u leads nowhere", b);
	int need = n > 1 || c[0] == DONE || h->div[c[0]];
	for (int l = 0; l < 2 && need; l++) {
		const char *g = h2_mask(h, b, l);
		setpc(h, &e, l, g);
		if ((e.kind == TRET || e.kind == TCRET) && (l == 1 || h->retdiv))
			h2_emit(h, "setp.ne.u32 %s, %s, -1;", regstr(h->fn, h->lv[l]), regstr(h->fn, h->pc[l]));
	}
	dispatch(h, c, n);
}

/* the start of block b: a masked block is entered by dispatch (masks
 * from the lanes' pcs) or directly (masks carried over) */
static void
startblock(struct h2 *h, uint b, uint *k)
{
	Fn *fn = h->fn;
	const Ins *src = h->src;
	uint f = *k;
	if (h->div[b]) {
		h2_label(h, h->dlbl[b]);
		for (int l = 0; l < 2; l++)
			h2_emit(h, "setp.eq.u32 %s, %s, %u;", regstr(h->fn, h->msk[l]), regstr(h->fn, h->pc[l]), b);
	}
	if (src[f].op == Olabel && src[f].arg[0].idx == h->blbl[b]) {
		h2_put(h, &src[f]);
		(*k)++;
	} else
		h2_label(h, h->blbl[b]);
	while (*k < fn->blk[b].end && (src[*k].op == Oraw || src[*k].op == Oloc))
		h2_put(h, &src[(*k)++]);
}

/* lane 1's copy of the declaration i of a per-lane object */
static Ins *
varcopy(struct h2 *h, const Ins *i)
{
	Ins *c = arena_alloc(h->m->arena, sizeof *c);
	*c = *i;
	c->arg = arena_alloc(h->m->arena, sizeof(Ref));
	c->arg[0] = REF(RSym, h->sym1[i->arg[0].idx]);
	c->lead = (Str){"\n\t", 2};
	c->src = (Str){0};
	c->flags |= IDIRTY;
	return c;
}

/* statement k of the body as it was, and after a per-lane object declared
 * inside { } lane 1's copy */
static void
putsrc(struct h2 *h, uint k)
{
	h2_put(h, &h->src[k]);
	if (h->invar[k])
		h2_put(h, varcopy(h, &h->src[k]));
}

static void
block(struct h2 *h, uint b)
{
	Fn *fn = h->fn;
	uint k = fn->blk[b].first;
	if (k < h->start)   /* the declarations stay in front */
		k = h->start;
	if (fn->blk[b].rpo == ~0u) {   /* never runs: as it was */
		for (; k < fn->blk[b].end; k++)
			putsrc(h, k);
		return;
	}
	startblock(h, b, &k);
	for (; k < fn->blk[b].end; k++) {
		const Ins *i = &h->src[k];
		if (k == h->term[b])
			break;
		if (i->op >= NOP)
			putsrc(h, k);
		else
			h2_instruction(h, b, i);
	}
	endblock(h, b);
}

/* ---- the prologue: each lane's logical identity ---- */

static uint
b32(struct h2 *h)
{
	return newreg(h->fn, Tb32);
}

/* Lane 0 is the logical thread (block) of linear id 2P, P the physical
 * one's, lane 1 the next: their coordinates in the launch's shape n[] come
 * from P's own coordinates p[] by doubling digit by digit with a carry
 * (2p.x < 2n.x needs one subtraction at most), then adding one the same
 * way: no division, 32 bits. A physical thread whose lane 0 falls past
 * the last one exits; lane 1 past it is dead (lv1 false). */
static void
identity(struct h2 *h, const char *cnt, const char *idx)
{
	const char *d[3] = {"x", "y", "z"};
	uint n[3], p[3], t = b32(h);
	const char *q = regstr(h->fn, h->tp[2]), *c = regstr(h->fn, h->tp[1]), *tt = regstr(h->fn, t);
	for (int k = 0; k < 3; k++) {
		n[k] = b32(h), p[k] = b32(h);
		h2_emit(h, "mov.u32 %s, %%%s.%s;", regstr(h->fn, n[k]), cnt, d[k]);
		h2_emit(h, "mov.u32 %s, %%%s.%s;", regstr(h->fn, p[k]), idx, d[k]);
	}
	for (int k = 0; k < 3; k++) {
		const char *x = regstr(h->fn, h->lreg[0][k]), *nk = regstr(h->fn, n[k]);
		h2_emit(h, "shl.b32 %s, %s, 1;", x, regstr(h->fn, p[k]));
		if (k) {
			h2_emit(h, "selp.u32 %s, 1, 0, %s;", tt, c);
			h2_emit(h, "add.u32 %s, %s, %s;", x, x, tt);
		}
		if (k < 2) {
			h2_emit(h, "setp.ge.u32 %s, %s, %s;", c, x, nk);
			h2_emit(h, "@%s sub.u32 %s, %s, %s;", c, x, x, nk);
		}
	}
	h2_emit(h, "setp.ge.u32 %s, %s, %s;", q, regstr(h->fn, h->lreg[0][2]), regstr(h->fn, n[2]));
	h2_emit(h, "@%s ret;", q);
	for (int k = 0; k < 3; k++) {
		const char *x = regstr(h->fn, h->lreg[1][k]), *x0 = regstr(h->fn, h->lreg[0][k]);
		if (k == 0)
			h2_emit(h, "add.u32 %s, %s, 1;", x, x0);
		else {
			h2_emit(h, "selp.u32 %s, 1, 0, %s;", tt, c);
			h2_emit(h, "add.u32 %s, %s, %s;", x, x0, tt);
		}
		if (k < 2) {
			h2_emit(h, "setp.eq.u32 %s, %s, %s;", c, x, regstr(h->fn, n[k]));
			h2_emit(h, "selp.u32 %s, 0, %s, %s;", x, x, c);
		}
	}
	h2_emit(h, "setp.lt.u32 %s, %s, %s;", regstr(h->fn, h->lv[1]), regstr(h->fn, h->lreg[1][2]), regstr(h->fn, n[2]));
}

static void
prologue(struct h2 *h)
{
	if (h->pairing == BLOCKS)
		identity(h, "nctaid", "ctaid");
	else
		identity(h, "ntid", "tid");
	if (h->retdiv)
		h2_emit(h, "setp.eq.u32 %s, 0, 0;", regstr(h->fn, h->lv[0]));
	/* a lane dead from the start is done; the first block may run under
	 * a mask (a loop's header): every live lane runs it */
	h2_emit(h, "mov.u32 %s, 0;", regstr(h->fn, h->pc[0]));
	h2_emit(h, "selp.u32 %s, 0, -1, %s;", regstr(h->fn, h->pc[1]), regstr(h->fn, h->lv[1]));
	if (h->nblk && h->div[0]) {
		h2_emit(h, "setp.eq.u32 %s, 0, 0;", regstr(h->fn, h->msk[0]));
		h2_emit(h, "mov.pred %s, %s;", regstr(h->fn, h->msk[1]), regstr(h->fn, h->lv[1]));
		h2_emit(h, "bra %s;", h2_lblname(h, h->blbl[0]));
	}
}

/* ---- registers and objects ---- */

static void
registers(struct h2 *h)
{
	Fn *fn = h->fn;
	uint n = h->nreg;
	h->l1 = arena_alloc(h->a, (n + 1) * sizeof *h->l1);
	h->pk = arena_alloc(h->a, (n + 1) * sizeof *h->pk);
	for (uint r = 0; r < n; r++) {
		if (h->vary[r])
			h->l1[r] = newreg(fn, fn->reg[r].ty ? fn->reg[r].ty : Tb32);
		if (h->packed[r] || h->bcast[r])
			h->pk[r] = newreg(fn, Tb32);
	}
	for (int l = 0; l < 2; l++) {
		for (int c = 0; c < 3; c++)
			h->lreg[l][c] = newreg(fn, Tb32);
		h->pc[l] = newreg(fn, Tb32);
		h->lv[l] = newreg(fn, Tpred);
		h->msk[l] = newreg(fn, Tpred);
	}
	for (int k = 0; k < 6; k++)
		h->tb[k] = newreg(fn, Tb32);
	for (int k = 0; k < 3; k++)
		h->tp[k] = newreg(fn, Tpred);
	h->th[0] = newreg(fn, Tb16);
	h->th[1] = newreg(fn, Tb16);
	h->ttmp = newreg(fn, Tb32);
}

/* lane 1's copies of the per-lane objects: of the kernel's, declared after
 * the originals; of one declared inside { }, marked to follow it there
 * (putsrc()), since a name resolves in its scope: hoisted, an inner "e"
 * and an outer "e" would both declare the kernel's "e_h2" */
static void
objects(struct h2 *h)
{
	Fn *fn = h->fn;
	Module *m = h->m;
	uint depth = 0;
	h->sym1 = arena_alloc(h->a, (h->nsym + 1) * sizeof *h->sym1);
	h->invar = arena_alloc(h->a, h->nsrc + 1);
	for (uint k = 0; k < h->nsrc; k++) {
		const Ins *i = &h->src[k];
		depth += i->op == Oopen;
		depth -= i->op == Oclose && depth;
		if (i->op != Ovar || !h->lanesym[i->arg[0].idx])
			continue;
		uint s = i->arg[0].idx;
		const char *name = arena_fmt(m->arena, "%.*s_h2", (int)m->sym[s].name.n, m->sym[s].name.s);
		h->sym1[s] = intern(m, name, strlen(name));
		if (depth)
			h->invar[k] = 1;
		else
			ins_insert(fn, fn->nins, varcopy(h, i));
	}
}

/* the new body in place of the old: declarations, then h->out; the
 * indices that point into the body (labels, declarations) follow */
static void
install(struct h2 *h, uint ndecl)
{
	Fn *fn = h->fn;
	uint n = ndecl + h->nout;
	Ins *all = arena_alloc(h->m->arena, (n + 1) * sizeof *all);
	memcpy(all, fn->ins, ndecl * sizeof *all);
	memcpy(all + ndecl, h->out, h->nout * sizeof *all);
	fn->ins = all;
	fn->nins = fn->cap = n;
	for (uint l = 0; l < fn->nlbl; l++)
		fn->lbl[l].ins = ~0u;
	for (uint k = 0; k < n; k++) {
		if (all[k].op == Olabel)
			fn->lbl[all[k].arg[0].idx].ins = k;
		if (all[k].op == Oreg && all[k].narg && all[k].arg[0].kind == RRange)
			fn->range[all[k].arg[0].idx].decl = k;
		else if (all[k].op == Oreg)
			for (uint a = 0; a < all[k].narg; a++)
				if (all[k].arg[a].kind == RReg)
					fn->reg[all[k].arg[a].idx].decl = k;
	}
	for (uint r = 0; r < fn->nreg; r++)   /* members of ranges: their range's */
		if (fn->reg[r].range)
			fn->reg[r].decl = fn->range[fn->reg[r].range - 1].decl;
}

/* every block gets a label: dispatch goes to it */
static void
labels(struct h2 *h)
{
	Fn *fn = h->fn;
	h->blbl = arena_alloc(h->a, (h->nblk + 1) * sizeof *h->blbl);
	h->tblk = arena_alloc(h->a, (h->nblk + 1) * sizeof *h->tblk);
	h->dlbl = arena_alloc(h->a, (h->nblk + 1) * sizeof *h->dlbl);
	for (uint b = 0; b < h->nblk; b++) {
		const Ins *i = &h->src[fn->blk[b].first];
		h->blbl[b] = i->op == Olabel ? i->arg[0].idx : newlbl(fn, NULL);
		h->dlbl[b] = h->div[b] ? newlbl(fn, NULL) : ~0u;
		h->tblk[b] = ~0u;
		if (h->term[b] == ~0u || h->src[h->term[b]].op != Obra)
			continue;
		const Ins *t = &h->src[h->term[b]];
		uint at = fn->lbl[t->arg[t->narg - 1].idx].ins;
		h->tblk[b] = at == ~0u ? ~0u : fn->insblk[at];
	}
}

void
h2_transform(struct h2 *h)
{
	Fn *fn = h->fn;
	uint start = h->start = bodystart(fn);
	/* the original statements stay where they are, read through h->src;
	 * fn->ins becomes the declarations alone, where newreg() adds and
	 * mkins() builds */
	h->src = fn->ins;
	h->nsrc = fn->nins;
	labels(h);
	Ins *decl = arena_alloc(h->m->arena, (start + 1) * sizeof *decl);
	memcpy(decl, fn->ins, start * sizeof *decl);
	fn->ins = decl;
	fn->nins = fn->cap = start;
	registers(h);
	objects(h);
	prologue(h);
	for (uint b = 0; b < h->nblk; b++)
		block(h, b);
	for (uint k = fn->nblk ? fn->blk[h->nblk - 1].end : start; k < h->nsrc; k++)
		putsrc(h, k);
	/* the blends' x2 registers start as 0, ahead of everything */
	uint n = h->nout;
	for (uint k = 0; k < h->nzero; k++)
		h2_emit(h, "mov.b32 %s, 0;", regstr(h->fn, h->zero[k]));
	if (h->nzero) {
		Ins *z = arena_alloc(h->a, h->nzero * sizeof *z);
		memcpy(z, h->out + n, h->nzero * sizeof *z);
		memmove(h->out + h->nzero, h->out, n * sizeof *z);
		memcpy(h->out, z, h->nzero * sizeof *z);
	}
	install(h, fn->nins);
}
