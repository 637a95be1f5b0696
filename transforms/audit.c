/* audit.c: --mpcc-warn. A pass may give a warning from its analysis
 * (struct warning); audit_ptx() runs those asked for on every kernel of a PTX
 * file as cicc wrote it, reading it only, and names each finding's line by
 * the .loc before it and the module's .file table. The driver keeps what
 * every -gencode chain of a compile found, and audit_say() says each
 * finding once, as a compiler says a warning:
 *
 *   st.cu:6: warning: f64 arithmetic in float kernel ... [--mpcc-warn=fp64]
 *
 * naming the chains only where some did not find it or where what the pass
 * does to it differs, and as an error for a warning that --mpcc-werror
 * names. */
#include "transforms/pass.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

static char *
dup(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

static int
eq(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* the real path of path when it is dir or below it, past dir's: "inc/h.cuh" */
static const char *
under(const char *path, const char *dir, char *p)
{
	char d[PATH_MAX];
	size_t n;
	if (!realpath(path, p) || !realpath(dir, d))
		return NULL;
	n = strcmp(d, "/") ? strlen(d) : 0;
	return !strncmp(p, d, n) && p[n] == '/' ? p + n + 1 : NULL;
}

/* path (of a .loc) is in src's directory or the current one, or below
 * them: the project's, not a system header's */
static int
ours(const char *path, const char *src)
{
	char p[PATH_MAX];
	char *dir = src ? xstrdup(src) : xstrdup("."), *slash = strrchr(dir, '/');
	if (slash)
		*slash = 0;
	int yes = under(path, ".", p) || under(path, slash ? dir : ".", p);
	free(dir);
	return yes;
}

/* "st.cu:6": the line of f, or where its code was inlined when the line is
 * not the project's (libstdc++'s pow(float, double) promotes at
 * <cmath>:418, called at st.cu:26). The file as src names it when it is
 * src, else from the current directory when it is below it, else as cicc
 * wrote it. NULL without a line */
static char *
where(const Module *m, const char *src, const struct finding *f)
{
	char a[PATH_MAX], b[PATH_MAX];
	uint file = f->file, line = f->line;
	const char *path = locfile(m, file), *rel;
	if (!line)
		return NULL;
	if (f->cline && (!path || !ours(path, src))) {
		file = f->cfile, line = f->cline;
		path = locfile(m, file);
	}
	if (!path || (src && realpath(path, a) && realpath(src, b) && !strcmp(a, b)))
		path = src ? src : "?";
	else if ((rel = under(path, ".", a)))
		path = rel;
	return fmt("%s:%u", path, line);
}

static void
add(struct findings *fs, struct found f)
{
	vgrow(fs->f, fs->n, fs->cap);
	fs->f[fs->n++] = f;
}

static void
kernel(struct passctx *cx, Fn *fn, uint mask, struct findings *out)
{
	for (int t = 0; t < npass; t++) {
		struct finding *f = NULL;
		if (!(mask & 1u << t) || !passes[t]->warn)
			continue;
		int n = passes[t]->warn->audit(cx, fn, &f);
		for (int i = 0; i < n; i++)
			add(out, (struct found){dup(cx->src), dup(cx->arch), symstr(cx->m, fn->sym),
			                        where(cx->m, cx->src, &f[i]), xstrdup(f[i].text),
			                        xstrdup(f[i].fix), t});
	}
}

int
audit_ptx(const char *path, const struct hook *h, uint mask, struct findings *out)
{
	Module *m = parsefile(path);
	if (!m)
		return -1;
	struct passctx cx = {.m = m, .src = h->src, .arch = h->arch, .sm = h->sm,
	                     .nsm = h->nsm, .jit = h->jit, .h = h};
	add(out, (struct found){dup(h->src), dup(h->arch), NULL, NULL, NULL, NULL, -1});
	for (uint k = 0; k < m->nfn; k++)
		if ((m->fn[k]->flags & FENTRY) && !(m->fn[k]->flags & FDECL))
			kernel(&cx, m->fn[k], mask, out);
	passctx_release(&cx);
	mod_free(m);
	return 0;
}

/* the same finding (of another chain), what the pass does to it aside */
static int
same(const struct found *a, const struct found *b)
{
	return a->kernel && b->kernel && eq(a->src, b->src) && !strcmp(a->kernel, b->kernel) &&
	       a->pass == b->pass && eq(a->where, b->where) && !strcmp(a->text, b->text);
}

static int
samefix(const struct found *a, const struct found *b)
{
	return same(a, b) && !strcmp(a->fix, b->fix);
}

/* what the pass does to finding i, the first of its kind, on the chains:
 * "FIX" where it is the same on all of them, else "FIX (on compute_80);
 * FIX2 (on compute_90)"; malloc'd */
static char *
fixes(const struct findings *fs, int i, int chains)
{
	struct buf b = BUF_INIT;
	for (int j = i; j < fs->n; j++) {
		const struct found *f = &fs->f[j];
		int first = same(f, &fs->f[i]), n = 0;
		for (int x = i; x < j && first; x++)
			first = !samefix(&fs->f[x], f);
		if (!first)
			continue;
		struct buf on = BUF_INIT;
		for (int x = j; x < fs->n; x++)
			if (samefix(&fs->f[x], f))
				buf_printf(&on, "%s%s", n++ ? ", " : "", fs->f[x].arch ? fs->f[x].arch : "?");
		buf_printf(&b, "%s%s", b.n ? "; " : "", f->fix);
		if (n < chains)
			buf_printf(&b, " (on %s)", on.s);
		buf_release(&on);
	}
	return buf_take(&b);
}

static void
say(const struct found *f, int err, const char *fix)
{
	fprintf(stderr, "%s: %s: %s; %s%s [--mpcc-%s=%s]\n", f->where ? f->where : f->src,
	        err ? "error" : "warning", f->text, fix,
	        f->where ? "" : "; compile with -lineinfo for source lines", err ? "werror" : "warn",
	        passes[f->pass]->warn->name);
}

static void
drop(struct findings *fs, const char *src)
{
	int n = 0;
	for (int i = 0; i < fs->n; i++) {
		struct found *f = &fs->f[i];
		if (!eq(f->src, src)) {
			fs->f[n++] = *f;
			continue;
		}
		free(f->src);
		free(f->arch);
		free(f->kernel);
		free(f->where);
		free(f->text);
		free(f->fix);
	}
	fs->n = n;
}

int
audit_say(struct findings *fs, const char *src0, uint werror)
{
	int chains = 0, nerr = 0;
	char *src = dup(src0);   /* src0 may be one of fs's, which drop() frees */
	for (int i = 0; i < fs->n; i++)
		chains += !fs->f[i].kernel && eq(fs->f[i].src, src);
	for (int i = 0; i < fs->n; i++) {
		const struct found *f = &fs->f[i];
		int first = f->kernel && eq(f->src, src);
		for (int j = 0; j < i && first; j++)
			first = !same(&fs->f[j], f);
		if (!first)
			continue;
		int err = (werror & 1u << f->pass) != 0;
		char *fix = fixes(fs, i, chains);
		say(f, err, fix);
		nerr += err;
		free(fix);
	}
	drop(fs, src);
	free(src);
	return nerr;
}
