/* half2-emit.c: the rewrite, once the analysis accepted the kernel.
 *
 * The body is rebuilt into a new statement array (the declarations stay in
 * front, where newreg() adds the new registers): the prologue that gives
 * each lane its logical identity, then every block of the original in
 * layout order:
 *  - a statement that varies in nothing is copied as it was (computed once);
 *  - f32 arithmetic on packed registers becomes one x2 instruction, its
 *    operands packed on the way in (split registers, uniform f32 values,
 *    immediates as packed constants);
 *  - anything else that varies runs once per lane: lane 0 in the original
 *    registers, lane 1 in copies; packed operands are unpacked into those
 *    two f32 registers first, packed results packed after;
 *  - loads, stores, atomics and side effects are guarded by the lane's
 *    mask where a lane may be inactive (dead from the start, returned, or
 *    waiting); writes that a waiting lane would see are guarded too
 *    (split) or blended with lop3 under a per-lane mask word (packed);
 *  - block ends follow the scheme of half2.c: blocks that run under a mask
 *    or end in a varying branch set each lane's next block (pc) and go to
 *    the lowest one some lane waits for.
 * Lane 0 of a pair is the lower half of an x2 register (cvt.rn.f16x2.f32
 * d, a, b puts a in the upper half). */
#include "transforms/half2.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- building the new body ---- */

static void
put(struct h2 *h, const Ins *i)
{
	h->out = agrow(h->m->arena, h->out, h->nout, &h->capout, sizeof *h->out);
	h->out[h->nout++] = *i;
}

static void emit(struct h2 *h, const char *f, ...) __attribute__((format(printf, 2, 3)));
static void
emit(struct h2 *h, const char *f, ...)
{
	char line[1024];
	va_list ap;
	va_start(ap, f);
	vsnprintf(line, sizeof line, f, ap);
	va_end(ap);
	Ins *i = mkins(h->fn, line);
	if (!i)
		BUG("half2: cannot build '%s'", line);
	i->lead = (Str){"\n\t", 2};
	put(h, i);
}

static void
label(struct h2 *h, uint l)
{
	Ins d = {0};
	d.op = Olabel;
	d.arg = arena_alloc(h->m->arena, sizeof(Ref));
	d.arg[0] = REF(RLbl, l);
	d.narg = 1;
	d.lead = (Str){"\n", 1};
	put(h, &d);
}

/* a register's name, kept in the module's arena */
static const char *
nm(struct h2 *h, uint r)
{
	char buf[256];
	return arena_strdup(h->m->arena, regname(h->fn, r, buf, sizeof buf));
}

static const char *
lblname(struct h2 *h, uint l)
{
	Str s = h->fn->lbl[l].name;
	return arena_strndup(h->m->arena, s.s, s.n);
}

/* a b c, in the module's arena */
static const char *
cat(struct h2 *h, const char *a, const char *b, const char *c)
{
	size_t na = strlen(a), nb = strlen(b), nc = strlen(c);
	char *s = arena_alloc(h->m->arena, na + nb + nc + 1);
	memcpy(s, a, na);
	memcpy(s + na, b, nb);
	memcpy(s + na + nb, c, nc);
	return s;
}

/* ---- operands of one lane ---- */

/* register r as lane `lane` sees it */
static uint
lanereg(const struct h2 *h, uint r, int lane)
{
	if (h->lanespec[r])
		return h->lreg[lane][h->lanespec[r] - 1];
	if (lane && r < h->nreg && h->vary[r])
		return h->l1[r];
	return r;
}

static const char *
lname(struct h2 *h, uint r, int lane)
{
	return nm(h, lanereg(h, r, lane));
}

static void lref(struct h2 *h, struct buf *b, Ref r, int lane);

static void
llist(struct h2 *h, struct buf *b, const Vec *v, int lane)
{
	for (uint k = 0; k < v->n; k++) {
		if (k)
			buf_puts(b, v->el[k].bar ? "|" : ", ");
		lref(h, b, v->el[k], lane);
	}
}

