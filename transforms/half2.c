/* half2.c: thread pairing into f16x2 / bf16x2 lanes (paper 000).
 * Not implemented yet: a rule validates and the kernel is left as nvcc
 * made it, with that reason in the report. */
#include "transforms/pass.h"

enum { TYPE, PAIRING };

static int
apply(struct passctx *cx, Fn *fn, const struct params *p, struct outcome *o)
{
	(void)cx, (void)fn, (void)p;
	o->why = xstrdup("not implemented yet");
	return -1;
}

static const char *const types[] = {"f16", "bf16", "f32", NULL};
static const char *const pairings[] = {"threads", "blocks", NULL};

static void
describe(FILE *out, const struct params *p)
{
	fprintf(out, "           one thread computes two %s, one in each %sx2 lane\n",
	        p->v[PAIRING].i ? "matching threads of adjacent blocks" : "adjacent threads of a block",
	        types[p->v[TYPE].i]);
}

static const struct param params[] = {
	[TYPE] = {"type", PENUM, 0, 0, 0, types, NULL, "f16",
	          "the lanes: f16x2, bf16x2, or two f32 (pairing alone, no precision lost)"},
	[PAIRING] = {"pairing", PENUM, 0, 0, 0, pairings, NULL, "threads",
	             "which two logical threads share a thread: adjacent threads of a block, "
	             "or the same thread of two adjacent blocks"},
};

const struct pass half2_pass = {
	.schema = {"half2", "thread pairing: one thread computes two logical threads in x2 lanes",
	           params, countof(params), describe},
	.apply = apply,
};
