/* fuzz-policy.c: the libFuzzer target of the policy loader; tests/fuzz/run.sh
 * policy builds and runs it, tests/unit/u-fuzz-policy.c replays its corpus
 * in CI. Any bytes are a .mpcc.yaml: loading them gives a policy and no
 * error message, or NULL and at least one "fuzz.yaml:...: error: " line;
 * never a crash, and (under LeakSanitizer) never a leak. A policy's rules
 * are then matched and printed as the report would. The loader's parse()
 * is called directly (load.c is included) so that no file is written and
 * its cache and arena are dropped after each input. */
#include "policies/load.c"
#include <stdint.h>

static void
rules(const struct policy *pol)
{
	for (int k = 0; k < pol->nprof; k++)
		for (int j = 0; j < pol->prof[k].nrule; j++) {
			const struct rule *r = &pol->prof[k].rule[j];
			rule_match(r, "k.cu", "_Z1kPf", "k(float*)");
			for (int t = 0; t < NTRANSFORM; t++)
				if (r->has & 1u << t)
					free(rule_params(r, t));
		}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	char *buf = NULL, *text = xmalloc(n + 1);
	size_t nbuf = 0;
	FILE *saved = stderr;
	struct policy *pol;

	memcpy(text, data, n);
	text[n] = 0;
	if (!arena)
		arena = arena_new();
	stderr = open_memstream(&buf, &nbuf);
	pol = memchr(text, 0, n) ? NULL : parse("fuzz.yaml", text, n);
	if (pol)
		rules(pol);
	fclose(stderr);
	stderr = saved;
	if (pol && strstr(buf, ": error: "))
		BUG("a policy was loaded, with errors:\n%s", buf);
	if (!pol && !memchr(text, 0, n) && (strncmp(buf, "fuzz.yaml:", 10) || !strstr(buf, ": error: ")))
		BUG("no policy and no error message:\n%s", buf);
	free(buf);
	free(text);
	arena_free(arena);
	arena = NULL;
	return 0;
}
