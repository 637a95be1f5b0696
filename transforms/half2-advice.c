/* half2-advice.c: will pairing pay on each target of the build, and the
 * report.
 *
 * The model counts, from the PTX, what one pair of logical threads issues
 * before and after pairing, by the pipe that runs it, each instruction
 * weighted by how often its block runs (loop trip counts where the loop
 * counts to a constant, else 8 per loop level): f32 FMA-pipe work, x2
 * work, SFU work, f16 conversions, everything else, and the bytes of
 * global and local memory the varying loads and stores move (uniform ones
 * are one address for the whole pair: a cache hit). A pair's time on a
 * target is the largest of: all instructions over the issue rate, each
 * pipe's work over its rate in the target's row (model/target.c),
 * and the bytes over the target's DRAM bandwidth per SM. Pairing moves
 * the same bytes (storage stays f32), so a kernel bound by memory gains
 * nothing; one bound by f32 arithmetic gains what x2 arithmetic and the
 * shared non-float work (indices, addresses, loop control, issue) give.
 * The advice applies pairing where the predicted speedup reaches PAYS on
 * every target; mpcc-opt and rules can force it (force: true). */
#include "transforms/half2.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PAYS 1.05     /* the predicted speedup that every target must reach */

/* are bf16 add, sub and mul emulated in the pair (no bf16x2 form)? */
static int
emulated(const struct h2 *h)
{
	return h->type == BF16 && !h2_bf16sm90(h);
}

/* the conversions that bring operand r of an x2 instruction into x2 form */
static void
x2operand(struct h2 *h, Ref r, double w)
{
	if (r.kind == RImm) {
		float f;
		int risk = 0;
		if (immf32(h->fn->imm[r.idx].text, &f))
			h2_packconst(h, f, &risk);
		h->rangeover += risk == 1;
		h->rangeunder += risk == 2;
		return;   /* a constant: ptxas folds it into the instruction */
	}
	if (r.kind == RReg && !h->packed[r.idx] && !h->bcast[r.idx]) {
		pipes_twin(&h->pair, w);
		h->npack++;
	}
}

static void
countunpack(struct h2 *h, double w)
{
	h->nunpack++;
	pipes_unpack(&h->pair, h->type, w);
}

static void
countpack(struct h2 *h, double w)
{
	h->npack++;
	pipes_pack(&h->pair, h->type, h->tgt, w);
}

struct pk {
	struct h2 *h;
	double w;
	uint seen[64];
	uint n;
};

static void
pkreg(struct h2 *h, uint r, int def, void *arg)
{
	struct pk *p = arg;
	if (r >= h->nreg || !h->packed[r])
		return;
	for (uint k = 0; k < p->n; k++)
		if (p->seen[k] == (r << 1 | (uint)def))
			return;
	if (p->n < countof(p->seen))
		p->seen[p->n++] = r << 1 | (uint)def;
	if (def)
		countpack(h, p->w);
	else
		countunpack(h, p->w);
}

static int
packeddst(const struct h2 *h, const Ins *i)
{
	return i->narg && i->arg[0].kind == RReg && i->arg[0].idx < h->nreg && h->packed[i->arg[0].idx]
	       && isdef(i, 0);
}

/* one instruction of block b (run w times) before and after pairing */
static void
count(struct h2 *h, uint b, const Ins *i, double w)
{
	pipes_add(&h->orig, i, 2 * w);
	if (!h2_varying(h, i)) {
		pipes_add(&h->pair, i, w);
		h->nuniform++;
		if (i->narg && i->arg[0].kind == RReg && isdef(i, 0) && h->bcast[i->arg[0].idx]
		    && !(i->op == Omov && i->arg[1].kind == RImm)) {
			pipes_twin(&h->pair, w);   /* its x2 twin */
			h->npack++;
		}
		return;
	}
	pipes_mem(&h->orig, i, 2 * w);
	pipes_mem(&h->pair, i, 2 * w);
	int pd = packeddst(h, i);
	if (pd && (h2_pairable(h, i) || h2_x2mov(h, i))) {
		pipes_x2(&h->pair, i, emulated(h), w);
		for (uint k = 1; k < i->narg; k++)
			x2operand(h, i->arg[k], w);
		if (h2_pairable(h, i))
			h->nx2++;
		else
			h->nx2mov++;
	} else if (pd && i->op == Oselp) {
		x2operand(h, i->arg[1], w);
		x2operand(h, i->arg[2], w);
		pipes_x2sel(&h->pair, w);
		h->nx2mov++;
	} else if (h2_pairsetp(h, i) && h2_packedsrc(h, i) && !i->pred.kind) {
		pipes_x2(&h->pair, i, 0, w);
		x2operand(h, i->arg[1], w);
		x2operand(h, i->arg[2], w);
		h->nx2++;
	} else {
		struct pk p = {h, w, {0}, 0};
		pipes_add(&h->pair, i, 2 * w);
		h2_visit(h, i, pkreg, &p);
		h->nlane++;
	}
	if (h->div[b] && (h2_memop(i) || i->pred.kind))
		pipes_guard(&h->pair, w);   /* and.pred of a guard with the mask */
}

