/* replay.h: run every file of a fuzz corpus through the target's
 * LLVMFuzzerTestOneInput, so that CI (gcc, no libFuzzer) keeps every input
 * the fuzzer found, crashes included, passing. A failing input aborts inside
 * the target; the file name is printed first to say which. Include after
 * the target and test.h. */
#include <dirent.h>
#include <stdint.h>

static int
replay(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	CHECK(d != NULL);
	while (d && (e = readdir(d))) {
		size_t len;
		char *path, *s;
		if (e->d_name[0] == '.')
			continue;
		path = fmt("%s/%s", dir, e->d_name);
		s = readfile(path, &len);
		CHECK(s != NULL);
		if (getenv("REPLAY_VERBOSE"))
			fprintf(stderr, "%s\n", path);
		if (s)
			LLVMFuzzerTestOneInput((const uint8_t *)s, len);
		free(s);
		free(path);
		n++;
	}
	if (d)
		closedir(d);
	printf("%s: %d inputs replayed\n", dir, n);
	CHECK(n > 0);
	return n;
}
