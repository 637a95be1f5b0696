/* u-fuzz-sfu.c: replay tests/fuzz/corpus-sfu through the sfu pass's fuzz
 * target (tests/fuzz/fuzz-sfu.c) in CI. */
#include "tests/fuzz/fuzz-sfu.c"
#include "tests/unit/test.h"
#include "tests/unit/replay.h"

int
main(void)
{
	test_name = "corpus-sfu";
	replay(SRCDIR "/tests/fuzz/corpus-sfu");
	test_count = 1;
	return DONE();
}
