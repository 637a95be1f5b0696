/* pipeline.c: the PTX hook. The driver calls pipeline() on each PTX file
 * cicc writes, before ptxas reads it. The schedule is one straight function
 * (STYLE.md, Example 5): parse, then per kernel the passes that the policy's
 * winning rules select, then print. The file is only rewritten once the
 * whole module has been printed into memory; any failure leaves nvcc's PTX
 * as it was. */
#include "ptx/ptx.h"
#include "transforms/pass.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* the fast-math module of the file for an approximation mask: the driver's
 * second cicc run, parsed once per mask */
static Module *
fastmod(const struct hook *h, uint mask, Module **cache)
{
	const char *path;

	mask &= AX_ALL;
	if (!cache[mask] && h->fastptx && (path = h->fastptx(h->drv, mask)))
		cache[mask] = parsefile(path);
	return cache[mask];
}

/* what became of transform t on a kernel: one report line, and for a kernel
 * left alone the policy's on_unsupported; -1 if the policy makes that an
 * error */
static int
outcome(const struct hook *h, const char *mangled, const char *demangled, int t,
        const struct rule *r, const char *why, const char *stats)
{
	if (h->report) {
		char *params = rule_params(r, t);
		struct report rep = {.src = h->src, .arch = h->arch, .mangled = mangled,
		                     .demangled = demangled, .transform = transform_name[t],
		                     .params = params, .applied = !why, .reason = why,
		                     .stats = stats, .profile = h->prof->name, .rule = r->where};
		report_append(h->report, &rep);
		free(params);
	}
	if (!why)
		return 0;
	switch (h->prof->on_unsupported) {
	case UNSUP_ERROR:
		error("%s: %s on '%s' (%s): %s", r->where ? r->where : h->src, transform_name[t],
		      demangled, h->arch ? h->arch : "?", why);
		return -1;
	case UNSUP_WARN:
		warn("%s: %s on '%s' (%s): %s", r->where ? r->where : h->src, transform_name[t],
		     demangled, h->arch ? h->arch : "?", why);
	}
	return 0;
}

/* the transforms of one kernel, in a fixed order */
static int
kernel(Module *m, Fn *fn, const struct hook *h, Module **cache)
{
	char stats[256];
	char *mangled = symstr(m, fn->sym), *demangled = demangle(mangled);
	const char *why;
	const struct rule *r;
	struct choice c;
	int rc = 0;

	profile_match(h->prof, h->src, mangled, demangled, &c);
	if ((r = c.rule[T_SFU])) {
		struct sfu_stats st;
		Module *fast = NULL;
		if (sfu_needs_fast(fn, r->sfu.approx) && !(fast = fastmod(h, r->sfu.approx, cache)))
			note("%s: sfu: no fast-math PTX for '%s': FP64 rewrites only", h->src, demangled);
		sfu(m, fn, fast, &r->sfu, SFU_COLLAPSE0, &st, &why);
		sfu_stats_json(&st, stats, sizeof stats);
		rc |= outcome(h, mangled, demangled, T_SFU, r, why, why ? NULL : stats);
	}
	if ((r = c.rule[T_FISET]))
		rc |= outcome(h, mangled, demangled, T_FISET, r, "not implemented yet", NULL);
	if ((r = c.rule[T_HALF2]))
		rc |= outcome(h, mangled, demangled, T_HALF2, r, "not implemented yet", NULL);
	free(mangled);
	free(demangled);
	return rc;
}

static void
explain(Module *m, const struct hook *h)
{
	for (uint k = 0; k < m->nfn; k++) {
		Fn *fn = m->fn[k];
		if (!(fn->flags & FENTRY) || (fn->flags & FDECL))
			continue;
		char *mangled = symstr(m, fn->sym), *demangled = demangle(mangled);
		explain_kernel(h->explain, h->prof, h->src, mangled, demangled);
		free(mangled);
		free(demangled);
	}
}

uint
pipeline_fastmasks(const struct profile *p, const char *src)
{
	uint set = 0;
	for (int i = 0; p && i < p->nrule; i++) {
		const struct rule *r = &p->rule[i];
		if ((r->has & 1u << T_SFU) &&
		    (r->sfu.approx & (AX_TRANS | AX_FTZ)) && rule_file_match(r, src))
			set |= 1u << (r->sfu.approx & AX_ALL);
	}
	return set;
}

int
pipeline(const char *path, const struct hook *h)
{
	Module *m, *cache[AX_ALL + 1] = {0};
	char *out;
	size_t n;
	int rc = 0;

	if (!(m = parsefile(path))) {
		note("leaving '%s' as nvcc wrote it", path);
		return -1;
	}
	if (h->explain) {
		explain(m, h);
		mod_free(m);
		return 0;
	}
	if (h->prof && !h->dryrun) {
		/* the kernels as cicc wrote them: passes add functions to m->fn */
		Fn **fns = xmalloc(m->nfn * sizeof *fns);
		uint nfn = m->nfn;
		memcpy(fns, m->fn, nfn * sizeof *fns);
		for (uint k = 0; k < nfn && rc == 0; k++)
			if ((fns[k]->flags & FENTRY) && !(fns[k]->flags & FDECL))
				rc = kernel(m, fns[k], h, cache);
		free(fns);
	}
	for (uint k = 0; k <= AX_ALL; k++)
		if (cache[k])
			mod_free(cache[k]);
	if (rc < 0) {
		mod_free(m);
		return -1;
	}
	out = printstr(m, &n);
	mod_free(m);
	if (writefile(path, out, n) < 0) {
		error("cannot write '%s': %s", path, strerror(errno));
		free(out);
		return -1;
	}
	free(out);
	return 0;
}
