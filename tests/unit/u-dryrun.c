/* unit tests for driver/dryrun.c, driver/fast.c and driver/deps.c, on lines
 * recorded from nvcc 13.0 */
#include "driver/mpcc.h"
#include "transforms/pass.h"
#include "tests/unit/test.h"

#include <stdlib.h>
#include <unistd.h>

static const char recorded[] =
	"#$ _NVVM_BRANCH_=nvvm\n"
	"#$ _SPACE_= \n"
	"#$ CICC_PATH=/usr/local/cuda/bin/../nvvm/bin\n"
	"#$ INCLUDES=\"-I/usr/local/cuda/bin/../targets/x86_64-linux/include\"  \n"
	"nvcc warning : incompatible redefinition for option 'dependency-target-name'\n"
	"#$ gcc -E -x c++ \"k.cu\" -o \"/tmp/tmpxft_000011b1_00000000-5_k.cpp4.ii\" \n"
	"#$ -- Filter Dependencies -- > k.d\n"
	"#$ -- Filter Dependencies --\n"
	"#$ \"$CICC_PATH/cicc\" --c++17 --orig_src_file_name \"k.cu\" --orig_src_path_name "
	"\"/tmp/k.cu\" --allow_managed   -arch compute_90 -m64 --no-version-ident -ftz=0 "
	"-prec_div=1 -prec_sqrt=1 -fmad=1 --include_file_name "
	"\"tmpxft_000011b1_00000000-3_k.fatbin.c\" -tused --module_id_file_name "
	"\"/tmp/tmpxft_000011b1_00000000-4_k.module_id\" --gen_c_file_name "
	"\"/tmp/tmpxft_000011b1_00000000-6_k.cudafe1.c\" --stub_file_name "
	"\"/tmp/tmpxft_000011b1_00000000-6_k.cudafe1.stub.c\" --gen_device_file_name "
	"\"/tmp/tmpxft_000011b1_00000000-6_k.cudafe1.gpu\"  "
	"\"/tmp/tmpxft_000011b1_00000000-7_k.cpp1.ii\" -o \"/tmp/tmpxft_000011b1_00000000-6_k.ptx\"\n"
	"#$ rm /tmp/tmpxft_000011b1_00000000-3_k.fatbin\n";

TEST(dryrun_lines_are_classified)
{
	struct step *s;
	int n = dryrun_parse(recorded, &s);
	CHECK(n == 10);
	CHECK(s[0].kind == S_VAR);
	CHECK_STR(s[0].name, "_NVVM_BRANCH_");
	CHECK_STR(s[0].value, "nvvm");
	CHECK(s[1].kind == S_VAR);
	CHECK_STR(s[1].value, " ");   /* the trailing space is the value */
	CHECK(s[3].kind == S_VAR);
	CHECK_STR(s[3].value, "\"-I/usr/local/cuda/bin/../targets/x86_64-linux/include\"  ");
	CHECK(s[4].kind == S_TEXT);
	CHECK(s[5].kind == S_CMD);
	CHECK(s[6].kind == S_DEPS);
	CHECK_STR(s[6].depsout, "k.d");
	CHECK(s[7].kind == S_DEPS && s[7].depsout == NULL);
	CHECK(s[8].kind == S_CMD);
	steps_release(s, n);
}

static const char *
vars(const char *name)
{
	return !strcmp(name, "CICC_PATH") ? "/cuda/nvvm/bin" : NULL;
}

TEST(shsplit_quotes_and_expands)
{
	struct args a = ARGS_INIT;
	CHECK(shsplit(&a, "\"$CICC_PATH/cicc\" 'a $b' \"x\"y  ${CICC_PATH} \"\" \\$z $NOPE.", vars) == 0);
	CHECK(a.n == 7);
	CHECK_STR(a.v[6], ".");
	CHECK_STR(a.v[0], "/cuda/nvvm/bin/cicc");
	CHECK_STR(a.v[1], "a $b");
	CHECK_STR(a.v[2], "xy");
	CHECK_STR(a.v[3], "/cuda/nvvm/bin");
	CHECK_STR(a.v[4], "");
	CHECK_STR(a.v[5], "$z");
	args_release(&a);
	CHECK(shsplit(&a, "\"open", NULL) < 0);
	args_release(&a);
}

TEST(shsplit_without_lookup_keeps_dollars)
{
	struct args a = ARGS_INIT;
	CHECK(shsplit(&a, "-DX=$Y \"-I/a b\"", NULL) == 0);
	CHECK(a.n == 2);
	CHECK_STR(a.v[0], "-DX=$Y");
	CHECK_STR(a.v[1], "-I/a b");
	args_release(&a);
}

static void
cicc(struct args *a)
{
	struct step *s;
	int n = dryrun_parse(recorded, &s);
	CHECK(shsplit(a, s[8].line, vars) == 0);
	steps_release(s, n);
}