/* the control each block adds: masks, next blocks, dispatch */
static void
control(struct h2 *h, uint b, double w)
{
	if (h2_protocol(h, b)) {
		uint n = 2;
		for (uint x = 0; x < h->nblk; x++)
			n += bget(h->front + (size_t)b * h->bw, x);
		pipes_dispatch(&h->pair, n, w);
	}
}

void
h2_advise(struct h2 *h)
{
	Fn *fn = h->fn;
	for (uint b = 0; b < h->nblk; b++) {
		double w = h->weight[b];
		if (!w)
			continue;
		for (uint k = fn->blk[b].first; k < fn->blk[b].end; k++)
			if (fn->ins[k].op < NOP)
				count(h, b, &fn->ins[k], w);
		control(h, b, w);
	}
	pipes_prologue(&h->pair);
	const struct passctx *cx = h->cx;
	h->nsm = 0;
	for (int k = 0; k < cx->nsm && h->nsm < (int)countof(h->sm); k++)
		h->sm[h->nsm++] = cx->sm[k];
	if (!h->nsm)
		h->sm[h->nsm++] = h->tgt;
	for (int k = 0; k < h->nsm; k++) {
		const struct target *t = target(h->sm[k]);
		if (!t) {
			h->speedup[k] = 0;
			h->bound[k] = NULL;
			continue;
		}
		double a = pipes_time(&h->orig, t, &h->bound[k]), p = pipes_time(&h->pair, t, NULL);
		h->speedup[k] = p > 0 ? a / p : 1;
	}
}

static int
membound(const struct h2 *h, int k)
{
	return h->bound[k] && !strcmp(h->bound[k], "memory");
}

/* does pairing keep the warps an SM holds on target k? -1: unknown */
static int
keepswarps(const struct h2 *h, int k)
{
	if (h->regs[k][0] < 0 || h->regs[k][1] < 0)
		return -1;
	return regwarps(h->sm[k], h->regs[k][1]) >= regwarps(h->sm[k], h->regs[k][0]);
}

void
h2_occupancy(struct h2 *h)
{
	for (int k = 0; k < h->nsm; k++)
		if (membound(h, k) && keepswarps(h, k) == 1)
			h->speedup[k] *= pairing_memgain(target(h->sm[k]));
}

/* why pairing will not pay on target k, a kernel bound by memory there */
static const char *
memwhy(const struct h2 *h, int k)
{
	int sm = h->sm[k], keep = keepswarps(h, k);
	if (keep < 0)
		return arena_fmt(h->a, "will not pay on sm_%d: the kernel is bound by memory, where "
		                 "pairing pays only if it keeps the warps an SM holds, and ptxas "
		                 "could not tell its registers (force: true pairs it anyway)", sm);
	if (!keep)
		return arena_fmt(h->a, "will not pay on sm_%d: the kernel is bound by memory, and "
		                 "paired it takes %d registers a thread against %d: an SM holds %d "
		                 "of its warps, not %d (force: true pairs it anyway)", sm,
		                 h->regs[k][1], h->regs[k][0], regwarps(sm, h->regs[k][1]),
		                 regwarps(sm, h->regs[k][0]));
	if (h->type != F32)
		return arena_fmt(h->a, "%s lanes gain nothing over f32 ones on sm_%d: the kernel is "
		                 "bound by memory (pairing keeps f32 storage); type: f32 pairs it "
		                 "without losing precision (predicted %.2fx) (force: true pairs it "
		                 "anyway)", h->type == BF16 ? "bf16x2" : "f16x2", sm, h->speedup[k]);
	return NULL;
}

static double
intensity(const struct h2 *h)
{
	double ops = h->orig.fp32 + h->orig.mufu;
	return h->orig.bytes > 0 ? ops / h->orig.bytes : INFINITY;
}