static void
lref(struct h2 *h, struct buf *b, Ref r, int lane)
{
	Fn *fn = h->fn;
	Module *m = h->m;
	if (r.neg)
		buf_puts(b, "!");
	switch (r.kind) {
	case RReg:
		buf_puts(b, lname(h, r.idx, lane));
		break;
	case RSym: {
		uint s = lane && r.idx < h->nsym && h->lanesym[r.idx] ? h->sym1[r.idx] : r.idx;
		buf_put(b, m->sym[s].name.s, m->sym[s].name.n);
		break;
	}
	case RMem: {
		const Mem *a = &fn->mem[r.idx];
		buf_puts(b, "[");
		lref(h, b, a->base, lane);
		if (a->offs.n) {
			buf_puts(b, "+");
			buf_put(b, a->offs.s, a->offs.n);
		}
		if (a->vec.kind) {
			buf_puts(b, ", ");
			lref(h, b, a->vec, lane);
		}
		buf_puts(b, "]");
		break;
	}
	case RVec:
		buf_puts(b, "{");
		llist(h, b, &fn->vec[r.idx], lane);
		buf_puts(b, "}");
		break;
	case RList:
		buf_puts(b, "(");
		llist(h, b, &fn->vec[r.idx], lane);
		buf_puts(b, ")");
		break;
	default: {
		Ref c = r;
		c.neg = 0;
		buf_puts(b, refstr(h->fn, c));
	}
	}
}

/* the registers of r, a copy of o parsed from its text, made o's as lane
 * `lane` sees them: the text names a register declared in an inline asm
 * { } (cicc's "{.reg .f16 low; ...}") by a name that no longer resolves
 * once its scope is closed */
static void
regsof(struct h2 *h, Ref *r, Ref o, int lane)
{
	Fn *fn = h->fn;
	switch (o.kind) {
	case RReg:
		*r = (Ref){.kind = RReg, .idx = lanereg(h, o.idx, lane), .neg = r->neg, .bar = r->bar};
		break;
	case RMem:
		if (r->kind == RMem) {
			regsof(h, &fn->mem[r->idx].base, fn->mem[o.idx].base, lane);
			regsof(h, &fn->mem[r->idx].vec, fn->mem[o.idx].vec, lane);
		}
		break;
	case RVec:
	case RList:
		if (r->kind == o.kind && fn->vec[r->idx].n == fn->vec[o.idx].n)
			for (uint k = 0; k < fn->vec[o.idx].n; k++)
				regsof(h, &fn->vec[r->idx].el[k], fn->vec[o.idx].el[k], lane);
		break;
	}
}

/* instruction i as lane `lane` runs it, under guard g ("" or "@%p ") */
static void
lanecopy(struct h2 *h, const Ins *i, int lane, const char *g)
{
	struct buf b = BUF_INIT;
	buf_puts(&b, g);
	buf_put(&b, i->name.s, i->name.n);
	for (uint k = 0; k < i->narg; k++) {
		buf_puts(&b, k == 0 ? " " : i->arg[k].bar ? "|" : ", ");
		lref(h, &b, i->arg[k], lane);
	}
	buf_puts(&b, ";");
	Ins *c = mkins(h->fn, b.s);
	if (!c)
		BUG("half2: cannot build '%s'", b.s);
	for (uint k = 0; k < i->narg; k++)
		regsof(h, &c->arg[k], i->arg[k], lane);
	c->lead = (Str){"\n\t", 2};
	put(h, c);
	buf_release(&b);
}

/* ---- packing ---- */

/* d (b32) = {lane 0: a0, lane 1: a1} */
static void
pack(struct h2 *h, const char *d, const char *a0, const char *a1)
{
	if (h->type == BF16)
		emit(h, "cvt.rn.bf16x2.f32 %s, %s, %s;", d, a1, a0);
	else if (h->tgt >= 80)
		emit(h, "cvt.rn.f16x2.f32 %s, %s, %s;", d, a1, a0);
	else {
		const char *t0 = nm(h, h->th[0]), *t1 = nm(h, h->th[1]);
		emit(h, "cvt.rn.f16.f32 %s, %s;", t0, a0);
		emit(h, "cvt.rn.f16.f32 %s, %s;", t1, a1);
		emit(h, "mov.b32 %s, {%s, %s};", d, t0, t1);
	}
}

