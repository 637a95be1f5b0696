/* half2.c: thread pairing into f16x2 / bf16x2 lanes (paper 000, Sections
 * II-IV), done on PTX with the launch left as the host wrote it.
 *
 * This is whole-function vectorization with a vector width of 2 (Karrenberg
 * and Hack, CGO 2011), the vector being a pair of logical threads. Physical
 * thread P of a block computes the logical threads 2P (lane 0) and 2P+1
 * (lane 1) by linear thread id (pairing: threads), or thread t of the
 * logical blocks 2c and 2c+1 in physical block c (pairing: blocks). A
 * physical thread left without a logical thread exits at once; a lane left
 * without one (an odd count) is dead from the start.
 *
 * The divergence analysis (half2-div.c) marks each register uniform (the
 * same in both lanes: kept scalar, computed once) or varying (a copy per
 * lane). A varying f32 register whose uses and definitions are mostly
 * arithmetic that has an x2 form lives packed in one f16x2/bf16x2 register
 * (type f16/bf16); the others stay as two f32 registers (always, with type
 * f32: the control that tells pairing's gain from half precision's).
 *
 * Control flow. A branch whose condition may differ between the lanes
 * cannot be taken by both; each lane keeps its own next block in a
 * register (pc0, pc1: the block's layout index, DONE once the lane
 * returned), and the thread runs the lowest block that some lane waits for,
 * with that block's lane mask (pc == block), as the thread frontiers of
 * Diamos et al. (MICRO 2011) schedule a warp. So any control flow stays
 * correct: a lane that left a loop waits at the exit while the other
 * iterates, and both reconverge where their paths meet. The analysis knows
 * in which blocks a lane may be waiting (F(b), the frontier): only those
 * blocks run under a mask; stores, loads and atomics there are predicated
 * per lane, and a register that a waiting lane will still read is blended
 * (split: a guarded write; packed: lop3 with a per-lane mask word). The
 * other blocks run both lanes as they are, with their branches kept when
 * the condition is uniform.
 *
 * What pairing cannot keep correct is refused with the reason, leaving
 * the kernel exactly as nvcc made it: warp-level operations (shuffles,
 * votes, %laneid), a barrier that only some lanes might reach, barriers
 * with a thread count, calls, clusters and the like.
 *
 * needs nothing; breaks cfg defuse of fn */
#include "transforms/half2.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- what the emitted code may use on the PTX's target ---- */

/* can op (an f32 arithmetic instruction's opcode) run as one x2 op? */
static int
x2op(const struct h2 *h, int op)
{
	int bf = h->type == BF16;
	switch (op) {
	case Oadd: case Osub: case Omul: case Ofma: case Omad:
	case Oneg: case Oabs:
		return 1;
	case Omin: case Omax:
		return h->tgt >= 80;
	case Oex2: case Otanh:
		return bf ? h2_bf16sm90(h) : h->tgt >= 75;
	}
	return 0;
}

/* the parts of a mnemonic after its opcode: "fma.rn.ftz.f32" -> rn ftz f32 */
struct mods {
	int rn, otherrnd, ftz, sat, nan, approx, odd;
};

static void
mods(const Ins *i, struct mods *m)
{
	const char *s = i->name.s, *e = s + i->name.n;
	memset(m, 0, sizeof *m);
	while (s < e && *s != '.')
		s++;
	while (s < e) {
		const char *p = ++s;
		while (s < e && *s != '.')
			s++;
		size_t n = s - p;
#define IS(w) (n == strlen(w) && !memcmp(p, w, n))
		if (IS("rn"))
			m->rn = 1;
		else if (IS("rz") || IS("rm") || IS("rp") || IS("rni") || IS("rzi") || IS("rmi") || IS("rpi"))
			m->otherrnd = 1;
		else if (IS("ftz"))
			m->ftz = 1;
		else if (IS("sat"))
			m->sat = 1;
		else if (IS("NaN"))
			m->nan = 1;
		else if (IS("approx"))
			m->approx = 1;
		else if (!IS("f32"))
			m->odd = 1;
#undef IS
	}
}