TEST(optval_finds_values_by_name)
{
	struct args a = ARGS_INIT;
	cicc(&a);
	CHECK_STR(optval(&a, "-o"), "/tmp/tmpxft_000011b1_00000000-6_k.ptx");
	CHECK_STR(optval(&a, "-arch"), "compute_90");
	CHECK_STR(optval(&a, "--orig_src_path_name"), "/tmp/k.cu");
	CHECK(optval(&a, "-nope") == NULL);
	args_release(&a);
}

static int
count(const struct args *a, const char *s)
{
	int n = 0;
	for (int i = 0; i < a->n; i++)
		n += !strcmp(a->v[i], s);
	return n;
}

TEST(fastptx_sets_flags_by_name)
{
	struct args a = ARGS_INIT, f = ARGS_INIT;
	cicc(&a);
	fast_args(&f, &a, AX_FTZ | AX_DIV | AX_SQRT | AX_TRANS, "/p/x.fast");
	CHECK(count(&f, "-ftz=1") == 1 && count(&f, "-ftz=0") == 0);
	CHECK(count(&f, "-prec_div=0") == 1 && count(&f, "-prec_div=1") == 0);
	CHECK(count(&f, "-prec_sqrt=0") == 1 && count(&f, "-prec_sqrt=1") == 0);
	CHECK(count(&f, "-fast-math") == 1);
	CHECK(count(&f, "--gen_div_approx_ftz") == 1);
	CHECK(count(&f, "-fmad=1") == 1);
	CHECK(f.n == a.n + 2);
	CHECK_STR(f.v[0], "/cuda/nvvm/bin/cicc");
	args_release(&f);
	args_release(&a);
}

TEST(fastptx_asks_only_for_the_mask)
{
	struct args a = ARGS_INIT, f = ARGS_INIT;
	cicc(&a);
	fast_args(&f, &a, AX_DIV, "/p/x");
	CHECK(count(&f, "-prec_div=0") == 1);
	CHECK(count(&f, "-ftz=0") == 1 && count(&f, "-prec_sqrt=1") == 1);
	CHECK(count(&f, "-fast-math") == 0 && count(&f, "--gen_div_approx_ftz") == 0);
	args_release(&f);
	args_release(&a);
}

TEST(fastptx_writes_only_private_files)
{
	struct args a = ARGS_INIT, f = ARGS_INIT;
	cicc(&a);
	fast_args(&f, &a, AX_TRANS, "/p/x");
	CHECK_STR(optval(&f, "-o"), "/p/x.ptx");
	CHECK_STR(optval(&f, "--gen_c_file_name"), "/p/x.cudafe1.c");
	CHECK_STR(optval(&f, "--stub_file_name"), "/p/x.stub.c");
	CHECK_STR(optval(&f, "--gen_device_file_name"), "/p/x.gpu");
	/* inputs stay */
	CHECK_STR(optval(&f, "--module_id_file_name"), "/tmp/tmpxft_000011b1_00000000-4_k.module_id");
	CHECK(count(&f, "/tmp/tmpxft_000011b1_00000000-7_k.cpp1.ii") == 1);
	args_release(&f);
	args_release(&a);
}

/* -ptx, -cubin, -fatbin: cicc makes the module id itself and leaves no
 * file to read; the second run must make its own */
TEST(fastptx_makes_its_own_module_id_when_cicc_makes_it)
{
	struct args a = ARGS_INIT, f = ARGS_INIT;
	shsplit(&a, "cicc --gen_module_id_file --module_id_file_name m.id -ftz=0 in.ii -o k.ptx", NULL);
	fast_args(&f, &a, AX_FTZ, "p");
	char *s = args_join(&f);
	CHECK_STR(s, "cicc --gen_module_id_file --module_id_file_name p.module_id -ftz=1 in.ii -o p.ptx");
	free(s);
	args_release(&f);
	args_release(&a);
}

TEST(fastptx_adds_missing_flags)
{
	struct args a = ARGS_INIT, f = ARGS_INIT;
	shsplit(&a, "cicc in.ii -o k.ptx", NULL);
	fast_args(&f, &a, AX_FTZ | AX_SQRT, "p");
	char *s = args_join(&f);
	CHECK_STR(s, "cicc -prec_sqrt=0 -ftz=1 in.ii -o p.ptx");
	free(s);
	args_release(&f);
	args_release(&a);
}

/* ptxas -v as CUDA 13 prints it: the .func's properties belong to no
 * entry, each entry's registers and stack to its own name and sm */