/* d0, d1 (f32) = the lanes of x2 register s */
static void
unpack(struct h2 *h, const char *d0, const char *d1, const char *s)
{
	if (h->type == BF16) {
		emit(h, "shl.b32 %s, %s, 16;", d0, s);
		emit(h, "and.b32 %s, %s, 0xFFFF0000;", d1, s);
		return;
	}
	const char *t0 = nm(h, h->th[0]), *t1 = nm(h, h->th[1]);
	emit(h, "mov.b32 {%s, %s}, %s;", t0, t1, s);
	emit(h, "cvt.f32.f16 %s, %s;", d0, t0);
	emit(h, "cvt.f32.f16 %s, %s;", d1, t1);
}

/* a word with 0xFFFF in the half of each lane whose guard holds ("": always) */
static const char *
word(struct h2 *h, const char *g0, const char *g1)
{
	const char *w = nm(h, h->tb[5]), *t = nm(h, h->tb[4]);
	if (*g0 && *g1) {
		emit(h, "selp.b32 %s, 0xFFFF, 0, %s;", t, g0);
		emit(h, "selp.b32 %s, 0xFFFF0000, 0, %s;", w, g1);
		emit(h, "or.b32 %s, %s, %s;", w, w, t);
	} else if (*g1)
		emit(h, "selp.b32 %s, -1, 0xFFFF, %s;", w, g1);
	else if (*g0)
		emit(h, "selp.b32 %s, -1, 0xFFFF0000, %s;", w, g0);
	else
		return NULL;
	return w;
}

/* x2 register pk = the halves of v where the lanes' guards hold, else pk's
 * own. Where no write of pk reaches (the lane that keeps its half never
 * wrote it: an undefined half it never reads), the read is still a read of
 * an undefined register; pk starts as 0 at the kernel's entry for it
 * (h2_transform), which ptxas drops where a write comes first anyway. */
static void
blend(struct h2 *h, uint pk, const char *v, const char *g0, const char *g1)
{
	const char *w = word(h, g0, g1), *d = nm(h, pk);
	if (!w) {
		emit(h, "mov.b32 %s, %s;", d, v);
		return;
	}
	emit(h, "lop3.b32 %s, %s, %s, %s, 0xE4;", d, v, d, w);
	for (uint k = 0; k < h->nzero; k++)
		if (h->zero[k] == pk)
			return;
	h->zero = agrow(h->a, h->zero, h->nzero, &h->capzero, sizeof *h->zero);
	h->zero[h->nzero++] = pk;
}

/* an f32 operand of an x2 instruction as one x2 register; conversions go
 * to temporary slot */
static const char *
x2arg(struct h2 *h, Ref r, int slot)
{
	Fn *fn = h->fn;
	const char *t = nm(h, h->tb[slot]);
	if (r.kind == RImm) {
		float f = 0;
		int risk;
		if (!h2_immf(fn->imm[r.idx].text, &f))
			BUG("half2: f32 immediate '%.*s'", (int)fn->imm[r.idx].text.n, fn->imm[r.idx].text.s);
		emit(h, "mov.b32 %s, 0x%08X;", t, h2_packconst(h, f, &risk));
		return t;
	}
	if (r.kind != RReg)
		BUG("half2: x2 operand of kind %d", r.kind);
	uint g = r.idx;
	if (h->packed[g] || h->bcast[g])
		return nm(h, h->pk[g]);
	pack(h, t, lname(h, g, 0), lname(h, g, 1));
	return t;
}

/* ---- guards ---- */

/* the lane's mask in block b: "" if the lane always runs there */
static const char *
mask(struct h2 *h, uint b, int lane)
{
	if (h->div[b])
		return nm(h, h->msk[lane]);
	if (lane == 0 && !h->retdiv)
		return "";
	return nm(h, h->lv[lane]);
}

/* the instruction's own guard for one lane: "%p", "!%p" or "" */
static const char *
ownguard(struct h2 *h, const Ins *i, int lane)
{
	if (!i->pred.kind)
		return "";
	const char *p = lname(h, i->pred.idx, lane);
	return i->flags & INEGPRED ? cat(h, "!", p, "") : p;
}

