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
	char *path = xstrdup("/tmp/u-ptx-pipeline-XXXXXX");
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

TEST(itemtext_copies_a_declaration_between_modules)
{
	static const char a[] = ".version 9.0\n.target sm_80\n.address_size 64\n"
		".extern .func  (.param .b32 func_retval0) vprintf\n(\n\t.param .b64 vprintf_param_0,\n"
		"\t.param .b64 vprintf_param_1\n)\n;\n.global .align 1 .b8 $str[3] = {104, 105};\n";
	static const char b[] = ".version 9.0\n.target sm_80\n.address_size 64\n"
		".visible .entry k()\n{\n\tret;\n}\n";
	Module *ma = parse("a.ptx", a, sizeof a - 1), *mb = parse("b.ptx", b, sizeof b - 1);
	char *t0 = itemtext(ma, 3), *t1 = itemtext(ma, 4), *s;
	CHECK(adddecl(mb, t0) == 1);
	CHECK(adddecl(mb, t1) == 1);
	CHECK(adddecl(mb, t1) == 0);
	s = printstr(mb, NULL);
	CHECK(strstr(s, "vprintf_param_1\n)\n;") != NULL);
	CHECK(strstr(s, "$str[3] = {104, 105};") < strstr(s, ".entry"));
	free(s);
	free(t0);
	free(t1);
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
	RUN(itemtext_copies_a_declaration_between_modules);
	return DONE();
}
