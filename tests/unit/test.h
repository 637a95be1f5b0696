/* test.h: tiny unit-test harness in the style of ccache's TEST/CHECK.
 *   TEST(name) { CHECK(x); CHECK_STR(a, b); }
 *   int main(void) { RUN(name); ... return DONE(); }  */
#ifndef MPCC_TEST_H
#define MPCC_TEST_H

#include <stdio.h>
#include <string.h>

static int test_failed, test_count;
static const char *test_name;

#define TEST(name) static void name(void)
#define RUN(name) (test_name = #name, test_count++, name())
#define CHECK(x) \
	((x) ? (void)0 : (void)(test_failed++, \
	 fprintf(stderr, "%s:%d: %s: CHECK(%s) failed\n", __FILE__, __LINE__, test_name, #x)))
#define CHECK_STR(a, b) \
	do { \
		const char *a_ = (a), *b_ = (b); \
		if (!a_ || !b_ || strcmp(a_, b_)) { \
			test_failed++; \
			fprintf(stderr, "%s:%d: %s: \"%s\" != \"%s\"\n", __FILE__, __LINE__, \
			        test_name, a_ ? a_ : "(null)", b_ ? b_ : "(null)"); \
		} \
	} while (0)
#define DONE() \
	(printf("%d tests, %d failed checks\n", test_count, test_failed), test_failed != 0)

#endif
