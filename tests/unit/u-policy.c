/* unit tests for policies/: loading, discovery, profiles, matching, the
 * report, explain and the hash. Each test builds its own directory tree
 * under a fresh temporary directory (loaded files are cached by path). */
#include "policies/policy.h"
#include "transforms/pass.h"
#include "tests/unit/test.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char *top;  /* the temporary directory of this run */

enum { T_SFU, T_FISET, T_HALF2 };  /* their places in passes.c's table */

/* parameter name of pass t in rule r: its integer (or word index, or bit
 * mask) and its number */
static long
iv(const struct rule *r, int t, const char *name)
{
	const struct schema *s = schemas[t];
	return r->param[t]->v[param_find(s, name, strlen(name))].i;
}

static double
xv(const struct rule *r, int t, const char *name)
{
	const struct schema *s = schemas[t];
	return r->param[t]->v[param_find(s, name, strlen(name))].x;
}

enum { SETS_AUTO, SETS_BEST, SETS_ALL };  /* fiset's words */

/* write text to top/rel, creating directories; returns the full path */
static char *
put(const char *rel, const char *text)
{
	char *path = fmt("%s/%s", top, rel);
	for (char *s = path + strlen(top) + 1; (s = strchr(s, '/')); s++) {
		*s = 0;
		mkdir(path, 0777);
		*s = '/';
	}
	CHECK(writefile(path, text, strlen(text)) == 0);
	return path;
}

static char *
at(const char *rel)
{
	return fmt("%s/%s", top, rel);
}

/* policy_profile with stderr captured into *msg (malloc'd) */
static int
profile_of(const char *cu, const char *pol, const char *prof, struct profile **p, char **msg)
{
	FILE *tmp = tmpfile();
	int saved = dup(2);
	fflush(stderr);
	dup2(fileno(tmp), 2);
	int r = policy_profile(cu, pol, prof, p);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	size_t n = ftell(tmp);
	*msg = xcalloc(1, n + 1);
	rewind(tmp);
	n = fread(*msg, 1, n, tmp);
	fclose(tmp);
	return r;
}

static const char *const sketch = SRCDIR "/tests/policy/good/sketch.yaml";

TEST(the_table_order_is_what_these_tests_assume)
{
	CHECK(nschema >= 3 && !strcmp(schemas[T_SFU]->name, "sfu"));
	CHECK(!strcmp(schemas[T_FISET]->name, "fiset") && !strcmp(schemas[T_HALF2]->name, "half2"));
}

TEST(the_design_sketch_loads_with_every_value)
{
	struct policy *p = policy_load(sketch);
	CHECK(p && p->root && !p->inherit && p->nprof == 3);
	if (!p)
		return;
	CHECK_STR(p->default_profile, "fast");
	CHECK(p->on_unsupported == UNSUP_WARN);
	struct pprofile *fast = &p->prof[1], *all = &p->prof[2];
	CHECK_STR(fast->name, "fast");
	CHECK(p->prof[0].nrule == 0 && fast->nrule == 3 && all->nrule == 4);
	struct rule *r = &fast->rule[0];
	CHECK(r->has == 1u << T_SFU && iv(r, T_SFU, "lambda") == 48 && !iv(r, T_SFU, "newton"));
	CHECK(iv(r, T_SFU, "approx") == (AX_TRANS | AX_DIV | AX_SQRT));
	CHECK(r->nfiles == 1 && !strcmp(r->files[0], "rng/*.cu"));
	CHECK(endswith(r->where, "sketch.yaml:11:9"));
	CHECK(xv(&fast->rule[1], T_FISET, "min_ratio") == 1.5 && iv(&fast->rule[1], T_FISET, "sets") == SETS_BEST);
	CHECK(fast->rule[2].has == 1u << T_HALF2 && iv(&fast->rule[2], T_HALF2, "type") == 0);
	r = &all->rule[0];
	CHECK(r->has == 7 && iv(r, T_SFU, "lambda") == 64 && iv(r, T_SFU, "approx") == AX_ALL && iv(r, T_SFU, "newton"));
	CHECK(xv(r, T_FISET, "min_ratio") == 2.25 && iv(r, T_FISET, "sets") == SETS_ALL);
	CHECK(iv(r, T_HALF2, "type") == 1 && iv(r, T_HALF2, "pairing") == 1);
	CHECK(all->rule[1].off == ((1u << T_SFU) | (1u << T_FISET)) && !all->rule[1].has);
	CHECK(iv(&all->rule[2], T_FISET, "sets") == SETS_N && xv(&all->rule[2], T_FISET, "sets") == 3 && xv(&all->rule[2], T_FISET, "min_ratio") == 1.5);
	CHECK_STR(all->rule[3].kernels[0], "nbody*");  /* an alias */
	CHECK(all->rule[3].has == 1u << T_HALF2);
	CHECK(all->on_unsupported == UNSUP_ERROR);
}

