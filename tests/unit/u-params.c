/* unit tests for policies/param.c: a pass's parameters read from a policy's
 * YAML block and from the text form of mpcc-opt -p give the same values and
 * the same messages, for every kind of parameter; the writers' forms read
 * back to the same values. */
#include "policies/policy.h"
#include "transforms/pass.h"
#include "tests/unit/test.h"

#include <stdlib.h>
#include <unistd.h>

static char *dir;   /* $TMPDIR/u-params-XXXXXX */
static int nfile;

/* the message policy_load prints for a rule "pass: {yaml}", without its
 * "file:line:col: error: " (NULL if it loaded) */
static char *
yamlmsg(const char *pass, const char *yaml)
{
	char *path = fmt("%s/p%d.yaml", dir, nfile++);
	char *text = fmt("version: 1\nprofiles:\n  p:\n    rules:\n"
	                 "      - kernels: ['*']\n        %s: %s\n", pass, yaml);
	CHECK(writefile(path, text, strlen(text)) == 0);
	FILE *tmp = tmpfile();
	int saved = dup(2);
	fflush(stderr);
	dup2(fileno(tmp), 2);
	struct policy *pol = policy_load(path);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	size_t n = ftell(tmp);
	char *out = xcalloc(1, n + 1), *msg = NULL;
	rewind(tmp);
	n = fread(out, 1, n, tmp);
	fclose(tmp);
	char *e = strstr(out, "error: ");
	if (!pol && e) {
		msg = xstrdup(e + 7);
		msg[strcspn(msg, "\n")] = 0;
	}
	free(out);
	free(text);
	free(path);
	return msg;
}

static char *
textmsg(const char *pass, const char *text)
{
	struct params p;
	char *err;
	Arena *a = arena_new();
	int t = schema_find(pass, strlen(pass));
	CHECK(t >= 0);
	params_parse(schemas[t], text, 0, a, &p, &err);
	arena_free(a);
	return err;
}

TEST(the_same_mistake_gets_the_same_message_in_both_forms)
{
	static const struct { const char *pass, *yaml, *text, *want; } cases[] = {
		{"sfu", "{lambda: 65}", "lambda=65", "'lambda' must be between 0 and 64, not 65"},
		{"sfu", "{lambda: fast}", "lambda=fast", "'lambda' must be an integer, not 'fast'"},
		{"sfu", "{lambda: }", "lambda=", "'lambda' must be an integer, not empty"},
		{"sfu", "{newton: true}", "newton=true", "'sfu' needs 'lambda' (0 to 64)"},
		{"sfu", "{lamda: 8}", "lamda=8", "unknown key 'lamda' in 'sfu'; did you mean 'lambda'?"},
		{"sfu", "{lambda: 8, colour: red}", "lambda=8,colour=red",
		 "unknown key 'colour' in 'sfu' (known: lambda, approx, newton)"},
		{"sfu", "{lambda: 8, newton: yes}", "lambda=8,newton=yes",
		 "'newton' must be true or false, not 'yes'"},
		{"sfu", "{lambda: 8, approx: [sin]}", "lambda=8,approx=[sin]",
		 "unknown approximation 'sin' in 'approx' (known: transcendental, div, sqrt, rcp, ftz)"},
		{"sfu", "{lambda: 8, approx: [sqr]}", "lambda=8,approx=sqr",
		 "unknown approximation 'sqr' in 'approx'; did you mean 'sqrt'?"},
		{"sfu", "{lambda: 8, approx: []}", "lambda=8,approx=[]",
		 "'approx' needs at least one of transcendental, div, sqrt, rcp, ftz"},
		{"fiset", "{min_ratio: 0}", "min_ratio=0", "'min_ratio' must be a number greater than 0, not 0"},
		{"fiset", "{min_ratio: high}", "min_ratio=high", "'min_ratio' must be a number, not 'high'"},
		{"fiset", "{min_ratio: 2e9}", "min_ratio=2e9", "'min_ratio' must be a number at most 1e+09, not 2e9"},
		{"fiset", "{sets: some}", "sets=some",
		 "'sets' must be auto, best, all, a positive integer or a list of set ids, not 'some'"},
		{"fiset", "{sets: 0}", "sets=0",
		 "'sets' must be auto, best, all, a positive integer or a list of set ids, not '0'"},
		{"fiset", "{sets: [2, x]}", "sets=[2,x]", "a set id in 'sets' must be a non-negative integer, not 'x'"},
		{"fiset", "{sets: []}", "sets=[]", "'sets' needs at least one set id"},
		{"fiset", "{max_sets: 0}", "max_sets=0", "'max_sets' must be between 1 and 1000, not 0"},
		{"half2", "{type: fp16}", "type=fp16", "'type' must be f16, bf16 or f32, not 'fp16'"},
		{"half2", "{pairing: warps}", "pairing=warps", "'pairing' must be threads or blocks, not 'warps'"},
		{"half2", "{type: [f16]}", "type=[f16]", "'type' must be f16, bf16 or f32, not a list"},
	};
	for (size_t i = 0; i < countof(cases); i++) {
		char *y = yamlmsg(cases[i].pass, cases[i].yaml), *t = textmsg(cases[i].pass, cases[i].text);
		test_name = cases[i].text;
		CHECK_STR(y ? y : "(loaded)", cases[i].want);
		CHECK_STR(t ? t : "(parsed)", cases[i].want);
		free(y);
		free(t);
	}
}

