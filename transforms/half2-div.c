/* half2-div.c: what pairing may not touch, and the divergence analysis.
 *
 * Refusals come first, from the instructions alone: anything that works
 * across the threads of a warp (a pair of logical threads is no longer two
 * warp lanes), reads a warp's own identity, or is not paired yet (calls,
 * textures).
 *
 * The divergence analysis then finds, to a fixed point:
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
 * Liveness is over registers, per block, backwards (a guarded write does
 * not kill). */
#include "transforms/half2.h"

#include <string.h>

/* ---- visiting operands ---- */

static void
visitref(struct h2 *h, Ref r, int def, h2_regfn *f, void *arg)
{
	Fn *fn = h->fn;
	switch (r.kind) {
	case RReg:
		f(h, r.idx, def, arg);
		break;
	case RMem:
		visitref(h, fn->mem[r.idx].base, 0, f, arg);
		visitref(h, fn->mem[r.idx].vec, 0, f, arg);
		break;
	case RVec:
	case RList:
		for (uint k = 0; k < fn->vec[r.idx].n; k++)
			visitref(h, fn->vec[r.idx].el[k], def, f, arg);
		break;
	}
}

void
h2_visit(struct h2 *h, const Ins *i, h2_regfn *f, void *arg)
{
	if (i->pred.kind == RReg)
		f(h, i->pred.idx, 0, arg);
	for (uint k = 0; k < i->narg; k++)
		visitref(h, i->arg[k], isdef(i, k), f, arg);
}

static int
refsym(const struct h2 *h, Ref r, const uchar *set)
{
	const Fn *fn = h->fn;
	switch (r.kind) {
	case RSym:
		return r.idx < h->nsym && set[r.idx];
	case RMem:
		return refsym(h, fn->mem[r.idx].base, set);
	case RVec:
	case RList:
		for (uint k = 0; k < fn->vec[r.idx].n; k++)
			if (refsym(h, fn->vec[r.idx].el[k], set))
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
		q.vary = refsym(h, i->arg[k], h->lanesym);
	h2_visit((struct h2 *)h, i, vqreg, &q);
	return q.vary;
}

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
			if (refsym(h, fn->ins[k].arg[j], top))
				return h->pairing == BLOCKS
				       ? "uses module-level .shared memory (dynamic or extern), which pairing blocks would need twice"
				       : "uses module-level .local memory";
	return NULL;
}

char *
h2_refusal(struct h2 *h)
{
	Fn *fn = h->fn;
	struct refuse rf = {0};
	h->nreg = fn->nreg;
	h->lanespec = arena_alloc(h->a, h->nreg + 1);
	const char *w = lanesyms(h);
	if (w)
		return xstrdup(w);
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
	return line ? fmt("%s (line %u of the source)", rf.why, line) : xstrdup(rf.why);
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
	h->weight = blockfreq(fn, 8);
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

char *
h2_divrefusal(struct h2 *h)
{
	Fn *fn = h->fn;
	for (uint b = 0; b < h->nblk; b++)
		for (uint k = fn->blk[b].first; k < fn->blk[b].end && h->div[b]; k++)
			if (fn->ins[k].op == Obar || fn->ins[k].op == Obarrier) {
				uint line = insline(fn, k, NULL);
				return fmt("has a barrier that only one thread of a pair may reach "
				           "(under a condition that differs between them)%s",
				           line ? fmt(" at line %u of the source", line) : "");
			}
	return NULL;
}

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
		if (i->narg == 2 && i->arg[1].kind == RNum)   /* a range %r<N> */
			for (uint n = 0; n < i->arg[1].idx && i->arg[0].idx + n < h->nreg; n++)
				h->scoped[i->arg[0].idx + n] = 1;
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
