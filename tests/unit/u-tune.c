/* unit tests for mpcc-tune's parts that need no build: the numbers of an
 * output and the metrics, the report reader, MPCC_SET of a setting, the
 * searches against a model whose time and error are known functions of
 * the setting (HEU, linear, exhaustive, failures, FISet modes 1-3), and
 * the profile editor on commented policy files. */
#include "tune/output/output.h"
#include "tests/unit/test.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- outputs and metrics ---- */

TEST(numbers_reads_every_number_in_order)
{
	const char *t = "f[0] = (1.5, -2e-3) x=7 nan -inf sm_90 information 3.\n1.2.3 +4";
	long n;
	double *v = numbers(t, strlen(t), O_TEXT, &n);
	CHECK(n == 9);   /* "sm_90" and "information" are words; "1.2.3" is 1.2 */
	if (n == 9) {
		CHECK(v[0] == 0 && v[1] == 1.5 && v[2] == -2e-3 && v[3] == 7);
		CHECK(isnan(v[4]) && isinf(v[5]) && v[5] < 0 && v[6] == 3 && v[7] == 1.2 && v[8] == 4);
	}
	free(v);
}

TEST(numbers_reads_raw_f32_and_f64)
{
	float f[3] = {1.5f, -2, 3.25f};
	double d[2] = {1e300, -0.5};
	long n;
	double *v = numbers((char *)f, sizeof f, O_F32, &n);
	CHECK(n == 3 && v[0] == 1.5 && v[1] == -2 && v[2] == 3.25);
	free(v);
	v = numbers((char *)d, sizeof d, O_F64, &n);
	CHECK(n == 2 && v[0] == 1e300 && v[1] == -0.5);
	free(v);
}

TEST(stdout_numbers_leave_out_the_time_and_mpcc_lines)
{
	regex_t re;
	const char *t = "x 1\ntime_ms=3.5\nmpcc-time k 3 400\ny 2\n";
	CHECK(regcomp(&re, "time_ms=([0-9.]+)", REG_EXTENDED) == 0);
	long n;
	char *w;
	double *v = outnumbers(t, strlen(t), &re, &n, &w, NULL);
	CHECK(n == 2 && v[0] == 1 && v[1] == 2);
	CHECK(!strcmp(w, "x #\ny #\n"));
	free(v), free(w);
	regfree(&re);
}

/* HeCBench's kalman: a time for each configuration and PASS; the pattern
 * names the last time, and the others are timers too */
TEST(stdout_lines_shaped_as_the_time_are_left_out)
{
	regex_t re;
	const char *t = "time (n = 0): 0.83 (s)\nPASS\ntime (n = 1): 0.91 (s)\n  max  err 1e-3\t at 4\n"
	                "time (n = 7): 0.91 (s)\n";
	CHECK(regcomp(&re, "time \\(n = 7\\): ([0-9.]+)", REG_EXTENDED) == 0);
	long n;
	char *w;
	double *v = outnumbers(t, strlen(t), &re, &n, &w, NULL);
	CHECK(n == 2 && v[0] == 1e-3 && v[1] == 4);
	CHECK(!strcmp(w, "PASS\n max err # at #\n"));
	free(v), free(w);
	regfree(&re);
}

/* LULESH 2.0 and RSBench: times and rates beside the figure of merit */
TEST(stdout_lines_that_name_a_time_or_a_rate_are_left_out)
{
	regex_t re;
	const char *t = "Final Origin Energy = 1.9e+07\nElapsed time = 0.14 (s)\nGrind time = 0.5\n"
	                "FOM = 1922545 (z/s)\nLookups/s: 11,971,831\nInit done (0.03 seconds)\n"
	                "Lookups: 10\nsm_90 2\n";
	CHECK(regcomp(&re, "Grind time = ([0-9.]+)", REG_EXTENDED) == 0);
	long n;
	char *w, *tm;
	double *v = outnumbers(t, strlen(t), &re, &n, &w, &tm);
	CHECK(n == 3 && v[0] == 1.9e7 && v[1] == 10 && v[2] == 2);
	CHECK(!strcmp(w, "Final Origin Energy = #\nLookups: #\nsm_90 #\n"));
	CHECK(!strcmp(tm, "Elapsed time = # (s)\nFOM = # (z/s)\nLookups/s: #,#,#\nInit done (# seconds)\n"));
	free(v), free(w), free(tm);
	regfree(&re);
}

TEST(words_differ_where_a_line_does)
{
	char *d = wordsdiffer("a #\nPASS\n", "a #\nFAIL\n");
	CHECK(d && !strcmp(d, "'FAIL' where the baseline's says 'PASS'"));
	free(d);
	CHECK(!wordsdiffer("a #\nPASS\n", "a #\nPASS\n"));
	d = wordsdiffer("a #\n", "a #\nextra\n");
	CHECK(d && !strcmp(d, "'extra' where the baseline's says ''"));
	free(d);
}

TEST(metrics_are_the_papers)
{
	double b[4] = {1, 2, -4, 0}, x[4] = {1.1, 2, -4.4, 0};
	struct errors e;
	CHECK(compare(b, 4, x, 4, NULL, &e) == V_OK);
	CHECK(fabs(e.mean - 0.05) < 1e-12);   /* (0.1 + 0 + 0.1 + 0) / 4 */
	CHECK(fabs(e.max - 0.1) < 1e-12);
	/* ||x - b|| / ||b|| = sqrt(0.01 + 0.16) / sqrt(21) */
	CHECK(fabs(e.fro - sqrt(0.17 / 21)) < 1e-12);
	CHECK(fabs(e.digits - 1) < 1e-9);
	CHECK(metric(&e, M_MAX) == e.max && metric(&e, M_DIGITS) == e.digits);
}

