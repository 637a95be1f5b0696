/* half2-refuse.c: what pairing cannot keep correct, with the reason.
 *
 * From the instructions alone: anything that works across the threads of
 * a warp (a pair of logical threads is no longer two warp lanes), reads a
 * warp's own identity, or is not paired yet (calls, textures); and, once
 * the divergence analysis ran, a barrier that only one lane of a pair may
 * reach. */
#include "transforms/half2.h"

#include <string.h>

/* ---- refusals ---- */

static char *
fmt_warp(const char *n)
{
	static char buf[96];
	snprintf(buf, sizeof buf, "reads %.40s, a warp's own identity", n);
	return buf;
}

/* the special registers: which differ between the lanes, which pairing
 * cannot give a meaning (NULL: fine) */
static const char *
special(struct h2 *h, uint r)
{
	char buf[64];
	const char *n = regname(h->fn, r, buf, sizeof buf);
	static const char *const warp[] = {"%laneid", "%warpid", "%nwarpid", "%lanemask_"};
	static const char *const lane[2] = {"%tid.", "%ctaid."};
	for (size_t k = 0; k < countof(warp); k++)
		if (startswith(n, warp[k]))
			return arena_strdup(h->a, fmt_warp(n));
	if (startswith(n, "%cluster") || startswith(n, "%nclusterid") || startswith(n, "%is_explicit_cluster"))
		return "uses thread block clusters";
	if (!strcmp(n, "%tid") || !strcmp(n, "%ctaid"))
		return "reads %tid or %ctaid as a vector";
	const char *l = lane[h->pairing == BLOCKS];
	if (startswith(n, l) && strlen(n) == strlen(l) + 1 && n[strlen(l)] >= 'x' && n[strlen(l)] <= 'z')
		h->lanespec[r] = (uchar)(1 + n[strlen(l)] - 'x');
	return NULL;
}

/* a barrier pairing keeps: every thread of the block, no count */
static const char *
barrier(const Ins *i)
{
	if (hasmod(i, "warp"))
		return "synchronizes a warp (bar.warp.sync)";
	if (hasmod(i, "cluster"))
		return "uses thread block clusters (barrier.cluster)";
	if (!hasmod(i, "sync") || hasmod(i, "arrive") || hasmod(i, "red"))
		return "has a barrier that counts threads (bar.arrive or bar.red)";
	if (i->narg != 1)
		return "has a barrier with a thread count (the count would halve)";
	return NULL;
}

static const char *
badop(const Ins *i)
{
	switch (i->op) {
	case Oshfl: return "has a warp shuffle (shfl)";
	case Ovote: return "has a warp vote (vote)";
	case Omatch: return "has a warp match (match)";
	case Oactivemask: return "reads the active mask (activemask)";
	case Oredux: return "has a warp reduction (redux)";
	case Oelect: return "elects a warp leader (elect)";
	case Oldmatrix: case Ostmatrix: case Omovmatrix: case Omma: case Owmma: case Owgmma:
		return "has warp-wide matrix operations";
	case Ombarrier: return "uses mbarrier objects";
	case Ocp: return "has asynchronous copies (cp)";
	case Osetmaxnreg: return "sets the register count (setmaxnreg)";
	case Ogetctarank: case Omapa: return "uses thread block clusters";
	case Omultimem: return "has multimem operations";
	case Oalloca: case Ostacksave: case Ostackrestore: return "allocates stack (alloca)";
	case Obrx: return "has an indirect branch (brx.idx)";
	case Ocall: return "calls a function (calls are not paired yet)";
	case Otex: case Otld4: case Osuld: case Osust: case Osured: case Otxq: case Osuq:
		return "reads textures or surfaces (not paired yet)";
	case Ogriddepcontrol: return "controls grid dependencies (griddepcontrol)";
	case Odiscard: case Oapplypriority: return "manages the L2 cache per address";
	case Obar: case Obarrier: return barrier(i);
	}
	return NULL;
}

/* a 32-bit instruction may read %tid: the lanes' copies are .u32 */
static int
wide32(const Ins *i)
{
	return i->ty == Tu32 || i->ty == Tb32 || i->ty == Ts32;
}

struct refuse {
	const char *why;
	uint at;
};

static void
specreg(struct h2 *h, uint r, int def, void *arg)
{
	(void)def, (void)arg;
	if ((h->fn->reg[r].flags & RGSPECIAL) && !h->lanespec[r]) {
		const char *w = special(h, r);
		if (w && !((struct refuse *)arg)->why)
			((struct refuse *)arg)->why = w;
	}
}

