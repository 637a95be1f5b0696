/* half2-lanes.c: the statements of the paired body, one source statement
 * at a time (half2-emit.c lays out the blocks around them):
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
 *    (split) or blended with lop3 under a per-lane mask word (packed).
 * Lane 0 of a pair is the lower half of an x2 register (cvt.rn.f16x2.f32
 * d, a, b puts a in the upper half). */
#include "transforms/half2.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- building the new body ---- */

void
h2_put(struct h2 *h, const Ins *i)
{
	h->out = agrow(h->m->arena, h->out, h->nout, &h->capout, sizeof *h->out);
	h->out[h->nout++] = *i;
}

void
h2_emit(struct h2 *h, const char *f, ...)
{
	va_list ap;
	va_start(ap, f);
	Ins *i = vmkinsf(h->fn, f, ap);
	va_end(ap);
	i->lead = (Str){"\n\t", 2};
	h2_put(h, i);
}

void
h2_label(struct h2 *h, uint l)
{
	Ins d = {0};
	d.op = Olabel;
	d.arg = arena_alloc(h->m->arena, sizeof(Ref));
	d.arg[0] = REF(RLbl, l);
	d.narg = 1;
	d.lead = (Str){"\n", 1};
	h2_put(h, &d);
}

const char *
h2_lblname(struct h2 *h, uint l)
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

const char *
h2_lname(struct h2 *h, uint r, int lane)
{
	return regstr(h->fn, lanereg(h, r, lane));
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
		buf_puts(b, h2_lname(h, r.idx, lane));
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
	h2_put(h, c);
	buf_release(&b);
}

/* ---- packing ---- */

/* "op d, a;" on registers by their index: a register declared inside
 * { } has a name that mkins() resolves from the function's names to
 * nothing, or to another register of that name */
static void
emit2(struct h2 *h, const char *op, uint d, uint a)
{
	h2_emit(h, "%s %s, %s;", op, regstr(h->fn, d), regstr(h->fn, a));
	h->out[h->nout - 1].arg[1] = REF(RReg, a);
}

/* d (b32) = {lane 0: a0, lane 1: a1} */
static void
pack(struct h2 *h, uint d, uint a0, uint a1)
{
	const char *op = h->type == BF16 ? "cvt.rn.bf16x2.f32" : "cvt.rn.f16x2.f32";
	if (h->type == BF16 || h->tgt >= 80) {
		h2_emit(h, "%s %s, %s, %s;", op, regstr(h->fn, d), regstr(h->fn, a1),
		        regstr(h->fn, a0));
		h->out[h->nout - 1].arg[1] = REF(RReg, a1);
		h->out[h->nout - 1].arg[2] = REF(RReg, a0);
		return;
	}
	emit2(h, "cvt.rn.f16.f32", h->th[0], a0);
	emit2(h, "cvt.rn.f16.f32", h->th[1], a1);
	h2_emit(h, "mov.b32 %s, {%s, %s};", regstr(h->fn, d), regstr(h->fn, h->th[0]),
	        regstr(h->fn, h->th[1]));
}

/* d0, d1 (f32) = the lanes of x2 register s */
static void
unpack(struct h2 *h, const char *d0, const char *d1, const char *s)
{
	if (h->type == BF16) {
		h2_emit(h, "shl.b32 %s, %s, 16;", d0, s);
		h2_emit(h, "and.b32 %s, %s, 0xFFFF0000;", d1, s);
		return;
	}
	const char *t0 = regstr(h->fn, h->th[0]), *t1 = regstr(h->fn, h->th[1]);
	h2_emit(h, "mov.b32 {%s, %s}, %s;", t0, t1, s);
	h2_emit(h, "cvt.f32.f16 %s, %s;", d0, t0);
	h2_emit(h, "cvt.f32.f16 %s, %s;", d1, t1);
}