/* f16 holds magnitudes from 6.1e-05 (normal) to 65504: an f32 constant
 * outside that becomes inf, loses digits or becomes 0 (a softening of 1e-9
 * made a public n-body's every output NaN), which no cost can weigh */
/* does packed or broadcast register r hold a kernel parameter (an f32
 * known only at run time), loaded directly or moved? */
static int
param(const struct h2 *h, uint r, int depth)
{
	const Fn *fn = h->fn;
	if (r >= h->nreg || depth > 4 || !fn->use[r].ndef)
		return 0;
	for (uint d = 0; d < fn->use[r].ndef; d++) {
		const Ins *i = &fn->ins[fn->use[r].def[d]];
		if (i->op == Old && hasspace(i, "param"))
			return 1;
		if (i->op == Omov && i->narg == 2 && i->arg[1].kind == RReg &&
		    param(h, i->arg[1].idx, depth + 1))
			return 1;
	}
	return 0;
}

/* is packed register r a sum carried around a loop (a statement in a loop
 * both reads and writes it)? */
static int
accumulator(const struct h2 *h, uint r)
{
	const Fn *fn = h->fn;
	for (uint d = 0; d < fn->use[r].ndef; d++) {
		uint k = fn->use[r].def[d];
		const Ins *i = &fn->ins[k];
		if (!fn->blk[fn->insblk[k]].depth)
			continue;
		for (uint a = 1; a < i->narg; a++)
			if (i->arg[a].kind == RReg && i->arg[a].idx == r)
				return 1;
	}
	return 0;
}

/* What half precision cannot be trusted with, which no cost can weigh:
 * f16 holds magnitudes from 6.1e-05 (normal) to 65504, so an f32 constant
 * outside that becomes inf, loses digits or becomes 0 (a softening of 1e-9
 * made a public n-body's every output NaN), and a kernel parameter may be
 * anything (a public Adam optimizer's epsilon: its paired build failed its
 * own check); and f16 and bf16 keep 11 and 8 bits, so a sum carried around
 * a loop loses its digits (the same n-body's energy came out 54% off). */
const char *
h2_precision(const struct h2 *h)
{
	int params = 0, sums = 0;
	if (h->type == F32)
		return NULL;
	for (uint r = 0; r < h->nreg; r++) {
		params += (h->packed[r] || h->bcast[r]) && param(h, r, 0);
		sums += h->packed[r] && accumulator(h, r);
	}
	if (h->type == F16 && (h->rangeover || h->rangeunder))
		return arena_fmt(h->a, "f16 cannot hold %d of the kernel's f32 constants (%d above "
		                 "65504, %d below f16's normal range, 6.1e-05: they would become inf, "
		                 "lose digits or become 0); type: bf16 keeps f32's range (force: true "
		                 "pairs it anyway)", h->rangeover + h->rangeunder, h->rangeover,
		                 h->rangeunder);
	if (h->type == F16 && params)
		return arena_fmt(h->a, "f16 may not hold %d of the kernel's parameters, f32 values "
		                 "known only at run time (an epsilon of 1e-8 is 0 in f16); type: bf16 "
		                 "keeps f32's range (force: true pairs it anyway)", params);
	if (sums)
		return arena_fmt(h->a, "%d %s carried around a loop would keep %s's %d bits: a long "
		                 "sum loses its digits; type: f32 pairs it without losing precision "
		                 "(force: true pairs it anyway)", sums, plural(sums, "sum", "sums"),
		                 h->type == BF16 ? "bf16" : "f16",
		                 h->type == BF16 ? 8 : 11);
	return NULL;
}

/* why pairing will not pay on target k, or NULL */
static const char *
notpaying(const struct h2 *h, int k)
{
	const char *why;
	if (!target(h->sm[k]))
		return NULL;
	if (membound(h, k) && (why = memwhy(h, k)))
		return why;
	/* two f32 lanes share index work, not arithmetic: on the bench
	 * they gained only where memory bounds the kernel (0.98-1.00x
	 * elsewhere; a public n-body's force kernel 0.61x) */
	if (!membound(h, k) && h->type == F32)
		return arena_fmt(h->a, "will not pay on sm_%d: pairing in f32 lanes pays only on "
		                 "a kernel bound by memory, and this one is bound by %s (force: "
		                 "true pairs it anyway)", h->sm[k], h->bound[k]);
	if (h->speedup[k] >= PAYS)
		return NULL;
	if (!strcmp(h->bound[k], "memory"))
		return arena_fmt(h->a, "will not pay on sm_%d: predicted %.2fx, the kernel is bound by memory "
		           "(%.2f f32 operations per byte; pairing keeps f32 storage) "
		           "(force: true pairs it anyway)", h->sm[k], h->speedup[k], intensity(h));
	return arena_fmt(h->a, "will not pay on sm_%d: predicted %.2fx, bound by %s "
	           "(force: true pairs it anyway)", h->sm[k], h->speedup[k], h->bound[k]);
}