/* a and b both ("" is true): a predicate name or "" */
static const char *
both(struct h2 *h, const char *a, const char *b, int lane)
{
	if (!*a)
		return b;
	if (!*b)
		return a;
	const char *t = nm(h, h->tp[lane]);
	emit(h, "and.pred %s, %s, %s;", t, a, b);
	return t;
}

static const char *
at(struct h2 *h, const char *g)
{
	return *g ? cat(h, "@", g, " ") : "";
}

/* ---- what an instruction needs ---- */

static int
effects(const Ins *i)
{
	switch (i->op) {
	case Ost: case Oatom: case Ored: case Otrap: case Obrkpt: case Oprefetch: case Oprefetchu:
	case Old: case Oldu: case Opmevent:
		return 1;
	}
	return 0;
}

struct seen {
	const Word *set;
	int hit;
};

static void
seenreg(struct h2 *h, uint r, int def, void *arg)
{
	struct seen *s = arg;
	if (def && !(h->fn->reg[r].flags & RGSPECIAL) && bget(s->set, r))
		s->hit = 1;
}

/* does i write a register that a lane waiting elsewhere still reads? */
static int
needblend(struct h2 *h, uint b, const Ins *i)
{
	struct seen s = {h->seen + (size_t)b * h->rw, 0};
	if (!h->div[b])
		return 0;
	h2_visit(h, i, seenreg, &s);
	return s.hit;
}

struct regs {
	uint *r;
	uint n;
	int def;
};

static void
packedreg(struct h2 *h, uint r, int def, void *arg)
{
	struct regs *s = arg;
	if (def != s->def || r >= h->nreg || !h->packed[r])
		return;
	for (uint k = 0; k < s->n; k++)
		if (s->r[k] == r)
			return;
	s->r[s->n++] = r;
}

/* the packed registers i reads (def 0) or writes (def 1), each once */
static uint
packedregs(struct h2 *h, const Ins *i, int def, uint *r)
{
	struct regs s = {r, 0, def};
	h2_visit(h, i, packedreg, &s);
	return s.n;
}

/* ---- one instruction ---- */

static const char *const x2name[] = {
	[Oadd] = "add", [Osub] = "sub", [Omul] = "mul", [Ofma] = "fma", [Omad] = "fma",
	[Oneg] = "neg", [Oabs] = "abs", [Omin] = "min", [Omax] = "max", [Oex2] = "ex2",
	[Otanh] = "tanh",
};

/* the x2 mnemonic for f32 instruction i */
static char *
x2mnemonic(struct h2 *h, const Ins *i)
{
	int bf = h->type == BF16, op = i->op;
	const char *ty = bf ? ".bf16x2" : ".f16x2";
	struct buf b = BUF_INIT;
	buf_puts(&b, x2name[op]);
	switch (op) {
	case Oex2: case Otanh:
		buf_printf(&b, ".approx%s", bf && op == Oex2 ? ".ftz" : "");
		break;
	case Omin: case Omax:
		if (!bf && hasmod(i, "ftz"))
			buf_puts(&b, ".ftz");
		if (hasmod(i, "NaN"))
			buf_puts(&b, ".NaN");
		break;
	case Oneg: case Oabs:
		if (!bf && hasmod(i, "ftz"))
			buf_puts(&b, ".ftz");
		break;
	default:
		if (bf || op == Ofma || op == Omad || hasmod(i, "rn"))
			buf_puts(&b, ".rn");
		if (!bf && hasmod(i, "ftz"))
			buf_puts(&b, ".ftz");
		if (!bf && hasmod(i, "sat"))
			buf_puts(&b, ".sat");
	}
	buf_puts(&b, ty);
	return buf_take(&b);
}

