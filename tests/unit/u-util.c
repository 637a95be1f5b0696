/* unit tests for common/util.c */
#include "common/util.h"
#include "tests/unit/test.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

TEST(args_own_their_strings)
{
	struct args a = ARGS_INIT;
	char buf[8] = "abc";
	args_push(&a, buf);
	buf[0] = 'x';
	CHECK_STR(a.v[0], "abc");
	CHECK(a.v[1] == NULL);
	args_release(&a);
	CHECK(a.n == 0);
}

TEST(args_insert_and_remove_keep_order)
{
	struct args a = ARGS_INIT;
	args_push(&a, "a");
	args_push(&a, "c");
	args_insert(&a, 1, "b");
	CHECK_STR(a.v[1], "b");
	args_remove(&a, 0);
	CHECK_STR(a.v[0], "b");
	CHECK(a.n == 2 && a.v[2] == NULL);
	args_release(&a);
}

TEST(args_join_quotes_for_the_shell)
{
	struct args a = ARGS_INIT;
	args_push(&a, "nvcc");
	args_push(&a, "-DX=a b");
	args_push(&a, "it's");
	char *s = args_join(&a);
	CHECK_STR(s, "nvcc '-DX=a b' 'it'\\''s'");
	free(s);
	args_release(&a);
}

TEST(arena_memory_is_zeroed_and_aligned)
{
	Arena *a = arena_new();
	for (int i = 1; i < 1000; i++) {
		char *p = arena_alloc(a, i * 37);
		CHECK(((unsigned long)p & 15) == 0);
		CHECK(p[0] == 0 && p[i * 37 - 1] == 0);
		p[0] = 1;
	}
	char *big = arena_alloc(a, 3 << 20);
	CHECK(big[(3 << 20) - 1] == 0);
	arena_free(a);
}

TEST(demangle_reads_cxx_names_and_keeps_c_names)
{
	char *d = demangle("_Z6kernelPfi");
	CHECK_STR(d, "kernel(float*, int)");
	free(d);
	d = demangle("plain");
	CHECK_STR(d, "plain");
	free(d);
}

TEST(writefile_never_replaces_a_device)
{
	CHECK(writefile("/dev/null", "x", 1) == 0);
	struct stat st;
	CHECK(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode));
}

/* mpcc-tune's work directory and the driver's temporaries go this way:
 * a link is removed, never followed; a quote in a name is no shell's */
TEST(rmtree_removes_a_tree_and_not_what_its_links_name)
{
	char *top = test_tmp("u-util-rmtree-XXXXXX"), *keep = test_tmp("u-util-keep-XXXXXX");
	CHECK(mkdtemp(top) && mkdtemp(keep));
	char *mid = fmt("%s/it's", top), *sub = fmt("%s/deeper", mid), *f = fmt("%s/file", sub);
	char *kept = fmt("%s/kept", keep), *link = fmt("%s/link", mid);
	CHECK(mkdir(mid, 0700) == 0 && mkdir(sub, 0700) == 0);
	CHECK(writefile(f, "x", 1) == 0 && writefile(kept, "y", 1) == 0);
	CHECK(symlink(keep, link) == 0);
	CHECK(rmtree(top) == 0);
	struct stat st;
	CHECK(stat(top, &st) < 0 && stat(kept, &st) == 0);
	CHECK(rmtree(top) == 0);   /* gone already: nothing to do */
	CHECK(rmtree(keep) == 0 && stat(keep, &st) < 0);
	free(top), free(keep), free(mid), free(sub), free(f), free(kept), free(link);
}

/* the confirmation's copies of a trial's directory (mpcc-tune --jobs 4):
 * files with their bytes and modes, directories, links as links */
TEST(copytree_copies_files_modes_and_links)
{
	char *top = test_tmp("u-util-copy-XXXXXX");
	CHECK(mkdtemp(top) != NULL);
	char *from = fmt("%s/from", top), *to = fmt("%s/to", top), *sub = fmt("%s/b", from);
	char *prog = fmt("%s/prog", sub), *link = fmt("%s/l", from);
	char *cprog = fmt("%s/b/prog", to), *clink = fmt("%s/l", to);
	CHECK(mkdir(from, 0755) == 0 && mkdir(sub, 0700) == 0);
	CHECK(writefile(prog, "#!/bin/sh\n", 10) == 0 && chmod(prog, 0750) == 0);
	CHECK(symlink("b/prog", link) == 0);
	CHECK(copytree(from, to) == 0);
	size_t n;
	char *text = readfile(cprog, &n), buf[16] = "";
	struct stat st;
	CHECK(text && n == 10 && !memcmp(text, "#!/bin/sh\n", 10));
	CHECK(stat(cprog, &st) == 0 && (st.st_mode & 0777) == 0750);
	CHECK(readlink(clink, buf, sizeof buf - 1) == 6 && !strcmp(buf, "b/prog"));
	CHECK(copytree(from, to) < 0);   /* made anew: not over a copy */
	CHECK(copyfile(prog, cprog) == 0);   /* over a file: replaced */
	CHECK(rmtree(top) == 0);
	free(text);
	free(top), free(from), free(to), free(sub), free(prog), free(link), free(cprog), free(clink);
}

int
main(void)
{
	RUN(writefile_never_replaces_a_device);
	RUN(rmtree_removes_a_tree_and_not_what_its_links_name);
	RUN(copytree_copies_files_modes_and_links);
	RUN(demangle_reads_cxx_names_and_keeps_c_names);
	RUN(args_own_their_strings);
	RUN(args_insert_and_remove_keep_order);
	RUN(args_join_quotes_for_the_shell);
	RUN(arena_memory_is_zeroed_and_aligned);
	return DONE();
}
