/* u-stats.c: a pass's statistics are written through the keys it declares
 * (transforms/stats.c), and every pass of the table declares what the
 * contract asks (transforms/pass.h: struct field, struct tuning) */
#include "transforms/pass.h"
#include "tests/unit/test.h"

#include <math.h>
#include <stdlib.h>

enum { A_N, A_X, A_OK, A_NAME, A_IDS, A_PRED, A_SUB, A_LIST };
enum { I_ID, I_W };

static const struct field item[] = {
	[I_ID] = {"id", FINT, RID, 0, NULL, 0, "id"},
	[I_W] = {"w", FNUM, RRATIO, 1, NULL, 0, "weight"},
};
static const struct field sub[] = {{"k", FINT, 0, 0, NULL, 0, "k"}};
static const struct field keys[] = {
	[A_N] = {"n", FINT, 0, 0, NULL, 0, "n"},
	[A_X] = {"x", FNUM, 0, 3, NULL, 0, "x"},
	[A_OK] = {"ok", FBOOL, 0, 0, NULL, 0, "ok"},
	[A_NAME] = {"name", FSTR, 0, 0, NULL, 0, "name"},
	[A_IDS] = {"ids", FINTS, 0, 0, NULL, 0, "ids"},
	[A_PRED] = {"predicted", FTARGETS, RPREDICTED, 2, NULL, 0, "per target"},
	[A_SUB] = {"sub", FOBJ, 0, 0, sub, countof(sub), "an object"},
	[A_LIST] = {"list", FLIST, RUNITS, 0, item, countof(item), "a list"},
};
static const struct field root = {"test", FOBJ, 0, 0, keys, countof(keys), "root"};

TEST(statw_writes_the_declared_keys_in_order)
{
	struct statw w;
	statw_begin(&w, &root);
	statw_int(&w, A_N, 3);
	statw_num(&w, A_X, 1.0 / 3);
	statw_bool(&w, A_OK, 1);
	statw_str(&w, A_NAME, "a\"b");
	statw_open(&w, A_IDS);
	statw_elem(&w, 4);
	statw_elem(&w, 5);
	statw_close(&w);
	statw_open(&w, A_PRED);
	statw_target(&w, 80, 1.5);
	statw_target(&w, 90, INFINITY);
	statw_close(&w);
	statw_open(&w, A_LIST);
	for (int i = 0; i < 2; i++) {
		statw_item(&w);
		statw_int(&w, I_ID, i);
		statw_num(&w, I_W, NAN);
		statw_close(&w);
	}
	statw_close(&w);
	char *s = statw_end(&w);
	CHECK_STR(s, "{\"n\":3,\"x\":0.333,\"ok\":true,\"name\":\"a\\\"b\",\"ids\":[4,5],"
	             "\"predicted\":{\"sm_80\":1.50,\"sm_90\":null},"
	             "\"list\":[{\"id\":0,\"w\":null},{\"id\":1,\"w\":null}]}");
	free(s);
}

TEST(statw_skips_optional_keys_and_writes_empty_lists)
{
	struct statw w;
	statw_begin(&w, &root);
	statw_null(&w, A_NAME);
	statw_open(&w, A_IDS);
	statw_close(&w);
	statw_open(&w, A_SUB);
	statw_int(&w, 0, 7);
	statw_close(&w);
	char *s = statw_end(&w);
	CHECK_STR(s, "{\"name\":null,\"ids\":[],\"sub\":{\"k\":7}}");
	free(s);
}

TEST(field_role_finds_keys_by_what_they_mean)
{
	const struct field *u = field_role(&root, RUNITS);
	CHECK(u == &keys[A_LIST]);
	CHECK(field_role(u, RID) == &item[I_ID] && field_role(u, RRATIO) == &item[I_W]);
	CHECK(field_role(&root, RINS) == NULL);
	CHECK(field_role(&root, RPREDICTED) == &keys[A_PRED]);
}

/* every key a pass declares has help and a kind; its sub-keys where it
 * needs them; and what mpcc-tune looks for is there */
static void
wellformed(const struct field *f, const char *pass)
{
	for (int i = 0; i < f->nsub; i++) {
		const struct field *k = &f->sub[i];
		int nested = k->kind == FOBJ || k->kind == FLIST;
		if (!k->name || !k->help || !*k->help || nested != (k->sub != NULL))
			fprintf(stderr, "%s: key '%s' is malformed\n", pass, k->name ? k->name : "?");
		CHECK(k->name && k->help && *k->help && nested == (k->sub != NULL));
		if (k->sub)
			wellformed(k, pass);
	}
}

TEST(every_pass_declares_its_stats_and_what_tune_needs)
{
	int probes = 0;
	for (int i = 0; i < npass; i++) {
		const struct pass *p = passes[i];
		CHECK(p->stats && p->stats->kind == FOBJ);
		if (p->stats)
			wellformed(p->stats, p->schema.name);
		CHECK(p->sweep && p->sweep[0]);
		if (!p->tune)
			continue;
		if (p->tune->role == TUNE_PROBE) {
			probes++;
			CHECK(p->tune->timing && p->tune->shadow);
			/* its ops, and how many there are: a sample or all */
			CHECK(field_role(p->stats, ROPS) && field_role(p->stats, RNOPS));
			continue;
		}
		int k = param_find(&p->schema, p->tune->knob, strlen(p->tune->knob));
		CHECK(k >= 0 && p->tune->strongest && p->tune->axis && p->tune->guess > 1);
		if (k >= 0 && p->schema.param[k].kind == PSETS) {
			/* the units the knob lists, with their ids */
			const struct field *u = field_role(p->stats, RUNITS);
			CHECK(u && field_role(u, RID));
		}
	}
	CHECK(probes == 1);
}

int
main(void)
{
	progname = "u-stats";
	passes_init();
	RUN(statw_writes_the_declared_keys_in_order);
	RUN(statw_skips_optional_keys_and_writes_empty_lists);
	RUN(field_role_finds_keys_by_what_they_mean);
	RUN(every_pass_declares_its_stats_and_what_tune_needs);
	return DONE();
}