const char *
h2_notpaying(const struct h2 *h)
{
	const char *why;
	/* every thread computes the same: nothing for a pair to share but
	 * the thread itself, and such kernels are launched with one (a public
	 * n-body's serial energy sum) */
	if (!h->nx2 && !h->nx2mov && !h->nlane)
		return arena_strdup(h->a, "nothing to pair: no instruction differs between the threads");
	for (int k = 0; k < h->nsm; k++)
		if ((why = notpaying(h, k)))
			return why;
	return NULL;
}

/* the statistics: what pairing made of the kernel, and the prediction */
enum { ST_TYPE, ST_PAIRING, ST_X2, ST_X2MOV, ST_LANE, ST_UNIFORM, ST_PACKS, ST_UNPACKS, ST_VARYBR,
       ST_MASKED, ST_PREDICTED, ST_BOUND, ST_REGS, ST_PREGS, ST_RANGE };
enum { RG_OVER, RG_UNDER };

static const struct field rangekey[] = {
	[RG_OVER] = {"overflow", FINT, 0, 0, NULL, 0, "f32 constants over the type's largest value"},
	[RG_UNDER] = {"underflow", FINT, 0, 0, NULL, 0, "f32 constants below its normal range"},
};
static const struct field statkey[] = {
	[ST_TYPE] = {"type", FSTR, 0, 0, NULL, 0, "f16, bf16 or f32 lanes"},
	[ST_PAIRING] = {"pairing", FSTR, 0, 0, NULL, 0, "threads or blocks"},
	[ST_X2] = {"x2", FINT, 0, 0, NULL, 0,
	           "f32 arithmetic and compares that became one f16x2 (bf16x2) instruction"},
	[ST_X2MOV] = {"x2_moves", FINT, 0, 0, NULL, 0,
	              "f32 moves and selects that became one b32 move or select of a packed value"},
	[ST_LANE] = {"per_lane", FINT, 0, 0, NULL, 0, "instructions run once per lane"},
	[ST_UNIFORM] = {"uniform", FINT, 0, 0, NULL, 0, "instructions run once for both lanes"},
	[ST_PACKS] = {"packs", FINT, 0, 0, NULL, 0, "two f32 values packed into one register"},
	[ST_UNPACKS] = {"unpacks", FINT, 0, 0, NULL, 0, "a lane taken out of a packed register"},
	[ST_VARYBR] = {"varying_branches", FINT, 0, 0, NULL, 0, "branches whose condition differs between the lanes"},
	[ST_MASKED] = {"masked_blocks", FINT, 0, 0, NULL, 0, "blocks run under a lane mask"},
	[ST_PREDICTED] = {"predicted", FTARGETS, RPREDICTED, 2, NULL, 0,
	                  "the kernel's predicted speed-up, per target"},
	[ST_BOUND] = {"bound", FSTR, 0, 0, NULL, 0, "what bounds the kernel on the first target"},
	[ST_REGS] = {"registers", FTARGETS, 0, 0, NULL, 0,
	             "targets bound by memory: ptxas's registers a thread, as nvcc made it"},
	[ST_PREGS] = {"registers_paired", FTARGETS, 0, 0, NULL, 0, "and paired"},
	[ST_RANGE] = {"range", FOBJ, 0, 0, rangekey, countof(rangekey),
	              "f16 and bf16: constants the type cannot hold"},
};
const struct field h2_statroot = {"half2", FOBJ, 0, 0, statkey, countof(statkey),
                                  "what pairing made of the kernel"};

