/* pipeline.c: the PTX hook. The driver calls pipeline() on each PTX file
 * cicc writes, before ptxas reads it. The schedule is one straight function
 * (doc/STYLE.md, "The schedule"): parse, then per kernel the passes that
 * the policy's winning rules select, in the order of the table (passes.c),
 * then verify what they changed, then print. The file is only rewritten
 * once the whole module has been printed into memory; any failure leaves
 * nvcc's PTX as it was. */
#define _GNU_SOURCE   /* memmem */
#include "ptx/ptx.h"
#include "transforms/pass.h"
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

/* what became of pass t on a kernel: one report line, and for a kernel
 * the pass refused the policy's on_unsupported (not for what its advice
 * chose: nothing to do, will not pay); -1 if the policy makes that an
 * error */
static int
outcome(const struct hook *h, const char *mangled, const char *demangled, int t,
        const struct rule *r, const struct outcome *o, int quiet)
{
	const char *name = passes[t]->schema.name;
	if (quiet)   /* a second run, said the first time */
		return o->why && !o->advised && !o->crashed && h->prof->on_unsupported == UNSUP_ERROR
		           ? -1 : 0;
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
	if (!o->why || o->advised || o->crashed)
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

void
breakkernel(Fn *fn)
{
	const char *want = getenv("MPCC_DEBUG_BREAK_KERNEL");
	if (!want)
		return;
	char *mangled = symstr(fn->mod, fn->sym), *demangled = demangle(mangled);
	Ins *i;
	if (!strcmp(want, mangled) || !strcmp(want, demangled)) {
		newlbl(fn, "$mpcc_broken_on_purpose");
		if ((i = mkins(fn, "bra.uni $mpcc_broken_on_purpose;")))
			ins_insert(fn, bodystart(fn), i);
	}
	free(mangled);
	free(demangled);
}

/* MPCC_DEBUG_CRASH=PASS:KERNEL[:HOW]: pass PASS dies on kernel KERNEL
 * (mangled or demangled) before it runs, as a bug would: HOW is bug (the
 * default), segv, oom or hang; to exercise the driver's containment */
static void
debugcrash(const char *pass, const char *mangled)
{
	static const char *const hows[] = {"bug", "segv", "oom", "hang"};
	const char *v = getenv("MPCC_DEBUG_CRASH"), *how = "bug", *c;
	size_t n = strlen(pass);
	if (!v || strncmp(v, pass, n) || v[n] != ':')
		return;
	char *k = xstrdup(v + n + 1), *d = demangle(mangled);
	for (size_t i = 0; i < countof(hows); i++)
		if ((c = strrchr(k, ':')) && !strcmp(c + 1, hows[i]))
			how = hows[i], k[c - k] = 0;
	int hit = !strcmp(k, mangled) || !strcmp(k, d);
	free(k);
	free(d);
	if (!hit)
		return;
	if (!strcmp(how, "segv"))
		raise(SIGSEGV);
	if (!strcmp(how, "oom"))   /* more than any machine has: malloc fails */
		free(xmalloc((size_t)1 << 47));
	if (!strcmp(how, "hang"))
		for (volatile int spin = 1; spin;)
			;
	BUG("MPCC_DEBUG_CRASH: %s on '%s'", pass, mangled);
}

/* tell the driver what runs now: a kernel's name, a pass, or "verify" */
static void
progress(const struct hook *h, const char *what, const char *name)
{
	if (h && h->progress) {
		fprintf(h->progress, "%s %s\n", what, name);
		fflush(h->progress);
	}
}

const struct crash *
crash_of(const struct crash *c, int n, const char *mangled)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(c[i].mangled, mangled))
			return &c[i];
	return NULL;
}

char *
crash_reason(const struct crash *c)
{
	return fmt("%s hit an internal error (%s, a bug in mpcc): nvcc's code was kept", c->pass,
	           c->why);
}

/* the passes of choice c on kernel fn, in the table's order, what became
 * of each into o[t]; the passes that changed it (bit t). Each pass's
 * figures are recounted on the kernel as the last one left it */
static uint
chain(struct passctx *cx, Fn *fn, const char *mangled, const struct choice *c,
      struct outcome *o)
{
	uint applied = 0;
	cx->keephash = 0;
	for (int t = 0; t < npass; t++)
		cx->keephash |= c->rule[t] && params_hashed(c->rule[t]->param[t]);
	for (int t = 0; t < npass; t++) {
		o[t] = (struct outcome){0};
		if (!c->rule[t])
			continue;
		progress(cx->h, "pass", passes[t]->schema.name);
		debugcrash(passes[t]->schema.name, mangled);
		passes_ran(cx, fn, applied);
		if (!(o[t].why = passctx_refuse(cx)) &&
		    passes[t]->apply(cx, fn, c->rule[t]->param[t], &o[t]) == 0)
			applied |= 1u << t;
	}
	for (int t = 0; t < npass; t++)
		if ((applied & 1u << t) && passes[t]->recount)
			passes[t]->recount(fn, &o[t]);
	return applied;
}

