/* main.c: mpcc, an nvcc drop-in.
 * When no policy applies to any CUDA input (and no --mpcc-force-pipeline),
 * mpcc execs the real nvcc with the line minus its own options; otherwise it
 * replays nvcc's pipeline with the PTX hook (run.c). */
#include "driver/mpcc.h"
#include "transforms/pass.h"

#include <stdlib.h>

static int
printhash(const struct cmd *c)
{
	int n = c->cu.n ? c->cu.n : 1;
	for (int i = 0; i < n; i++) {
		const char *what = c->hashdir ? c->hashdir : c->cu.n ? c->cu.v[i] : NULL;
		char *h = policy_hash(what, c->policy, c->profile);
		printf("%s\n", h);
		free(h);
	}
	return 0;
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
	if (parse_args(&c, argc, argv) < 0)
		return 1;
	if (c.version) {
		printf("mpcc %s\n", MPCC_VERSION);
		return 0;
	}
	if (c.help)
		return mpcc_help(stdout), 0;
	if (c.check)
		return checkpolicy(c.check);
	analyze(&c);
	if (c.hash)
		return printhash(&c);
	char *nvcc = find_nvcc();
	if (c.info)
		passthrough(nvcc, &c.nv, 0);
	struct profile **prof = xcalloc(c.cu.n, sizeof *prof);
	int need = c.force || c.explain;
	for (int i = 0; i < c.cu.n; i++) {
		if (policy_profile(c.cu.v[i], c.policy, c.profile, &prof[i]) < 0)
			return 1;
		need |= prof[i] && profile_may_apply(prof[i], c.cu.v[i]);
	}
	if (!need)
		passthrough(nvcc, &c.nv, c.dryrun);
	c.dryrun |= c.nvdryrun;  /* nvcc's -dryrun shows the pipeline mpcc runs */
	if (c.unsup) {
		note("running nvcc unchanged: %s", c.unsup);
		passthrough(nvcc, &c.nv, c.dryrun);
	}
	int st = run_pipeline(&c, nvcc, prof);
	free(prof);
	free(nvcc);
	cmd_release(&c);
	return st;
}