TEST(compare_fails_nan_inf_and_counts)
{
	double b[3] = {1, 2, NAN}, x[3] = {1, INFINITY, NAN}, y[3] = {1, 2, NAN}, z[3] = {1, 2, 3};
	struct errors e;
	CHECK(compare(b, 3, x, 3, NULL, &e) == V_NAN);
	CHECK(compare(b, 3, y, 3, NULL, &e) == V_OK && e.max == 0 && e.digits == 17);
	CHECK(compare(b, 3, z, 3, NULL, &e) == V_NAN);   /* the baseline's NaN must come back */
	CHECK(compare(b, 3, y, 2, NULL, &e) == V_COUNT);
	double zb[1] = {0}, zx[1] = {1e-9};
	CHECK(compare(zb, 1, zx, 1, NULL, &e) == V_OK && e.max == 1);
}

TEST(compare_leaves_out_what_skip_marks)
{
	/* the third number is a rate the baseline's runs do not repeat */
	double b[3] = {1, 2, 6600}, x[3] = {1.1, 2, 9900};
	char skip[3] = {0, 0, 1};
	struct errors e;
	CHECK(compare(b, 3, x, 3, skip, &e) == V_OK);
	CHECK(fabs(e.mean - 0.05) < 1e-12 && fabs(e.max - 0.1) < 1e-12);   /* of two numbers */
	CHECK(fabs(e.fro - sqrt(0.01 / 5)) < 1e-12);
	CHECK(compare(b, 3, x, 3, NULL, &e) == V_OK && fabs(e.max - 0.5) < 1e-12);
	/* left out, but never NaN, of another sign or 10x off */
	double y[3] = {1.1, 2, NAN}, z[3] = {1.1, 2, -6600}, w[3] = {1.1, 2, 66001};
	CHECK(compare(b, 3, y, 3, skip, &e) == V_NAN);
	CHECK(compare(b, 3, z, 3, skip, &e) == V_OK && fabs(e.max - 2) < 1e-12);
	CHECK(compare(b, 3, w, 3, skip, &e) == V_OK && e.max > 9);
}

TEST(median_of_odd_and_even)
{
	double a[5] = {5, 1, 4, 2, 3}, b[4] = {4, 1, 3, 2};
	CHECK(median(a, 5) == 3 && median(b, 4) == 2.5);
}

TEST(jget_reads_report_fields)
{
	const char *l = "{\"src\":\"a\\\"b.cu\",\"params\":{\"lambda\":32,\"approx\":[\"div\"]},"
	                "\"applied\":true,\"reason\":null,\"stats\":{\"sets\":[{\"id\":3}]}}";
	char *v = jget(l, "src");
	CHECK_STR(v, "a\"b.cu");
	free(v);
	v = jget(l, "params");
	CHECK_STR(v, "{\"lambda\":32,\"approx\":[\"div\"]}");
	free(v);
	v = jget(l, "applied");
	CHECK_STR(v, "true");
	free(v);
	v = jget(l, "reason");
	CHECK_STR(v, "null");
	free(v);
	CHECK(jget(l, "nope") == NULL);
	char *st = jget(l, "stats");
	v = jget(st, "sets");
	CHECK_STR(v, "[{\"id\":3}]");
	free(v), free(st);
}

/* a pass restates a figure of its stats (pass.h, recount) */
TEST(jset_replaces_one_top_level_value)
{
	const char *l = "{\"f64_ops\":5,\"f64_ops_after\":0,\"set\":[{\"f64_ops_after\":7}]}";
	char *v = jset(l, "f64_ops_after", "2");
	CHECK_STR(v, "{\"f64_ops\":5,\"f64_ops_after\":2,\"set\":[{\"f64_ops_after\":7}]}");
	free(v);
	v = jset(l, "nope", "1");
	CHECK_STR(v, l);
	free(v);
}

TEST(setting_env_switches_everything_else_off)
{
	struct setting s = {0};
	char *e = setting_env(&s);
	CHECK_STR(e, "off");
	free(e);
	setting_add(&s, pass_find("sfu"), "_Z3hotv", "lambda=32");
	setting_add(&s, pass_find("fiset"), "k2", "sets=[3]");
	e = setting_env(&s);
	CHECK_STR(e, "off;sfu:lambda=32,kernels=_Z3hotv;fiset:sets=[3],kernels=k2");
	free(e);
	setting_release(&s);
}

/* ---- the searches, against a model ---- */

struct model {
	double (*err)(double lambda);
	int failfrom;              /* lambda >= failfrom fails (crash); 0: never */
	int exact;                 /* the shadow build finds no error anywhere */
	int evals, batches;
	char dir[PATH_MAX];
};

static double
quadratic(double l)
{
	return 1e-3 * (l / 64) * (l / 64);
}

static double
linear_err(double l)
{
	return 2e-7 * l / 64;
}

/* a non-monotone curve with a bump at 40 (004: NBO, CFD, BIF) */
static double
bumpy(double l)
{
	return l == 40 ? 9e-7 : 1e-8 * l;
}

/* lambda of an sfu knob, fiset set of a fiset knob */
static long
knobval(const struct trial *t, const char *pass, const char *key)
{
	for (int i = 0; i < t->set.n; i++)
		if (!strcmp(passes[t->set.k[i].pass]->schema.name, pass)) {
			const char *p = strstr(t->set.k[i].params, key);
			return p ? atol(p + strlen(key)) : -2;
		}
	return -1;
}

/* fiset model: sets 1..4 with (error, time factor, r_ac, predicted); a
 * list of sets adds their errors and multiplies their factors; "all" is
 * every set, "auto" (the pass's own choice) set 2 */
static const double fsets[5][4] = {{0}, {4e-6, 0.80, 2, 1.25}, {1e-8, 0.97, 5, 1.03},
                                   {2e-7, 0.90, 9, 1.11}, {5e-5, 0.70, 3, 1.43}};

static void
modelset(struct tuner *tu, struct trial *t, double time, double err)
{
	t->verdict = V_OK;
	t->time = t->wall = time;
	t->e = (struct errors){err, err, err, err > 0 ? -log10(err) : 17, 8};
	t->err = metric(&t->e, tu->o->metric);
	t->meets = t->set.n && qos_met(tu, &t->e);
}