/* one x2 instruction into d: bf16 add, sub, mul before sm_90 are fmas */
static void
x2ins(struct h2 *h, const Ins *i, const char *d, const char **a)
{
	if (h->type == BF16 && !h2_bf16sm90(h) && (i->op == Oadd || i->op == Osub || i->op == Omul)) {
		const char *c = nm(h, h->tb[3]);
		if (i->op == Omul) {
			emit(h, "mov.b32 %s, 0x80008000;", c);
			emit(h, "fma.rn.bf16x2 %s, %s, %s, %s;", d, a[0], a[1], c);
		} else if (i->op == Oadd) {
			emit(h, "mov.b32 %s, 0x3F803F80;", c);
			emit(h, "fma.rn.bf16x2 %s, %s, %s, %s;", d, a[0], c, a[1]);
		} else {
			emit(h, "mov.b32 %s, 0xBF80BF80;", c);
			emit(h, "fma.rn.bf16x2 %s, %s, %s, %s;", d, a[1], c, a[0]);
		}
		return;
	}
	char *mn = x2mnemonic(h, i);
	struct buf b = BUF_INIT;
	buf_printf(&b, "%s %s", mn, d);
	for (uint k = 1; k < i->narg; k++)
		buf_printf(&b, ", %s", a[k - 1]);
	buf_puts(&b, ";");
	emit(h, "%s", b.s);
	buf_release(&b);
	free(mn);
}

/* the lanes' guards for an instruction of block b that writes only in
 * active lanes (masked) or only where its own guard holds */
static void
guards(struct h2 *h, uint b, const Ins *i, int masked, const char **g)
{
	for (int l = 0; l < 2; l++)
		g[l] = both(h, ownguard(h, i, l), masked ? mask(h, b, l) : "", l);
}

/* f32 arithmetic with a packed result: one x2 instruction */
static void
x2(struct h2 *h, uint b, const Ins *i)
{
	const char *a[4] = {0}, *g[2];
	uint d = i->arg[0].idx;
	int nb = needblend(h, b, i);
	for (uint k = 1; k < i->narg && k < 4; k++)
		a[k - 1] = x2arg(h, i->arg[k], (int)k - 1);
	int vguard = i->pred.kind && h->vary[i->pred.idx];
	if (!nb && !vguard) {
		const char *gu = i->pred.kind ? at(h, ownguard(h, i, 0)) : "";
		if (i->op == Omov)
			emit(h, "%smov.b32 %s, %s;", gu, nm(h, h->pk[d]), a[0]);
		else if (!*gu)
			x2ins(h, i, nm(h, h->pk[d]), a);
		else {
			const char *t = nm(h, h->ttmp);
			x2ins(h, i, t, a);
			emit(h, "%smov.b32 %s, %s;", gu, nm(h, h->pk[d]), t);
		}
		return;
	}
	const char *t = nm(h, h->ttmp);
	if (i->op == Omov)
		t = a[0];
	else
		x2ins(h, i, t, a);
	guards(h, b, i, nb, g);
	blend(h, h->pk[d], t, g[0], g[1]);
}

/* selp.f32 with a packed result */
static void
x2selp(struct h2 *h, uint b, const Ins *i)
{
	const char *a = x2arg(h, i->arg[1], 0), *c = x2arg(h, i->arg[2], 1), *g[2];
	const char *t = nm(h, h->ttmp);
	Ref p = i->arg[3];
	if (p.kind == RReg && h->vary[p.idx]) {
		struct buf s0 = BUF_INIT, s1 = BUF_INIT;
		lref(h, &s0, p, 0);
		lref(h, &s1, p, 1);
		const char *w = word(h, arena_strdup(h->m->arena, s0.s), arena_strdup(h->m->arena, s1.s));
		emit(h, "lop3.b32 %s, %s, %s, %s, 0xE4;", t, a, c, w);
		buf_release(&s0);
		buf_release(&s1);
	} else {
		struct buf s0 = BUF_INIT;
		lref(h, &s0, p, 0);
		emit(h, "selp.b32 %s, %s, %s, %s;", t, a, c, s0.s);
		buf_release(&s0);
	}
	guards(h, b, i, needblend(h, b, i), g);
	blend(h, h->pk[i->arg[0].idx], t, g[0], g[1]);
}