TEST(a_policy_of_just_the_version_is_valid)
{
	CHECK(policy_check(SRCDIR "/tests/policy/good/minimal.yaml") == 0);
}

TEST(every_preset_is_valid_and_names_its_default)
{
	static const char *const presets[] = {"accurate", "sfu", "fiset", "half2"};
	for (size_t i = 0; i < countof(presets); i++) {
		char *path = fmt("%s/policies/presets/%s.yaml", SRCDIR, presets[i]);
		struct profile *p;
		CHECK(policy_check(path) == 0);
		CHECK(policy_profile("k.cu", path, NULL, &p) == 0 && p && *p->name);
		free(path);
	}
}

TEST(check_sees_a_default_profile_defined_in_the_parent)
{
	put("chk/.mpcc.yaml", "version: 1\nroot: true\nprofiles: {fast: {}}\n");
	char *child = put("chk/sub/.mpcc.yaml", "version: 1\ndefault_profile: fast\n");
	CHECK(policy_check(child) == 0);
	char *alone = put("chk/alone/.mpcc.yaml", "version: 1\ninherit: false\ndefault_profile: fast\n"), *msg;
	FILE *tmp = tmpfile();
	int saved = dup(2);
	fflush(stderr);
	dup2(fileno(tmp), 2);
	CHECK(policy_check(alone) == -1);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	msg = xcalloc(1, 4096);
	rewind(tmp);
	CHECK(fread(msg, 1, 4095, tmp) > 0);
	fclose(tmp);
	char *want = fmt("%s:3:18: error: unknown profile 'fast' in 'default_profile'; known profiles: none\n", alone);
	CHECK_STR(msg, want);
}

TEST(discovery_takes_the_nearest_policy_above_the_source)
{
	char *pol = put("near/.mpcc.yaml", "version: 1\nroot: true\ndefault_profile: p\nprofiles: {p: {}}\n");
	put("near/a/b/k.cu", "");
	struct profile *p;
	CHECK(policy_profile(at("near/a/b/k.cu"), NULL, NULL, &p) == 0);
	CHECK(p && !strcmp(p->policy, pol) && !strcmp(p->name, "p") && p->nchain == 1);
	CHECK(p && p->from == NULL && startswith(p->why, "default_profile at "));
}

TEST(no_policy_file_means_no_profile)
{
	put("none/root/.mpcc.yaml", "version: 1\nroot: true\n");
	struct profile *p = (void *)1;
	CHECK(policy_profile(at("none/root/x.cu"), NULL, NULL, &p) == 0);
	CHECK(p && !strcmp(p->name, "") && p->nrule == 0);
	CHECK(!profile_may_apply(p, at("none/root/x.cu")));
	CHECK(!profile_may_apply(NULL, at("none/root/x.cu")));
}

static const char parent[] =
	"version: 1\nroot: true\ndefault_profile: fast\non_unsupported: silent\n"
	"profiles:\n"
	"  fast:\n    rules:\n      - kernels: ['*']\n        sfu: {lambda: 8}\n"
	"  parentonly: {}\n";
static const char child[] =
	"version: 1\n"
	"profiles:\n"
	"  fast:\n    rules:\n      - kernels: ['Box*']\n        sfu: {lambda: 48}\n"
	"  childonly: {}\n";