/* the sets of a fiset knob as a bit mask; -1 if none */
static int
setmask(const struct trial *t)
{
	for (int i = 0; i < t->set.n; i++) {
		if (strcmp(passes[t->set.k[i].pass]->schema.name, "fiset"))
			continue;
		const char *p = t->set.k[i].params;
		if (!strcmp(p, "sets=all"))
			return 0x1e;
		if (!strcmp(p, "sets=auto"))
			return 1 << 2;
		int m = 0;
		for (p = strchr(p, '['); p && *p && *p != ']'; p++)
			if (*p >= '0' && *p <= '9')
				m |= 1 << strtol(p, (char **)&p, 10), p--;
		return m;
	}
	return -1;
}

static const char fisetreport[] =
	"{\"mangled\":\"k\",\"transform\":\"fiset\",\"applied\":true,"
	"\"stats\":{\"predicted\":{\"sm_90\":1.3},\"set\":["
	"{\"id\":1,\"r_ac\":2,\"ins\":[10,11],\"predicted\":{\"sm_90\":1.25},\"lowered\":true},"
	"{\"id\":2,\"r_ac\":5,\"ins\":[12],\"predicted\":{\"sm_90\":1.03},\"lowered\":true},"
	"{\"id\":3,\"r_ac\":9,\"ins\":[13,14],\"predicted\":{\"sm_90\":1.11},\"lowered\":true},"
	"{\"id\":4,\"r_ac\":3,\"ins\":[15],\"predicted\":{\"sm_90\":1.43},\"lowered\":true}]}}\n";

static void
fisetmodel(struct tuner *tu, struct trial *t, int mask)
{
	double err = 0, time = 10;
	for (int s = 1; s <= 4; s++)
		if (mask & 1 << s)
			err += fsets[s][0], time *= fsets[s][1];
	modelset(tu, t, time, err);
	t->report = xstrdup(fisetreport);
}

static void
shadowmodel(struct tuner *tu, struct trial *t, int exact)
{
	modelset(tu, t, 30, 0);
	char *p = fmt("%s/run.out", t->dir);
	const char *out = exact ? "mpcc-shadow k 10 1 0\nmpcc-shadow k 12 1 0\nmpcc-shadow k 15 1 0\n"
	                  : "mpcc-shadow k 10 1 3e-6\nmpcc-shadow k 11 1 1e-6\n"
	                  "mpcc-shadow k 12 1 1e-9\nmpcc-shadow k 13 1 1e-7\n"
	                  "mpcc-shadow k 14 1 1e-7\nmpcc-shadow k 15 1 1e-4\n";
	writefile(p, out, strlen(out));
	free(p);
}

static void
model_eval(struct tuner *tu, struct trial **t, int n, int asked)
{
	struct model *m = pool_of(tu)->arg;
	(void)asked;   /* a model runs every trial, guesses too, at once */
	m->batches++;
	for (int i = 0; i < n; i++) {
		long l = knobval(t[i], "sfu", "lambda="), sh = knobval(t[i], "shadow", "measure=");
		int mask = setmask(t[i]);
		m->evals++;
		t[i]->dir = fmt("%s/t%d", m->dir, t[i]->id);
		mkdir(t[i]->dir, 0777);
		if (l >= 0 && m->failfrom && l >= m->failfrom) {
			t[i]->verdict = V_CRASH;
			t[i]->why = xstrdup("model crash");
		} else if (l >= 0)
			modelset(tu, t[i], 10 * (1 - l / 128.0), m->err(l));
		else if (mask >= 0)
			fisetmodel(tu, t[i], mask);
		else if (sh != -1)
			shadowmodel(tu, t[i], m->exact);
		else
			modelset(tu, t[i], 10, 0);
	}
}

static struct model model;
static struct kern kern = {.mangled = "k", .demangled = "k", .ns = 1e6, .launches = 1, .share = 0.5,
                           .wallshare = 0.5, .hot = 1};

static void
setup(struct tuner *tu, double (*err)(double), double qos, int search)
{
	static int n;
	struct options *o = xmalloc(sizeof *o);
	*o = (struct options){.qos = qos, .search = search, .step = 4, .lmax = 64, .slow = 3, .runs = 1,
	                      .mingain = 1, .mode = 1};
	*tu = (struct tuner){.o = o};
	pool_of(tu)->eval = model_eval, pool_of(tu)->arg = &model;
	model = (struct model){err, 0, 0, 0, 0, ""};
	char *d = test_tmp("u-tune");
	snprintf(model.dir, sizeof model.dir, "%s-%d-%d", d, (int)getpid(), n++);
	free(d);
	mkdir(model.dir, 0777);
	o->workdir = model.dir;
	tu->k = &kern;
	tu->nk = 1;
	struct setting none = {0};
	tu->base = trial_for(tu, &none, 0);
	tuner_eval(tu, &tu->base, 1);
}

/* a test's options, which the session only reads */
static struct options *
opt(struct tuner *tu)
{
	return (struct options *)tu->o;
}

static long
lambda_of(const struct trial *t)
{
	return t ? knobval(t, "sfu", "lambda=") : -1;
}

TEST(heu_reaches_the_qos_in_few_trials)
{
	struct tuner tu;
	struct setting none = {0};
	/* linear error: the secant lands on the answer at once */
	setup(&tu, linear_err, 1e-7, S_HEU);
	struct trial *t = search_grid(&tu, &none, &kern, pass_find("sfu"));
	CHECK(lambda_of(t) == 32);
	CHECK(searches_of(&tu)->c[0]->runs == 2);
	/* quadratic: from below, halving the upper bound's weight (Illinois) */
	setup(&tu, quadratic, 2.55e-4, S_HEU);
	t = search_grid(&tu, &none, &kern, pass_find("sfu"));
	CHECK(lambda_of(t) == 32);
	CHECK(searches_of(&tu)->c[0]->runs <= 5);
	/* everything within the QoS: lambda 64 at once */
	setup(&tu, quadratic, 1, S_HEU);
	t = search_grid(&tu, &none, &kern, pass_find("sfu"));
	CHECK(lambda_of(t) == 64 && searches_of(&tu)->c[0]->runs == 1);
}

