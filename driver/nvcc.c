/* nvcc.c: finding the real nvcc, and running it unchanged.
 *
 * The launcher form names it: when the line starts with a compiler (CMake's
 * CMAKE_CUDA_COMPILER_LAUNCHER=mpcc runs "mpcc /path/to/nvcc ARGS", make's
 * NVCC="mpcc nvcc" runs "mpcc nvcc ARGS"), that program is the real nvcc and
 * the rest is the line. ccache decides the same way, but ccache takes no
 * inputs; mpcc does, so a first argument is a compiler only where nvcc
 * could not take it as an input: not an option, no input suffix (nvcc
 * refuses any other name with "Don't know what to do with"), and either a
 * path to an executable file or a bare name containing "nvcc" found on
 * PATH. A cache program in that place (ccache, sccache) runs in front of
 * the compiler named after it (cache.c). Otherwise the real nvcc is
 * MPCC_NVCC, else the first nvcc on PATH, else $CUDA_HOME/bin/nvcc, else
 * /usr/local/cuda/bin/nvcc.
 *
 * mpcc may be installed as "nvcc" first on PATH (a directory holding
 * nvcc -> mpcc, ccache's masquerade), or named again as the launcher's
 * compiler: a candidate that is mpcc itself, by device and inode after
 * following links, is skipped, so mpcc never runs itself directly; a
 * wrapper script that runs mpcc is caught by MPCC_DEPTH (loopguard). */
#include "common/spawn.h"
#include "driver/mpcc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { MAXDEPTH = 8 };  /* mpcc inside mpcc: the ccache route takes 2 */

static struct stat self;

static void
selfinit(void)
{
	static int done;
	if (!done && stat("/proc/self/exe", &self) != 0)
		die("cannot stat '/proc/self/exe': %s", strerror(errno));
	done = 1;
}

static int
isself(const char *path)
{
	struct stat st;
	selfinit();
	return stat(path, &st) == 0 && st.st_dev == self.st_dev && st.st_ino == self.st_ino;
}