char *
h2_stats(const struct h2 *h)
{
	static const char *const ty[] = {"f16", "bf16", "f32"};
	const int v[] = {[ST_X2] = h->nx2, [ST_X2MOV] = h->nx2mov, [ST_LANE] = h->nlane,
	                 [ST_UNIFORM] = h->nuniform,
	                 [ST_PACKS] = h->npack, [ST_UNPACKS] = h->nunpack, [ST_VARYBR] = h->nvarybr,
	                 [ST_MASKED] = h->ndiv};
	struct statw w;
	statw_begin(&w, &h2_statroot);
	statw_str(&w, ST_TYPE, ty[h->type]);
	statw_str(&w, ST_PAIRING, h->pairing == BLOCKS ? "blocks" : "threads");
	for (int k = ST_X2; k <= ST_MASKED; k++)
		statw_int(&w, k, v[k]);
	statw_open(&w, ST_PREDICTED);
	for (int k = 0; k < h->nsm; k++)
		statw_target(&w, h->sm[k], h->speedup[k]);
	statw_close(&w);
	statw_str(&w, ST_BOUND, h->nsm && h->bound[0] ? h->bound[0] : "unknown");
	for (int r = 0; r < 2; r++) {
		int n = 0;
		for (int k = 0; k < h->nsm; k++)
			if (membound(h, k) && h->regs[k][0] >= 0 && h->regs[k][1] >= 0) {
				if (!n++)
					statw_open(&w, ST_REGS + r);
				statw_target(&w, h->sm[k], h->regs[k][r]);
			}
		if (n)
			statw_close(&w);
	}
	if (h->type != F32) {
		statw_open(&w, ST_RANGE);
		statw_int(&w, RG_OVER, h->rangeover);
		statw_int(&w, RG_UNDER, h->rangeunder);
		statw_close(&w);
	}
	return statw_end(&w);
}

void
h2_explain(FILE *out, const struct h2 *h, int paired)
{
	const char *x2 = h->type == BF16 ? "bf16x2" : "f16x2";
	if (h->type == F32)
		fprintf(out, "           %d %s once per lane, %d once for both lanes\n", h->nlane,
		        plural(h->nlane, "instruction runs", "instructions run"), h->nuniform);
	else
		fprintf(out, "           %d f32 %s %s, %d %s once per lane, %d once for both lanes; "
		        "%d %s, %d %s\n", h->nx2, plural(h->nx2, "instruction becomes", "instructions become"),
		        x2, h->nlane, plural(h->nlane, "runs", "run"), h->nuniform, h->npack,
		        plural(h->npack, "pack", "packs"), h->nunpack, plural(h->nunpack, "unpack", "unpacks"));
	fprintf(out, "           %d %s between the lanes, %d %s under a lane mask\n", h->nvarybr,
	        plural(h->nvarybr, "branch differs", "branches differ"), h->ndiv,
	        plural(h->ndiv, "block runs", "blocks run"));
	for (int k = 0; k < h->nsm; k++) {
		if (!h->bound[k]) {
			fprintf(out, "           sm_%d: no cost figures for this target\n", h->sm[k]);
			continue;
		}
		/* the build's own test (h2_notpaying), not the prediction alone:
		 * f16x2 lanes on a memory-bound sm_80 kernel are predicted 1.10x,
		 * and the build leaves them to type: f32; and what pays may still
		 * be left alone for its precision (h2_precision) */
		const char *why = notpaying(h, k);
		fprintf(out, "           sm_%d: the kernel is bound by %s; predicted %.2fx (from the PTX "
		        "and the target's rates): %s\n", h->sm[k], h->bound[k], h->speedup[k],
		        why ? (h->force ? "will not pay (forced)" : "will not pay, left alone")
		            : paired ? "pays" : "would pay, left alone");
		if (membound(h, k) && h->regs[k][0] >= 0 && h->regs[k][1] >= 0)
			fprintf(out, "           sm_%d: %d registers a thread, %d paired: %d warps an SM, "
			        "%d paired\n", h->sm[k], h->regs[k][0], h->regs[k][1],
			        regwarps(h->sm[k], h->regs[k][0]), regwarps(h->sm[k], h->regs[k][1]));
	}
	if (h->rangeover)
		fprintf(out, "           %d f32 %s f16 (|x| > 65504): consider type: bf16\n",
		        h->rangeover, plural(h->rangeover, "constant overflows", "constants overflow"));
	if (h->rangeunder)
		fprintf(out, "           %d f32 %s below the %s normal range and %s digits\n",
		        h->rangeunder, plural(h->rangeunder, "constant is", "constants are"),
		        h->type == BF16 ? "bf16" : "f16", plural(h->rangeunder, "loses", "lose"));
	if (h->type == F16 && h->orig.bytes > 0 && h->nx2 && paired)
		fprintf(out, "           loaded values must stay within +-65504 in f16 (bf16 keeps f32's range)\n");
}