TEST(heu_answer_always_meets_the_qos)
{
	struct tuner tu;
	struct setting none = {0};
	for (double q = 1e-6; q < 1e-3; q *= 1.7) {
		setup(&tu, quadratic, q, S_HEU);
		struct trial *t = search_grid(&tu, &none, &kern, pass_find("sfu"));
		double best = floor(64 * sqrt(q / 1e-3) / 4) * 4;   /* the largest lambda within q */
		CHECK(!t || (t->meets && t->err <= q));
		CHECK(lambda_of(t) == (best > 0 ? best : -1));
	}
}

TEST(heu_bisects_past_failures)
{
	struct tuner tu;
	struct setting none = {0};
	setup(&tu, quadratic, 2.55e-4, S_HEU);
	model.failfrom = 48;
	struct trial *t = search_grid(&tu, &none, &kern, pass_find("sfu"));
	CHECK(lambda_of(t) == 32);
	CHECK(t && t->meets);
}

TEST(heu_on_a_bump_returns_a_point_that_meets)
{
	struct tuner tu;
	struct setting none = {0};
	setup(&tu, bumpy, 5e-7, S_HEU);
	struct trial *t = search_grid(&tu, &none, &kern, pass_find("sfu"));
	CHECK(t && t->meets);
	CHECK(lambda_of(t) != 40);
}

TEST(linear_walks_down_from_the_top)
{
	struct tuner tu;
	struct setting none = {0};
	setup(&tu, quadratic, 2.55e-4, S_LINEAR);
	struct trial *t = search_grid(&tu, &none, &kern, pass_find("sfu"));
	CHECK(lambda_of(t) == 32 && searches_of(&tu)->c[0]->runs == 9);
}

TEST(exhaustive_tries_the_grid)
{
	struct tuner tu;
	struct setting none = {0};
	setup(&tu, bumpy, 5e-7, S_EXHAUSTIVE);
	struct trial *t = search_grid(&tu, &none, &kern, pass_find("sfu"));
	/* 1e-8 * l <= 5e-7 up to 48 except the bump at 40: the fastest is 48 */
	CHECK(lambda_of(t) == 48 && searches_of(&tu)->c[0]->runs == 16);
}

TEST(a_trial_is_run_once)
{
	struct tuner tu;
	struct setting none = {0};
	setup(&tu, quadratic, 2.55e-4, S_EXHAUSTIVE);
	search_grid(&tu, &none, &kern, pass_find("sfu"));
	int evals = model.evals;
	opt(&tu)->search = S_HEU;
	search_grid(&tu, &none, &kern, pass_find("sfu"));
	CHECK(model.evals == evals);
	CHECK(searches_of(&tu)->c[1]->runs == 0);
}


/* the trial's fiset sets as a mask, for checks */
static int
sets_of(const struct trial *t)
{
	return t ? setmask(t) : -1;
}

TEST(fiset_mode_1_lowers_sets_cumulatively_while_the_qos_holds)
{
	struct tuner tu;
	struct setting none = {0};
	/* by shadow error, smallest first: 2 (1e-9), 3 (2e-7), 1 (4e-6), 4
	 * (1e-4); within 1e-6: {2}, {2,3}; adding 1 or 4 breaks the QoS */
	setup(&tu, quadratic, 1e-6, S_HEU);
	opt(&tu)->shadow = 1;
	struct trial *t = search_units(&tu, &none, &kern, pass_find("fiset"));
	CHECK(sets_of(t) == (1 << 2 | 1 << 3));
	/* all, auto, the shadow build, {2}, {2,3}, {1,2,3}, {2,3,4} */
	CHECK(searches_of(&tu)->c[0]->runs == 7);
	CHECK(searches_of(&tu)->c[0]->stop && strstr(searches_of(&tu)->c[0]->stop, "2 of 4 units kept (1, 4 broke the QoS)"));
	/* by the model (no shadow build), largest predicted first: 4, 1, 3,
	 * 2; within 1e-4 every one: the last is all, the fastest */
	setup(&tu, quadratic, 1e-4, S_HEU);
	t = search_units(&tu, &none, &kern, pass_find("fiset"));
	CHECK(t && !strcmp(t->set.k[0].params, "sets=all"));
	CHECK(searches_of(&tu)->c[0]->runs == 5);   /* all, auto, {4}, {1,4}, {1,3,4}; then all again */
}

TEST(fiset_modes_2_and_3_stop_at_the_performance_threshold)
{
	struct tuner tu;
	struct setting none = {0};
	/* mode 2: 5% over the baseline: {2} gains 3%, {2,3} 14.5%: stop */
	setup(&tu, quadratic, 1e-6, S_HEU);
	opt(&tu)->shadow = 1, opt(&tu)->mode = 2, opt(&tu)->perf = 5;
	struct trial *t = search_units(&tu, &none, &kern, pass_find("fiset"));
	CHECK(sets_of(t) == (1 << 2 | 1 << 3));
	CHECK(searches_of(&tu)->c[0]->stop && strstr(searches_of(&tu)->c[0]->stop, "perf-threshold"));
	/* mode 3: by r_ac, largest first: {3} is within 1e-6 and 11% faster */
	setup(&tu, quadratic, 1e-6, S_HEU);
	opt(&tu)->mode = 3, opt(&tu)->perf = 5;
	t = search_units(&tu, &none, &kern, pass_find("fiset"));
	CHECK(sets_of(t) == 1 << 3);
	CHECK(searches_of(&tu)->c[0]->runs == 3);   /* all, auto, {3}: no shadow build needed */
	/* a QoS no set meets */
	setup(&tu, quadratic, 1e-12, S_HEU);
	opt(&tu)->shadow = 1;
	CHECK(search_units(&tu, &none, &kern, pass_find("fiset")) == NULL);
}

