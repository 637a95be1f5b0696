/* explain.c: --mpcc-explain, in words: for one kernel, the policy files, the
 * profile and how it was chosen, and for each transform the rule that wins
 * and what it would do. It reads the same struct choice that the pipeline
 * acts on (profile_match), so the explanation cannot drift from the build. */
#include "policies/policy.h"

#include <stdlib.h>
#include <string.h>

static const char *const ax_name[] = {"transcendental", "div", "sqrt", "rcp", "ftz"};

static void
sfu(FILE *out, const struct sfu_params *s)
{
	char list[96] = "";
	for (int i = 0; i < 5; i++)
		if (s->approx & 1u << i)
			snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
			         *list ? ", " : "", ax_name[i]);
	fprintf(out, "lambda=%d approx=[%s] newton=%s\n", s->lambda, list,
	        s->newton ? "true" : "false");
	if (s->lambda == 0)
		fprintf(out, "           every warp runs the accurate path (lambda 0: the kernel is unchanged in effect)\n");
	else if (s->lambda >= 64)
		fprintf(out, "           every warp runs the fast path (%s)\n", list);
	else
		fprintf(out, "           warps with %%warpid < %d run the fast path (%s), the others the accurate one\n",
		        s->lambda, list);
	if (s->newton)
		fprintf(out, "           f64 approximations are refined by one Newton step\n");
}

static void
fiset(FILE *out, const struct fiset_params *f)
{
	char *p = NULL;
	const char *which = f->sets < 0 ? "every set" : f->sets == 0 ? "the best set"
	                  : (p = fmt("the %d best sets", f->sets));
	if (f->sets > 0)
		fprintf(out, "min_ratio=%g sets=%d\n", f->min_ratio, f->sets);
	else
		fprintf(out, "min_ratio=%g sets=%s\n", f->min_ratio, f->sets ? "all" : "best");
	fprintf(out, "           lowers %s of f64 operations with r_ac >= %g to f32\n", which, f->min_ratio);
	free(p);
}

static void
half2(FILE *out, const struct half2_params *h)
{
	const char *t = h->bf16 ? "bf16" : "f16";
	fprintf(out, "type=%s pairing=%s\n", t, h->blocks ? "blocks" : "threads");
	fprintf(out, "           one thread computes two %s, one in each %sx2 lane\n",
	        h->blocks ? "matching threads of adjacent blocks" : "adjacent threads of a block", t);
}

/* the last rule that matches and switches t off, if it comes after the
 * winner (or there is no winner) */
static const struct rule *
switched_off(const struct profile *p, const char *cu, const char *mangled,
             const char *demangled, int t)
{
	const struct rule *off = NULL;
	for (int i = 0; i < p->nrule; i++) {
		const struct rule *r = &p->rule[i];
		if (!((r->has | r->off) & 1u << t) || !rule_match(r, cu, mangled, demangled))
			continue;
		off = r->off & 1u << t ? r : NULL;
	}
	return off;
}

void
explain_kernel(FILE *out, const struct profile *p, const char *cu,
               const char *mangled, const char *demangled)
{
	char *d = demangled ? NULL : mangled ? demangle(mangled) : NULL;
	if (!demangled)
		demangled = d ? d : "?";
	if (mangled && strcmp(mangled, demangled))
		fprintf(out, "%s: kernel '%s' (%s)\n", cu, demangled, mangled);
	else
		fprintf(out, "%s: kernel '%s'\n", cu, demangled);
	if (!p) {
		fprintf(out, "  policy:  none (no .mpcc.yaml at or above the source's directory)\n");
		fprintf(out, "  no rule applies: nvcc's code is kept\n");
		free(d);
		return;
	}
	fprintf(out, "  policy:  %s", p->policy);
	if (p->from)
		fprintf(out, " (from %s)", p->from);
	for (int i = 1; i < p->nchain; i++)
		fprintf(out, "%s%s", i == 1 ? " (inherits " : ", ", p->chain[i]);
	fprintf(out, "%s\n", p->nchain > 1 ? ")" : "");
	if (*p->name)
		fprintf(out, "  profile: %s (%s)\n", p->name, p->why);
	else
		fprintf(out, "  profile: none (%s)\n", p->why);
	struct choice c;
	profile_match(p, cu, mangled, demangled, &c);
	int any = 0;
	for (int t = 0; t < NTRANSFORM; t++) {
		const struct rule *r = c.rule[t], *off = switched_off(p, cu, mangled, demangled, t);
		char label[16];
		snprintf(label, sizeof label, "%s:", transform_name[t]);
		if (off) {
			fprintf(out, "  %-9soff, by the rule at %s\n", label, off->where);
			any = 1;
		}
		if (!r)
			continue;
		any = 1;
		fprintf(out, "  %-9srule at %s: ", label, r->where);
		if (t == T_SFU)
			sfu(out, &r->sfu);
		else if (t == T_FISET)
			fiset(out, &r->fiset);
		else
			half2(out, &r->half2);
	}
	if (!any)
		fprintf(out, "  no rule applies: nvcc's code is kept\n");
	free(d);
}
