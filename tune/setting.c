/* setting.c: settings, the knobs of one candidate, their MPCC_SET text
 * and their words.
 *
 * A candidate is built with MPCC_SET = "off;" followed by one item per
 * knob: every transform is off for every kernel but what the setting names,
 * whatever the user's profile says, so that the baseline ("off") and each
 * candidate differ by exactly the setting. */
#include "tune/tune.h"

#include <stdlib.h>
#include <string.h>

void
setting_add(struct setting *s, int pass, const char *kernel, const char *params)
{
	s->k = xrealloc(s->k, (s->n + 1) * sizeof *s->k);
	s->k[s->n++] = (struct knob){pass, xstrdup(kernel), xstrdup(params ? params : ""), 0};
}

struct setting
setting_copy(const struct setting *s)
{
	struct setting c = {0};
	for (int i = 0; i < s->n; i++)
		if (!s->k[i].refused)
			setting_add(&c, s->k[i].pass, s->k[i].kernel, s->k[i].params);
	return c;
}

void
setting_release(struct setting *s)
{
	for (int i = 0; i < s->n; i++) {
		free(s->k[i].kernel);
		free(s->k[i].params);
	}
	free(s->k);
	*s = (struct setting){0};
}

char *
setting_env(const struct setting *s)
{
	struct buf b = BUF_INIT;
	buf_puts(&b, "off");
	for (int i = 0; i < s->n; i++) {
		const struct knob *k = &s->k[i];
		buf_printf(&b, ";%s:%s%skernels=%s", passes[k->pass]->schema.name, k->params,
		           *k->params ? "," : "", k->kernel);
	}
	return buf_take(&b);
}

/* setting_env() of what a build of s applied: without its refused knobs */
char *
setting_env_applied(const struct setting *s)
{
	struct setting done = setting_copy(s);
	char *env = setting_env(&done);
	setting_release(&done);
	return env;
}

char *
setting_words(const struct setting *s, const struct kern *k, int nk)
{
	struct buf b = BUF_INIT;
	if (!s->n)
		buf_puts(&b, "baseline (no transform)");
	for (int i = 0; i < s->n; i++) {
		const struct kern *kn = kern_byname(k, nk, s->k[i].kernel);
		const char *name = kn ? kn->demangled : s->k[i].kernel;
		size_t n = strcspn(name, "(");
		buf_printf(&b, "%s%.*s %s %s", i ? "; " : "", (int)n, name,
		           passes[s->k[i].pass]->schema.name, s->k[i].params);
	}
	return buf_take(&b);
}

struct kern *
kern_byname(const struct kern *k, int nk, const char *mangled)
{
	for (int i = 0; i < nk; i++)
		if (!strcmp(k[i].mangled, mangled))
			return (struct kern *)&k[i];   /* as strchr() does */
	return NULL;
}

/* a trip count as few digits say it: 64, 1.5, 1.33, 1000 (no exponent,
 * which the text form would read as a list's "+") */
const char *
kern_with(const struct kern *k, int pass)
{
	return k && k->with ? k->with[pass] : NULL;
}

static void
tripnum(struct buf *b, double x)
{
	if (x >= 100 || x == (long)x) {
		buf_printf(b, "%.0f", x);
		return;
	}
	char s[32];
	snprintf(s, sizeof s, "%.2f", x);
	size_t n = strlen(s);
	while (s[n - 1] == '0')
		n--;
	buf_put(b, s, s[n - 1] == '.' ? n - 1 : n);
}

/* the numbers of an FK_NUMS fact joined by sep ("64,1.5,0"), "-" when not
 * known */
static char *
numlist(const struct fact *x, const char *sep)
{
	struct buf b = BUF_INIT;
	if (!x->xs)
		return xstrdup("-");
	for (int i = 0; i < x->n; i++) {
		buf_puts(&b, i ? sep : "");
		tripnum(&b, x->xs[i]);
	}
	return buf_take(&b);
}

char *
kern_trips(const struct kern *k, const char *sep)
{
	return numlist(&k->facts.f[F_TRIPS], sep);
}

int
fact_param(int pass, int i)
{
	const struct param *q = &passes[pass]->schema.param[i];
	return q->flags & PFACT ? fact_find(q->name) : -1;
}

char *
kern_facts(const struct kern *k, int pass, int style)
{
	const struct schema *sc = &passes[pass]->schema;
	const char *is = style == W_YAML ? ": " : "=", *sep = style == W_YAML ? ", " : ",";
	const char *hash = NULL, *hashed = NULL;
	struct buf b = BUF_INIT;
	for (int i = 0; i < sc->nparam; i++) {
		const struct param *q = &sc->param[i];
		int f = fact_param(pass, i);
		if (f < 0)
			continue;
		const struct fact *x = &k->facts.f[f];
		switch (factdefs[f].kind) {
		case FK_INT:
			if (x->i)
				buf_printf(&b, "%s%s%s%ld", b.n ? sep : "", q->name, is, x->i);
			break;
		case FK_NUMS:
			/* a kernel without loops has no trips to give: a list is never empty */
			if (x->xs && x->n > 0) {
				char *t = numlist(x, sep);
				buf_printf(&b, "%s%s%s[%s]", b.n ? sep : "", q->name, is, t);
				free(t);
			}
			break;
		case FK_HASH:
			hash = x->s ? q->name : NULL, hashed = x->s;
			break;
		}
	}
	if (b.n && hash)
		buf_printf(&b, "%s%s%s%s", sep, hash, is, hashed);
	return buf_take(&b);
}

void
setting_launch(const struct tuner *tu, struct setting *s, int pass, const char *kernel,
               const char *params)
{
	const struct kern *k = kern_byname(tu->k, tu->nk, kernel);
	char *f = k ? kern_facts(k, pass, W_TEXT) : xstrdup("");
	char *p = fmt("%s%s%s", params, *params && *f ? "," : "", f);
	setting_add(s, pass, kernel, p);
	free(p), free(f);
}