/* the lines of the host object's table the passes gave (struct pass,
 * table): kernel[i]'s is line[i], from pass[i] */
struct tab {
	struct args kernel, line;
	int *pass, cap;
};

static void
tab_add(struct tab *tb, const char *kernel, const char *line, int t)
{
	vgrow(tb->pass, tb->kernel.n, tb->cap);
	tb->pass[tb->kernel.n] = t;
	args_push(&tb->kernel, kernel);
	args_push(&tb->line, line);
}

static void
tab_release(struct tab *tb)
{
	args_release(&tb->kernel);
	args_release(&tb->line);
	free(tb->pass);
	*tb = (struct tab){ARGS_INIT, ARGS_INIT, NULL, 0};
}

/* the passes that won for one kernel, in the table's order; *applied gets
 * bit t for each pass t that changed it, and tb the lines they gave. quiet:
 * a second run after a fallback, whose outcomes the first run said and
 * reported */
static int
kernel(struct passctx *cx, Fn *fn, const struct hook *h, uint *applied, int quiet,
       struct tab *tb)
{
	char *mangled = symstr(cx->m, fn->sym), *demangled = demangle(mangled);
	struct choice c;
	struct outcome o[MAXPASS] = {{0}};
	int rc = 0;

	const struct crash *cr = crash_of(h->crash, h->ncrash, mangled);
	profile_match(h->prof, h->src, mangled, demangled, &c);
	progress(h, "kernel", mangled);
	*applied = cr ? 0 : chain(cx, fn, mangled, &c, o);
	for (int t = 0; t < npass; t++) {
		if (cr && c.rule[t])
			o[t] = (struct outcome){.why = crash_reason(cr), .crashed = 1};
		if (c.rule[t])
			rc |= outcome(h, mangled, demangled, t, c.rule[t], &o[t], quiet);
		if (o[t].table && (*applied & 1u << t))
			tab_add(tb, mangled, o[t].table, t);
		outcome_release(&o[t]);
	}
	if (*applied && !quiet)
		breakkernel(fn);
	free(mangled);
	free(demangled);
	return rc;
}

/* why a kernel whose transformed code does not verify was left as nvcc
 * made it, in its report and in explain */
static const char unverified[] = "the transformed kernel did not verify (a bug in mpcc): "
                                 "nvcc's code was kept";

/* --mpcc-explain runs the chain the build runs (chain() without the
 * reports), so that it says what the build's report will: each pass's
 * words are about the kernel as the passes before it left it (fiset after
 * sfu sees both bodies), and its verdict is what its apply said */
struct explaining {
	struct passctx *cx;
	Fn *fn;
	const char *mangled;
	const struct crash *cr;   /* the passes crashed on it in an earlier try */
	uint applied;
};

static void
more(FILE *out, int t, const struct params *p, void *arg)
{
	struct explaining *e = arg;
	struct outcome o = {0};
	if (e->cr) {
		char *why = crash_reason(e->cr);
		fprintf(out, "           verdict: left alone: %s\n", why);
		free(why);
		return;
	}
	progress(e->cx->h, "pass", passes[t]->schema.name);
	debugcrash(passes[t]->schema.name, e->mangled);
	passes_ran(e->cx, e->fn, e->applied);
	if (passes[t]->explain)
		passes[t]->explain(out, e->cx, e->fn, p);
	if (passes[t]->apply(e->cx, e->fn, p, &o) == 0) {
		e->applied |= 1u << t;
		fprintf(out, "           verdict: applied\n");
	} else {
		fprintf(out, "           verdict: left alone: %s\n", o.why);
	}
	outcome_release(&o);
}

/* do kernel fn (m->fn[k]) and the functions its passes added
 * (m->fn[from..]) verify? The build keeps nvcc's code for it if not */
static int
verifies(Module *m, uint k, uint from)
{
	uint *nerr = xcalloc(m->nfn + 1, sizeof *nerr), e;
	verifyeach(m, NULL, nerr);
	e = nerr[k];
	for (uint j = from; j < m->nfn; j++)
		e += nerr[j];
	free(nerr);
	return e == 0;
}