TEST(inherit_merges_the_parent_first_so_the_child_wins)
{
	put("inh/.mpcc.yaml", parent);
	put("inh/sub/.mpcc.yaml", child);
	struct profile *p;
	struct choice c;
	CHECK(policy_profile(at("inh/sub/k.cu"), NULL, NULL, &p) == 0 && p);
	CHECK(p->nchain == 2 && endswith(p->chain[1], "inh/.mpcc.yaml"));
	CHECK(p->nrule == 2 && p->on_unsupported == UNSUP_SILENT);
	profile_match(p, at("inh/sub/k.cu"), "_Z9BoxMullerPfi", NULL, &c);
	CHECK(c.rule[T_SFU] && iv(c.rule[T_SFU], T_SFU, "lambda") == 48);
	profile_match(p, at("inh/sub/k.cu"), "_Z5otherv", NULL, &c);
	CHECK(c.rule[T_SFU] && iv(c.rule[T_SFU], T_SFU, "lambda") == 8);
	CHECK(!c.rule[T_FISET] && !c.rule[T_HALF2]);
	/* profiles of both files are known */
	CHECK(policy_profile(at("inh/sub/k.cu"), NULL, "parentonly", &p) == 0);
	CHECK(policy_profile(at("inh/sub/k.cu"), NULL, "childonly", &p) == 0);
}

TEST(root_true_stops_discovery_before_a_broken_grandparent)
{
	put("stop/.mpcc.yaml", "version: 1\nthis is: [not valid\n");
	put("stop/mid/.mpcc.yaml", "version: 1\nroot: true\n");
	put("stop/mid/sub/.mpcc.yaml", "version: 1\n");
	struct profile *p;
	CHECK(policy_profile(at("stop/mid/sub/k.cu"), NULL, NULL, &p) == 0);
	CHECK(p && p->nchain == 2);
	char *msg;
	CHECK(profile_of(at("stop/k.cu"), NULL, NULL, &p, &msg) == -1);
	CHECK(strstr(msg, "stop/.mpcc.yaml:3:1: error: "));
}

TEST(inherit_false_ignores_the_parent)
{
	put("noinh/.mpcc.yaml", parent);
	put("noinh/sub/.mpcc.yaml", "version: 1\ninherit: false\nprofiles: {fast: {}}\ndefault_profile: fast\n");
	struct profile *p;
	CHECK(policy_profile(at("noinh/sub/k.cu"), NULL, NULL, &p) == 0);
	CHECK(p && p->nchain == 1 && p->nrule == 0 && p->on_unsupported == UNSUP_WARN);
}

TEST(policy_option_and_environment_replace_discovery)
{
	put("opt/.mpcc.yaml", parent);
	char *other = put("elsewhere/pol.yaml", child);
	struct profile *p;
	CHECK(policy_profile(at("opt/k.cu"), other, "fast", &p) == 0);
	CHECK(p && p->nchain == 1 && !strcmp(p->policy, other) && p->nrule == 1);
	CHECK(p && !strcmp(p->from, "--mpcc-policy"));
	setenv("MPCC_POLICY", other, 1);
	setenv("MPCC_PROFILE", "childonly", 1);
	CHECK(policy_profile(at("opt/k.cu"), NULL, NULL, &p) == 0);
	CHECK(p && !strcmp(p->from, "MPCC_POLICY") && !strcmp(p->name, "childonly"));
	CHECK(p && !strcmp(p->why, "MPCC_PROFILE"));
	/* the options win over the environment */
	CHECK(policy_profile(at("opt/k.cu"), at("opt/.mpcc.yaml"), "parentonly", &p) == 0);
	CHECK(p && !strcmp(p->name, "parentonly") && !strcmp(p->why, "--mpcc-profile"));
	setenv("MPCC_POLICY", "", 1);  /* empty: unset */
	unsetenv("MPCC_PROFILE");
	CHECK(policy_profile(at("opt/k.cu"), NULL, NULL, &p) == 0);
	CHECK(p && p->from == NULL && !strcmp(p->name, "fast"));
	unsetenv("MPCC_POLICY");
}

TEST(an_unknown_profile_lists_the_known_ones)
{
	char *pol = put("unk/.mpcc.yaml", parent), *msg;
	struct profile *p;
	CHECK(profile_of(at("unk/k.cu"), NULL, "fats", &p, &msg) == -1 && !p);
	char *want = fmt("%s: error: unknown profile 'fats' from --mpcc-profile "
	                 "(did you mean 'fast'?); known profiles: fast, parentonly\n", pol);
	CHECK_STR(msg, want);
	setenv("MPCC_PROFILE", "slow", 1);
	CHECK(profile_of(at("unk/k.cu"), NULL, NULL, &p, &msg) == -1);
	want = fmt("%s: error: unknown profile 'slow' from MPCC_PROFILE; known profiles: fast, parentonly\n", pol);
	CHECK_STR(msg, want);
	unsetenv("MPCC_PROFILE");
}