static int
isexe(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

static int
usable(const char *path)
{
	return isexe(path) && !isself(path);
}

/* the first NAME on PATH that ok() accepts, or NULL */
static char *
lookpath(const char *name, int (*ok)(const char *))
{
	const char *path = getenv("PATH");
	if (!path)
		return NULL;
	for (const char *p = path;; p++) {
		const char *end = until(p, ':');
		char *cand = end > p ? fmt("%.*s/%s", (int)(end - p), p, name) : fmt("./%s", name);
		if (ok(cand))
			return cand;
		free(cand);
		if (!*end)
			return NULL;
		p = end;
	}
}

/* the path ARG runs as a command: itself when it has a '/', else the
 * first executable of that name on PATH (mpcc included) */
static char *
command(const char *arg)
{
	return strchr(arg, '/') ? (isexe(arg) ? xstrdup(arg) : NULL) : lookpath(arg, isexe);
}

static const char *
base(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* nvcc takes a file as an input by its last suffix only (tested with nvcc 13) */
static int
inputsuffix(const char *arg)
{
	static const char *const sfx[] = {
		"a", "c", "cc", "cpp", "cu", "cubin", "cup", "cxx", "fatbin", "i", "ii",
		"lib", "ltoir", "o", "obj", "ptx", "res", "s", "S", "so",
	};
	const char *dot = strrchr(base(arg), '.');
	for (size_t i = 0; dot && i < sizeof sfx / sizeof *sfx; i++)
		if (!strcmp(dot + 1, sfx[i]))
			return 1;
	return 0;
}

/* mpcc named again (mpcc mpcc ..., a launcher and a compiler both mpcc);
 * a bare name holding "nvcc" is looked up past mpcc itself (compiler()) */
static int
selfarg(const char *arg)
{
	if (arg[0] == '-' || inputsuffix(arg) || (!strchr(arg, '/') && strstr(arg, "nvcc")))
		return 0;
	char *p = command(arg);
	int r = p && isself(p);
	free(p);
	return r;
}

/* ccache or sccache, by name as ccache recognises itself: 'c' or 's', or 0 */
static int
cachearg(const char *arg)
{
	const char *b = base(arg);
	int kind = startswith(b, "ccache") ? 'c' : startswith(b, "sccache") ? 's' : 0;
	if (arg[0] == '-' || inputsuffix(arg) || !kind)
		return 0;
	char *p = command(arg);
	int r = p ? kind : 0;
	free(p);
	return r;
}

/* the compiler that ARG, the line's first argument, names, or NULL when it
 * is nvcc's first option or input */
static char *
compiler(const char *arg)
{
	if (arg[0] == '-' || inputsuffix(arg))
		return NULL;
	if (strchr(arg, '/'))
		return isexe(arg) ? xstrdup(arg) : NULL;
	if (!strstr(arg, "nvcc"))
		return NULL;
	char *p = lookpath(arg, usable);
	if (!p && !strcmp(arg, "nvcc"))
		die("cannot find 'nvcc' on PATH (mpcc itself is skipped there)");
	return p;
}

/* what may stand before the compiler: mpcc itself (mpcc mpcc ..., a
 * launcher and a compiler both mpcc), and the empty argument that CMake
 * makes of a generator expression such as $<$<CONFIG:Release>:...> */
static int
skip(struct cmd *c, int i)
{
	while (i < c->nv.n && (!c->nv.v[i][0] || selfarg(c->nv.v[i])))
		i++;
	return i;
}

/* ccache or sccache at c->nv.v[i], with ccache's KEY=VALUE settings after
 * it, into c->cache; the index after them */
static int
cacheprefix(struct cmd *c, int i)
{
	if (i >= c->nv.n || !(c->cachekind = cachearg(c->nv.v[i])))
		return i;
	char *p = command(c->nv.v[i++]);
	args_push(&c->cache, p);   /* its name still tells ccache it is ccache */
	free(p);
	while (i < c->nv.n && c->cachekind == 'c' && c->nv.v[i][0] != '-' && strchr(c->nv.v[i], '='))
		args_push(&c->cache, c->nv.v[i++]);
	return i;
}

/* take the first n arguments off the line; without a compiler, nvcc still
 * sees the empty ones, as it would have */
static void
drop(struct cmd *c, int n)
{
	for (int j = 0; n > 0; n--)
		if (c->nvcc || c->nv.v[j][0])
			args_remove(&c->nv, j);
		else
			j++;
}

/* the launcher form: take mpcc itself, a cache program and the compiler
 * off the front of c->nv; 0, or -1 after an error message */
int
launcher(struct cmd *c)
{
	int i = skip(c, cacheprefix(c, skip(c, 0)));
	if (i < c->nv.n && (c->nvcc = compiler(c->nv.v[i])) && isself(c->nvcc))
		BUG("compiler '%s' is mpcc", c->nvcc);
	if (c->cache.n && !c->nvcc) {
		error("'%s' must be followed by the nvcc it runs: mpcc %s /path/to/nvcc ...",
		      c->cache.v[0], c->cache.v[0]);
		return -1;
	}
	drop(c, i + (c->nvcc != NULL));
	return 0;
}

/* mpcc running itself through something the inode check cannot see (a
 * wrapper script named nvcc that runs mpcc): count the nesting in
 * MPCC_DEPTH for what mpcc runs */
void
loopguard(void)
{
	const char *e = getenv("MPCC_DEPTH");
	int depth = e ? atoi(e) : 0;
	if (depth >= MAXDEPTH)
		die("mpcc is running itself in a loop (MPCC_DEPTH=%d): the nvcc it runs, "
		    "through MPCC_NVCC, PATH or a wrapper, runs mpcc again", depth);
	char buf[16];
	snprintf(buf, sizeof buf, "%d", depth + 1);
	setenv("MPCC_DEPTH", buf, 1);
}

/* where the real nvcc is, without the launcher form; NULL if nowhere */
static char *
which_nvcc(void)
{
	const char *e = getenv("MPCC_NVCC");
	if (e && *e) {
		if (isself(e))
			die("MPCC_NVCC='%s' is mpcc itself, not the real nvcc", e);
		if (access(e, X_OK) != 0)
			die("MPCC_NVCC='%s' is not an executable: %s", e, strerror(errno));
		return xstrdup(e);
	}
	char *p = lookpath("nvcc", usable);
	if (p)
		return p;
	const char *home = getenv("CUDA_HOME");
	if (home && *home) {
		p = fmt("%s/bin/nvcc", home);
		if (usable(p))
			return p;
		free(p);
	}
	if (usable("/usr/local/cuda/bin/nvcc"))
		return xstrdup("/usr/local/cuda/bin/nvcc");
	return NULL;
}

/* the compiler the launcher form named, else MPCC_NVCC, else the first nvcc
 * on PATH that is not mpcc, else $CUDA_HOME/bin/nvcc, else
 * /usr/local/cuda/bin/nvcc */
char *
find_nvcc(const struct cmd *c)
{
	if (c->nvcc)
		return xstrdup(c->nvcc);
	char *p = which_nvcc();
	if (!p)
		die("cannot find the real nvcc: set MPCC_NVCC, put nvcc on PATH or set CUDA_HOME");
	return p;
}

/* what ccache's default compiler_check (mtime) hashes of the real nvcc,
 * for --mpcc-policy-hash, which replaces it; NULL without one */
char *
nvcc_identity(const struct cmd *c)
{
	char *p = c->nvcc ? xstrdup(c->nvcc) : which_nvcc();
	struct stat st;
	char *id = NULL;
	if (p && stat(p, &st) == 0)
		id = fmt("%s:%lld:%lld.%09ld", p, (long long)st.st_size, (long long)st.st_mtim.tv_sec,
		         st.st_mtim.tv_nsec);
	free(p);
	return id;
}

/* exec nvcc with the line minus mpcc's options (and with -dryrun for
 * --mpcc-dryrun): its output, diagnostics and exit status are nvcc's */
void
passthrough(const char *nvcc, const struct args *nv, int dryrun)
{
	struct args a = ARGS_INIT;
	args_push(&a, nvcc);
	if (dryrun)
		args_push(&a, "-dryrun");
	args_pushv(&a, nv->v, nv->n);
	spawn_exec(a.v);
}
