/* bound.c: a throughput bound, and how often blocks run.
 *
 * Work is counted by the pipe that runs it (struct pipes), each
 * instruction weighted by how often its block runs; its time on a target
 * is that of its busiest resource: all instructions over the issue rate,
 * each pipe's work over its rate, the bytes over DRAM bandwidth. This is
 * what half2's advice weighs a pair of logical threads with, before and
 * after pairing (it counts work that does not exist yet as PTX: packs,
 * unpacks, x2 instructions). Unlike time.c it sees neither latency nor
 * occupancy.
 *
 * Block frequencies: a loop runs the trips a run of the program measured
 * (fiset's trips, from mpcc-tune --measure), else its trip count where it
 * counts to a constant ("mov r, I" before it, "add r, r, S" and
 * "setp.ne|lt r, E" with a branch back in it give (E - I) / S), else a
 * guessed number of times. */
#include <string.h>

#include "model/model.h"

double
dram_bytes(const Ins *i)
{
	Mods md;
	if (i->op != Old && i->op != Oldu && i->op != Ost && i->op != Oatom && i->op != Ored)
		return 0;
	modsplit(i, &md);
	if (modspace(&md, "shared") || modspace(&md, "param") || modspace(&md, "const"))
		return 0;
	return (tybits[i->ty] >= 8 ? tybits[i->ty] / 8 : 4) * (md.vec ? md.vec : 1);
}

void
pipes_add(struct pipes *c, const Ins *i, double w)
{
	int f32 = i->ty == Tf32;
	switch (i->op) {
	case Oadd: case Osub: case Omul: case Ofma: case Omad:
		if (f32) {
			c->fp32 += w;
			return;
		}
		break;
	case Oex2: case Olg2: case Osin: case Ocos: case Orsqrt: case Otanh:
		c->mufu += w;
		return;
	case Orcp: case Osqrt:
		c->mufu += w;
		c->fp32 += 4 * w;
		return;
	case Odiv:
		if (f32) {
			c->mufu += w;
			c->fp32 += 7 * w;
			c->other += 2 * w;
			return;
		}
		break;
	}
	c->other += w;
}

void
pipes_mem(struct pipes *c, const Ins *i, double w)
{
	c->bytes += w * dram_bytes(i);
}

/* What pairing adds to a pair's work (half2's advice), by the instructions
 * the paired code issues for it (transforms/half2-lanes.c, half2-emit.c);
 * not measured one by one. */
void
pipes_x2(struct pipes *c, const Ins *i, int emul, double w)
{
	if (i->op == Oex2 || i->op == Otanh)
		c->mufu += w;
	else if (i->op == Omov)
		c->other += w;
	else
		c->x2 += w;
	if (emul && (i->op == Oadd || i->op == Osub || i->op == Omul))
		c->other += w;
}

void
pipes_x2sel(struct pipes *c, double w)
{
	c->other += 2 * w;
}

void
pipes_twin(struct pipes *c, double w)
{
	c->cvt += w;
}

void
pipes_pack(struct pipes *c, int lanes, int sm, double w)
{
	c->cvt += lanes == LN_F16 && sm < 80 ? 2 * w : w;
	c->other += lanes == LN_F16 && sm < 80 ? w : 0;
}

void
pipes_unpack(struct pipes *c, int lanes, double w)
{
	if (lanes == LN_BF16)
		c->other += 2 * w;
	else {
		c->cvt += 2 * w;
		c->other += w;
	}
}

void
pipes_guard(struct pipes *c, double w)
{
	c->other += w;
}

void
pipes_dispatch(struct pipes *c, int next, double w)
{
	c->other += w * (2 + 3.0 * (next - 1));
}

void
pipes_prologue(struct pipes *c)
{
	c->other += 30;
}

double
pipes_time(const struct pipes *c, const struct target *t, const char **bound)
{
	double v[6] = {(c->fp32 + c->x2 + c->mufu + c->cvt + c->other) / t->issue, c->fp32 / t->ffma,
	               c->x2 / t->hfma2, c->mufu / t->mufu, c->cvt / t->cvt16, c->bytes / t->bw};
	static const char *const what[] = {"instruction issue", "f32 arithmetic", "x2 arithmetic",
	                                   "the SFU", "f16 conversions", "memory"};
	int m = 0;
	for (int k = 1; k < 6; k++)
		if (v[k] > v[m])
			m = k;
	if (bound)
		*bound = what[m];
	return v[m];
}