TEST(a_broken_policy_fails_with_its_position)
{
	char *pol = put("broken/.mpcc.yaml", "version: 1\nprofiles:\n  fast:\n    rules:\n"
	                "      - kernels: [a]\n        sfu: {lambda: 65}\n"), *msg;
	struct profile *p;
	CHECK(profile_of(at("broken/k.cu"), NULL, NULL, &p, &msg) == -1);
	char *want = fmt("%s:6:23: error: 'lambda' must be between 0 and 64, not 65\n", pol);
	CHECK_STR(msg, want);
}

static const char rules[] =
	"version: 1\nroot: true\ndefault_profile: p\nprofiles:\n  p:\n    rules:\n"
	"      - kernels: ['*']\n        sfu: {lambda: 16}\n        fiset: {}\n"
	"      - kernels: ['Box*']\n        sfu: {lambda: 32}\n"
	"      - kernels: ['BoxMullerExact']\n        sfu: off\n"
	"      - kernels: ['ns::tmpl<*>']\n        half2: {type: bf16}\n"
	"      - kernels: ['_Z4polyPfi']\n        half2: {}\n"
	"      - kernels: ['scale(float*, int)']\n        fiset: {min_ratio: 3}\n"
	"      - kernels: ['*::anon']\n        fiset: {min_ratio: 4}\n";

TEST(later_rules_win_for_each_transform)
{
	put("match/.mpcc.yaml", rules);
	struct profile *p;
	struct choice c;
	char *cu = at("match/k.cu");
	CHECK(policy_profile(cu, NULL, NULL, &p) == 0 && p);
	profile_match(p, cu, "_Z9BoxMullerPfi", "BoxMuller(float*, int)", &c);
	CHECK(c.rule[T_SFU] && iv(c.rule[T_SFU], T_SFU, "lambda") == 32);
	CHECK(c.rule[T_FISET] && xv(c.rule[T_FISET], T_FISET, "min_ratio") == 1.5);
	profile_match(p, cu, "_Z14BoxMullerExactPf", NULL, &c);
	CHECK(!c.rule[T_SFU] && c.rule[T_FISET]);
	profile_match(p, cu, "_Z5otherv", NULL, &c);
	CHECK(c.rule[T_SFU] && iv(c.rule[T_SFU], T_SFU, "lambda") == 16 && !c.rule[T_HALF2]);
}

TEST(kernel_globs_see_mangled_demangled_and_short_names)
{
	put("names/.mpcc.yaml", rules);
	struct profile *p;
	struct choice c;
	char *cu = at("names/k.cu");
	CHECK(policy_profile(cu, NULL, NULL, &p) == 0 && p);
	/* "void ns::tmpl<int>(float*)": template names carry a return type */
	profile_match(p, cu, "_ZN2ns4tmplIiEEvPf", NULL, &c);
	CHECK(c.rule[T_HALF2] && iv(c.rule[T_HALF2], T_HALF2, "type") == 1);
	profile_match(p, cu, "_Z4polyPfi", NULL, &c);  /* mangled glob */
	CHECK(c.rule[T_HALF2] && iv(c.rule[T_HALF2], T_HALF2, "type") == 0);
	profile_match(p, cu, "_Z5scalePfi", NULL, &c);  /* full demangled glob */
	CHECK(c.rule[T_FISET] && xv(c.rule[T_FISET], T_FISET, "min_ratio") == 3);
	/* "(anonymous namespace)::anon(float*)": parentheses that are not parameters */
	profile_match(p, cu, "_ZN12_GLOBAL__N_14anonEPf", NULL, &c);
	CHECK(c.rule[T_FISET] && xv(c.rule[T_FISET], T_FISET, "min_ratio") == 4);
	profile_match(p, cu, "bodyForce", "bodyForce", &c);  /* extern "C" */
	CHECK(c.rule[T_SFU] && iv(c.rule[T_SFU], T_SFU, "lambda") == 16);
}

/* the one name test of a kernel: a policy's kernels, mpcc-opt's
 * kernels=, mpcc-tune's --kernels and its knobs all ask kernel_named() */