/* setp.f32 on packed operands: one setp.f16x2 giving both lanes' predicates */
static void
x2setp(struct h2 *h, const Ins *i)
{
	const char *a = x2arg(h, i->arg[1], 0), *c = x2arg(h, i->arg[2], 1);
	uint p = i->arg[0].idx;
	struct buf b = BUF_INIT;
	const char *s = i->name.s, *e = s + i->name.n;
	/* setp.lt.ftz.f32 -> setp.lt.ftz.f16x2 */
	while (e > s && e[-1] != '.')
		e--;
	buf_put(&b, s, e - s);
	buf_printf(&b, "%s %s|%s, %s, %s;", h->type == BF16 ? "bf16x2" : "f16x2", nm(h, p),
	           nm(h, h->l1[p]), a, c);
	emit(h, "%s", b.s);
	buf_release(&b);
}

/* per lane: unpack what it reads, run it in each lane, pack what it writes */
static void
perlane(struct h2 *h, uint b, const Ins *i)
{
	uint rd[64], wr[64], nr = packedregs(h, i, 0, rd), nw = packedregs(h, i, 1, wr);
	int nb = needblend(h, b, i), masked = nb || effects(i);
	const char *g[2];
	for (uint k = 0; k < nr; k++)
		unpack(h, nm(h, rd[k]), nm(h, h->l1[rd[k]]), nm(h, h->pk[rd[k]]));
	guards(h, b, i, masked, g);
	for (int l = 0; l < 2; l++)
		lanecopy(h, i, l, at(h, g[l]));
	const char *o0 = ownguard(h, i, 0), *o1 = ownguard(h, i, 1);
	for (uint k = 0; k < nw; k++) {
		uint r = wr[k];
		if (!nb && !*o0 && !*o1) {
			pack(h, nm(h, h->pk[r]), nm(h, r), nm(h, h->l1[r]));
			continue;
		}
		const char *t = nm(h, h->ttmp);
		pack(h, t, nm(h, r), nm(h, h->l1[r]));
		blend(h, h->pk[r], t, g[0], g[1]);
	}
}

/* some packed source of a setp? */
static int
anypacked(const struct h2 *h, const Ins *i)
{
	for (uint k = 1; k < i->narg; k++)
		if (i->arg[k].kind == RReg && h->packed[i->arg[k].idx])
			return 1;
	return 0;
}

/* the x2 twin of a uniform f32 that i wrote: a constant, or one conversion */
static void
twin(struct h2 *h, const Ins *i)
{
	if (!i->narg || i->arg[0].kind != RReg || !isdef(i, 0) || !h->bcast[i->arg[0].idx])
		return;
	uint u = i->arg[0].idx;
	const char *g = i->pred.kind ? at(h, ownguard(h, i, 0)) : "", *t = nm(h, h->pk[u]);
	float f;
	int risk;
	if (i->op == Omov && i->narg == 2 && i->arg[1].kind == RImm
	    && h2_immf(h->fn->imm[i->arg[1].idx].text, &f))
		emit(h, "%smov.b32 %s, 0x%08X;", g, t, h2_packconst(h, f, &risk));
	else if (h->type == BF16 || h->tgt >= 80)
		emit(h, "%scvt.rn.%s.f32 %s, %s, %s;", g, h->type == BF16 ? "bf16x2" : "f16x2", t,
		     nm(h, u), nm(h, u));
	else {
		const char *t0 = nm(h, h->th[0]);
		emit(h, "%scvt.rn.f16.f32 %s, %s;", g, t0, nm(h, u));
		emit(h, "%smov.b32 %s, {%s, %s};", g, t, t0, t0);
	}
}

static void
instruction(struct h2 *h, uint b, const Ins *i)
{
	if (!h2_varying(h, i)) {
		put(h, i);
		twin(h, i);
		return;
	}
	uint d = i->narg && i->arg[0].kind == RReg ? i->arg[0].idx : ~0u;
	int pd = d != ~0u && d < h->nreg && h->packed[d] && isdef(i, 0);
	if (pd && (h2_pairable(h, i) || h2_x2mov(h, i)))
		x2(h, b, i);
	else if (pd && i->op == Oselp && i->narg == 4)
		x2selp(h, b, i);
	else if (h2_pairsetp(h, i) && anypacked(h, i) && !needblend(h, b, i) && !i->pred.kind
	         && h->vary[d])
		x2setp(h, i);
	else
		perlane(h, b, i);
}

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
	const char *pc = nm(h, h->pc[l]), *p = NULL;
	uint x = e->kind == TBRA ? e->t : e->kind == TRET ? DONE : e->n;
	if (e->kind == TCBRA || e->kind == TCRET) {
		uint yes = e->kind == TCBRA ? e->t : DONE, no = e->n;
		if (e->i->flags & INEGPRED)
			yes = no, no = e->kind == TCBRA ? e->t : DONE;
		p = lname(h, e->i->pred.idx, l);
		emit(h, "%sselp.u32 %s, %s, %s, %s;", at(h, g), pc, pcval(h, yes), pcval(h, no), p);
	} else
		emit(h, "%smov.u32 %s, %s;", at(h, g), pc, pcval(h, x));
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
	return lblname(h, h->div[x] ? h->dlbl[x] : h->blbl[x]);
}

