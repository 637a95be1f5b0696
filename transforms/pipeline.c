/* pipeline.c: the PTX hook. The driver calls pipeline() on each PTX file
 * cicc writes, before ptxas reads it. The schedule is one straight function
 * (STYLE.md, Example 5): the passes that work on text (sfu), parse, then
 * per kernel the IR passes that the policy's winning rules select,
 * refreshing the analyses each one breaks, then print. The file is only rewritten once the whole module has been
 * printed into memory; any failure leaves nvcc's PTX as it was. */
#include "ptx/ptx.h"
#include "transforms/pass.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* report.c and explain.c arrive with the policy layer's branch; until it is
 * merged into this one their calls compile out (the hook then neither
 * explains nor reports). Remove the guards once both are in main. */
#if __has_include("policies/report.c")
#define HAVE_REPORT 1
#else
#define HAVE_REPORT 0
#endif
#if __has_include("policies/explain.c")
#define HAVE_EXPLAIN 1
#else
#define HAVE_EXPLAIN 0
#endif
/* likewise the sfu pass (transforms/sfu.c, the SFU branch): it rewrites PTX
 * text, so it runs on the file's text before the IR is built */
#if __has_include("transforms/sfu.h")
#include "transforms/sfu.h"
#define HAVE_SFU 1
#else
#define HAVE_SFU 0
#endif

static void
params_json(int t, const struct rule *r, char *buf, size_t n)
{
	switch (t) {
	case T_SFU:
		snprintf(buf, n, "{\"lambda\":%d,\"approx\":%u,\"newton\":%d}",
		         r->sfu.lambda, r->sfu.approx, r->sfu.newton);
		break;
	case T_FISET:
		snprintf(buf, n, "{\"min_ratio\":%g,\"sets\":%d}", r->fiset.min_ratio, r->fiset.sets);
		break;
	default:
		snprintf(buf, n, "{\"type\":\"%s\",\"blocks\":%d}", r->half2.bf16 ? "bf16" : "f16",
		         r->half2.blocks);
	}
}

/* a transform that cannot run on this kernel: say so as the policy asks and
 * report it; -1 if the policy makes that an error */
static int
refuse(const struct hook *h, const char *mangled, const char *demangled, int t,
       const struct rule *r, const char *why)
{
	char params[256];

	(void)mangled;
	params_json(t, r, params, sizeof params);
	if (h->report) {
#if HAVE_REPORT
		struct report rep = {.src = h->src, .arch = h->arch, .mangled = mangled,
		                     .demangled = demangled, .transform = transform_name[t],
		                     .params = params, .reason = why};
		report_append(h->report, &rep);
#endif
	}
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
kernel(Module *m, Fn *fn, const struct hook *h)
{
	char mangled[512];
	char *demangled;
	struct choice c;
	int rc = 0;

	(void)m;
	snprintf(mangled, sizeof mangled, "%.*s", (int)m->sym[fn->sym].name.n,
	         m->sym[fn->sym].name.s);
	demangled = demangle(mangled);
	profile_match(h->prof, h->src, mangled, demangled, &c);
	/* sfu ran on the text (see pipeline()); IR passes on fn go here, each
	 * followed by the refresh of what it breaks (fillcfg, filldefuse) */
	if (c.rule[T_SFU] && !HAVE_SFU)
		rc |= refuse(h, mangled, demangled, T_SFU, c.rule[T_SFU], "not implemented yet");
	if (c.rule[T_FISET])
		rc |= refuse(h, mangled, demangled, T_FISET, c.rule[T_FISET], "not implemented yet");
	if (c.rule[T_HALF2])
		rc |= refuse(h, mangled, demangled, T_HALF2, c.rule[T_HALF2], "not implemented yet");
	free(demangled);
	return rc;
}

static void
explain(Module *m, const struct hook *h)
{
	for (uint k = 0; k < m->nfn; k++) {
		Fn *fn = m->fn[k];
		char mangled[512], *demangled;
		if (!(fn->flags & FENTRY) || (fn->flags & FDECL))
			continue;
		snprintf(mangled, sizeof mangled, "%.*s", (int)m->sym[fn->sym].name.n,
		         m->sym[fn->sym].name.s);
		demangled = demangle(mangled);
#if HAVE_EXPLAIN
		explain_kernel(h->explain, h->prof, h->src, mangled, demangled);
#else
		fprintf(h->explain, "%s: kernel '%s': explain is not built yet\n", h->src, demangled);
#endif
		free(demangled);
	}
}

/* the passes that work on PTX text; the text of the module, malloc'd */
static char *
textpasses(char *text, const struct hook *h)
{
#if HAVE_SFU
	char *t = sfu_module(text, h);   /* SFU: every kernel whose rule has sfu */
	if (t) {
		free(text);
		text = t;
	}
#else
	(void)h;
#endif
	return text;
}

int
pipeline(const char *path, const struct hook *h)
{
	Module *m;
	char *out, *text;
	size_t n;
	int rc = 0;

	if (!(text = readfile(path, &n))) {
		error("cannot read '%s': %s", path, strerror(errno));
		return -1;
	}
	if (h->prof && !h->dryrun && !h->explain) {
		text = textpasses(text, h);
		n = strlen(text);
	}
	m = parse(path, text, n);
	free(text);
	if (!m) {
		note("leaving '%s' as nvcc wrote it", path);
		return -1;
	}
	if (h->explain) {
		explain(m, h);
		mod_free(m);
		return 0;
	}
	if (h->prof && !h->dryrun)
		for (uint k = 0; k < m->nfn && rc == 0; k++)
			if ((m->fn[k]->flags & FENTRY) && !(m->fn[k]->flags & FDECL))
				rc = kernel(m, m->fn[k], h);
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
