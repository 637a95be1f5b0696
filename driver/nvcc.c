/* nvcc.c: finding the real nvcc, and running it unchanged.
 * mpcc may be installed as "nvcc" first on PATH (a directory holding
 * nvcc -> mpcc, ccache's masquerade): a candidate that is mpcc itself, by
 * device and inode after following links, is skipped, so mpcc never runs
 * itself. */
#include "driver/mpcc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static struct stat self;

static int
isself(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && st.st_dev == self.st_dev && st.st_ino == self.st_ino;
}

static int
usable(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0 &&
	       !isself(path);
}

static char *
onpath(void)
{
	const char *path = getenv("PATH");
	if (!path)
		return NULL;
	for (const char *p = path;; p++) {
		const char *end = until(p, ':');
		char *cand = end > p ? fmt("%.*s/nvcc", (int)(end - p), p) : xstrdup("./nvcc");
		if (usable(cand))
			return cand;
		free(cand);
		if (!*end)
			return NULL;
		p = end;
	}
}

/* MPCC_NVCC, else the first nvcc on PATH that is not mpcc, else
 * $CUDA_HOME/bin/nvcc, else /usr/local/cuda/bin/nvcc */
char *
find_nvcc(void)
{
	if (stat("/proc/self/exe", &self) != 0)
		die("cannot stat '/proc/self/exe': %s", strerror(errno));
	const char *e = getenv("MPCC_NVCC");
	if (e && *e) {
		if (isself(e))
			die("MPCC_NVCC='%s' is mpcc itself, not the real nvcc", e);
		if (access(e, X_OK) != 0)
			die("MPCC_NVCC='%s' is not an executable: %s", e, strerror(errno));
		return xstrdup(e);
	}
	char *p = onpath();
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
	die("cannot find the real nvcc: set MPCC_NVCC, put nvcc on PATH or set CUDA_HOME");
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
	fflush(NULL);
	execv(nvcc, a.v);
	die("cannot run '%s': %s", nvcc, strerror(errno));
}
