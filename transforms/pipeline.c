/* pipeline.c: the PTX hook. The driver calls pipeline() on each PTX file
 * cicc writes, before ptxas reads it. The schedule is one straight function
 * (STYLE.md, Example 5): parse, then per kernel the passes that the policy's
 * winning rules select, in the order of the table (passes.c), then verify
 * what they changed, then print. The file is only rewritten once the whole
 * module has been printed into memory; any failure leaves nvcc's PTX as it
 * was. */
#define _GNU_SOURCE   /* memmem */
#include "ptx/ptx.h"
#include "transforms/pass.h"
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

Module *
passctx_load(struct passctx *cx, const char *path)
{
	for (int i = 0; i < cx->nloaded; i++)
		if (!strcmp(cx->loadedpath[i], path))
			return cx->loaded[i];
	Module *m = parsefile(path);
	cx->loaded = xrealloc(cx->loaded, (cx->nloaded + 1) * sizeof *cx->loaded);
	cx->loadedpath = xrealloc(cx->loadedpath, (cx->nloaded + 1) * sizeof *cx->loadedpath);
	cx->loaded[cx->nloaded] = m;
	cx->loadedpath[cx->nloaded++] = xstrdup(path);
	return m;
}

/* the driver's second cicc run for mask, parsed once */
Module *
passctx_fast(struct passctx *cx, uint mask)
{
	const char *path;
	mask &= AX_ALL;
	if (!cx->fast[mask] && cx->h && cx->h->fastptx && (path = cx->h->fastptx(cx->h->drv, mask)))
		cx->fast[mask] = parsefile(path);
	return cx->fast[mask];
}

void
passctx_release(struct passctx *cx)
{
	for (uint k = 0; k <= AX_ALL; k++)
		if (cx->fast[k])
			mod_free(cx->fast[k]);
	for (int i = 0; i < cx->nloaded; i++) {
		if (cx->loaded[i])
			mod_free(cx->loaded[i]);
		free(cx->loadedpath[i]);
	}
	free(cx->loaded);
	free(cx->loadedpath);
}

/* what became of pass t on a kernel: one report line, and for a kernel
 * the pass refused the policy's on_unsupported (not for what its advice
 * chose: nothing to do, will not pay); -1 if the policy makes that an
 * error */
static int
outcome(const struct hook *h, const char *mangled, const char *demangled, int t,
        const struct rule *r, const struct outcome *o)
{
	const char *name = passes[t]->schema.name;
	if (h->reports) {
		char *params = params_str(r->param[t], W_JSON);
		struct report rep = {.src = h->src, .arch = h->arch, .mangled = mangled,
		                     .demangled = demangled, .transform = name,
		                     .params = params, .applied = !o->why, .reason = o->why,
		                     .stats = o->stats, .profile = h->prof->name, .rule = r->where};
		reports_add(h->reports, &rep);
		free(params);
	}
	if (h->tally)
		(!o->why ? h->tally->applied : o->advised ? h->tally->advised : h->tally->refused)[t]++;
	if (!o->why || o->advised)
		return 0;
	switch (h->prof->on_unsupported) {
	case UNSUP_ERROR:
		error("%s: %s on '%s' (%s): %s", r->where ? r->where : h->src, name, demangled,
		      h->arch ? h->arch : "?", o->why);
		return -1;
	case UNSUP_WARN:
		warn("%s: %s on '%s' (%s): %s", r->where ? r->where : h->src, name, demangled,
		     h->arch ? h->arch : "?", o->why);
	}
	return 0;
}

/* the passes that won for one kernel, in the table's order; *changed
 * names the last one that changed the module */
static int
kernel(struct passctx *cx, Fn *fn, const struct hook *h, const char **changed)
{
	char *mangled = symstr(cx->m, fn->sym), *demangled = demangle(mangled);
	struct choice c;
	int rc = 0;

	profile_match(h->prof, h->src, mangled, demangled, &c);
	for (int t = 0; t < npass; t++) {
		const struct rule *r = c.rule[t];
		struct outcome o = {0};
		if (!r)
			continue;
		if (passes[t]->apply(cx, fn, r->param[t], &o) == 0)
			*changed = passes[t]->schema.name;
		rc |= outcome(h, mangled, demangled, t, r, &o);
		free(o.why);
		free(o.stats);
	}
	free(mangled);
	free(demangled);
	return rc;
}