static int
isvar(const Ins *i, const char *space)
{
	return i->op == Ovar && strpre(i->name, space);
}

/* the objects each lane needs its own of: body-level .local arrays, and
 * with pairing blocks the kernel's .shared ones */
static const char *
lanesyms(struct h2 *h)
{
	Fn *fn = h->fn;
	Module *m = h->m;
	h->nsym = m->nsym;
	h->lanesym = arena_alloc(h->a, h->nsym + 1);
	for (uint k = 0; k < fn->nins; k++) {
		const Ins *i = &fn->ins[k];
		if (isvar(i, ".local") || (h->pairing == BLOCKS && isvar(i, ".shared")))
			h->lanesym[i->arg[0].idx] = 1;
	}
	/* a module-level .local or (pairing blocks) .shared the kernel names
	 * would need a copy the module cannot give one kernel */
	uchar *top = arena_alloc(h->a, h->nsym + 1);
	for (uint k = 0; k < m->ntop; k++)
		if (isvar(&m->top[k], ".local") || (h->pairing == BLOCKS && isvar(&m->top[k], ".shared"))
		    || (h->pairing == BLOCKS && isvar(&m->top[k], ".extern .shared")))
			top[m->top[k].arg[0].idx] = 1;
	for (uint k = 0; k < fn->nins; k++)
		for (uint j = 0; j < fn->ins[k].narg && fn->ins[k].op < NOP; j++)
			if (h2_refsym(h, fn->ins[k].arg[j], top))
				return h->pairing == BLOCKS
				       ? "uses module-level .shared memory (dynamic or extern), which pairing blocks would need twice"
				       : "uses module-level .local memory";
	return NULL;
}

/* the first instruction guarded by a predicate declared inside { }
 * (inline asm's "{.reg .pred p; ... @p ...}"): the rewrite builds each
 * lane's copy from text, where such a name does not resolve; ~0u if none */
static uint
scopedguard(const Fn *fn)
{
	uint depth = 0;
	uchar *in = arena_alloc(fn->mod->arena, fn->nins + 1);
	for (uint k = 0; k < fn->nins; k++) {
		depth += fn->ins[k].op == Oopen;
		depth -= fn->ins[k].op == Oclose && depth;
		in[k] = depth > 0;
	}
	for (uint k = 0; k < fn->nins; k++) {
		Ref g = fn->ins[k].pred;
		if (g.kind == RReg && fn->reg[g.idx].decl < fn->nins && in[fn->reg[g.idx].decl])
			return k;
	}
	return ~0u;
}

const char *
h2_refusal(struct h2 *h)
{
	Fn *fn = h->fn;
	struct refuse rf = {0};
	h->nreg = fn->nreg;
	h->lanespec = arena_alloc(h->a, h->nreg + 1);
	const char *w = lanesyms(h);
	if (w)
		return arena_strdup(h->a, w);
	uint sg = scopedguard(fn);
	if (sg != ~0u)
		rf = (struct refuse){"guards an instruction with a predicate declared inside { } "
		                     "(inline asm)", sg};
	for (uint k = 0; k < fn->nins && !rf.why; k++) {
		const Ins *i = &fn->ins[k];
		if (i->op >= NOP)
			continue;
		if ((rf.why = badop(i)))
			rf.at = k;
		h2_visit(h, i, specreg, &rf);
		if (rf.why && !rf.at)
			rf.at = k;
		for (uint j = 0; j < i->narg && !rf.why; j++)
			if (i->arg[j].kind == RReg && h->lanespec[i->arg[j].idx] && !wide32(i)) {
				rf.why = "reads %tid or %ctaid in a 16- or 64-bit instruction";
				rf.at = k;
			}
	}
	if (!rf.why)
		return NULL;
	uint line = insline(fn, rf.at, NULL);
	return line ? fmt("%s (line %u of the source)", rf.why, line) : arena_strdup(h->a, rf.why);
}

const char *
h2_divrefusal(struct h2 *h)
{
	Fn *fn = h->fn;
	for (uint b = 0; b < h->nblk; b++)
		for (uint k = fn->blk[b].first; k < fn->blk[b].end && h->div[b]; k++)
			if (fn->ins[k].op == Obar || fn->ins[k].op == Obarrier) {
				uint line = insline(fn, k, NULL);
				return arena_fmt(h->a, "has a barrier that only one thread of a pair may reach "
				           "(under a condition that differs between them)%s",
				           line ? arena_fmt(h->a, " at line %u of the source", line) : "");
			}
	return NULL;
}

