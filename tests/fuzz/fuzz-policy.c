/* fuzz-policy.c: the libFuzzer target of the policy loader; tests/fuzz/run.sh
 * policy builds and runs it, tests/unit/u-fuzz-policy.c replays its corpus
 * in CI. Any bytes are a .mpcc.yaml: loading them gives a policy and no
 * error message, or a policy marked broken (nerr) or NULL, and at least one
 * "fuzz.yaml:...: error: " line; never a crash, and (under LeakSanitizer)
 * never a leak. A broken policy's profile names are read, as policy.c
 * reads them to check default_profile across files. A policy's rules
 * are then matched and their parameters written in every style (report,
 * explain, text, YAML). The loader's parse() is called directly (load.c is
 * included) so that no file is written and its arena is dropped after each
 * input. */
#include "policies/load.c"
#include <stdint.h>

void passes_init(void);   /* transforms/pass.h, whose ptx.h names clash with load.c's */

static void
rules(const struct policy *pol)
{
	for (int k = 0; k < pol->nprof; k++)
		for (int j = 0; j < pol->prof[k].nrule; j++) {
			const struct rule *r = &pol->prof[k].rule[j];
			rule_match(r, "k.cu", "_Z1kPf", "k(float*)");
			for (int t = 0; t < nschema; t++)
				if ((r->has & 1u << t) && r->param[t])
					for (int style = W_JSON; style <= W_YAML; style++)
						free(params_str(r->param[t], style));
		}
}

int LLVMFuzzerInitialize(int *argc, char ***argv);

/* the passes' schemas, as the driver hands them to the policy layer */
int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	passes_init();
	return 0;
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
	if (pol && !pol->nerr)
		rules(pol);
	for (int k = 0; pol && k < pol->nprof; k++)
		if (strlen(pol->prof[k].name) > n)
			BUG("profile %d's name is longer than the file", k);
	fclose(stderr);
	stderr = saved;
	int bad = !pol || pol->nerr;
	if (!bad && strstr(buf, ": error: "))
		BUG("a policy was loaded, with errors:\n%s", buf);
	if (bad && !memchr(text, 0, n) && (strncmp(buf, "fuzz.yaml:", 10) || !strstr(buf, ": error: ")))
		BUG("no policy and no error message:\n%s", buf);
	free(buf);
	free(text);
	arena_free(arena);
	arena = NULL;
	return 0;
}