struct explaining {
	struct passctx *cx;
	Fn *fn;
};

static void
more(FILE *out, int t, const struct params *p, void *arg)
{
	struct explaining *e = arg;
	if (passes[t]->explain)
		passes[t]->explain(out, e->cx, e->fn, p);
}

static void
explain(struct passctx *cx, const struct hook *h)
{
	Module *m = cx->m;
	for (uint k = 0; k < m->nfn; k++) {
		Fn *fn = m->fn[k];
		if (!(fn->flags & FENTRY) || (fn->flags & FDECL))
			continue;
		char *mangled = symstr(m, fn->sym), *demangled = demangle(mangled);
		struct explaining e = {cx, fn};
		explain_kernel(h->explain, h->prof, h->src, mangled, demangled, more, &e);
		free(mangled);
		free(demangled);
	}
}

/* can glob name a kernel of a source whose preprocessed text is text?
 * Each identifier the glob spells out must occur in it: a kernel's name is
 * an identifier of its source (after macro expansion). A glob on mangled
 * names ("_Z9BoxMuller*") fails this, which only costs time: the fast-math
 * run then waits for a kernel that asks for it. */
static int
mayname(const char *glob, const char *text, size_t n)
{
	for (const char *s = glob; *s;) {
		size_t k = 0;
		if (!(isalpha((uchar)*s) || *s == '_')) {
			s++;
			continue;
		}
		while (isalnum((uchar)s[k]) || s[k] == '_')
			k++;
		if (!memmem(text, n, s, k))
			return 0;
		s += k;
	}
	return 1;
}

static int
maymatch(const struct rule *r, const char *text, size_t n)
{
	for (int i = 0; i < r->nkernels; i++)
		if (!text || mayname(r->kernels[i], text, n))
			return 1;
	return 0;
}

uint
pipeline_fastmasks(const struct profile *p, const char *src, const char *text, size_t n)
{
	uint set = 0;
	for (int i = 0; p && i < p->nrule; i++) {
		const struct rule *r = &p->rule[i];
		for (int t = 0; t < npass; t++)
			if ((r->has & 1u << t) && passes[t]->fastmasks && rule_file_match(r, src) &&
			    maymatch(r, text, n))
				set |= passes[t]->fastmasks(r->param[t]);
	}
	return set;
}

int
pipeline(const char *path, const struct hook *h)
{
	Module *m;
	const char *changed = NULL;
	char *out;
	size_t n;
	int rc = 0;

	if (!(m = parsefile(path))) {
		note("leaving '%s' as nvcc wrote it", path);
		return -1;
	}
	struct passctx cx = {.m = m, .src = h->src, .arch = h->arch, .sm = h->sm,
	                     .nsm = h->nsm, .jit = h->jit, .h = h};
	for (uint k = 0; h->kernels && k < m->nfn; k++)
		if ((m->fn[k]->flags & FENTRY) && !(m->fn[k]->flags & FDECL))
			args_push(h->kernels, symstr(m, m->fn[k]->sym));
	if (h->explain) {
		explain(&cx, h);
		passctx_release(&cx);
		mod_free(m);
		return 0;
	}
	if (h->prof && !h->dryrun) {
		/* the kernels as cicc wrote them: passes add functions to m->fn */
		uint nfn = m->nfn;
		Fn **fns = xmalloc((nfn + 1) * sizeof *fns);
		if (nfn)
			memcpy(fns, m->fn, nfn * sizeof *fns);
		for (uint k = 0; k < nfn && rc == 0; k++)
			if ((fns[k]->flags & FENTRY) && !(fns[k]->flags & FDECL))
				rc = kernel(&cx, fns[k], h, &changed);
		free(fns);
	}
	passctx_release(&cx);
	int failed = rc < 0;   /* on_unsupported: error, said in outcome() */
	if (rc == 0 && changed && verify(m, stderr)) {   /* a pass's bug: never shipped */
		warn("%s: the PTX the %s pass made does not verify (a bug in mpcc): "
		     "leaving the file as nvcc wrote it", path, changed);
		rc = -1;
	}
	if (rc < 0) {
		mod_free(m);
		return failed ? 1 : -1;
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
