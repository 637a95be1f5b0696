/* u-ptx-fuzz.c: replay tests/fuzz/corpus through the PTX library's fuzz
 * target (tests/fuzz/fuzz-parse.c) in CI. */
#include "tests/fuzz/fuzz-parse.c"
#include "tests/unit/test.h"
#include "tests/unit/replay.h"

int
main(void)
{
	test_name = "corpus";
	replay(SRCDIR "/tests/fuzz/corpus");
	test_count = 1;
	return DONE();
}
