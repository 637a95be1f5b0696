/* unit tests for driver/options.c and driver/cmd.c */
#include "driver/mpcc.h"
#include "tests/unit/test.h"

#include <stdlib.h>

TEST(option_table_is_sorted)
{
	for (int i = 1; i < nnvopts; i++)
		if (strcmp(nvopts[i - 1].name, nvopts[i].name) >= 0) {
			CHECK(!"nvcc option table out of order");
			fprintf(stderr, "  at '%s' '%s'\n", nvopts[i - 1].name, nvopts[i].name);
		}
}

TEST(mpcc_option_table_is_sorted)
{
	for (int i = 1; i < nmpopts; i++)
		CHECK(strcmp(mpopts[i - 1].name, mpopts[i].name) < 0);
}

TEST(every_nvcc_option_is_found)
{
	const char *val;
	for (int i = 0; i < nnvopts; i++)
		CHECK(nvopt(nvopts[i].name, &val) == &nvopts[i]);
}

TEST(nvopt_reads_equals_values)
{
	const char *val;
	const struct opt *o = nvopt("-arch=sm_90", &val);
	CHECK(o && !strcmp(o->name, "-arch"));
	CHECK_STR(val, "sm_90");
	o = nvopt("--threads=4", &val);
	CHECK(o && (o->flags & THREADS));
	CHECK_STR(val, "4");
	CHECK(nvopt("-DX=1", &val) == NULL);
	CHECK(nvopt("-O3", &val) == NULL);
	CHECK(nvopt("-c=1", &val) == NULL);  /* -c takes no value */
}

static void
parse(struct cmd *c, const char *const *v)
{
	int n = 0;
	while (v[n])
		n++;
	CHECK(parse_args(c, n, (char **)v) == 0);
	analyze(c);
}

TEST(mpcc_options_are_removed_from_nvcc_line)
{
	struct cmd c;
	const char *v[] = {"mpcc", "--mpcc-force-pipeline", "-c", "--mpcc-profile=fast", "a.cu",
	                   "--mpcc-report=r.json", NULL};
	unsetenv("MPCC_FORCE_PIPELINE");
	parse(&c, v);
	CHECK(c.nv.n == 2);
	CHECK_STR(c.nv.v[0], "-c");
	CHECK_STR(c.nv.v[1], "a.cu");
	CHECK(c.force);
	CHECK_STR(c.profile, "fast");
	CHECK_STR(c.report, "r.json");
	cmd_release(&c);
}

TEST(unknown_or_malformed_mpcc_options_are_errors)
{
	struct cmd c;
	char *bad[][3] = {{"mpcc", "--mpcc-forc", NULL}, {"mpcc", "--mpcc-policy", NULL},
	                  {"mpcc", "--mpcc-explain=yes", NULL}, {"mpcc", "--mpcc-report=", NULL}};
	for (size_t i = 0; i < countof(bad); i++) {
		CHECK(parse_args(&c, 2, bad[i]) < 0);
		cmd_release(&c);
	}
}

TEST(mpcc_variables_set_defaults)
{
	struct cmd c;
	char *v[] = {"mpcc", "--mpcc-profile=b", "x.cu", NULL};
	setenv("MPCC_FORCE_PIPELINE", "1", 1);
	setenv("MPCC_PROFILE", "a", 1);
	setenv("MPCC_POLICY", "p.yaml", 1);
	CHECK(parse_args(&c, 3, v) == 0);
	CHECK(c.force);
	CHECK_STR(c.profile, "b");      /* the line wins */
	CHECK_STR(c.policy, "p.yaml");
	cmd_release(&c);
	setenv("MPCC_FORCE_PIPELINE", "0", 1);
	CHECK(parse_args(&c, 3, v) == 0);
	CHECK(!c.force);
	cmd_release(&c);
	unsetenv("MPCC_FORCE_PIPELINE");
	unsetenv("MPCC_PROFILE");
	unsetenv("MPCC_POLICY");
}