TEST(a_glob_names_a_kernel_by_any_name_it_is_given)
{
	const char *m = "_ZN2ns4tmplIiEEvPf", *d = "void ns::tmpl<int>(float*)";
	CHECK(kernel_named("_ZN2ns*", m, d, NULL));
	CHECK(kernel_named("void ns::tmpl<*>(*)", m, d, NULL));
	CHECK(!kernel_named("ns::tmpl<*>", m, d, NULL));
	CHECK(kernel_named("ns::tmpl<*>", m, d, "ns::tmpl<int>"));
	CHECK(kernel_named("ns::tmpl<*>", NULL, NULL, "ns::tmpl<int>"));
	CHECK(!kernel_named("*", NULL, NULL, NULL));
	CHECK(!kernel_named("other", m, d, "ns::tmpl<int>"));
}

TEST(files_globs_are_relative_to_the_policy_directory)
{
	put("files/.mpcc.yaml",
	    "version: 1\ndefault_profile: p\nroot: true\nprofiles:\n  p:\n    rules:\n"
	    "      - {kernels: ['*'], files: ['rng/*.cu'], sfu: {lambda: 1}}\n"
	    "      - {kernels: ['*'], files: ['*_fast.cu'], sfu: {lambda: 2}}\n"
	    "      - {kernels: ['*'], files: ['deep/**/x.cu'], sfu: {lambda: 3}}\n");
	struct profile *p;
	struct choice c;
	CHECK(policy_profile(at("files/rng/a.cu"), NULL, NULL, &p) == 0 && p);
	struct { const char *cu; int lambda; } cases[] = {
		{"files/rng/a.cu", 1}, {"files/rng/sub/a.cu", 0}, {"files/a.cu", 0},
		{"files/x/y/k_fast.cu", 2}, {"files/deep/x.cu", 3}, {"files/deep/a/b/x.cu", 3},
		{"files/deep/a/b/y.cu", 0},
	};
	for (size_t i = 0; i < countof(cases); i++) {
		char *cu = at(cases[i].cu);
		profile_match(p, cu, "k", "k", &c);
		int got = c.rule[T_SFU] ? iv(c.rule[T_SFU], T_SFU, "lambda") : 0;
		if (got != cases[i].lambda)
			fprintf(stderr, "  %s: lambda %d\n", cases[i].cu, got);
		CHECK(got == cases[i].lambda);
		CHECK(profile_may_apply(p, cu) == (cases[i].lambda != 0));
	}
	/* a relative source path counts from the working directory */
	char cwd[4096];
	CHECK(getcwd(cwd, sizeof cwd) != NULL);
	CHECK(chdir(at("files")) == 0);
	CHECK(profile_may_apply(p, "rng/a.cu") && !profile_may_apply(p, "a.cu"));
	CHECK(chdir(cwd) == 0);
}

TEST(a_profile_of_off_rules_only_passes_through)
{
	put("offonly/.mpcc.yaml", "version: 1\nroot: true\ndefault_profile: p\nprofiles:\n  p:\n"
	    "    rules: [{kernels: ['*'], sfu: off}]\n");
	struct profile *p;
	CHECK(policy_profile(at("offonly/k.cu"), NULL, NULL, &p) == 0);
	CHECK(p && p->nrule == 1 && !profile_may_apply(p, at("offonly/k.cu")));
}

TEST(rule_params_are_json)
{
	struct policy *p = policy_load(sketch);
	if (!p)
		return;
	char *s = params_str(p->prof[1].rule[0].param[T_SFU], W_JSON);
	CHECK_STR(s, "{\"lambda\":48,\"approx\":[\"transcendental\",\"div\",\"sqrt\"],\"newton\":false}");
	s = params_str(p->prof[2].rule[0].param[T_FISET], W_JSON);
	CHECK_STR(s, "{\"sets\":\"all\",\"min_ratio\":2.25,\"max_sets\":64,\"warps\":0}");
	s = params_str(p->prof[2].rule[2].param[T_FISET], W_JSON);
	CHECK_STR(s, "{\"sets\":3,\"min_ratio\":1.5,\"max_sets\":64,\"warps\":0}");
	s = params_str(p->prof[2].rule[0].param[T_HALF2], W_JSON);
	CHECK_STR(s, "{\"type\":\"bf16\",\"pairing\":\"blocks\",\"force\":false}");
	CHECK(p->prof[1].rule[0].param[T_HALF2] == NULL);  /* no such block */
}