/* go to the lowest of the blocks c[] that a lane waits for */
static void
dispatch(struct h2 *h, uint *c, uint n)
{
	const char *q = nm(h, h->tp[2]), *p0 = nm(h, h->pc[0]), *p1 = nm(h, h->pc[1]);
	qsort(c, n, sizeof *c, cmpu);
	for (uint k = 0; k + 1 < n; k++) {
		emit(h, "setp.eq.u32 %s, %s, %u;", q, p0, c[k]);
		emit(h, "setp.eq.or.u32 %s, %s, %u, %s;", q, p1, c[k], q);
		emit(h, "@%s bra %s;", q, entry(h, c[k]));
	}
	if (c[n - 1] == DONE)
		emit(h, "ret;");
	else
		emit(h, "bra %s;", entry(h, c[n - 1]));
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
		put(h, &c);
	}
	if ((e->kind == TFALL || e->kind == TCBRA || e->kind == TCRET) && e->n != ~0u && h->div[e->n])
		emit(h, "bra %s;", lblname(h, h->blbl[e->n]));
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
					emit(h, "%s %s, %s;", l == 0 && !h->retdiv ? "setp.eq.u32" : "mov.pred",
					     nm(h, h->msk[l]), l == 0 && !h->retdiv ? "0, 0" : nm(h, h->lv[l]));
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
		const char *g = mask(h, b, l);
		setpc(h, &e, l, g);
		if ((e.kind == TRET || e.kind == TCRET) && (l == 1 || h->retdiv))
			emit(h, "setp.ne.u32 %s, %s, -1;", nm(h, h->lv[l]), nm(h, h->pc[l]));
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
		label(h, h->dlbl[b]);
		for (int l = 0; l < 2; l++)
			emit(h, "setp.eq.u32 %s, %s, %u;", nm(h, h->msk[l]), nm(h, h->pc[l]), b);
	}
	if (src[f].op == Olabel && src[f].arg[0].idx == h->blbl[b]) {
		put(h, &src[f]);
		(*k)++;
	} else
		label(h, h->blbl[b]);
	while (*k < fn->blk[b].end && (src[*k].op == Oraw || src[*k].op == Oloc))
		put(h, &src[(*k)++]);
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
			put(h, &h->src[k]);
		return;
	}
	startblock(h, b, &k);
	for (; k < fn->blk[b].end; k++) {
		const Ins *i = &h->src[k];
		if (k == h->term[b])
			break;
		if (i->op >= NOP)
			put(h, i);
		else
			instruction(h, b, i);
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
	const char *q = nm(h, h->tp[2]), *c = nm(h, h->tp[1]), *tt = nm(h, t);
	for (int k = 0; k < 3; k++) {
		n[k] = b32(h), p[k] = b32(h);
		emit(h, "mov.u32 %s, %%%s.%s;", nm(h, n[k]), cnt, d[k]);
		emit(h, "mov.u32 %s, %%%s.%s;", nm(h, p[k]), idx, d[k]);
	}
	for (int k = 0; k < 3; k++) {
		const char *x = nm(h, h->lreg[0][k]), *nk = nm(h, n[k]);
		emit(h, "shl.b32 %s, %s, 1;", x, nm(h, p[k]));
		if (k) {
			emit(h, "selp.u32 %s, 1, 0, %s;", tt, c);
			emit(h, "add.u32 %s, %s, %s;", x, x, tt);
		}
		if (k < 2) {
			emit(h, "setp.ge.u32 %s, %s, %s;", c, x, nk);
			emit(h, "@%s sub.u32 %s, %s, %s;", c, x, x, nk);
		}
	}
	emit(h, "setp.ge.u32 %s, %s, %s;", q, nm(h, h->lreg[0][2]), nm(h, n[2]));
	emit(h, "@%s ret;", q);
	for (int k = 0; k < 3; k++) {
		const char *x = nm(h, h->lreg[1][k]), *x0 = nm(h, h->lreg[0][k]);
		if (k == 0)
			emit(h, "add.u32 %s, %s, 1;", x, x0);
		else {
			emit(h, "selp.u32 %s, 1, 0, %s;", tt, c);
			emit(h, "add.u32 %s, %s, %s;", x, x0, tt);
		}
		if (k < 2) {
			emit(h, "setp.eq.u32 %s, %s, %s;", c, x, nm(h, n[k]));
			emit(h, "selp.u32 %s, 0, %s, %s;", x, x, c);
		}
	}
	emit(h, "setp.lt.u32 %s, %s, %s;", nm(h, h->lv[1]), nm(h, h->lreg[1][2]), nm(h, n[2]));
}

