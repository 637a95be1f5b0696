/* Every tests/policy/bad/NAME.yaml must be rejected with exactly the
 * messages in NAME.err, as a compile given --mpcc-policy=NAME.yaml would
 * print them. Run with an argument to print what a file gives instead:
 * u-policy-bad NAME.yaml (that is how a new .err file is written). */
#include "policies/policy.h"
#include "transforms/pass.h"
#include "tests/unit/test.h"

#include <dirent.h>
#include <stdlib.h>
#include <unistd.h>

/* run policy_profile on the policy file and return what it printed on stderr */
static char *
rejected(const char *yaml, int *status)
{
	FILE *tmp = tmpfile();
	int saved = dup(2);
	struct profile *p;
	fflush(stderr);
	dup2(fileno(tmp), 2);
	*status = policy_profile("k.cu", yaml, NULL, &p);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	size_t n = ftell(tmp);
	char *s = xcalloc(1, n + 1);
	rewind(tmp);
	n = fread(s, 1, n, tmp);
	fclose(tmp);
	return s;
}

static int
byname(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

TEST(every_bad_policy_gives_its_expected_messages)
{
	DIR *d = opendir(".");
	char *names[256];
	int n = 0;
	for (struct dirent *e; d && (e = readdir(d)) && n < 256;)
		if (endswith(e->d_name, ".yaml"))
			names[n++] = xstrdup(e->d_name);
	closedir(d);
	qsort(names, n, sizeof *names, byname);
	CHECK(n >= 15);
	for (int i = 0; i < n; i++) {
		int status;
		char *got = rejected(names[i], &status);
		char *errname = xstrdup(names[i]);
		strcpy(errname + strlen(errname) - 5, ".err");
		char *want = readfile(errname, NULL);
		test_name = names[i];
		CHECK(status == -1);
		CHECK_STR(got, want ? want : "(no .err file)");
		free(want);
		free(errname);
		free(got);
		free(names[i]);
	}
	printf("%d bad policies\n", n);
}

int
main(int argc, char **argv)
{
	passes_init();
	if (chdir(SRCDIR "/tests/policy/bad") < 0)
		return perror(SRCDIR "/tests/policy/bad"), 1;
	if (argc > 1) {
		int status;
		fputs(rejected(argv[1], &status), stdout);
		return status != -1;
	}
	RUN(every_bad_policy_gives_its_expected_messages);
	return DONE();
}