/* is i f32 arithmetic that one x2 instruction can do for both lanes? */
int
h2_pairable(const struct h2 *h, const Ins *i)
{
	struct mods m;
	if (h->type == F32 || i->op >= NOP || i->ty != Tf32 || !x2op(h, i->op))
		return 0;
	mods(i, &m);
	if (m.odd || m.otherrnd || (h->type == BF16 && m.sat))
		return 0;
	if ((i->op == Ofma || i->op == Omad) && !m.rn)
		return 0;
	if ((i->op == Oex2 || i->op == Otanh) && !m.approx)
		return 0;
	if (m.sat && i->op != Oadd && i->op != Osub && i->op != Omul && i->op != Ofma)
		return 0;
	for (uint k = 0; k < i->narg; k++)
		if (i->arg[k].kind != RReg && i->arg[k].kind != RImm)
			return 0;
	return 1;
}

/* a copy of an f32 register or constant into a packed register: one mov.b32 */
int
h2_x2mov(const struct h2 *h, const Ins *i)
{
	if (h->type == F32 || i->op != Omov || i->ty != Tf32 || i->narg != 2 || i->pred.kind)
		return 0;
	return i->arg[1].kind == RImm || (i->arg[1].kind == RReg && h->fn->reg[i->arg[1].idx].ty == Tf32);
}

/* a compare of two f32 that setp.f16x2 (setp.bf16x2 on sm_90) can do */
int
h2_pairsetp(const struct h2 *h, const Ins *i)
{
	struct mods m;
	if (h->type == F32 || i->op != Osetp || i->ty != Tf32 || i->narg != 3 || i->arg[1].bar)
		return 0;
	if (h->type == BF16 && !h2_bf16sm90(h))
		return 0;
	mods(i, &m);
	return !m.otherrnd && !m.sat && !m.approx;
}

/* ---- constants ---- */

/* f32 to f16, round to nearest even; *risk: 1 overflows, 2 loses to
 * subnormal or zero */
static uint
f2h(float f, int *risk)
{
	uint x, sign, m;
	int e;
	memcpy(&x, &f, 4);
	sign = x >> 16 & 0x8000;
	e = (int)(x >> 23 & 0xff);
	m = x & 0x7fffff;
	*risk = 0;
	if (e == 255)
		return sign | 0x7c00 | (m ? 0x200 : 0);
	if (e == 0 && m == 0)
		return sign;
	e = e - 127 + 15;
	if (e >= 31)
		return *risk = 1, sign | 0x7c00;
	if (e <= 0) {
		*risk = 2;
		if (e < -10)
			return sign;
		m |= 0x800000;
		uint sh = 14 - e, hm = m >> sh, rem = m & ((1u << sh) - 1), half = 1u << (sh - 1);
		if (rem > half || (rem == half && (hm & 1)))
			hm++;
		return sign | hm;
	}
	uint hm = m >> 13, rem = m & 0x1fff;
	if (rem > 0x1000 || (rem == 0x1000 && (hm & 1)))
		if (++hm == 0x400) {
			hm = 0;
			if (++e >= 31)
				return *risk = 1, sign | 0x7c00;
		}
	return sign | (uint)e << 10 | hm;
}

static uint
f2bf(float f, int *risk)
{
	uint x;
	memcpy(&x, &f, 4);
	*risk = 0;
	if ((x & 0x7fffffff) > 0x7f800000)
		return 0x7fc0;
	if ((x & 0x7f800000) == 0 && (x & 0x7fffff))
		*risk = 2;
	return (x + 0x7fff + (x >> 16 & 1)) >> 16;
}

/* the f32 value of an immediate as PTX writes it ("0f3F800000", "1.5",
 * "-2"); 0 if it is not a number */
int
h2_immf(Str t, float *f)
{
	char buf[64];
	if (t.n == 0 || t.n >= sizeof buf)
		return 0;
	memcpy(buf, t.s, t.n);
	buf[t.n] = 0;
	if (t.n == 10 && buf[0] == '0' && (buf[1] == 'f' || buf[1] == 'F')) {
		uint x = (uint)strtoul(buf + 2, NULL, 16);
		memcpy(f, &x, 4);
		return 1;
	}
	if (t.n == 18 && buf[0] == '0' && (buf[1] == 'd' || buf[1] == 'D'))
		return 0;
	char *e;
	double d = strtod(buf, &e);
	if (*e)
		return 0;
	*f = (float)d;
	return 1;
}