TEST(fiset_mode_2_measures_against_the_ideal)
{
	struct tuner tu;
	struct setting none = {0};
	setup(&tu, quadratic, 1e-5, S_HEU);
	opt(&tu)->shadow = 1, opt(&tu)->mode = 2, opt(&tu)->perf = 20;
	/* ideal (all f32) at time 5; performance is 1/time: {2} (9.7) gives
	 * 3% of the ideal speed-up, {2,3} (8.73) 15%, {1,2,3} (6.98) 43%:
	 * there the search stops, and that is the fastest within 1e-5 */
	struct trial ideal = {.verdict = V_OK, .time = 5};
	tu.idealt = &ideal;
	struct trial *t = search_units(&tu, &none, &kern, pass_find("fiset"));
	CHECK(sets_of(t) == (1 << 1 | 1 << 2 | 1 << 3));
	CHECK(searches_of(&tu)->c[0]->stop && strstr(searches_of(&tu)->c[0]->stop, "perf-threshold"));
}

TEST(units_stop_after_k_in_a_row_that_gain_nothing)
{
	struct tuner tu;
	struct setting none = {0};
	/* within 1e-4 every list meets; by the model, 4 first: {4} (7.0) and
	 * {1,4} (5.6) are slower than all (4.89), already measured */
	setup(&tu, quadratic, 1e-4, S_HEU);
	opt(&tu)->stopafter = 2;
	search_units(&tu, &none, &kern, pass_find("fiset"));
	CHECK(searches_of(&tu)->c[0]->runs == 4);   /* all, auto, {4}, {1,4} */
	CHECK(searches_of(&tu)->c[0]->stop && strstr(searches_of(&tu)->c[0]->stop, "2 units in a row gained nothing beyond the noise"));
	/* by shadow error within 1e-6, {2} first: no faster than auto, the
	 * same set, measured already */
	setup(&tu, quadratic, 1e-6, S_HEU);
	opt(&tu)->shadow = 1, opt(&tu)->stopafter = 1;
	struct trial *t = search_units(&tu, &none, &kern, pass_find("fiset"));
	CHECK(sets_of(t) == 1 << 2);
	CHECK(searches_of(&tu)->c[0]->runs == 4);   /* all, auto, the shadow build, {2} */
	CHECK(searches_of(&tu)->c[0]->stop && strstr(searches_of(&tu)->c[0]->stop, "1 unit in a row gained nothing"));
}

TEST(units_are_not_walked_when_all_wins_and_the_shadow_sees_no_error)
{
	struct tuner tu;
	struct setting none = {0};
	setup(&tu, quadratic, 1e-4, S_HEU);
	opt(&tu)->shadow = 1, opt(&tu)->stopafter = 3;
	model.exact = 1;
	struct trial *t = search_units(&tu, &none, &kern, pass_find("fiset"));
	CHECK(t && !strcmp(t->set.k[0].params, "sets=all"));
	CHECK(searches_of(&tu)->c[0]->runs == 3);   /* all, auto, the shadow build */
	CHECK(searches_of(&tu)->c[0]->stop && strstr(searches_of(&tu)->c[0]->stop, "no list of units to try"));
}

TEST(guesses_fill_free_gpus_and_change_nothing_kept)
{
	struct tuner one, four;
	struct setting none = {0};
	setup(&one, quadratic, 1e-6, S_HEU);
	opt(&one)->shadow = 1;
	struct trial *a = search_units(&one, &none, &kern, pass_find("fiset"));
	int batches = model.batches;
	setup(&four, quadratic, 1e-6, S_HEU);
	opt(&four)->shadow = 1, opt(&four)->jobs = 4;
	opt(&four)->build = "make -C $MPCC_TUNE_DIR", opt(&four)->run = "$MPCC_TUNE_DIR/prog";   /* runs apart */
	struct trial *b = search_units(&four, &none, &kern, pass_find("fiset"));
	CHECK(sets_of(a) == sets_of(b) && a && b && !strcmp(a->env, b->env));
	CHECK(searches_of(&one)->c[0]->runs == searches_of(&four)->c[0]->runs);   /* the trials the search asked for */
	/* fewer batches, each guess asked for in the end: none wasted here */
	CHECK(model.batches < batches && pool_guessed(&four) == 0);
	free(pool_of(&one)->spec), free(pool_of(&four)->spec);
}

/* a later search's sets=all has run: its guesses are then the lists of
 * units its own search will ask for first (search_next()) */
TEST(a_search_that_has_its_units_is_guessed_by_its_first_lists)
{
	struct tuner tu, one;
	struct setting none = {0};
	int fiset = pass_find("fiset");
	setup(&tu, quadratic, 1e-6, S_HEU);
	opt(&tu)->jobs = 4;
	opt(&tu)->build = "make -C $MPCC_TUNE_DIR", opt(&tu)->run = "$MPCC_TUNE_DIR/prog";   /* runs apart */
	struct trial *g[8];
	int n = search_next(&tu, &none, &kern, fiset, g);
	CHECK(n == 2);   /* all and auto: nothing ran, nothing more is known */
	tuner_eval(&tu, g, n);
	n = search_next(&tu, &none, &kern, fiset, g);
	CHECK(n == 2 + 4);   /* and the first lists, one for each GPU */
	setup(&one, quadratic, 1e-6, S_HEU);
	search_units(&one, &none, &kern, fiset);
	/* the list the one-GPU search asked for first, then each with the next
	 * unit added, as if each met the QoS */
	CHECK(searches_of(&one)->c[0]->n > 2 && !strcmp(g[2]->env, searches_of(&one)->c[0]->t[2]->env));
	for (int i = 3; i < n; i++)
		CHECK((sets_of(g[i]) & sets_of(g[i - 1])) == sets_of(g[i - 1]) && sets_of(g[i]) != sets_of(g[i - 1]));
	opt(&tu)->shadow = 1;   /* the order needs the shadow build's run: no lists */
	CHECK(search_next(&tu, &none, &kern, fiset, g) == 2);
	free(pool_of(&tu)->spec), free(pool_of(&one)->spec);
}

TEST(max_trials_stops_the_search)
{
	struct tuner tu;
	struct setting none = {0};
	setup(&tu, quadratic, 1e-6, S_HEU);
	opt(&tu)->shadow = 1, opt(&tu)->maxtrials = 4;   /* the baseline, all, auto, the shadow build */
	search_units(&tu, &none, &kern, pass_find("fiset"));
	CHECK(model.evals == 4);
	CHECK(searches_of(&tu)->c[0]->stop && strstr(searches_of(&tu)->c[0]->stop, "--max-trials reached"));
	CHECK(session_halt(&tu) != NULL);
}

