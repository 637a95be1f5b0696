/* u-ptx-pipeline.c: the hook's contract (transforms/pass.h) */
#include "ptx/ptx.h"
#include "transforms/pass.h"
#include "tests/unit/test.h"
#include <stdlib.h>
#include <unistd.h>

static const char good[] =
	"//\n// a comment kept as is\n//\n\n.version 9.0\n.target sm_80\n.address_size 64\n\n"
	"\t// .globl\tk\n.visible .entry k()\n{\n\n\n\tret;\n\n}\n";
static const char bad[] =
	".version 9.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\tfrobnicate;\n}\n";

static char *
tmpfile_with(const char *text)
{
	char *path = test_tmp("u-ptx-pipeline-XXXXXX");
	int fd = mkstemp(path);
	CHECK(fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	close(fd);
	return path;
}

static int
contains(const char *path, const char *text)
{
	size_t n;
	char *s = readfile(path, &n);
	int ok = s && n == strlen(text) && !memcmp(s, text, n);
	free(s);
	return ok;
}

TEST(identity_without_a_profile_is_byte_exact)
{
	char *p = tmpfile_with(good);
	struct hook h = {.src = "k.cu", .arch = "compute_80"};
	CHECK(pipeline(p, &h) == 0);
	CHECK(contains(p, good));
	unlink(p);
	free(p);
}

TEST(bad_ptx_is_left_unchanged)
{
	char *p = tmpfile_with(bad);
	struct hook h = {.src = "k.cu", .arch = "compute_80"};
	FILE *saved = stderr;
	stderr = fopen("/dev/null", "w");
	CHECK(pipeline(p, &h) == -1);
	fclose(stderr);
	stderr = saved;
	CHECK(contains(p, bad));
	unlink(p);
	free(p);
}

TEST(explain_changes_nothing)
{
	char *p = tmpfile_with(good);
	char *buf = NULL;
	size_t n = 0;
	FILE *out = open_memstream(&buf, &n);
	struct hook h = {.src = "k.cu", .arch = "compute_80", .explain = out};
	CHECK(pipeline(p, &h) == 0);
	fclose(out);
	CHECK(contains(p, good));
	free(buf);
	unlink(p);
	free(p);
}

TEST(long_kernel_names_reach_the_policy_whole)
{
	/* C++ template kernels have mangled names of many hundred characters */
	char name[601], text[1024], *buf = NULL;
	size_t n = 0;
	memset(name, 'k', 600);
	name[600] = 0;
	snprintf(text, sizeof text, ".version 9.0\n.target sm_80\n.address_size 64\n"
	         ".visible .entry %s()\n{\n\tret;\n}\n", name);
	char *p = tmpfile_with(text);
	FILE *out = open_memstream(&buf, &n);
	struct hook h = {.src = "k.cu", .arch = "compute_80", .explain = out};
	CHECK(pipeline(p, &h) == 0);
	fclose(out);
	char *quoted = fmt("'%s'", name);
	CHECK(strstr(buf, quoted) != NULL);
	free(quoted);
	free(buf);
	unlink(p);
	free(p);
}

/* a kernel that sfu merges with a fast-math copy; the fast copy given to
 * the hook may name a register it never declares (as a buggy pass or a
 * bad fast PTX would): the merge then does not verify and must not ship */
#define KERNEL(SQRT, REG) \
	".version 9.0\n.target sm_80\n.address_size 64\n" \
	".visible .entry k(.param .u64 p)\n{\n\t.reg .f32 %f<3>;\n\t.reg .b64 %rd<2>;\n" \
	"\tld.param.u64 %rd1, [p];\n\tld.global.f32 %f1, [%rd1];\n" \
	"\t" SQRT " %f2, " REG ";\n\tst.global.f32 [%rd1], %f2;\n\tret;\n}\n"

static const char *
givenfast(void *drv, uint mask)
{
	(void)mask;
	return drv;
}

/* 1 if the hook rewrote the file, 0 if it left it, -1 if it failed */
static int
merge(const char *fasttext)
{
	static const char acc[] = KERNEL("sqrt.rn.f32", "%f1");
	char *p = tmpfile_with(acc), *f = tmpfile_with(fasttext);
	char *kernels[] = {"k"}, *err;
	Arena *a = arena_new();
	struct params sp;
	struct rule r = {.kernels = kernels, .nkernels = 1, .has = 1 << 0, .param = {&sp}};
	struct profile prof = {.name = "fast", .rule = &r, .nrule = 1,
	                       .on_unsupported = UNSUP_SILENT};
	struct hook h = {.src = "k.cu", .arch = "compute_80", .prof = &prof,
	                 .fastptx = givenfast, .drv = f};
	FILE *saved = stderr;
	int rc;

	CHECK(!strcmp(schemas[0]->name, "sfu"));
	CHECK(params_parse(schemas[0], "lambda=32", 0, a, &sp, &err) == 0);

	stderr = fopen("/dev/null", "w");
	rc = pipeline(p, &h);
	fclose(stderr);
	stderr = saved;
	rc = rc < 0 ? -1 : !contains(p, acc);
	unlink(p);
	unlink(f);
	free(p);
	free(f);
	arena_free(a);
	return rc;
}

/* the kernel falls back alone: the file is written, with nvcc's code */
TEST(a_merge_that_does_not_verify_leaves_nvcc_ptx)
{
	CHECK(merge(KERNEL("sqrt.approx.f32", "%f1")) == 1);
	CHECK(merge(KERNEL("sqrt.approx.f32", "%f9")) == 0);
}

/* a kernel named NAME that divides two doubles */
static char *
divkernel(const char *name)
{
	return fmt(".visible .entry %s(.param .u64 p)\n{\n\t.reg .f64 %%fd<4>;\n"
	           "\t.reg .b64 %%rd<3>;\n\tld.param.u64 %%rd1, [p];\n"
	           "\tcvta.to.global.u64 %%rd2, %%rd1;\n\tld.global.f64 %%fd1, [%%rd2];\n"
	           "\tld.global.f64 %%fd2, [%%rd2+8];\n\tdiv.rn.f64 %%fd3, %%fd1, %%fd2;\n"
	           "\tst.global.f64 [%%rd2], %%fd3;\n\tret;\n}\n", name);
}

static int
count(const char *s, const char *what)
{
	int n = 0;
	for (; (s = strstr(s, what)); s++)
		n++;
	return n;
}

TEST(a_rule_reaches_its_kernel_through_profile_match)
{
	/* the pipeline as the driver runs it: a policy file, its profile, and
	 * a rule whose glob selects one of two kernels (one with a 600-character
	 * name); the other must be left as cicc wrote it */
	char name[601], *dir = test_tmp("u-ptx-pipeline-dir-XXXXXX");
	memset(name, 'k', 600);
	name[600] = 0;
	CHECK(mkdtemp(dir) != NULL);
	char *pol = fmt("%s/.mpcc.yaml", dir), *cu = fmt("%s/k.cu", dir);
	const char *yaml = "version: 1\nroot: true\ndefault_profile: p\nprofiles:\n  p:\n"
	                   "    rules:\n      - kernels: ['kkkk*']\n        sfu: {lambda: 32, approx: [div]}\n";
	CHECK(writefile(pol, yaml, strlen(yaml)) == 0);
	char *k1 = divkernel(name), *k2 = divkernel("other");
	char *text = fmt(".version 9.0\n.target sm_80\n.address_size 64\n\n%s\n%s", k1, k2);
	char *p = tmpfile_with(text);
	struct profile *prof = NULL;
	struct reports reps = {0};
	CHECK(policy_profile(cu, NULL, NULL, &prof) == 0 && prof);
	struct hook h = {.src = cu, .arch = "compute_80", .prof = prof, .reports = &reps};
	CHECK(pipeline(p, &h) == 0);
	char *out = readfile(p, NULL);
	CHECK(out && count(out, "%warpid") == 1 && count(out, "rcp.approx.ftz.f64") == 1);
	CHECK(out && strstr(out, k2) != NULL);   /* "other" as it was */
	CHECK(reps.n == 1 && reps.r[0].applied && !strcmp(reps.r[0].transform, "sfu"));
	CHECK(reps.n == 1 && !strcmp(reps.r[0].mangled, name));
	reports_flush(&reps, NULL, NULL);
	free(out), free(text), free(k1), free(k2);
	unlink(p), unlink(pol);
	rmdir(dir);
	free(p), free(pol), free(cu), free(dir);
}

TEST(itemtext_copies_a_declaration_between_modules)
{
	static const char a[] = ".version 9.0\n.target sm_80\n.address_size 64\n"
		".extern .func  (.param .b32 func_retval0) vprintf\n(\n\t.param .b64 vprintf_param_0,\n"
		"\t.param .b64 vprintf_param_1\n)\n;\n.global .align 1 .b8 $str[3] = {104, 105};\n";
	static const char b[] = ".version 9.0\n.target sm_80\n.address_size 64\n"
		".visible .entry k()\n{\n\tret;\n}\n";
	Module *ma = parse("a.ptx", a, sizeof a - 1), *mb = parse("b.ptx", b, sizeof b - 1);
	const char *t0 = itemtext(ma, 3, NULL), *t1 = itemtext(ma, 4, NULL);
	char *s;
	CHECK(adddecl(mb, t0) == 1);
	CHECK(adddecl(mb, t1) == 1);
	CHECK(adddecl(mb, t1) == 0);
	s = printstr(mb, NULL);
	CHECK(strstr(s, "vprintf_param_1\n)\n;") != NULL);
	CHECK(strstr(s, "$str[3] = {104, 105};") < strstr(s, ".entry"));
	free(s);
	mod_free(ma);
	mod_free(mb);
}

int
main(void)
{
	passes_init();
	RUN(identity_without_a_profile_is_byte_exact);
	RUN(bad_ptx_is_left_unchanged);
	RUN(explain_changes_nothing);
	RUN(long_kernel_names_reach_the_policy_whole);
	RUN(a_merge_that_does_not_verify_leaves_nvcc_ptx);
	RUN(a_rule_reaches_its_kernel_through_profile_match);
	RUN(itemtext_copies_a_declaration_between_modules);
	return DONE();
}