TEST(figures_read_ptxas_v_per_entry)
{
	struct figures fs = {0};
	figures_parse(&fs, "ptxas info    : 24 bytes gmem\n"
	                   "ptxas info    : Function properties for _Z6helperf\n"
	                   "    8 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
	                   "ptxas info    : Compiling entry function 'mriq' for 'sm_90'\n"
	                   "ptxas info    : Function properties for mriq\n"
	                   "    32 bytes stack frame, 4 bytes spill stores, 8 bytes spill loads\n"
	                   "ptxas info    : Used 24 registers, used 0 barriers, 32 bytes cumulative stack size\n"
	                   "ptxas info    : Compiling entry function '_Z2bmPfi' for 'sm_86'\n"
	                   "ptxas info    : Function properties for _Z2bmPfi\n"
	                   "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
	                   "ptxas info    : Used 40 registers, used 1 barriers, 380 bytes cmem[0]\n");
	char *a = figures_json(&fs, NULL, "mriq"), *b = figures_json(&fs, NULL, "_Z2bmPfi");
	CHECK_STR(a, "{\"sm_90\":{\"registers\":24,\"stack_frame\":32,\"spill_stores\":4,\"spill_loads\":8}}");
	CHECK_STR(b, "{\"sm_86\":{\"registers\":40,\"stack_frame\":0,\"spill_stores\":0,\"spill_loads\":0}}");
	CHECK(figures_json(&fs, NULL, "_Z6helperf") == NULL);
	free(a);
	free(b);
	/* nvcc's PTX of the same kernel, for the same sm only */
	struct figures before = {0};
	figures_parse(&before, "ptxas info    : Compiling entry function 'mriq' for 'sm_90'\n"
	                       "ptxas info    : Used 20 registers, used 0 barriers\n"
	                       "ptxas info    : Compiling entry function '_Z2bmPfi' for 'sm_90'\n"
	                       "ptxas info    : Used 32 registers, used 0 barriers\n");
	a = figures_json(&fs, &before, "mriq");
	b = figures_json(&fs, &before, "_Z2bmPfi");
	CHECK_STR(a, "{\"sm_90\":{\"registers\":24,\"stack_frame\":32,\"spill_stores\":4,\"spill_loads\":8,"
	             "\"registers_before\":20}}");
	CHECK_STR(b, "{\"sm_86\":{\"registers\":40,\"stack_frame\":0,\"spill_stores\":0,\"spill_loads\":0}}");
	free(a);
	free(b);
	figures_release(&before);
	figures_release(&fs);
}

TEST(deps_follow_line_markers)
{
	char *ii = test_tmp("u-dryrun-XXXXXX");
	int fd = mkstemp(ii);
	const char *text = "# 1 \"src/k.cu\"\n# 1 \"<built-in>\"\n# 1 \"<command-line>\"\n"
	                   "# 1 \"/usr/include/stdc-predef.h\" 1 3 4\nint x;\n"
	                   "# 1 \"inc/a.h\" 1\n# 2 \"src/k.cu\" 2\n# 7 \"inc/a.h\"\n";
	CHECK(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	close(fd);
	char *buf;
	size_t len;
	FILE *f = open_memstream(&buf, &len);
	CHECK(filterdeps(f, ii, NULL, 0, 0, NULL) == 0);
	CHECK(filterdeps(f, ii, "t.o", 1, 0, NULL) == 0);
	CHECK(filterdeps(f, ii, "p.o", 1, 1, NULL) == 0);
	struct args pol = ARGS_INIT;
	args_push(&pol, "/p/.mpcc.yaml");
	args_push(&pol, "inc/a.h");
	CHECK(filterdeps(f, ii, "q.o", 1, 1, &pol) == 0);
	args_release(&pol);
	fclose(f);
	CHECK_STR(buf, "k.o : src/k.cu \\\n    /usr/include/stdc-predef.h \\\n    inc/a.h\n"
	               "t.o : src/k.cu \\\n    inc/a.h\n"
	               "p.o : src/k.cu \\\n    inc/a.h\n\ninc/a.h:\n"
	               "q.o : src/k.cu \\\n    inc/a.h \\\n    /p/.mpcc.yaml\n\ninc/a.h:\n\n/p/.mpcc.yaml:\n");
	free(buf);
	unlink(ii);
	free(ii);
}

int
main(void)
{
	RUN(dryrun_lines_are_classified);
	RUN(shsplit_quotes_and_expands);
	RUN(shsplit_without_lookup_keeps_dollars);
	RUN(optval_finds_values_by_name);
	RUN(fastptx_sets_flags_by_name);
	RUN(fastptx_asks_only_for_the_mask);
	RUN(fastptx_writes_only_private_files);
	RUN(fastptx_makes_its_own_module_id_when_cicc_makes_it);
	RUN(fastptx_adds_missing_flags);
	RUN(figures_read_ptxas_v_per_entry);
	RUN(deps_follow_line_markers);
	return DONE();
}