TEST(durations_read_as_people_write_them)
{
	CHECK(duration("90s") == 90 && duration("15m") == 900 && duration("2h") == 7200);
	CHECK(duration("1h30m") == 5400 && duration("45") == 45 && duration("0.5m") == 30);
	CHECK(duration("") < 0 && duration("10x") < 0 && duration("m") < 0 && duration("-5s") < 0);
}

/* ---- the answer: the fastest measured, beyond the noise ---- */

TEST(the_answer_is_the_fastest_trial_measured_within_the_qos)
{
	struct tuner tu;
	struct setting none = {0};
	setup(&tu, quadratic, 1e-4, S_HEU);
	opt(&tu)->shadow = 1;
	/* mode 1 by shadow error keeps {2,3} (8.73) within 1e-4... */
	search_units(&tu, &none, &kern, pass_find("fiset"));
	/* ...but all (4.89, error 5.4e-5) was measured too: it is the answer */
	struct trial **w;
	int n = winners(&tu, &w);
	CHECK(n >= 2 && !strcmp(w[0]->set.k[0].params, "sets=all"));
	for (int i = 1; i < n; i++)
		CHECK(speedup(&tu, w[i]) <= speedup(&tu, w[i - 1]));
	free(w);
}

TEST(within_the_noise_of_the_fastest_the_fewest_knobs_win)
{
	struct tuner tu;
	setup(&tu, quadratic, 1, S_HEU);
	struct setting s1 = {0}, s2 = {0};
	setting_add(&s1, pass_find("sfu"), "k", "lambda=32");
	setting_add(&s2, pass_find("sfu"), "k", "lambda=32");
	setting_add(&s2, pass_find("fiset"), "k", "sets=all");
	struct trial *two = trial_for(&tu, &s2, -1), *one = trial_for(&tu, &s1, -1);
	modelset(&tu, two, 7.49, 0), modelset(&tu, one, 7.5, 0);   /* 0.1%: noise */
	struct trial **w;
	CHECK(winners(&tu, &w) == 2 && w[0] == one && w[1] == two);
	free(w);
	modelset(&tu, two, 7.0, 0);   /* 7% faster: a gain */
	CHECK(winners(&tu, &w) == 2 && w[0] == two);
	free(w);
	setting_release(&s1), setting_release(&s2);
}

TEST(a_gain_within_the_noise_is_no_gain)
{
	struct tuner tu;
	setup(&tu, quadratic, 1, S_HEU);
	struct trial a = {.verdict = V_OK, .time = 9.5}, b = {.verdict = V_OK, .time = 9.0};
	tu.noise = 0.08;   /* the baseline (10) spread over 8% */
	CHECK(!beats(&tu, &a, tu.base));   /* 1.053x */
	CHECK(beats(&tu, &b, tu.base));    /* 1.111x */
	tu.noise = 0, opt(&tu)->mingain = 6;
	CHECK(!beats(&tu, &a, tu.base) && beats(&tu, &b, tu.base));
	double v[5] = {10, 10.5, 9.6, 10.2, 9.9};
	CHECK(fabs(spread(v, 5) - 0.09) < 1e-12);   /* (10.5 - 9.6) / 10 */
}

TEST(one_outlier_does_not_move_the_noise)
{
	double v[5] = {10, 10.1, 30, 9.9, 10.05}, w[5] = {10, 10.5, 9.6, 10.2, 9.9};
	int out;
	/* the third run took 3x the others: their spread, (10.1 - 9.9) / 10.025 */
	CHECK(fabs(steady(v, 5, &out) - 0.2 / 10.025) < 1e-12 && out == 2);
	/* runs that spread evenly keep their whole spread */
	CHECK(fabs(steady(w, 5, &out) - 0.09) < 1e-12 && out == -1);
	double fast[5] = {10, 10.1, 2, 9.9, 10.05};   /* one far too fast, too */
	CHECK(steady(fast, 5, &out) < 0.03 && out == 2);
	CHECK(steady(v, 3, &out) == spread(v, 3) && out == -1);   /* too few to tell */
}

TEST(plot_ticks_are_round)
{
	double t[16];
	int n = ticks(0.979, 1.081, 7, t);
	/* steps of 0.02: 0.98 1.00 ... 1.08 */
	CHECK(n == 6 && fabs(t[0] - 0.98) < 1e-12 && fabs(t[5] - 1.08) < 1e-12);
	n = ticks(0, 64, 8, t);
	CHECK(n == 7 && t[1] == 10 && t[6] == 60);
	n = ticks(0, 1.7, 7, t);
	CHECK(n == 4 && fabs(t[1] - 0.5) < 1e-12 && fabs(t[3] - 1.5) < 1e-12);
}

/* ---- profiles ---- */

static const char policy[] =
	"# the project's policy\n"
	"version: 1\n"
	"default_profile: accurate   # keep this comment\n"
	"profiles:\n"
	"    accurate: {}\n"
	"    # the old tuned profile\n"
	"    tuned:\n"
	"        rules:\n"
	"            - kernels: [\"old\"]\n"
	"              sfu: {lambda: 8}\n"
	"    # fast: by hand\n"
	"    fast:\n"
	"        rules:\n"
	"            - kernels: [\"*\"]\n"
	"              sfu: {lambda: 64}\n"
	"on_unsupported: warn\n";

static struct setting
winner(void)
{
	struct setting s = {0};
	setting_add(&s, pass_find("sfu"), "_Z3hotv", "lambda=44");
	return s;
}