/* a word with 0xFFFF in the half of each lane whose guard holds ("": always) */
static const char *
word(struct h2 *h, const char *g0, const char *g1)
{
	const char *w = regstr(h->fn, h->tb[5]), *t = regstr(h->fn, h->tb[4]);
	if (*g0 && *g1) {
		h2_emit(h, "selp.b32 %s, 0xFFFF, 0, %s;", t, g0);
		h2_emit(h, "selp.b32 %s, 0xFFFF0000, 0, %s;", w, g1);
		h2_emit(h, "or.b32 %s, %s, %s;", w, w, t);
	} else if (*g1)
		h2_emit(h, "selp.b32 %s, -1, 0xFFFF, %s;", w, g1);
	else if (*g0)
		h2_emit(h, "selp.b32 %s, -1, 0xFFFF0000, %s;", w, g0);
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
	const char *w = word(h, g0, g1), *d = regstr(h->fn, pk);
	if (!w) {
		h2_emit(h, "mov.b32 %s, %s;", d, v);
		return;
	}
	h2_emit(h, "lop3.b32 %s, %s, %s, %s, 0xE4;", d, v, d, w);
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
	const char *t = regstr(h->fn, h->tb[slot]);
	if (r.kind == RImm) {
		float f = 0;
		int risk;
		if (!immf32(fn->imm[r.idx].text, &f))
			BUG("half2: f32 immediate '%.*s'", (int)fn->imm[r.idx].text.n, fn->imm[r.idx].text.s);
		h2_emit(h, "mov.b32 %s, 0x%08X;", t, h2_packconst(h, f, &risk));
		return t;
	}
	if (r.kind != RReg)
		BUG("half2: x2 operand of kind %d", r.kind);
	uint g = r.idx;
	if (h->packed[g] || h->bcast[g])
		return regstr(h->fn, h->pk[g]);
	pack(h, h->tb[slot], lanereg(h, g, 0), lanereg(h, g, 1));
	return t;
}

/* ---- guards ---- */

/* the lane's mask in block b: "" if the lane always runs there */
const char *
h2_mask(struct h2 *h, uint b, int lane)
{
	if (h->div[b])
		return regstr(h->fn, h->msk[lane]);
	if (lane == 0 && !h->retdiv)
		return "";
	return regstr(h->fn, h->lv[lane]);
}

/* the instruction's own guard for one lane: "%p", "!%p" or "" */
static const char *
ownguard(struct h2 *h, const Ins *i, int lane)
{
	if (!i->pred.kind)
		return "";
	const char *p = h2_lname(h, i->pred.idx, lane);
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
	const char *t = regstr(h->fn, h->tp[lane]);
	h2_emit(h, "and.pred %s, %s, %s;", t, a, b);
	return t;
}

const char *
h2_at(struct h2 *h, const char *g)
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
static const char *
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
	const char *mn = arena_strdup(h->m->arena, b.s);
	buf_release(&b);
	return mn;
}

/* one x2 instruction into d: bf16 add, sub, mul before sm_90 are fmas */
static void
x2ins(struct h2 *h, const Ins *i, const char *d, const char **a)
{
	if (h->type == BF16 && !h2_bf16sm90(h) && (i->op == Oadd || i->op == Osub || i->op == Omul)) {
		const char *c = regstr(h->fn, h->tb[3]);
		if (i->op == Omul) {
			h2_emit(h, "mov.b32 %s, 0x80008000;", c);
			h2_emit(h, "fma.rn.bf16x2 %s, %s, %s, %s;", d, a[0], a[1], c);
		} else if (i->op == Oadd) {
			h2_emit(h, "mov.b32 %s, 0x3F803F80;", c);
			h2_emit(h, "fma.rn.bf16x2 %s, %s, %s, %s;", d, a[0], c, a[1]);
		} else {
			h2_emit(h, "mov.b32 %s, 0xBF80BF80;", c);
			h2_emit(h, "fma.rn.bf16x2 %s, %s, %s, %s;", d, a[1], c, a[0]);
		}
		return;
	}
	const char *mn = x2mnemonic(h, i);
	struct buf b = BUF_INIT;
	buf_printf(&b, "%s %s", mn, d);
	for (uint k = 1; k < i->narg; k++)
		buf_printf(&b, ", %s", a[k - 1]);
	buf_puts(&b, ";");
	h2_emit(h, "%s", b.s);
	buf_release(&b);
}

/* the lanes' guards for an instruction of block b that writes only in
 * active lanes (masked) or only where its own guard holds */
