/* u-fuzz-policy.c: replay tests/fuzz/corpus-policy through the policy
 * loader's fuzz target (tests/fuzz/fuzz-policy.c) in CI. */
#include "tests/fuzz/fuzz-policy.c"
#include "tests/unit/test.h"
#include "tests/unit/replay.h"

int
main(void)
{
	LLVMFuzzerInitialize(NULL, NULL);
	test_name = "corpus-policy";
	replay(SRCDIR "/tests/fuzz/corpus-policy");
	test_count = 1;
	return DONE();
}