TEST(profile_replaces_only_its_own_lines)
{
	struct setting s = winner();
	char *why, *out = profile_edit(policy, strlen(policy), "tuned", &s, NULL, 0, NULL, &why);
	CHECK(out != NULL);
	if (!out)
		return;
	const char *before = strstr(policy, "    tuned:"), *after = strstr(policy, "    # fast: by hand");
	size_t pre = before - policy;
	CHECK(!strncmp(out, policy, pre));   /* every byte before, as it was */
	CHECK(endswith(out, after));         /* every byte after, as it was */
	CHECK(strstr(out, "    tuned:\n        # written by mpcc-tune") != NULL);
	CHECK(strstr(out, "            - kernels: [\"_Z3hotv\"]\n              sfu: {lambda: 44,") != NULL);
	CHECK(strstr(out, "[\"old\"]") == NULL);
	CHECK(strstr(out, "# the old tuned profile\n    tuned:") != NULL);   /* its comment stays */
	free(out);
	setting_release(&s);
}

TEST(profile_added_after_the_last_one)
{
	struct setting s = winner();
	char *why, *out = profile_edit(policy, strlen(policy), "new", &s, NULL, 0, NULL, &why);
	const char *at = out ? strstr(out, "    new:\n") : NULL;
	CHECK(at != NULL);
	if (!at)
		return;
	size_t pre = strstr(policy, "on_unsupported") - policy;
	CHECK((size_t)(at - out) == pre && !strncmp(out, policy, pre));
	CHECK(endswith(out, "on_unsupported: warn\n"));
	free(out);
	setting_release(&s);
}

TEST(profile_in_a_file_without_profiles_or_empty)
{
	struct setting s = winner();
	const char *p = "version: 1\n# nothing else\n";
	char *why, *out = profile_edit(p, strlen(p), "tuned", &s, NULL, 0, NULL, &why);
	CHECK(out && startswith(out, p) && strstr(out, "\nprofiles:\n  tuned:\n"));
	free(out);
	out = profile_edit("", 0, "tuned", &s, NULL, 0, NULL, &why);
	CHECK(out && startswith(out, "version: 1\nprofiles:\n  tuned:\n"));
	free(out);
	p = "version: 1\nprofiles: {a: {}}\n";
	out = profile_edit(p, strlen(p), "tuned", &s, NULL, 0, NULL, &why);
	CHECK(!out && why && strstr(why, "flow"));
	free(why);
	setting_release(&s);
}

TEST(profile_write_loads_and_keeps_the_rest)
{
	char *d = test_tmp("u-tune"), *path = fmt("%s-%d.yaml", d, (int)getpid());
	free(d);
	CHECK(writefile(path, policy, strlen(policy)) == 0);
	struct setting s = winner();
	CHECK(profile_write(path, "tuned", &s, NULL, 0, NULL) == 0);
	struct policy *pol = policy_load(path);
	int found = 0;
	for (int i = 0; pol && i < pol->nprof; i++)
		if (!strcmp(pol->prof[i].name, "tuned")) {
			found = 1;
			CHECK(pol->prof[i].nrule == 1 && pol->prof[i].rule[0].param[pass_find("sfu")]->v[0].i == 44);
		}
	CHECK(pol && pol->nprof == 3 && found);
	unlink(path);
	free(path);
	setting_release(&s);
}

TEST(trip_counts_are_written_in_few_digits_and_no_exponent)
{
	double t[] = {64, 1.5, 4.0 / 3, 0, 1234.6, 2e6};
	struct kern k = {.facts.f[F_TRIPS] = {.xs = t, .n = 6}};
	char *s = kern_trips(&k, ",");
	CHECK_STR(s, "64,1.5,1.33,0,1235,2000000");
	free(s);
	k.facts.f[F_TRIPS].xs = NULL;
	s = kern_trips(&k, ",");
	CHECK_STR(s, "-");
	free(s);
}

/* a policy of the user's: multi's own rule in block style beside other
 * passes, a rule of every kernel, and flt switched off */
static const char facts_policy[] =
	"version: 1\n"
	"profiles:\n"
	"  fast:\n"
	"    rules:\n"
	"      - kernels: [\"*\"]   # all\n"
	"        fiset: {sets: 2}\n"
	"      - kernels: [multi]\n"
	"        fiset:\n"
	"          warps: 8\n"
	"          sets: all\n"
	"        sfu: {lambda: 32}\n"
	"      - kernels: [flt]\n"
	"        fiset: off\n"
	"  other: {}\n";

/* merge facts (the text of kern k's rule) into facts_policy's profile fast */
static char *
merge(struct kern *k, int nk, const char *params, int *nrule)
{
	char *d = test_tmp("u-tune"), *path = fmt("%s-facts-%d.yaml", d, (int)getpid()), *why;
	struct factrule f[4];
	for (int i = 0; i < nk; i++)
		f[i] = (struct factrule){&k[i], pass_find("fiset"), (char *)params, NULL, NULL, 0};
	CHECK(writefile(path, facts_policy, strlen(facts_policy)) == 0);
	char *out = profile_merge(path, facts_policy, strlen(facts_policy), "fast", f, nk, nrule, &why);
	for (int i = 0; i < nk; i++)
		free(f[i].how);
	unlink(path);
	free(d), free(path);
	return out;
}

TEST(facts_merge_into_the_kernels_own_rule_and_replace_only_their_keys)
{
	struct kern k = {.mangled = "_Z5multiv", .demangled = "multi()"};
	int n;
	char *out = merge(&k, 1, "warps: 16", &n);
	const char *want = "      - kernels: [multi]\n        fiset: {sets: all, warps: 16}\n"
	                   "        sfu: {lambda: 32}\n      - kernels: [flt]\n";
	CHECK(out && strstr(out, want) && n == 3);
	CHECK(out && startswith(out, "version: 1\nprofiles:\n  fast:\n    rules:\n      - kernels: [\"*\"]"
	                        "   # all\n        fiset: {sets: 2}\n"));
	CHECK(out && endswith(out, "        fiset: off\n  other: {}\n"));
	free(out);
}

TEST(facts_of_a_kernel_another_rule_gives_the_pass_go_in_a_rule_of_its_own_last)
{
	struct kern k[2] = {{.mangled = "_Z3dotv", .demangled = "dot()", .share = 0.25, .launches = 3},
	                    {.mangled = "_Z3fltv", .demangled = "flt()"}};
	int n;
	char *out = merge(k, 2, "warps: 16", &n);
	const char *want = "        fiset: off\n"
	                   "      # dot()\n"
	                   "      - kernels: [\"_Z3dotv\"]\n"
	                   "        fiset: {sets: 2, warps: 16}\n"
	                   "  other: {}\n";
	/* flt's rule switches fiset off: no facts to give it */
	CHECK(out && endswith(out, want) && n == 4);
	free(out);
}

