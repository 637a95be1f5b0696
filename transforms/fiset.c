/* fiset.c: FP64 -> FP32 lowering of fast imprecise sets (paper 003).
 * Not implemented yet: a rule validates and the kernel is left as nvcc
 * made it, with that reason in the report. */
#include "transforms/pass.h"

enum { SETS, MIN_RATIO, MAX_SETS };

static int
apply(struct passctx *cx, Fn *fn, const struct params *p, struct outcome *o)
{
	(void)cx, (void)fn, (void)p;
	o->why = xstrdup("not implemented yet");
	return -1;
}

static void
describe(FILE *out, const struct params *p)
{
	static const char *const which[] = {
		"the sets of f64 operations that the cost model predicts to pay on each target",
		"the set of f64 operations that the cost model ranks best",
		"every set of f64 operations",
	};
	const struct value *v = &p->v[SETS];
	fprintf(out, "           lowers to f32 ");
	if (v->i >= 0)
		fprintf(out, "%s\n", which[v->i]);
	else if (v->i == SETS_N)
		fprintf(out, "the %ld best sets of f64 operations\n", (long)v->x);
	else
		for (int i = 0; i < v->nids; i++)
			fprintf(out, "%s%ld%s", i ? ", " : "the sets of f64 operations with ids ", v->ids[i],
			        i == v->nids - 1 ? "\n" : "");
}

static const char *const sets[] = {"auto", "best", "all", NULL};

static const struct param params[] = {
	[SETS] = {"sets", PSETS, 0, 1, 1e6, sets, NULL, "auto",
	          "which sets to lower: auto (those the cost model says pay on each target), "
	          "best, all, the N best, or a list of set ids"},
	[MIN_RATIO] = {"min_ratio", PNUM, 0, 0, 1e9, NULL, NULL, "1.5",
	               "the arithmetic-to-cast ratio r_ac a set must reach (Algorithm 1)"},
	[MAX_SETS] = {"max_sets", PINT, 0, 1, 1000, NULL, NULL, "64",
	              "at most this many sets are lowered in one kernel"},
};

const struct pass fiset_pass = {
	.schema = {"fiset", "FP64 -> FP32 lowering of the groups of f64 operations that pay",
	           params, countof(params), describe},
	.apply = apply,
};