/* the JSON of a rule's block as policy_load reads it */
static char *
yamljson(const char *pass, const char *yaml)
{
	char *path = fmt("%s/p%d.yaml", dir, nfile++);
	char *text = fmt("version: 1\nprofiles:\n  p:\n    rules:\n"
	                 "      - kernels: ['*']\n        %s: %s\n", pass, yaml);
	CHECK(writefile(path, text, strlen(text)) == 0);
	struct policy *pol = policy_load(path);
	int t = schema_find(pass, strlen(pass));
	char *js = pol ? params_str(pol->prof[0].rule[0].param[t], W_JSON) : xstrdup("(bad)");
	free(text);
	free(path);
	return js;
}

static char *
textjson(const char *pass, const char *text)
{
	struct params p;
	char *err, *js;
	Arena *a = arena_new();
	int t = schema_find(pass, strlen(pass));
	js = params_parse(schemas[t], text, 0, a, &p, &err) ? err : params_str(&p, W_JSON);
	arena_free(a);
	return js;
}

TEST(both_forms_give_the_same_values_and_the_writers_read_back)
{
	static const struct { const char *pass, *yaml, *text, *json; } cases[] = {
		{"sfu", "{lambda: 8}", "lambda=8",
		 "{\"lambda\":8,\"approx\":[\"transcendental\",\"div\",\"sqrt\",\"rcp\",\"ftz\"],\"newton\":false}"},
		{"sfu", "{lambda: 48, approx: [div, sqrt], newton: true}", "lambda=48,approx=div+sqrt,newton=true",
		 "{\"lambda\":48,\"approx\":[\"div\",\"sqrt\"],\"newton\":true}"},
		{"sfu", "{lambda: 0, approx: rcp}", "approx=[rcp],lambda=0",
		 "{\"lambda\":0,\"approx\":[\"rcp\"],\"newton\":false}"},
		{"fiset", "", "", "{\"sets\":\"auto\",\"min_ratio\":1.5,\"max_sets\":64,\"warps\":0}"},
		{"fiset", "{sets: 3, min_ratio: 2.25}", "sets=3,min_ratio=2.25",
		 "{\"sets\":3,\"min_ratio\":2.25,\"max_sets\":64,\"warps\":0}"},
		{"fiset", "{sets: [0, 7]}", "sets=[0,7]", "{\"sets\":[0,7],\"min_ratio\":1.5,\"max_sets\":64,\"warps\":0}"},
		{"fiset", "{sets: [4]}", "sets=[4]", "{\"sets\":[4],\"min_ratio\":1.5,\"max_sets\":64,\"warps\":0}"},
		{"half2", "{type: bf16, pairing: blocks}", "pairing=blocks,type=bf16",
		 "{\"type\":\"bf16\",\"pairing\":\"blocks\",\"force\":false}"},
		{"half2", "{}", "", "{\"type\":\"f16\",\"pairing\":\"threads\",\"force\":false}"},
	};
	for (size_t i = 0; i < countof(cases); i++) {
		test_name = cases[i].text;
		char *y = yamljson(cases[i].pass, cases[i].yaml), *t = textjson(cases[i].pass, cases[i].text);
		CHECK_STR(y, cases[i].json);
		CHECK_STR(t, cases[i].json);
		/* the text form and YAML flow the writers make read back the same */
		struct params p;
		char *err;
		Arena *a = arena_new();
		int k = schema_find(cases[i].pass, strlen(cases[i].pass));
		CHECK(params_parse(schemas[k], cases[i].text, 0, a, &p, &err) == 0);
		char *text = params_str(&p, W_TEXT), *flow = params_str(&p, W_YAML);
		char *t2 = textjson(cases[i].pass, text), *y2 = yamljson(cases[i].pass, flow);
		CHECK_STR(t2, cases[i].json);
		CHECK_STR(y2, cases[i].json);
		free(y), free(t), free(text), free(flow), free(t2), free(y2);
		arena_free(a);
	}
}

TEST(tool_parameters_are_for_mpcc_opt_alone)
{
	struct params p;
	char *err;
	Arena *a = arena_new();
	CHECK(params_parse(schemas[0], "lambda=8,collapse=2", 1, a, &p, &err) == 0);
	CHECK(params_parse(schemas[0], "lambda=8,collapse=2", 0, a, &p, &err) == -1);
	CHECK_STR(err, "unknown key 'collapse' in 'sfu' (known: lambda, approx, newton)");
	free(err);
	char *y = yamlmsg("sfu", "{lambda: 8, fast: f.ptx}");
	CHECK_STR(y, "unknown key 'fast' in 'sfu' (known: lambda, approx, newton)");
	free(y);
	arena_free(a);
}

TEST(every_parameter_has_help_and_a_default_that_reads)
{
	for (int t = 0; t < nschema; t++) {
		struct params p;
		const struct schema *s = schemas[t];
		test_name = s->name;
		CHECK(s->help && *s->help && s->nparam > 0);
		for (int k = 0; k < s->nparam; k++)
			CHECK(s->param[k].help && *s->param[k].help);
		params_default(s, &p);  /* BUG()s on a default that does not convert */
	}
}

int
main(void)
{
	dir = test_tmp("u-params-XXXXXX");
	if (!mkdtemp(dir))
		return perror("mkdtemp"), 1;
	passes_init();
	RUN(the_same_mistake_gets_the_same_message_in_both_forms);
	RUN(both_forms_give_the_same_values_and_the_writers_read_back);
	RUN(tool_parameters_are_for_mpcc_opt_alone);
	RUN(every_parameter_has_help_and_a_default_that_reads);
	int failed = DONE();
	char *cmd = fmt("rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
	free(cmd);
	return failed;
}