/* ---- store's run-time report (struct tuning's flipped) ---- */

TEST(store_drops_the_arrays_its_run_converted_to_narrow_again_at_most_launches)
{
	const struct tuning *tn = passes[pass_find("store")]->tune;
	/* two runs appended: k launched 10 times a run; its param 1 converted
	 * once a run (kept), param 4 at every launch (dropped), param 2 read as
	 * it was (plain: not narrowed), "other" arrays and another kernel's
	 * lines, and a line that is not JSON, change nothing; j launched once
	 * a run, its one array converted each time (kept: once a run) */
	const char *run =
		"{\"kernel\":\"k\",\"clone\":\"k_mpcc_store\",\"launches\":{\"clone\":10,\"original\":0},\"why_original\":{}}\n"
		"{\"kernel\":\"k\",\"param\":1,\"type\":\"f64>f32\",\"to_narrow\":1,\"to_narrow_bytes\":8,\"back\":0,\"back_bytes\":0}\n"
		"{\"kernel\":\"k\",\"param\":4,\"type\":\"f64>f32\",\"to_narrow\":10,\"to_narrow_bytes\":80,\"back\":0,\"back_bytes\":0}\n"
		"{\"kernel\":\"k\",\"param\":2,\"type\":\"plain\",\"to_narrow\":0,\"to_narrow_bytes\":0,\"back\":10,\"back_bytes\":80}\n"
		"{\"kernel\":\"k\",\"param\":\"other\",\"to_narrow\":10,\"to_narrow_bytes\":80,\"back\":0,\"back_bytes\":0}\n"
		"{\"kernel\":\"j\",\"clone\":\"j_mpcc_store\",\"launches\":{\"clone\":1,\"original\":0},\"why_original\":{}}\n"
		"{\"kernel\":\"j\",\"param\":0,\"type\":\"f64>f32\",\"to_narrow\":1,\"to_narrow_bytes\":8,\"back\":0,\"back_bytes\":0}\n"
		"{\"api\":\"cudaMemcpy\",\"back\":10,\"back_bytes\":80}\n"
		"not json\n";
	char *two = malloc(2 * strlen(run) + 1);
	strcpy(two, run);
	strcat(two, run);
	long drop[4];
	int n = tn->flipped(two, "k", drop, 4);
	CHECK(n == 1 && drop[0] == 4);
	CHECK(tn->flipped(two, "j", drop, 4) == 0);
	CHECK(tn->flipped(two, "absent", drop, 4) == 0);
	CHECK(tn->flipped("", "k", drop, 4) == 0);
	CHECK(tn->flipped(two, "k", drop, 0) == 0);   /* room for none */
	free(two);
}

int
main(void)
{
	progname = "u-tune";
	passes_init();
	RUN(numbers_reads_every_number_in_order);
	RUN(numbers_reads_raw_f32_and_f64);
	RUN(stdout_numbers_leave_out_the_time_and_mpcc_lines);
	RUN(stdout_lines_shaped_as_the_time_are_left_out);
	RUN(stdout_lines_that_name_a_time_or_a_rate_are_left_out);
	RUN(words_differ_where_a_line_does);
	RUN(metrics_are_the_papers);
	RUN(compare_fails_nan_inf_and_counts);
	RUN(compare_leaves_out_what_skip_marks);
	RUN(median_of_odd_and_even);
	RUN(jget_reads_report_fields);
	RUN(jset_replaces_one_top_level_value);
	RUN(setting_env_switches_everything_else_off);
	RUN(heu_reaches_the_qos_in_few_trials);
	RUN(heu_answer_always_meets_the_qos);
	RUN(heu_bisects_past_failures);
	RUN(heu_on_a_bump_returns_a_point_that_meets);
	RUN(linear_walks_down_from_the_top);
	RUN(exhaustive_tries_the_grid);
	RUN(a_trial_is_run_once);
	RUN(fiset_mode_1_lowers_sets_cumulatively_while_the_qos_holds);
	RUN(fiset_modes_2_and_3_stop_at_the_performance_threshold);
	RUN(fiset_mode_2_measures_against_the_ideal);
	RUN(units_stop_after_k_in_a_row_that_gain_nothing);
	RUN(units_are_not_walked_when_all_wins_and_the_shadow_sees_no_error);
	RUN(guesses_fill_free_gpus_and_change_nothing_kept);
	RUN(a_search_that_has_its_units_is_guessed_by_its_first_lists);
	RUN(max_trials_stops_the_search);
	RUN(durations_read_as_people_write_them);
	RUN(the_answer_is_the_fastest_trial_measured_within_the_qos);
	RUN(within_the_noise_of_the_fastest_the_fewest_knobs_win);
	RUN(a_gain_within_the_noise_is_no_gain);
	RUN(one_outlier_does_not_move_the_noise);
	RUN(plot_ticks_are_round);
	RUN(profile_replaces_only_its_own_lines);
	RUN(profile_added_after_the_last_one);
	RUN(profile_in_a_file_without_profiles_or_empty);
	RUN(profile_write_loads_and_keeps_the_rest);
	RUN(trip_counts_are_written_in_few_digits_and_no_exponent);
	RUN(facts_merge_into_the_kernels_own_rule_and_replace_only_their_keys);
	RUN(facts_of_a_kernel_another_rule_gives_the_pass_go_in_a_rule_of_its_own_last);
	RUN(store_drops_the_arrays_its_run_converted_to_narrow_again_at_most_launches);
	char *d = test_tmp("u-tune"), *rm = fmt("rm -rf '%s-%d-'*", d, (int)getpid());
	if (system(rm) != 0)
		fprintf(stderr, "cannot remove %s-%d-*\n", d, (int)getpid());
	free(rm);
	free(d);
	return DONE();
}
