/* main.c: mpcc, an nvcc drop-in.
 * When no policy applies to any CUDA input (and no --mpcc-force-pipeline),
 * mpcc execs the real nvcc with the line minus its own options; otherwise it
 * replays nvcc's pipeline with the PTX hook (run.c). In the launcher form
 * (nvcc.c) the line names the real nvcc first, and maybe a cache in front
 * of it (cache.c). A line that links objects with store clones gets the
 * store runtime onto it first, which either way nvcc then links (link.c). */
#include "driver/mpcc.h"
#include "transforms/pass.h"

#include <stdlib.h>

/* one line per .cu input (or for DIR): the policy hash, and the real nvcc's
 * identity, since ccache's compiler_check replaces its check of nvcc */
static int
printhash(const struct cmd *c)
{
	int n = c->cu.n ? c->cu.n : 1;
	char *id = nvcc_identity(c);
	for (int i = 0; i < n; i++) {
		const char *what = c->hashdir ? c->hashdir : c->cu.n ? c->cu.v[i] : NULL;
		char *h = policy_hash(what, c->policy, c->profile);
		printf("%s%s%s\n", h, id ? " " : "", id ? id : "");
		free(h);
	}
	free(id);
	return 0;
}

/* the line as nvcc takes it, through the cache when there is one */
static _Noreturn void
unchanged(const struct cmd *c, const char *nvcc, int dryrun)
{
	if (c->cache.n && !dryrun)
		runcached(c, nvcc);
	passthrough(nvcc, &c->nv, dryrun);
}

/* --mpcc-check-policy=FILE: the file and the parents it inherits, as a
 * compile would load them */
static int
checkpolicy(const char *path)
{
	if (policy_check(path) < 0)
		return 1;
	printf("%s: ok\n", path);
	return 0;
}

int
main(int argc, char **argv)
{
	struct cmd c;
	progname = "mpcc";
	passes_init();
	if (parse_args(&c, argc, argv) < 0 || launcher(&c) < 0)
		return 1;
	if (c.version) {
		printf("mpcc %s\n", MPCC_VERSION);
		return 0;
	}
	if (c.help)
		return mpcc_help(stdout), 0;
	if (c.check)
		return checkpolicy(c.check);
	loopguard();
	analyze(&c);
	if (c.hash)
		return printhash(&c);
	char *nvcc = find_nvcc(&c);
	if (c.info)
		passthrough(nvcc, &c.nv, 0);
	struct profile **prof = xcalloc(c.cu.n, sizeof *prof);
	/* an audit reads the PTX that cicc writes: the pipeline's steps. The
	 * step cache (mpcc-tune) keeps them whatever the setting, and fixes
	 * nvcc's temporary names in links too: a program built twice is the
	 * same bytes */
	int need = c.force || c.explain || (c.warn && c.cu.n) || stepcache_dir();
	for (int i = 0; i < c.cu.n; i++) {
		if (policy_profile(c.cu.v[i], c.policy, c.profile, &prof[i]) < 0)
			return 1;
		need |= prof[i] && profile_may_apply(prof[i], c.cu.v[i]);
		/* the policy files go in the dependency output, which mpcc writes */
		need |= c.deps && prof[i] && prof[i]->nchain;
	}
	link_store(&c, prof);
	if (!need) {
		if (c.summary)   /* said before nvcc runs: exec does not come back */
			summary_kept(&c);
		unchanged(&c, nvcc, c.dryrun);
	}
	c.dryrun |= c.nvdryrun;  /* nvcc's -dryrun shows the pipeline mpcc runs */
	if (c.unsup) {
		note("running nvcc unchanged: %s", c.unsup);
		unchanged(&c, nvcc, c.dryrun);
	}
	if (c.cache.n && !c.dryrun && !c.explain)
		viacache(&c, nvcc);
	int st = run_pipeline(&c, nvcc, prof);
	free(prof);
	free(nvcc);
	cmd_release(&c);
	return st;
}