static void
prologue(struct h2 *h)
{
	if (h->pairing == BLOCKS)
		identity(h, "nctaid", "ctaid");
	else
		identity(h, "ntid", "tid");
	if (h->retdiv)
		emit(h, "setp.eq.u32 %s, 0, 0;", nm(h, h->lv[0]));
	/* a lane dead from the start is done; the first block may run under
	 * a mask (a loop's header): every live lane runs it */
	emit(h, "mov.u32 %s, 0;", nm(h, h->pc[0]));
	emit(h, "selp.u32 %s, 0, -1, %s;", nm(h, h->pc[1]), nm(h, h->lv[1]));
	if (h->nblk && h->div[0]) {
		emit(h, "setp.eq.u32 %s, 0, 0;", nm(h, h->msk[0]));
		emit(h, "mov.pred %s, %s;", nm(h, h->msk[1]), nm(h, h->lv[1]));
		emit(h, "bra %s;", lblname(h, h->blbl[0]));
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

/* lane 1's copies of the per-lane objects, declared after the originals */
static void
objects(struct h2 *h)
{
	Fn *fn = h->fn;
	Module *m = h->m;
	h->sym1 = arena_alloc(h->a, (h->nsym + 1) * sizeof *h->sym1);
	for (uint k = 0; k < h->nsrc; k++) {
		const Ins *i = &h->src[k];
		if (i->op != Ovar || !h->lanesym[i->arg[0].idx])
			continue;
		uint s = i->arg[0].idx;
		char *name = fmt("%.*s_h2", (int)m->sym[s].name.n, m->sym[s].name.s);
		h->sym1[s] = intern(m, str(m, name).s, strlen(name));
		free(name);
		Ins c = *i;
		c.arg = arena_alloc(m->arena, sizeof(Ref));
		c.arg[0] = REF(RSym, h->sym1[s]);
		c.lead = (Str){"\n\t", 2};
		c.src = (Str){0};
		c.flags |= IDIRTY;
		ins_insert(fn, fn->nins, &c);
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
		if (all[k].op == Oreg)
			for (uint a = 0; a < all[k].narg; a++)
				if (all[k].arg[a].kind == RReg)
					fn->reg[all[k].arg[a].idx].decl = k;
	}
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
		put(h, &h->src[k]);
	/* the blends' x2 registers start as 0, ahead of everything */
	uint n = h->nout;
	for (uint k = 0; k < h->nzero; k++)
		emit(h, "mov.b32 %s, 0;", nm(h, h->zero[k]));
	if (h->nzero) {
		Ins *z = arena_alloc(h->a, h->nzero * sizeof *z);
		memcpy(z, h->out + n, h->nzero * sizeof *z);
		memmove(h->out + h->nzero, h->out, n * sizeof *z);
		memcpy(h->out, z, h->nzero * sizeof *z);
	}
	install(h, fn->nins);
}
