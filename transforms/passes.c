/* passes.c: the table of passes. Adding a pass is one line here plus its
 * own file (doc/DESIGN.md, "Adding a pass").
 *
 * The order is the order the pipeline runs them on each kernel, and the
 * only one in which they compose (mpcc-opt leaves a kernel alone for a pass
 * that a later one changed: passes_order): sfu first, since it merges a
 * second body from another cicc run, which would drop the work of a pass
 * before it and which the passes after it then see too; fiset lowers f64
 * groups (in both bodies, and sfu's f64 approximations 1 for 1); half2
 * last, since pairing refuses what sfu's %warpid partition and anything
 * warp-level would break; shadow (mpcc-tune's instrumented builds) after
 * every transform, so that it times what they made (its error
 * instrumentation takes nvcc's code only); store last, since its clone is
 * the kernel as every other pass left it, and so times itself in a timing
 * build as the kernel would. Each pass's report is a fact
 * about the kernel as the last pass left it (pass.h, recount). */
#include "transforms/pass.h"

#include <stdlib.h>
#include <string.h>

extern const struct pass sfu_pass, fiset_pass, half2_pass, shadow_pass, store_pass;

const struct pass *const passes[] = {
	&sfu_pass,
	&fiset_pass,
	&half2_pass,
	&shadow_pass,
	&store_pass,
};
const int npass = countof(passes);

void
outcome_release(struct outcome *o)
{
	free(o->why);
	free(o->stats);
	free(o->table);
	*o = (struct outcome){0};
}

void
passes_init(void)
{
	static const struct schema *s[countof(passes)];
	for (int i = 0; i < npass; i++)
		s[i] = &passes[i]->schema;
	policy_passes(s, npass);
}

const struct pass *
findpass(const char *name, size_t n)
{
	for (int i = 0; i < npass; i++)
		if (strlen(passes[i]->schema.name) == n && !strncmp(passes[i]->schema.name, name, n))
			return passes[i];
	return NULL;
}

int
findwarning(const char *name, size_t n)
{
	for (int i = 0; i < npass; i++)
		if (passes[i]->warn && strlen(passes[i]->warn->name) == n &&
		    !strncmp(passes[i]->warn->name, name, n))
			return i;
	return -1;
}

void
passes_ran(struct passctx *cx, Fn *fn, uint changed)
{
	if (!changed && cx->keephash && cx->hashed != fn) {
		cx->hashed = fn;
		cx->hash = fnhash(fn);
	}
	cx->changed = changed;
	cx->counted = NULL;
	for (int t = 0; t < npass && !cx->counted; t++)
		if ((changed & 1u << t) && passes[t]->stats && !passes[t]->recount)
			cx->counted = passes[t]->schema.name;
}

char *
passes_order(uint changed, int t)
{
	struct buf order = BUF_INIT;
	int later = -1;
	for (int u = npass - 1; u > t; u--)
		if (changed & 1u << u)
			later = u;
	if (later < 0)
		return NULL;
	for (int u = 0; u < npass; u++)
		buf_printf(&order, "%s%s", u ? ", " : "", passes[u]->schema.name);
	char *why = fmt("%s changed the kernel already, and %s runs before it (mpcc's order: %s): "
	                "run %s first", passes[later]->schema.name, passes[t]->schema.name, order.s,
	                passes[t]->schema.name);
	buf_release(&order);
	return why;
}