TEST(report_lines_escape_strings)
{
	struct report r = {.src = "a\"b\\c.cu", .arch = "compute_90", .mangled = "_Z1kv",
	                   .demangled = "k()", .transform = "sfu", .params = "{\"lambda\":1}",
	                   .applied = 0, .reason = "line\nbreak\x01"};
	CHECK_STR(report_line(&r),
	          "{\"src\":\"a\\\"b\\\\c.cu\",\"arch\":\"compute_90\",\"mangled\":\"_Z1kv\","
	          "\"demangled\":\"k()\",\"transform\":\"sfu\",\"params\":{\"lambda\":1},"
	          "\"applied\":false,\"reason\":\"line\\nbreak\\u0001\",\"stats\":{}}");
	r.profile = "fast";
	r.rule = "p.yaml:3:7";
	r.applied = 1;
	r.reason = NULL;
	r.stats = "{\"n\":2}";
	CHECK(strstr(report_line(&r), "\"profile\":\"fast\",\"rule\":\"p.yaml:3:7\","));
	CHECK(endswith(report_line(&r), "\"applied\":true,\"reason\":null,\"stats\":{\"n\":2}}"));
}

/* a compile appends a line for every kernel: the warning comes once */
TEST(a_report_that_cannot_be_written_warns_once_and_fails)
{
	struct report r = {.src = "k.cu", .transform = "sfu"};
	FILE *tmp = tmpfile();
	int saved = dup(2);
	fflush(stderr);
	dup2(fileno(tmp), 2);
	int st = report_append(at("no/such/dir/report.jsonl"), &r);
	int st2 = report_append(at("no/such/dir/report.jsonl"), &r);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	char msg[512] = "";
	rewind(tmp);
	CHECK(fread(msg, 1, sizeof msg - 1, tmp) > 0);
	fclose(tmp);
	CHECK(st == -1 && st2 == -1);
	const char *first = strstr(msg, "mpcc: warning: cannot append to report '");
	CHECK(first && strstr(msg, "No such file or directory"));
	CHECK(first && !strstr(first + strlen("mpcc: warning: cannot append"), "cannot append"));
}

/* 8 processes append 200 lines each, all at once: every line comes out whole */
TEST(concurrent_report_appends_never_interleave)
{
	enum { WRITERS = 8, LINES = 200 };
	char *path = at("report.jsonl");
	/* a long reason makes each line bigger than a pipe buffer's atomic size */
	char *reason = xcalloc(1, 5000);
	memset(reason, 'r', 4999);
	for (int w = 0; w < WRITERS; w++) {
		if (fork() == 0) {
			for (int i = 0; i < LINES; i++) {
				char src[32], kern[32];
				snprintf(src, sizeof src, "w%d.cu", w);
				snprintf(kern, sizeof kern, "k%d", i);
				struct report r = {.src = src, .mangled = kern, .demangled = kern,
				                   .transform = "sfu", .reason = i % 2 ? reason : NULL};
				if (report_append(path, &r) < 0)
					_exit(1);
			}
			_exit(0);
		}
	}
	int ok = 1, status;
	while (wait(&status) > 0)
		ok &= WIFEXITED(status) && WEXITSTATUS(status) == 0;
	CHECK(ok);
	size_t len;
	char *text = readfile(path, &len);
	int seen[WRITERS][LINES] = {{0}}, n = 0;
	for (char *line = text, *nl; line && (nl = strchr(line, '\n')); line = nl + 1, n++) {
		*nl = 0;
		int w = -1, i = -1;
		CHECK(sscanf(line, "{\"src\":\"w%d.cu\",\"arch\":null,\"mangled\":\"k%d\"", &w, &i) == 2);
		if (w < 0 || w >= WRITERS || i < 0 || i >= LINES)
			continue;
		seen[w][i]++;
		struct report r = {.src = fmt("w%d.cu", w), .mangled = fmt("k%d", i),
		                   .demangled = fmt("k%d", i), .transform = "sfu",
		                   .reason = i % 2 ? reason : NULL};
		CHECK_STR(line, report_line(&r));
	}
	CHECK(n == WRITERS * LINES);
	for (int w = 0; w < WRITERS; w++)
		for (int i = 0; i < LINES; i++)
			CHECK(seen[w][i] == 1);
	/* and every line parses as JSON */
	if (system("python3 -c '' 2>/dev/null") == 0) {
		char *cmd = fmt("python3 -c 'import json,sys\n"
		                "n = sum(1 for l in open(sys.argv[1]) if json.loads(l))\n"
		                "sys.exit(n != %d)' %s", WRITERS * LINES, path);
		CHECK(system(cmd) == 0);
	}
}

