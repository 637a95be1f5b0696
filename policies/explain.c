/* explain.c: --mpcc-explain, in words: for one kernel, the policy files, the
 * profile and how it was chosen, and for each transform the rule that wins
 * and what it would do (the words of the pass's schema). It reads the same struct choice that the pipeline
 * acts on (profile_match), so the explanation cannot drift from the build. */
#include "policies/policy.h"

#include <stdlib.h>
#include <string.h>

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
               const char *mangled, const char *demangled,
               void (*more)(FILE *, int t, const struct params *, void *), void *arg)
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
	if (!p->nchain)
		fprintf(out, "  policy:  none (no .mpcc.yaml at or above the source's directory)\n");
	else
		fprintf(out, "  policy:  %s", p->policy);
	if (p->from)
		fprintf(out, " (from %s)", p->from);
	for (int i = 1; i < p->nchain; i++)
		fprintf(out, "%s%s", i == 1 ? " (inherits " : ", ", p->chain[i]);
	if (p->nchain)
		fprintf(out, "%s\n", p->nchain > 1 ? ")" : "");
	if (*p->name)
		fprintf(out, "  profile: %s (%s)\n", p->name, p->why);
	else
		fprintf(out, "  profile: none (%s)\n", p->why);
	if (p->override)
		fprintf(out, "  override: MPCC_SET='%s' (its rules come after the profile's and win)\n",
		        p->override);
	struct choice c;
	profile_match(p, cu, mangled, demangled, &c);
	int any = 0;
	for (int t = 0; t < nschema; t++) {
		const struct rule *r = c.rule[t], *off = switched_off(p, cu, mangled, demangled, t);
		char label[16];
		snprintf(label, sizeof label, "%s:", schemas[t]->name);
		if (off) {
			fprintf(out, "  %-9soff, by the rule at %s\n", label, off->where);
			any = 1;
		}
		if (!r)
			continue;
		any = 1;
		char *words = params_str(r->param[t], W_EXPLAIN);
		fprintf(out, "  %-9srule at %s: %s\n", label, r->where, words);
		free(words);
		if (schemas[t]->describe)
			schemas[t]->describe(out, r->param[t]);
		if (more)
			more(out, t, r->param[t], arg);
	}
	if (!any)
		fprintf(out, "  no rule applies: nvcc's code is kept\n");
	free(d);
}
