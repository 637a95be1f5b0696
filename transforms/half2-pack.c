/* half2-pack.c: which varying f32 registers live packed in one x2
 * register, and which uniform ones get an x2 twin (broadcast): a register
 * is packed where more of the instructions that read and write it run as
 * x2 instructions than per lane. */
#include "transforms/half2.h"

#include <string.h>

/* ---- packed registers ---- */

struct votes {
	int *pair, *non;
	int sign;       /* +1: an x2 instruction, -1: one that runs per lane */
};

static void
vote(struct h2 *h, uint r, int def, void *arg)
{
	(void)def;
	struct votes *v = arg;
	if (!h->vary[r] || h->fn->reg[r].ty != Tf32)
		return;
	if (v->sign > 0)
		v->pair[r]++;
	else
		v->non[r]++;
}

static int
neutral(const Ins *i)
{
	return (i->op == Omov && i->ty == Tf32) || (i->op == Oselp && i->ty == Tf32)
	       || (i->op == Osetp && i->ty == Tf32);
}

/* a move or select whose other f32 registers are packed is packed too */
static int
spread(struct h2 *h, const Ins *i, const int *pair, const int *non)
{
	int any = 0, ch = 0;
	if (i->op == Osetp)
		return 0;
	for (uint k = 0; k < i->narg; k++)
		if (i->arg[k].kind == RReg && h->packed[i->arg[k].idx])
			any = 1;
	for (uint k = 0; any && k < i->narg; k++) {
		uint r = i->arg[k].idx;
		if (i->arg[k].kind == RReg && h->vary[r] && h->fn->reg[r].ty == Tf32 && !h->packed[r]
		    && !h->scoped[r] && !pair[r] && !non[r]) {
			h->packed[r] = 1;
			ch = 1;
		}
	}
	return ch;
}

/* will i be one x2 instruction? */
int
h2_isx2(const struct h2 *h, const Ins *i)
{
	if (i->op >= NOP || !h2_varying(h, i))
		return 0;
	for (uint k = 0; k < i->narg; k++)
		if (i->arg[k].kind == RReg && i->arg[k].idx < h->nreg && h->scoped[i->arg[k].idx])
			return 0;
	int pd = i->narg && i->arg[0].kind == RReg && i->arg[0].idx < h->nreg
	         && h->packed[i->arg[0].idx] && isdef(i, 0);
	if (pd && (h2_pairable(h, i) || h2_x2mov(h, i) || (i->op == Oselp && i->narg == 4)))
		return 1;
	if (!h2_pairsetp(h, i) || i->pred.kind)
		return 0;
	for (uint k = 1; k < i->narg; k++)
		if (i->arg[k].kind == RReg && h->packed[i->arg[k].idx])
			return 1;
	return 0;
}

/* uniform f32 registers that x2 instructions read get an x2 twin, written
 * where they are: a constant or one conversion per write, not per use */
static void
broadcasts(struct h2 *h)
{
	Fn *fn = h->fn;
	h->bcast = arena_alloc(h->a, h->nreg + 1);
	for (uint k = 0; k < fn->nins; k++) {
		const Ins *i = &fn->ins[k];
		if (!h2_isx2(h, i))
			continue;
		for (uint a = 1; a < i->narg && a < (i->op == Oselp ? 3u : i->narg); a++) {
			Ref r = i->arg[a];
			if (r.kind == RReg && !h->vary[r.idx] && !h->lanespec[r.idx]
			    && !h->scoped[r.idx] && fn->reg[r.idx].ty == Tf32)
				h->bcast[r.idx] = 1;
		}
	}
}

/* registers declared inside { } (cicc's inline asm): the rewrite names
 * every other register in text, which a scoped name no longer resolves
 * in once its scope is closed; these run per lane and never pack */
static void
scopes(struct h2 *h)
{
	Fn *fn = h->fn;
	uint depth = 0;
	h->scoped = arena_alloc(h->a, h->nreg + 1);
	for (uint k = 0; k < fn->nins; k++) {
		const Ins *i = &fn->ins[k];
		depth += i->op == Oopen;
		depth -= i->op == Oclose && depth;
		if (i->op != Oreg || !depth)
			continue;
		if (i->narg == 2 && i->arg[0].kind == RRange)   /* a range %r<N> */
			for (uint r = 0; r < h->nreg; r++)
				h->scoped[r] |= fn->reg[r].range == (uint)i->arg[0].idx + 1;
		else
			for (uint a = 0; a < i->narg; a++)
				if (i->arg[a].kind == RReg && i->arg[a].idx < h->nreg)
					h->scoped[i->arg[a].idx] = 1;
	}
}

void
h2_pack(struct h2 *h)
{
	Fn *fn = h->fn;
	struct votes v = {arena_alloc(h->a, (h->nreg + 1) * sizeof(int)),
	                  arena_alloc(h->a, (h->nreg + 1) * sizeof(int)), 0};
	scopes(h);
	h->packed = arena_alloc(h->a, h->nreg + 1);
	h->bcast = arena_alloc(h->a, h->nreg + 1);
	if (h->type == F32)
		return;
	for (uint k = 0; k < fn->nins; k++) {
		const Ins *i = &fn->ins[k];
		if (i->op >= NOP || neutral(i) || !h2_varying(h, i))
			continue;
		v.sign = h2_pairable(h, i) ? 1 : -1;
		h2_visit(h, i, vote, &v);
	}
	for (uint r = 0; r < h->nreg; r++)
		h->packed[r] = h->vary[r] && fn->reg[r].ty == Tf32 && !h->scoped[r]
		               && v.pair[r] > 0 && v.pair[r] >= v.non[r];
	for (int ch = 1; ch;) {
		ch = 0;
		for (uint k = 0; k < fn->nins; k++)
			if (fn->ins[k].op < NOP && neutral(&fn->ins[k]))
				ch |= spread(h, &fn->ins[k], v.pair, v.non);
	}
	broadcasts(h);
}
