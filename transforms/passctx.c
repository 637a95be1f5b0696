/* passctx.c: what every pass may ask of one run of the passes over a
 * module (struct passctx): the target, other modules parsed once, the
 * driver's fast-math twin of the PTX. The passes call it; it calls none
 * of them. */
#include <stdlib.h>
#include <string.h>

#include "transforms/pass.h"

int
ptxsm(const struct passctx *cx)
{
	int sm = modtarget(cx->m, NULL);
	return sm > 0 ? sm : archnum(cx->arch);
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

