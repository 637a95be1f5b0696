/* u-ptx-fuzz.c: replay tests/fuzz/corpus through the fuzz target, so that
 * CI (gcc, no libFuzzer) keeps every input the fuzzer found, crashes
 * included, passing. A failing input aborts inside the target. */
#include "tests/fuzz/fuzz-parse.c"
#include "tests/unit/test.h"
#include <dirent.h>

int
main(void)
{
	const char *dir = SRCDIR "/tests/fuzz/corpus";
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	test_name = "corpus";
	CHECK(d != NULL);
	while (d && (e = readdir(d))) {
		size_t len;
		char *path, *s;
		if (e->d_name[0] == '.')
			continue;
		path = fmt("%s/%s", dir, e->d_name);
		s = readfile(path, &len);
		CHECK(s != NULL);
		if (s)
			LLVMFuzzerTestOneInput((const uint8_t *)s, len);
		free(s);
		free(path);
		n++;
	}
	if (d)
		closedir(d);
	printf("%d inputs replayed\n", n);
	CHECK(n > 0);
	test_count = 1;
	return DONE();
}