static char *
explained(struct profile *p, const char *cu, const char *mangled)
{
	char *buf = NULL;
	size_t n;
	FILE *f = open_memstream(&buf, &n);
	explain_kernel(f, p, cu, mangled, NULL, NULL, NULL);
	fclose(f);
	return buf;
}

TEST(explain_names_the_policy_profile_and_rule)
{
	put("expl/.mpcc.yaml", parent);
	char *pol = put("expl/sub/.mpcc.yaml", child), *cu = at("expl/sub/k.cu");
	struct profile *p;
	CHECK(policy_profile(cu, NULL, NULL, &p) == 0 && p);
	char *want = fmt("%s: kernel 'BoxMuller(float*, int)' (_Z9BoxMullerPfi)\n"
	                 "  policy:  %s (inherits %s/expl/.mpcc.yaml)\n"
	                 "  profile: fast (default_profile at %s/expl/.mpcc.yaml:3:18)\n"
	                 "  sfu:     rule at %s:5:9: lambda=48 approx=[transcendental, div, sqrt, rcp, ftz] newton=false\n"
	                 "           warps with %%warpid < 48 run the fast path (transcendental, div, sqrt, rcp, ftz), the others the accurate one\n",
	                 cu, pol, top, top, pol);
	CHECK_STR(explained(p, cu, "_Z9BoxMullerPfi"), want);
	CHECK(policy_profile(cu, NULL, "childonly", &p) == 0 && p);
	want = fmt("%s: kernel 'BoxMuller(float*, int)' (_Z9BoxMullerPfi)\n"
	           "  policy:  %s (inherits %s/expl/.mpcc.yaml)\n"
	           "  profile: childonly (--mpcc-profile)\n"
	           "  no rule applies: nvcc's code is kept\n", cu, pol, top);
	CHECK_STR(explained(p, cu, "_Z9BoxMullerPfi"), want);
	CHECK_STR(explained(NULL, "x.cu", "k"),
	          "x.cu: kernel 'k'\n"
	          "  policy:  none (no .mpcc.yaml at or above the source's directory)\n"
	          "  no rule applies: nvcc's code is kept\n");
}

TEST(explain_says_when_a_rule_switches_a_transform_off)
{
	put("explo/.mpcc.yaml", rules);
	char *cu = at("explo/k.cu");
	struct profile *p;
	CHECK(policy_profile(cu, NULL, NULL, &p) == 0 && p);
	char *s = explained(p, cu, "_Z14BoxMullerExactPf");
	CHECK(strstr(s, "  sfu:     off, by the rule at "));
	CHECK(strstr(s, "/explo/.mpcc.yaml:12:9\n  fiset:   rule at "));
	CHECK(strstr(s, "sets=auto min_ratio=1.5 max_sets=64 warps=0\n           lowers to f32 the sets of f64 operations that the cost model predicts to pay on each target\n"));
}

