/* half2-x2.c: what one x2 (f16x2, bf16x2) instruction can do for the two
 * lanes of a pair on the PTX's target, and f32 constants in x2 form (with
 * the range they lose). A leaf: the other half2 files call it, it calls
 * none of them. */
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
	Mods md;
	modsplit(i, &md);
	memset(m, 0, sizeof *m);
	for (uint k = 1; k < md.n; k++) {
		Str p = md.part[k];
#define IS(w) (p.n == strlen(w) && !memcmp(p.s, w, p.n))
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

int
h2_packedsrc(const struct h2 *h, const Ins *i)
{
	for (uint k = 1; k < i->narg; k++)
		if (i->arg[k].kind == RReg && h->packed[i->arg[k].idx])
			return 1;
	return 0;
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

/* both lanes of an x2 register holding f, as PTX's b32 hex */
uint
h2_packconst(const struct h2 *h, float f, int *risk)
{
	uint v = h->type == BF16 ? f2bf(f, risk) : f2h(f, risk);
	return v << 16 | v;
}