static void
explain(struct passctx *cx, const struct hook *h)
{
	Module *m = cx->m;
	uint nfn = m->nfn;   /* the kernels as cicc wrote them: passes add functions */
	for (uint k = 0; k < nfn; k++) {
		Fn *fn = m->fn[k];
		uint from = m->nfn;
		if (!(fn->flags & FENTRY) || (fn->flags & FDECL))
			continue;
		char *mangled = symstr(m, fn->sym), *demangled = demangle(mangled);
		struct explaining e = {cx, fn, mangled, crash_of(h->crash, h->ncrash, mangled), 0};
		progress(h, "kernel", mangled);
		explain_kernel(h->explain, h->prof, h->src, mangled, demangled, more, &e);
		if (e.applied)
			breakkernel(fn);
		if (e.applied && !verifies(m, k, from))   /* each pass that applied */
			fprintf(h->explain, "  verdict: left alone: %s\n", unverified);
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

static int
symeq(const Module *m, uint s, const char *name)
{
	return strlen(name) == m->sym[s].name.n && !memcmp(m->sym[s].name.s, name, m->sym[s].name.n);
}

/* a kernel the passes ran on: its function, the functions they added for
 * it (m->fn[from .. to)), the passes that changed it (bit t) */
struct done {
	uint fn, from, to, applied;
};

/* every kernel but those of skip (mangled names; NULL: none) through its
 * passes; the kernels that some pass changed into *dn. 0, or -1 (an
 * on_unsupported: error) */
static int
runall(const struct hook *h, Module *m, const struct args *skip, struct done **dn, int *ndn,
       struct tab *tb)
{
	struct passctx cx = {.m = m, .src = h->src, .arch = h->arch, .sm = h->sm,
	                     .nsm = h->nsm, .jit = h->jit, .h = h};
	uint nfn = m->nfn;   /* the kernels as cicc wrote them: passes add functions */
	int rc = 0, cap = 0;
	*dn = NULL, *ndn = 0;
	for (uint k = 0; k < nfn && rc == 0; k++) {
		Fn *fn = m->fn[k];
		struct done d = {k, m->nfn, 0, 0};
		int skipped = 0;
		if (!(fn->flags & FENTRY) || (fn->flags & FDECL))
			continue;
		for (int j = 0; skip && j < skip->n && !skipped; j++)
			skipped = symeq(m, fn->sym, skip->v[j]);
		if (skipped)
			continue;
		rc = kernel(&cx, fn, h, &d.applied, skip != NULL, tb);
		d.to = m->nfn;
		if (d.applied) {
			vgrow(*dn, *ndn, cap);
			(*dn)[(*ndn)++] = d;
		}
	}
	passctx_release(&cx);
	return rc;
}

/* The kernels whose functions (their own, or those the passes added for
 * them) do not verify, into bad (mangled names); -1 if a problem is the
 * module's or a function's that no kernel's passes made */
static int
badkernels(Module *m, const struct done *dn, int ndn, struct args *bad)
{
	uint *nerr = xcalloc(m->nfn + 1, sizeof *nerr), sum = 0, mine = 0;
	int total = verifyeach(m, NULL, nerr);
	for (uint k = 0; k < m->nfn; k++)
		sum += nerr[k];
	for (int i = 0; i < ndn; i++) {
		uint e = nerr[dn[i].fn];
		for (uint k = dn[i].from; k < dn[i].to; k++)
			e += nerr[k];
		if (e) {
			char *s = symstr(m, m->fn[dn[i].fn]->sym);
			args_push(bad, s);
			free(s);
			mine += e;
		}
	}
	free(nerr);
	return (uint)total == sum && sum == mine && bad->n ? 0 : -1;
}

/* what the report, the tally and the user learn of a kernel whose
 * transformed code does not verify: nvcc's code is kept for it */
static void
fellback(const struct hook *h, const char *mangled, uint applied)
{
	char *dm = demangle(mangled);
	struct buf b = BUF_INIT;
	for (int t = 0; t < npass; t++)
		if (applied & 1u << t)
			buf_printf(&b, "%s%s", b.n ? "+" : "", passes[t]->schema.name);
	warn("%s: kernel '%s' (%s): the PTX that %s made does not verify (a bug in mpcc): "
	     "nvcc's code is kept for this kernel", h->src, dm, h->arch ? h->arch : "?", b.s);
	for (int i = 0; h->reports && i < h->reports->n; i++) {
		struct report *r = &h->reports->r[i];
		if (r->applied && !strcmp(r->mangled, mangled)) {
			r->applied = 0;
			free((char *)r->reason);
			r->reason = xstrdup(unverified);
		}
	}
	for (int t = 0; h->tally && t < npass; t++)
		if (applied & 1u << t)
			h->tally->applied[t]--, h->tally->refused[t]++;
	buf_release(&b);
	free(dm);
}

/* A pass's output that does not verify is a bug in mpcc, never shipped.
 * Keep nvcc's code for the kernels it is in, and the transforms of the
 * others: run the passes again from nvcc's PTX without those kernels. The
 * module that verifies, or NULL (m freed either way): nvcc's PTX for the
 * whole file. */
static Module *
fallback(const char *path, const struct hook *h, Module *m, const struct done *dn, int ndn,
         struct tab *tb)
{
	struct args bad = ARGS_INIT;
	struct done *dn2;
	int ndn2;
	Module *m2 = NULL;
	tab_release(tb);
	if (badkernels(m, dn, ndn, &bad) == 0 && (m2 = parsefile(path)) &&
	    runall(h, m2, &bad, &dn2, &ndn2, tb) == 0 && !verify(m2, NULL)) {
		for (int i = 0; i < ndn; i++)
			for (int j = 0; j < bad.n; j++)
				if (symeq(m, m->fn[dn[i].fn]->sym, bad.v[j]))
					fellback(h, bad.v[j], dn[i].applied);
		free(dn2);
	} else {
		warn("%s: the PTX that mpcc made for %s does not verify (a bug in mpcc): "
		     "nvcc's PTX is kept for the whole file", h->src, h->arch ? h->arch : "?");
		if (m2)
			mod_free(m2);
		m2 = NULL;
		tab_release(tb);
	}
	args_release(&bad);
	mod_free(m);
	return m2;
}

/* The table's lines, when a pass gave one: for every kernel of m (its
 * first nfn functions, as cicc wrote them), each such pass's line, its own
 * where it changed the kernel and otherwise what its table() says, in the
 * order of the kernels, onto h->table */
static void
filltable(const struct hook *h, Module *m, uint nfn, const struct tab *tb)
{
	uint passes_ = 0;
	struct passctx cx = {.m = m, .src = h->src, .arch = h->arch, .sm = h->sm,
	                     .nsm = h->nsm, .jit = h->jit, .h = h};
	for (int i = 0; i < tb->kernel.n; i++)
		passes_ |= 1u << tb->pass[i];
	for (uint k = 0; k < nfn && passes_; k++) {
		Fn *fn = m->fn[k];
		if (!(fn->flags & FENTRY) || (fn->flags & FDECL))
			continue;
		for (int t = 0; t < npass; t++) {
			int i = 0;
			if (!(passes_ & 1u << t) || !passes[t]->table)
				continue;
			while (i < tb->kernel.n && !(tb->pass[i] == t && symeq(m, fn->sym, tb->kernel.v[i])))
				i++;
			if (i < tb->kernel.n) {
				args_push(h->table, tb->line.v[i]);
				continue;
			}
			char *l = passes[t]->table(&cx, fn);
			args_push(h->table, l);
			free(l);
		}
	}
	passctx_release(&cx);
}

int
pipeline(const char *path, const struct hook *h)
{
	Module *m;
	char *out;
	size_t n;
	int rc = 0, ndn = 0;
	struct done *dn = NULL;
	struct tab tb = {ARGS_INIT, ARGS_INIT, NULL, 0};
	uint nfn;

	if (!(m = parsefile(path))) {
		note("leaving '%s' as nvcc wrote it", path);
		return -1;
	}
	for (uint k = 0; h->kernels && k < m->nfn; k++)
		if ((m->fn[k]->flags & FENTRY) && !(m->fn[k]->flags & FDECL))
			args_push(h->kernels, symstr(m, m->fn[k]->sym));
	if (h->explain) {   /* the rules come pass by pass: every kernel's hash kept */
		struct passctx cx = {.m = m, .src = h->src, .arch = h->arch, .sm = h->sm,
		                     .nsm = h->nsm, .jit = h->jit, .h = h, .keephash = 1};
		explain(&cx, h);
		passctx_release(&cx);
		mod_free(m);
		return 0;
	}
	nfn = m->nfn;
	if (h->prof && !h->dryrun)
		rc = runall(h, m, NULL, &dn, &ndn, &tb);
	if (rc < 0) {   /* on_unsupported: error, said in outcome() */
		free(dn);
		tab_release(&tb);
		mod_free(m);
		return 1;
	}
	progress(h, "verify", "-");
	if (ndn && verify(m, NULL))
		m = fallback(path, h, m, dn, ndn, &tb);
	free(dn);
	if (m && h->table)
		filltable(h, m, nfn, &tb);
	tab_release(&tb);
	if (!m)
		return -1;
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
