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

static const char *
shortname(const char *mangled, const struct kern *k, int nk)
{
	for (int i = 0; i < nk; i++)
		if (!strcmp(k[i].mangled, mangled))
			return k[i].demangled;
	return mangled;
}

char *
setting_words(const struct setting *s, const struct kern *k, int nk)
{
	struct buf b = BUF_INIT;
	if (!s->n)
		buf_puts(&b, "baseline (no transform)");
	for (int i = 0; i < s->n; i++) {
		const char *name = shortname(s->k[i].kernel, k, nk);
		size_t n = strcspn(name, "(");
		buf_printf(&b, "%s%.*s %s %s", i ? "; " : "", (int)n, name,
		           passes[s->k[i].pass]->schema.name, s->k[i].params);
	}
	return buf_take(&b);
}

struct kern *
kern_byname(const struct tuner *tu, const char *mangled)
{
	for (int i = 0; i < tu->nk; i++)
		if (!strcmp(tu->k[i].mangled, mangled))
			return &tu->k[i];
	return NULL;
}

void
setting_launch(const struct tuner *tu, struct setting *s, int pass, const char *kernel,
               const char *params)
{
	const struct schema *sc = &passes[pass]->schema;
	const struct kern *k = kern_byname(tu, kernel);
	for (int i = 0; i < sc->nparam && k && k->warps; i++)
		if (sc->param[i].flags & PLAUNCH) {
			char *p = fmt("%s%s%s=%d", params, *params ? "," : "", sc->param[i].name, k->warps);
			setting_add(s, pass, kernel, p);
			free(p);
			return;
		}
	setting_add(s, pass, kernel, params);
}
