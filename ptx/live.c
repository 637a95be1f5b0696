/* live.c: which registers are live where, and register pressure: the one
 * liveness of the library, as QBE's live.c is for every pass of QBE.
 *
 * A register is live at a point when some path from there reads it before
 * writing it. Blocks are solved backwards to a fixed point over the CFG;
 * within a block, each instruction kills what it writes and then makes
 * live what it reads. With LGUARDED a guarded write (@%p mov ...) does not
 * kill: on the path where the guard is false the old value lives on, which
 * is what a transform that splits one thread into lanes must keep. Special
 * registers (%tid ...) are never live: nothing writes them. */
#include "ptx/ptx.h"
#include <string.h>

struct step {
	const Fn *fn;
	Word *live;
	int def;            /* 1: the writes, 0: the reads */
	int kill;           /* writes kill (unguarded, or no LGUARDED) */
	const uchar *unit;  /* NULL, or the weight of each register ... */
	int *count;         /* ... summed here over the live ones */
};

static void
reg1(void *arg, uint r, int def)
{
	struct step *s = arg;

	if (def != s->def || (s->fn->reg[r].flags & RGSPECIAL))
		return;
	if (def && s->kill && bget(s->live, r)) {
		bclr(s->live, r);
		if (s->unit)
			*s->count -= s->unit[r];
	} else if (!def && !bget(s->live, r)) {
		bset(s->live, r);
		if (s->unit)
			*s->count += s->unit[r];
	}
}

static void
back(const Fn *fn, const Ins *i, Word *live, int flags, const uchar *unit, int *count)
{
	struct step s = {fn, live, 1, !(flags & LGUARDED) || !i->pred.kind, unit, count};

	if (i->op >= NOP)
		return;
	forregs(fn, i, reg1, &s);
	s.def = 0;
	forregs(fn, i, reg1, &s);
}

void
liveback(const Fn *fn, const Ins *i, Word *live, int flags)
{
	back(fn, i, live, flags, NULL, NULL);
}

Live *
filllive(const Fn *fn, int flags)
{
	Arena *a = fn->mod->arena;
	Live *l = arena_alloc(a, sizeof *l);
	uint nw = l->nw = nwords(fn->nreg), nb = fn->nblk;
	Word *cur = arena_alloc(a, (nw + 1) * sizeof *cur);

	l->flags = flags;
	l->in = arena_alloc(a, ((size_t)nb * nw + 1) * sizeof *l->in);
	l->out = arena_alloc(a, ((size_t)nb * nw + 1) * sizeof *l->out);
	for (int changed = 1; changed;) {
		changed = 0;
		for (uint b = nb; b-- > 0;) {
			const Blk *bk = &fn->blk[b];
			Word *out = l->out + (size_t)b * nw, *in = l->in + (size_t)b * nw;
			for (uint s = 0; s < bk->nsucc; s++)
				bor(out, l->in + (size_t)bk->succ[s] * nw, nw);
			memcpy(cur, out, nw * sizeof *cur);
			for (uint k = bk->end; k-- > bk->first;)
				liveback(fn, &fn->ins[k], cur, flags);
			if (memcmp(cur, in, nw * sizeof *cur)) {
				memcpy(in, cur, nw * sizeof *cur);
				changed = 1;
			}
		}
	}
	return l;
}

int
pressure(const Fn *fn, const Live *l, const uchar *unit)
{
	uint nw = l->nw;
	Word *cur = arena_alloc(fn->mod->arena, (nw + 1) * sizeof *cur);
	int most = 0;

	for (uint b = 0; b < fn->nblk; b++) {
		int live = 0;
		memcpy(cur, l->out + (size_t)b * nw, nw * sizeof *cur);
		for (uint w = 0; w < nw; w++)
			for (Word x = cur[w]; x; x &= x - 1)
				live += unit[w * 64 + __builtin_ctzll(x)];
		for (uint k = fn->blk[b].end; k-- > fn->blk[b].first;) {
			back(fn, &fn->ins[k], cur, l->flags, unit, &live);
			most = live > most ? live : most;
		}
	}
	return most;
}

int
regunits(const Fn *fn, uint r)
{
	int ty = fn->reg[r].ty;

	if ((fn->reg[r].flags & RGSPECIAL) || ty == Tpred)
		return 0;
	return ty == Tb128 ? 4 : tybits[ty] == 64 ? 2 : 1;
}
