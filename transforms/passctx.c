/* passctx.c: what every pass may ask of one run of the passes over a
 * module (struct passctx): the target, other modules parsed once, the
 * driver's fast-math twin of the PTX. The passes call it; it calls none
 * of them. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/spawn.h"
#include "transforms/pass.h"

int
ptxsm(const struct passctx *cx)
{
	int sm = modtarget(cx->m, NULL);
	return sm > 0 ? sm : archnum(cx->arch);
}


/* m as text with fn its only kernel: the other entries' definitions left
 * out, so that ptxas compiles one kernel */
static void
onekernel(FILE *f, const Module *m, const Fn *fn)
{
	for (uint k = 0; k < m->ntop; k++) {
		const Ins *i = &m->top[k];
		if (i->op == Ofn) {
			const Fn *g = m->fn[i->arg[0].idx];
			if (g != fn && (g->flags & FENTRY) && !(g->flags & FDECL))
				continue;
		}
		fprintf(f, "%s\n", itemtext(m, k, NULL));
	}
}

/* the number before what in line l ("8" of "8 bytes spill loads"), else
 * old */
static int
bytesbefore(const char *l, const char *what, int old)
{
	const char *e = strstr(l, what), *s = e;
	while (s && s > l && s[-1] >= '0' && s[-1] <= '9')
		s--;
	return s && s < e ? atoi(s) : old;
}

/* ptxas runs through common/spawn.h, as every process mpcc starts: in
 * the hook's child (driver/contain.c) it gets the limits the driver had,
 * not the child's */
int
ptxasregs(const Module *m, const Fn *fn, int sm, int spill[2])
{
	const char *dir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char *path = fmt("%s/mpcc-regs-XXXXXX.ptx", dir), *log = fmt("%s/mpcc-regs-XXXXXX.log", dir);
	int fd = strchr(path, '\'') ? -1 : mkstemps(path, 4), lfd = fd >= 0 ? mkstemps(log, 4) : -1;
	int regs = -1;
	if (spill)
		spill[0] = spill[1] = 0;
	FILE *f = lfd >= 0 ? fdopen(fd, "w") : NULL;
	if (f) {
		onekernel(f, m, fn);
		fclose(f);
		char *cmd = fmt("ptxas -arch=sm_%d -v '%s' -o /dev/null", sm, path), *save, *l;
		char *text = spawn_run(&(struct spawn){.line = cmd, .out = log, .err = log}) == 0 ?
		             readfile(log, NULL) : NULL;
		for (l = text ? strtok_r(text, "\n", &save) : NULL; l; l = strtok_r(NULL, "\n", &save)) {
			if (strstr(l, "Used ") && strstr(l, " registers"))
				regs = atoi(strstr(l, "Used ") + 5);
			if (spill) {   /* "0 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads" */
				spill[0] = bytesbefore(l, " bytes spill stores", spill[0]);
				spill[1] = bytesbefore(l, " bytes spill loads", spill[1]);
			}
		}
		free(text);
		free(cmd);
	} else if (fd >= 0)
		close(fd);
	if (lfd >= 0)
		close(lfd), unlink(log);
	if (fd >= 0)
		unlink(path);
	free(path);
	free(log);
	return regs;
}

const char *
demangled(const Fn *fn)
{
	char *mangled = symstr(fn->mod, fn->sym), *d = demangle(mangled);
	const char *s = arena_strdup(fn->mod->arena, d);
	free(mangled);
	free(d);
	return s;
}

/* the first of verify()'s messages, and how many more there are */
static char *
problems(Module *m)
{
	char *s = NULL, *nl;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);
	int nerr = f ? verify(m, f) : verify(m, NULL);
	char *why;

	if (f)
		fclose(f);
	if (!nerr) {
		free(s);
		return NULL;
	}
	if (s && (nl = strchr(s, '\n')))
		*nl = 0;
	if (nerr > 1)
		why = fmt("%s (and %d more)", s && *s ? s : "?", nerr - 1);
	else
		why = xstrdup(s && *s ? s : "?");
	free(s);
	return why;
}

char *
passctx_refuse(struct passctx *cx)
{
	if (!cx->checked) {
		char *p = problems(cx->m);
		cx->checked = 1;
		cx->invalid = p ? fmt("the PTX does not verify: %s", p) : NULL;
		free(p);
	}
	return cx->invalid ? xstrdup(cx->invalid) : NULL;
}

Module *
passctx_load(struct passctx *cx, const char *path)
{
	for (int i = 0; i < cx->nloaded; i++)
		if (!strcmp(cx->loadedpath[i], path))
			return cx->loaded[i];
	Module *m = parsefile(path);
	char *why = m ? problems(m) : NULL;
	if (why) {
		error("%s", why);
		free(why);
		mod_free(m);
		m = NULL;
	}
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
	char *why;
	mask &= AX_ALL;
	if (!cx->fast[mask] && cx->h && cx->h->fastptx && (path = cx->h->fastptx(cx->h->drv, mask))
	    && (cx->fast[mask] = parsefile(path)) && (why = problems(cx->fast[mask]))) {
		note("%s: the fast-math PTX does not verify: %s", cx->src, why);
		free(why);
		mod_free(cx->fast[mask]);
		cx->fast[mask] = NULL;
	}
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
	free(cx->invalid);
}