TEST(the_hash_follows_policies_and_profile)
{
	put("hash/proj/.mpcc.yaml", "version: 1\n");
	char *deep = put("hash/proj/src/gpu/.mpcc.yaml", "version: 1\nprofiles: {fast: {}}\n");
	put("hash/proj/src/gpu/k.cu", "");
	char *d = at("hash/proj"), *cu = at("hash/proj/src/gpu/k.cu");
	/* an empty directory in the tree (UBSan caught qsort(NULL, 0) on one) */
	char *empty = at("hash/proj/empty");
	CHECK(mkdir(empty, 0755) == 0);
	char *h1 = policy_hash(d, NULL, NULL), *f1 = policy_hash(cu, NULL, NULL);
	CHECK(strlen(h1) == 32 && strspn(h1, "0123456789abcdef") == 32);
	CHECK_STR(policy_hash(d, NULL, NULL), h1);
	CHECK(strcmp(policy_hash(d, NULL, "fast"), h1));
	setenv("MPCC_PROFILE", "fast", 1);
	CHECK_STR(policy_hash(d, NULL, NULL), policy_hash(d, NULL, "fast"));
	unsetenv("MPCC_PROFILE");
	/* an edit below the directory changes it; so does one in the source's chain */
	writefile(deep, "version: 1\nprofiles: {slow: {}}\n", 33);
	CHECK(strcmp(policy_hash(d, NULL, NULL), h1));
	CHECK(strcmp(policy_hash(cu, NULL, NULL), f1));
	/* the working directory stands for NULL */
	char cwd[4096];
	CHECK(getcwd(cwd, sizeof cwd) != NULL);
	CHECK(chdir(d) == 0);
	CHECK_STR(policy_hash(NULL, NULL, NULL), policy_hash(d, NULL, NULL));
	CHECK(chdir(cwd) == 0);
	/* MPCC_POLICY's contents count, not only its name */
	char *pol = put("hash/pol.yaml", "version: 1\n");
	char *p1 = policy_hash(d, pol, NULL);
	writefile(pol, "version: 1\n#\n", 13);
	CHECK(strcmp(policy_hash(d, pol, NULL), p1));
}

/* the one walk up to the root: nearest first, directories without a
 * policy skipped, and past "/" the end */
TEST(the_walk_takes_every_policy_up_to_the_root)
{
	char *a = put("walk/.mpcc.yaml", "version: 1\n");
	char *b = put("walk/x/y/.mpcc.yaml", "version: 1\n");
	char *walk = fmt("%s/walk/x/y", top), *p;
	CHECK_STR(p = policy_next(&walk), b);
	free(p);
	CHECK_STR(p = policy_next(&walk), a);
	free(p);
	while ((p = policy_next(&walk)))   /* what lies above top: not ours */
		free(p);
	CHECK(walk == NULL);
	walk = xstrdup("/");
	while ((p = policy_next(&walk))) {
		CHECK_STR(p, "/.mpcc.yaml");
		free(p);
	}
	CHECK(walk == NULL);
}

int
main(void)
{
	char *tmpl = test_tmp("u-policy-XXXXXX");
	top = mkdtemp(tmpl);
	if (!top)
		return perror("mkdtemp"), 1;
	top = realpath(top, NULL);
	unsetenv("MPCC_POLICY");
	unsetenv("MPCC_PROFILE");
	passes_init();
	RUN(the_table_order_is_what_these_tests_assume);
	RUN(the_walk_takes_every_policy_up_to_the_root);
	RUN(the_design_sketch_loads_with_every_value);
	RUN(a_policy_of_just_the_version_is_valid);
	RUN(every_preset_is_valid_and_names_its_default);
	RUN(check_sees_a_default_profile_defined_in_the_parent);
	RUN(discovery_takes_the_nearest_policy_above_the_source);
	RUN(no_policy_file_means_no_profile);
	RUN(inherit_merges_the_parent_first_so_the_child_wins);
	RUN(root_true_stops_discovery_before_a_broken_grandparent);
	RUN(inherit_false_ignores_the_parent);
	RUN(policy_option_and_environment_replace_discovery);
	RUN(an_unknown_profile_lists_the_known_ones);
	RUN(a_broken_policy_fails_with_its_position);
	RUN(later_rules_win_for_each_transform);
	RUN(kernel_globs_see_mangled_demangled_and_short_names);
	RUN(a_glob_names_a_kernel_by_any_name_it_is_given);
	RUN(files_globs_are_relative_to_the_policy_directory);
	RUN(a_profile_of_off_rules_only_passes_through);
	RUN(rule_params_are_json);
	RUN(report_lines_escape_strings);
	RUN(a_report_that_cannot_be_written_warns_once_and_fails);
	RUN(concurrent_report_appends_never_interleave);
	RUN(explain_names_the_policy_profile_and_rule);
	RUN(explain_says_when_a_rule_switches_a_transform_off);
	RUN(the_hash_follows_policies_and_profile);
	int failed = DONE();
	if (!failed) {
		char *cmd = fmt("rm -rf '%s'", top);
		if (system(cmd) != 0)
			fprintf(stderr, "cannot remove %s\n", top);
	}
	return failed;
}
