/* u-fuzz-pass.c: replay each pass's fuzz corpus (tests/fuzz/corpus-NAME)
 * through the pass target (tests/fuzz/fuzz-pass.c) in CI; a pass without a
 * corpus of its own gets sfu's, whose inputs are valid PTX from nvcc. */
#include "tests/fuzz/fuzz-pass.c"
#include "tests/unit/test.h"
#include "tests/unit/replay.h"
#include <sys/stat.h>

int
main(void)
{
	struct stat st;

	LLVMFuzzerInitialize(NULL, NULL);
	for (int k = 0; k < npass; k++) {
		char *dir = fmt("%s/tests/fuzz/corpus-%s", SRCDIR, passes[k]->schema.name);
		if (stat(dir, &st) != 0) {
			free(dir);
			dir = fmt("%s/tests/fuzz/corpus-sfu", SRCDIR);
		}
		test_name = passes[k]->schema.name;
		fuzzpass = passes[k];
		replay(dir);
		test_count++;
		free(dir);
	}
	return DONE();
}