/* both lanes of an x2 register holding f, as PTX's b32 hex */
uint
h2_packconst(const struct h2 *h, float f, int *risk)
{
	uint v = h->type == BF16 ? f2bf(f, risk) : f2h(f, risk);
	return v << 16 | v;
}

/* ---- the pass ---- */

static const char *const types[] = {"f16", "bf16", "f32", NULL};
static const char *const pairings[] = {"threads", "blocks", NULL};

static void
setup(struct h2 *h, struct passctx *cx, Fn *fn, const struct params *p)
{
	memset(h, 0, sizeof *h);
	h->cx = cx;
	h->fn = fn;
	h->m = fn->mod;
	h->type = (int)p->v[TYPE].i;
	h->pairing = (int)p->v[PAIRING].i;
	h->force = (int)p->v[FORCE].i;
	h->tgt = ptxsm(cx);
	h->isa = modversion(cx->m);
	h->a = arena_new();
}

/* the instructions this target cannot run: refuse before any analysis */
static char *
targetcheck(const struct h2 *h)
{
	if (h->tgt < 0)
		return xstrdup("the PTX names no target (.target sm_NN)");
	if (h->isa < 70)   /* cvt.rn.f16x2.f32, f16x2 min/max/ex2/tanh, bf16x2 */
		return fmt("pairing needs PTX ISA 7.0 (CUDA 11); this PTX is .version %d.%d",
		           h->isa / 10, h->isa % 10);
	if (h->type == F16 && h->tgt < 53)
		return fmt("f16x2 arithmetic needs sm_53; this PTX is for sm_%d", h->tgt);
	if (h->type == BF16 && h->tgt < 80)
		return fmt("bf16x2 arithmetic needs sm_80; this PTX is for sm_%d (type f16 needs sm_53)",
		           h->tgt);
	return NULL;
}

static int
analyse(struct h2 *h, char **why)
{
	if ((*why = targetcheck(h)) || (*why = h2_refusal(h)))
		return -1;
	h2_divergence(h);
	if ((*why = h2_divrefusal(h)))
		return -1;
	h2_pack(h);
	h2_advise(h);
	return 0;
}

static int
apply(struct passctx *cx, Fn *fn, const struct params *p, struct outcome *o)
{
	struct h2 h;
	setup(&h, cx, fn, p);
	if (analyse(&h, &o->why) < 0) {
		arena_free(h.a);
		return -1;
	}
	if (!h.force && (o->why = h2_notpaying(&h))) {
		o->advised = 1;
		arena_free(h.a);
		return -1;
	}
	h2_transform(&h);
	o->stats = h2_stats(&h);
	arena_free(h.a);
	return 0;
}

static void
explain(FILE *out, struct passctx *cx, Fn *fn, const struct params *p)
{
	struct h2 h;
	char *why;
	setup(&h, cx, fn, p);
	if (analyse(&h, &why) < 0) {
		fprintf(out, "           half2 would leave it alone: %s\n", why);
		free(why);
	} else
		h2_explain(out, &h);
	arena_free(h.a);
}

static void
describe(FILE *out, const struct params *p)
{
	fprintf(out, "           one thread computes two %s, one in each %s lane\n",
	        p->v[PAIRING].i ? "matching threads of adjacent blocks" : "adjacent threads of a block",
	        p->v[TYPE].i == F32 ? "f32" : p->v[TYPE].i == BF16 ? "bf16x2" : "f16x2");
	if (p->v[FORCE].i)
		fprintf(out, "           even where the cost model predicts no gain\n");
}

static const struct param params[] = {
	[TYPE] = {"type", PENUM, 0, 0, 0, types, NULL, "f16",
	          "the lanes: f16x2, bf16x2, or two f32 (pairing alone, no precision lost)"},
	[PAIRING] = {"pairing", PENUM, 0, 0, 0, pairings, NULL, "threads",
	             "which two logical threads share a thread: adjacent threads of a block, "
	             "or the same thread of two adjacent blocks"},
	[FORCE] = {"force", PBOOL, 0, 0, 0, NULL, NULL, "false",
	           "pair even where the cost model predicts no gain on a target of the build"},
};

const struct pass half2_pass = {
	.schema = {"half2", "thread pairing: one thread computes two logical threads in x2 lanes",
	           params, countof(params), describe},
	.apply = apply,
	.explain = explain,
};