static void
guards(struct h2 *h, uint b, const Ins *i, int masked, const char **g)
{
	for (int l = 0; l < 2; l++)
		g[l] = both(h, ownguard(h, i, l), masked ? h2_mask(h, b, l) : "", l);
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
		const char *gu = i->pred.kind ? h2_at(h, ownguard(h, i, 0)) : "";
		if (i->op == Omov)
			h2_emit(h, "%smov.b32 %s, %s;", gu, regstr(h->fn, h->pk[d]), a[0]);
		else if (!*gu)
			x2ins(h, i, regstr(h->fn, h->pk[d]), a);
		else {
			const char *t = regstr(h->fn, h->ttmp);
			x2ins(h, i, t, a);
			h2_emit(h, "%smov.b32 %s, %s;", gu, regstr(h->fn, h->pk[d]), t);
		}
		return;
	}
	const char *t = regstr(h->fn, h->ttmp);
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
	const char *t = regstr(h->fn, h->ttmp);
	Ref p = i->arg[3];
	if (p.kind == RReg && h->vary[p.idx]) {
		struct buf s0 = BUF_INIT, s1 = BUF_INIT;
		lref(h, &s0, p, 0);
		lref(h, &s1, p, 1);
		const char *w = word(h, arena_strdup(h->m->arena, s0.s), arena_strdup(h->m->arena, s1.s));
		h2_emit(h, "lop3.b32 %s, %s, %s, %s, 0xE4;", t, a, c, w);
		buf_release(&s0);
		buf_release(&s1);
	} else {
		struct buf s0 = BUF_INIT;
		lref(h, &s0, p, 0);
		h2_emit(h, "selp.b32 %s, %s, %s, %s;", t, a, c, s0.s);
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
	Mods md;
	/* setp.lt.ftz.f32 -> setp.lt.ftz.f16x2, setp.lt.bf16x2: bf16x2 has no
	 * .ftz (-use_fast_math writes it on every f32 setp) */
	modsplit(i, &md);
	for (uint k = 0; k + 1 < md.n; k++)
		if (!(h->type == BF16 && streq(md.part[k], "ftz")))
			buf_printf(&b, "%.*s.", (int)md.part[k].n, md.part[k].s);
	buf_printf(&b, "%s %s|%s, %s, %s;", h->type == BF16 ? "bf16x2" : "f16x2", regstr(h->fn, p),
	           regstr(h->fn, h->l1[p]), a, c);
	h2_emit(h, "%s", b.s);
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
		unpack(h, regstr(h->fn, rd[k]), regstr(h->fn, h->l1[rd[k]]), regstr(h->fn, h->pk[rd[k]]));
	guards(h, b, i, masked, g);
	for (int l = 0; l < 2; l++)
		lanecopy(h, i, l, h2_at(h, g[l]));
	const char *o0 = ownguard(h, i, 0), *o1 = ownguard(h, i, 1);
	for (uint k = 0; k < nw; k++) {
		uint r = wr[k];
		if (!nb && !*o0 && !*o1) {
			pack(h, h->pk[r], r, h->l1[r]);
			continue;
		}
		pack(h, h->ttmp, r, h->l1[r]);
		blend(h, h->pk[r], regstr(h->fn, h->ttmp), g[0], g[1]);
	}
}

/* the x2 twin of a uniform f32 that i wrote: a constant, or one conversion */
static void
twin(struct h2 *h, const Ins *i)
{
	if (!i->narg || i->arg[0].kind != RReg || !isdef(i, 0) || !h->bcast[i->arg[0].idx])
		return;
	uint u = i->arg[0].idx;
	const char *g = i->pred.kind ? h2_at(h, ownguard(h, i, 0)) : "", *t = regstr(h->fn, h->pk[u]);
	float f;
	int risk;
	if (i->op == Omov && i->narg == 2 && i->arg[1].kind == RImm
	    && immf32(h->fn->imm[i->arg[1].idx].text, &f))
		h2_emit(h, "%smov.b32 %s, 0x%08X;", g, t, h2_packconst(h, f, &risk));
	else if (h->type == BF16 || h->tgt >= 80)
		h2_emit(h, "%scvt.rn.%s.f32 %s, %s, %s;", g, h->type == BF16 ? "bf16x2" : "f16x2", t,
		     regstr(h->fn, u), regstr(h->fn, u));
	else {
		const char *t0 = regstr(h->fn, h->th[0]);
		h2_emit(h, "%scvt.rn.f16.f32 %s, %s;", g, t0, regstr(h->fn, u));
		h2_emit(h, "%smov.b32 %s, {%s, %s};", g, t, t0, t0);
	}
}

void
h2_instruction(struct h2 *h, uint b, const Ins *i)
{
	if (!h2_varying(h, i)) {
		h2_put(h, i);
		twin(h, i);
		return;
	}
	uint d = i->narg && i->arg[0].kind == RReg ? i->arg[0].idx : ~0u;
	int pd = d != ~0u && d < h->nreg && h->packed[d] && isdef(i, 0);
	if (pd && (h2_pairable(h, i) || h2_x2mov(h, i)))
		x2(h, b, i);
	else if (pd && i->op == Oselp && i->narg == 4)
		x2selp(h, b, i);
	else if (h2_pairsetp(h, i) && h2_packedsrc(h, i) && !needblend(h, b, i) && !i->pred.kind
	         && h->vary[d])
		x2setp(h, i);
	else
		perlane(h, b, i);
}

