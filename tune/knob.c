/* knob.c: settings, the knobs of one candidate, and their MPCC_SET text.
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
