/* cache.c: ccache or sccache between mpcc and nvcc, "mpcc ccache NVCC ARGS"
 * (CMAKE_CUDA_COMPILER_LAUNCHER="mpcc;ccache").
 * A compile that no policy touches makes nvcc's own output: it runs as
 * "ccache NVCC ARGS", and the cache holds nvcc's objects under nvcc's key.
 * A compile that a policy may transform must be keyed on the policy too:
 * mpcc runs ccache with itself as ccache's prefix_command, so that on a
 * miss ccache runs "mpcc NVCC ARGS" (the launcher form, without a cache),
 * and with its policy hash of the .cu file as compiler_check. That check
 * replaces ccache's own (the mtime of NVCC), so the hash holds NVCC's
 * identity too (main.c). mpcc's options travel as their MPCC_* variables,
 * which the check and the compile both see (--mpcc-warn's too: ccache
 * replays a hit's warnings, and a build under --mpcc-werror must not hit
 * one made without it). sccache has no prefix command:
 * there a compile that a policy may transform runs without the cache. */
#include "common/spawn.h"
#include "driver/mpcc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* exec the cache program in front of nvcc, the line unchanged */
void
runcached(const struct cmd *c, const char *nvcc)
{
	struct args a = ARGS_INIT;
	args_pushv(&a, c->cache.v, c->cache.n);
	args_push(&a, nvcc);
	args_pushv(&a, c->nv.v, c->nv.n);
	spawn_exec(a.v);
}

/* ccache splits prefix_command and compiler_check at blanks */
static int
blank(const char *s)
{
	return s && strpbrk(s, " \t\n");
}

/* a setting of the cache's own line (ccache KEY=VALUE NVCC) that would
 * override what mpcc sets through the environment */
static int
overridden(const struct cmd *c)
{
	for (int i = 1; i < c->cache.n; i++)
		if (startswith(c->cache.v[i], "prefix_command=") ||
		    startswith(c->cache.v[i], "compiler_check="))
			return 1;
	const char *e = getenv("CCACHE_PREFIX");
	return e && *e;
}

static void
export(const char *name, const char *value)
{
	if (value && setenv(name, value, 1) != 0)
		die("cannot set %s: %s", name, strerror(errno));
}

/* NAME,... lists as one (the variable's own value is among them) */
static void
exportlist(const char *name, const struct args *l)
{
	struct buf b = BUF_INIT;
	for (int i = 0; i < l->n; i++)
		buf_printf(&b, "%s%s", i ? "," : "", l->v[i]);
	if (l->n)
		export(name, b.s);
	buf_release(&b);
}

/* the policy-keyed ccache run for a compile that a policy may transform;
 * returns when ccache cannot take it (sccache, several inputs, a setting of
 * the user's in the way, blanks in a path): the pipeline then runs uncached */
void
viacache(const struct cmd *c, const char *nvcc)
{
	if (c->cachekind != 'c' || c->cu.n != 1 || overridden(c))
		return;
	char *self = realpath("/proc/self/exe", NULL);
	char *cu = realpath(c->cu.v[0], NULL);
	char *policy = c->policy ? realpath(c->policy, NULL) : NULL;
	if (self && cu && (!c->policy || policy) && !blank(self) && !blank(cu) && !blank(nvcc)) {
		char *check = fmt("%s --mpcc-policy-hash=%s %%compiler%%", self, cu);
		export("CCACHE_PREFIX", self);
		export("CCACHE_COMPILERCHECK", check);
		export("MPCC_POLICY", policy);
		export("MPCC_PROFILE", c->profile);
		export("MPCC_REPORT", c->report);
		exportlist("MPCC_WARN", &c->warns);
		exportlist("MPCC_WERROR", &c->werrors);
		if (c->force)
			export("MPCC_FORCE_PIPELINE", "1");
		if (c->noptxas)
			export("MPCC_REPORT_NO_PTXAS", "1");
		runcached(c, nvcc);
	}
	free(self);
	free(cu);
	free(policy);
}