/* The half2 bench on an H100 (bench/results/2026-11-23-h100-half2.md):
 * the kernels bound by memory that keep their occupancy when paired gained
 * 1.10 to 1.18x in f32 lanes (saxpy 1.10, poly32 1.15, shm 1.18) and the
 * same in f16x2 lanes (1.10, 1.10, 1.19): the least of them. The one that
 * lost occupancy lost (conv2d, 28 -> 46 registers: 0.87x). Measured on
 * sm_90 alone; other targets take it until measured. */
double
pairing_memgain(const struct target *t)
{
	(void)t;
	return 1.10;
}

/* the last statement of block b if it is a jump, else ~0u */
static uint
term(const Fn *fn, uint b)
{
	for (uint k = fn->blk[b].end; k > fn->blk[b].first; k--)
		if (fn->ins[k - 1].op < NOP)
			return opinfo[fn->ins[k - 1].op].jmp ? k - 1 : ~0u;
	return ~0u;
}

/* (E - I) / S from the counter that instruction c (setp r, E) compares */
static double
count(const Fn *fn, const Ins *c, const uchar *in)
{
	float e, ini = 0, st = 0;
	if (c->op != Osetp || c->narg != 3 || c->arg[1].kind != RReg || c->arg[2].kind != RImm
	    || !immf32(fn->imm[c->arg[2].idx].text, &e))
		return 0;
	uint r = c->arg[1].idx;
	int haveini = 0, havest = 0;
	for (uint d = 0; d < fn->use[r].ndef; d++) {
		const Ins *di = &fn->ins[fn->use[r].def[d]];
		int inside = in[fn->insblk[fn->use[r].def[d]]];
		if (!inside && di->op == Omov && di->arg[1].kind == RImm)
			haveini += immf32(fn->imm[di->arg[1].idx].text, &ini);
		else if (inside && di->op == Oadd && di->arg[1].kind == RReg && di->arg[1].idx == r
		         && di->arg[2].kind == RImm)
			havest += immf32(fn->imm[di->arg[2].idx].text, &st);
		else
			haveini = havest = 9;
	}
	if (haveini == 1 && havest == 1 && st != 0) {
		double q = (e - ini) / st, n = (double)(long)q;
		n += n < q;
		if (n >= 1 && n < 1e6)
			return n;
	}
	return 0;
}

/* how many times loop l runs per entry, guess if it cannot be told */
static double
tripcount(Fn *fn, const Loop *l, double guess)
{
	uchar *in = arena_alloc(fn->mod->arena, fn->nblk + 1);
	for (uint k = 0; k < l->nblk; k++)
		in[l->blk[k]] = 1;
	for (uint k = 0; k < l->nblk; k++) {
		uint b = l->blk[k], t = term(fn, b);
		if (t == ~0u || fn->ins[t].op != Obra || fn->ins[t].pred.kind != RReg)
			continue;
		int back = 0;
		for (uint s = 0; s < fn->blk[b].nsucc; s++)
			back |= fn->blk[b].succ[s] == l->head;
		if (!back)
			continue;
		uint p = fn->ins[t].pred.idx;
		double n;
		if (fn->use[p].ndef == 1 && (n = count(fn, &fn->ins[fn->use[p].def[0]], in)) > 0)
			return n;
	}
	return guess;
}

double *
blockfreq(Fn *fn, const double *trips, int ntrips, double guess, uchar *from)
{
	Arena *a = fn->mod->arena;
	double *lt = arena_alloc(a, (fn->nloop + 1) * sizeof *lt);
	double *f = arena_alloc(a, (fn->nblk + 1) * sizeof *f);
	uchar *src = arena_alloc(a, fn->nloop + 1);
	uint *order = looporder(fn);
	if (trips && (uint)ntrips != fn->nloop)
		BUG("blockfreq: %d trips for %u loops", ntrips, fn->nloop);
	for (uint k = 0; k < fn->nloop; k++) {
		uint l = order[k];
		lt[l] = trips ? trips[k] : tripcount(fn, &fn->loop[l], 0);
		src[l] = trips ? FQ_MEASURED : lt[l] > 0 ? FQ_COUNTED : FQ_GUESSED;
		if (!trips && lt[l] <= 0)
			lt[l] = guess;
	}
	for (uint b = 0; b < fn->nblk; b++) {
		double w = fn->blk[b].rpo == ~0u ? 0 : 1;
		uchar s = FQ_ENTRY;
		for (uint l = fn->blk[b].loop; l; l = fn->loop[l - 1].parent) {
			w *= lt[l - 1];
			s = src[l - 1] > s ? src[l - 1] : s;
		}
		f[b] = w;
		if (from)
			from[b] = s;
	}
	return f;
}