TEST(inputs_skip_option_values)
{
	struct cmd c;
	const char *v[] = {"mpcc", "-o", "out.o", "-Xcompiler", "-fPIC", "-ccbin", "g++", "-c",
	                   "-I", "inc", "-arch=sm_90", "-gencode", "arch=compute_80,code=sm_80",
	                   "k.cu", "h.c", "-x", "cu", NULL};
	parse(&c, v);
	CHECK(c.inputs.n == 2);
	CHECK_STR(c.inputs.v[0], "k.cu");
	CHECK_STR(c.inputs.v[1], "h.c");
	CHECK(c.cu.n == 2);     /* -x cu makes h.c CUDA too */
	CHECK_STR(c.out, "out.o");
	cmd_release(&c);
}

TEST(cu_inputs_by_suffix)
{
	struct cmd c;
	const char *v[] = {"mpcc", "a.cu", "b.c", "c.o", "d.ptx", "-lcudart", NULL};
	parse(&c, v);
	CHECK(c.inputs.n == 4);
	CHECK(c.cu.n == 1);
	CHECK_STR(c.cu.v[0], "a.cu");
	cmd_release(&c);
}

TEST(unsupported_options_are_named)
{
	struct cmd c;
	const char *v[] = {"mpcc", "-run", "a.cu", NULL};
	parse(&c, v);
	CHECK_STR(c.unsup, "unsupported option '-run'");
	cmd_release(&c);
	const char *w[] = {"mpcc", "-time", "t.csv", "a.cu", NULL};
	parse(&c, w);
	CHECK_STR(c.unsup, "unsupported option '-time'");
	CHECK(c.inputs.n == 1);
	cmd_release(&c);
}

TEST(threads_in_appended_flags_are_unsupported)
{
	struct cmd c;
	const char *v[] = {"mpcc", "-c", "a.cu", NULL};
	setenv("NVCC_APPEND_FLAGS", "-t 4", 1);
	parse(&c, v);
	CHECK(c.unsup && strstr(c.unsup, "NVCC_APPEND_FLAGS"));
	cmd_release(&c);
	unsetenv("NVCC_APPEND_FLAGS");
}

TEST(dryrun_line_drops_threads_in_every_spelling)
{
	struct cmd c;
	const char *v[] = {"mpcc", "-t", "4", "-c", "--threads=2", "a.cu", "--threads", "8",
	                   "-t=3", "-o", "a.o", NULL};
	parse(&c, v);
	CHECK(c.threads);
	struct args a = ARGS_INIT;
	dryrun_args(&c, &a, 0);
	char *s = args_join(&a);
	CHECK_STR(s, "-dryrun -c a.cu -o a.o");
	free(s);
	args_release(&a);
	cmd_release(&c);
}

TEST(explain_drops_keep)
{
	struct cmd c;
	const char *v[] = {"mpcc", "--keep", "--keep-dir", "kd", "-c", "a.cu", NULL};
	parse(&c, v);
	CHECK(c.keep);
	CHECK_STR(c.keepdir, "kd");
	struct args a = ARGS_INIT;
	dryrun_args(&c, &a, 1);
	char *s = args_join(&a);
	CHECK_STR(s, "-dryrun -c a.cu");
	free(s);
	args_release(&a);
	cmd_release(&c);
}

int
main(void)
{
	RUN(option_table_is_sorted);
	RUN(mpcc_option_table_is_sorted);
	RUN(every_nvcc_option_is_found);
	RUN(nvopt_reads_equals_values);
	RUN(mpcc_options_are_removed_from_nvcc_line);
	RUN(unknown_or_malformed_mpcc_options_are_errors);
	RUN(mpcc_variables_set_defaults);
	RUN(inputs_skip_option_values);
	RUN(cu_inputs_by_suffix);
	RUN(unsupported_options_are_named);
	RUN(threads_in_appended_flags_are_unsupported);
	RUN(dryrun_line_drops_threads_in_every_spelling);
	RUN(explain_drops_keep);
	return DONE();
}
