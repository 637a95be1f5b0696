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
 * The divergence analysis (half2-vary.c) marks each register uniform (the
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
	for (uint k = 0; k < countof(h->regs); k++)
		h->regs[k][0] = h->regs[k][1] = -1;
}

/* the instructions this target cannot run: refuse before any analysis */
static const char *
targetcheck(const struct h2 *h)
{
	if (h->tgt < 0)
		return arena_strdup(h->a, "the PTX names no target (.target sm_NN)");
	if (h->isa < 70)   /* cvt.rn.f16x2.f32, f16x2 min/max/ex2/tanh, bf16x2 */
		return arena_fmt(h->a, "pairing needs PTX ISA 7.0 (CUDA 11); this PTX is "
		                 ".version %d.%d", h->isa / 10, h->isa % 10);
	if (h->type == F16 && h->tgt < 53)
		return arena_fmt(h->a, "f16x2 arithmetic needs sm_53; this PTX is for sm_%d", h->tgt);
	if (h->type == BF16 && h->tgt < 80)
		return arena_fmt(h->a, "bf16x2 arithmetic needs sm_80; this PTX is for sm_%d "
		                 "(type f16 needs sm_53)", h->tgt);
	return NULL;
}

static int
analyse(struct h2 *h, const char **why)
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

/* ptxas's registers for fn before and after pairing, on each target where
 * the kernel is bound by memory (there occupancy decides): pairing a copy
 * of the module */
static void
occupancy(struct h2 *h, const struct params *p)
{
	Module *c = NULL;
	Fn *fc = NULL;
	for (int k = 0; k < h->nsm; k++) {
		h->regs[k][0] = h->regs[k][1] = -1;
		if (!h->bound[k] || strcmp(h->bound[k], "memory"))
			continue;
		if (!c && (c = modcopy(h->m)) && (fc = findfn(c, symname(h->m, h->fn->sym)))) {
			struct passctx cc = *h->cx;
			struct h2 hc;
			const char *why;
			cc.m = c;
			setup(&hc, &cc, fc, p);
			if (analyse(&hc, &why) == 0)
				h2_transform(&hc);
			else
				fc = NULL;
			arena_free(hc.a);
		}
		h->regs[k][0] = ptxasregs(h->m, h->fn, h->sm[k], NULL);
		h->regs[k][1] = fc ? ptxasregs(c, fc, h->sm[k], NULL) : -1;
	}
	if (c)
		mod_free(c);
	h2_occupancy(h);
}

/* Pairing runs much of a kernel once per lane: a pass before it whose
 * report counts the kernel's instructions must recount them on the paired
 * code (pass.h, recount), or its report would no longer be true of the
 * output; a kernel such a pass changed is left alone */
static char *
uncounted(const struct passctx *cx)
{
	if (!cx->counted)
		return NULL;
	return fmt("%s changed the kernel, and its report counts the kernel's instructions as one "
	           "thread runs them: paired, they would no longer be true", cx->counted);
}

static int
apply(struct passctx *cx, Fn *fn, const struct params *p, struct outcome *o)
{
	struct h2 h;
	const char *why;
	int rc = -1;
	if ((o->why = uncounted(cx)))
		return -1;
	setup(&h, cx, fn, p);
	if (analyse(&h, &why) == 0 && !h.force) {
		occupancy(&h, p);
		/* will not pay: the advice's own answer; half precision that
		 * cannot be trusted: what the rule asked and could not get */
		if (!(why = h2_precision(&h)) && (why = h2_notpaying(&h)))
			o->advised = 1;
	}
	if (why)
		o->why = xstrdup(why);
	else {
		h2_transform(&h);
		o->stats = h2_stats(&h);
		rc = 0;
	}
	arena_free(h.a);
	return rc;
}

/* what apply() decides, said: the same analysis and advice */
static void
explain(FILE *out, struct passctx *cx, Fn *fn, const struct params *p)
{
	struct h2 h;
	const char *why;
	setup(&h, cx, fn, p);
	if (analyse(&h, &why) < 0) {
		fprintf(out, "           half2 would leave it alone: %s\n", why);
	} else {
		if (!h.force) {
			occupancy(&h, p);
			if (!(why = h2_precision(&h)))
				why = h2_notpaying(&h);
		}
		h2_explain(out, &h, !why);
	}
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

extern const struct field h2_statroot;   /* its stats' keys, beside h2_stats() */
static const char *const sweep[] = {"type=f16,force=true", "type=bf16,pairing=blocks,force=true",
                                     "type=f32", NULL};

const struct pass half2_pass = {
	.schema = {"half2", "thread pairing: one thread computes two logical threads in x2 lanes",
	           params, countof(params), describe},
	.stats = &h2_statroot,
	.apply = apply,
	.explain = explain,
	.tune = &(const struct tuning){TUNE_TRANSFORM, .knob = "type", .strongest = "type=f16",
	                               .guess = 1.2, .axis = "lane type"},
	.sweep = sweep,
};
