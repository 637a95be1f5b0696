/* test.h: tiny unit-test harness in the style of ccache's TEST/CHECK.
 *   TEST(name) { CHECK(x); CHECK_STR(a, b); }
 *   int main(void) { RUN(name); ... return DONE(); }  */
#ifndef MPCC_TEST_H
#define MPCC_TEST_H

#include <stdio.h>
#include <stdlib.h>
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
/* "$TMPDIR/name" (/tmp when TMPDIR is unset or empty), for mkstemp and
 * mkdtemp templates; malloc'd. The suite runs every test with TMPDIR set
 * to one directory and fails if anything is left in it. */
static inline char *
test_tmp(const char *name)
{
	const char *t = getenv("TMPDIR");
	size_t n;
	char *s;
	if (!t || !*t)
		t = "/tmp";
	n = strlen(t) + strlen(name) + 2;
	s = malloc(n);
	snprintf(s, n, "%s/%s", t, name);
	return s;
}

#define DONE() \
	(printf("%d tests, %d failed checks\n", test_count, test_failed), test_failed != 0)

#endif
