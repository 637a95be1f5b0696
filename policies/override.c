/* override.c: MPCC_SET, rules given in the environment that win over the
 * profile's (mpcc-tune builds each candidate with one).
 *
 *   MPCC_SET='sfu:lambda=32,kernels=BoxMuller*;fiset:sets=[3,4],kernels=[a,b]'
 *   MPCC_SET='off;sfu:lambda=48,kernels=boxmuller'
 *
 * set  = item (";" item)*
 * item = "off" ["," where] | PASS ":" "off" ["," where] | PASS ":" pairs
 * pairs = pair ("," pair)*        pair = key=value | where
 * where = "kernels=" globs | "files=" globs     globs = GLOB | "[" GLOB ("," GLOB)* "]"
 *
 * Each item is one rule, appended after the profile's rules in order, so
 * that it wins (the last matching rule wins, as in a profile); "off" alone
 * switches every transform off. kernels defaults to every kernel. A files
 * glob without '/' matches the file name in any directory, one with '/' the
 * absolute path. The values are read by params_parse(), so a mistake reads
 * as it would in a policy, with the position "MPCC_SET:1:COLUMN" (the column
 * of the item) in place of the file's, which is also the rule's 'where' for
 * --mpcc-explain and the report. */
#include "policies/policy.h"

#include <stdlib.h>
#include <string.h>

struct override {
	char *text;          /* MPCC_SET as read */
	struct rule *rule;
	int nrule;
	int bad;             /* the errors were printed once; every compile fails */
};

static Arena *arena;

/* the end of the item or pair that starts at s: sep at bracket depth 0 */
static const char *
itemend(const char *s, int sep)
{
	int depth = 0;
	for (; *s && (*s != sep || depth > 0); s++)
		depth += *s == '[' ? 1 : *s == ']' ? -1 : 0;
	return s;
}

static void
oerror(int col, const char *msg)
{
	fprintf(stderr, "MPCC_SET:1:%d: error: %s\n", col, msg);
}

/* GLOB or [GLOB,GLOB] into a list of globs */
static char **
globs(const char *v, int *n)
{
	size_t len = strlen(v);
	char **g;
	*n = 0;
	if (len >= 2 && v[0] == '[' && v[len - 1] == ']') {
		char *copy = arena_strndup(arena, v + 1, len - 2), *save, *w;
		int cap = 1;
		for (const char *c = copy; *c; c++)
			cap += *c == ',';
		g = arena_alloc(arena, cap * sizeof *g);
		for (w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save))
			g[(*n)++] = w;
		return g;
	}
	if (!*v)
		return NULL;
	g = arena_alloc(arena, sizeof *g);
	g[(*n)++] = arena_strdup(arena, v);
	return g;
}

/* the column of the pair of text (an item's pairs) whose message alone is
 * msg: where a mistake is; the item's column if no pair alone makes it */
static int
errcol(const struct schema *s, const char *pairs, int col, const char *msg)
{
	for (int k = 0; k < s->nparam; k++) {
		char *m = s->param[k].def ? NULL : param_missing(s, &s->param[k]);
		int missing = m && !strcmp(m, msg);
		free(m);
		if (missing)
			return -1;
	}
	for (const char *p = pairs; *p;) {
		const char *e = itemend(p, ',');
		char *one = xstrndup(p, e - p), *err = NULL;
		struct params tmp;
		Arena *a = arena_new();
		params_parse(s, one, 0, a, &tmp, &err);
		int same = err && !strcmp(err, msg);
		free(err);
		free(one);
		arena_free(a);
		if (same)
			return col;
		col += e - p + (*e == ',');
		p = *e ? e + 1 : e;
	}
	return -1;
}

/* kernels=, files= or off out of pairs; the rest (the pass's own) into rest */
static int
where(struct rule *r, const char *pairs, int col, struct buf *rest, int *off)
{
	int bad = 0;
	for (const char *p = pairs; *p;) {
		const char *e = itemend(p, ',');
		char *one = xstrndup(p, e - p);
		char **g = NULL;
		int n = 0;
		if (startswith(one, "kernels=") || startswith(one, "files=")) {
			int k = one[0] == 'k';
			g = globs(strchr(one, '=') + 1, &n);
			if (!n) {
				char *m = fmt("'%s' needs at least one glob", k ? "kernels" : "files");
				oerror(col, m), free(m), bad = 1;
			} else if (k)
				r->kernels = g, r->nkernels = n;
			else
				r->files = g, r->nfiles = n;
		} else if (!strcmp(one, "off")) {
			*off = 1;
		} else {
			buf_printf(rest, "%s%s", rest->n ? "," : "", one);
		}
		free(one);
		col += e - p + (*e == ',');
		p = *e ? e + 1 : e;
	}
	return bad ? -1 : 0;
}

// item = "off" ["," where] | PASS ":" ("off" | pairs)
static int
item(struct rule *r, const char *text, int col)
{
	const char *colon = strchr(text, ':');
	size_t n = colon ? (size_t)(colon - text) : strlen(text);
	const char *pairs = colon ? colon + 1 : "";
	int t = schema_find(text, n), off = 0, pcol = col + n + 1;
	struct buf rest = BUF_INIT;
	static char *kw = "*";
	r->dir = "/";
	char *w = fmt("MPCC_SET:1:%d", col);
	r->where = arena_strdup(arena, w);
	free(w);
	if (n == 3 && !strncmp(text, "off", 3)) {
		r->off = (1u << nschema) - 1;
		t = -2;
	} else if (startswith(text, "off,")) {
		r->off = (1u << nschema) - 1;
		pairs = text + 4, pcol = col + 4, t = -2;
	}
	if (t == -1) {
		const char *names[MAXPASS + 1];
		for (int i = 0; i < nschema; i++)
			names[i] = schemas[i]->name;
		names[nschema] = "off";
		char *name = xstrndup(text, n);
		char *m = unknown_msg("transform", name, "", names, nschema + 1);
		oerror(col, m);
		free(m), free(name);
		return -1;
	}
	if (where(r, pairs, pcol, &rest, &off) < 0)
		return buf_release(&rest), -1;
	if (!r->nkernels)
		r->kernels = &kw, r->nkernels = 1;
	if (t == -2 || off) {
		int bad = rest.n > 0;
		if (bad) {
			char *m = fmt("'off' takes only kernels= and files=, not '%s'", rest.s);
			oerror(col, m), free(m);
		}
		if (t >= 0)
			r->off = 1u << t;
		buf_release(&rest);
		return bad ? -1 : 0;
	}
	struct params *p = arena_alloc(arena, sizeof *p);
	char *err;
	if (params_parse(schemas[t], rest.s, 0, arena, p, &err) < 0) {
		int at = errcol(schemas[t], pairs, pcol, err);
		oerror(at > 0 ? at : col, err);
		free(err);
		buf_release(&rest);
		return -1;
	}
	buf_release(&rest);
	r->has = 1u << t;
	r->param[t] = p;
	return 0;
}

static struct override *
parse(const char *text)
{
	struct override *o = arena_alloc(arena, sizeof *o);
	int cap = 0;
	o->text = arena_strdup(arena, text);
	for (const char *s = text; *s;) {
		const char *e = itemend(s, ';');
		int col = s - text + 1;
		while (s < e && (*s == ' ' || *s == '\t'))
			s++, col++;
		size_t n = e - s;
		while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
			n--;
		if (n) {
			char *one = xstrndup(s, n);
			vgrow(o->rule, o->nrule, cap);
			o->rule[o->nrule] = (struct rule){0};
			if (item(&o->rule[o->nrule], one, col) < 0)
				o->bad = 1;
			else
				o->nrule++;
			free(one);
		}
		s = *e ? e + 1 : e;
	}
	return o;
}

/* MPCC_SET parsed once per process (NULL: unset or empty); -1 if it is bad */
static int
current(struct override **out)
{
	static struct override *o;
	const char *v = getenv("MPCC_SET");
	*out = NULL;
	if (!v || !*v)
		return 0;
	if (!o || strcmp(o->text, v)) {
		if (!arena)
			arena = arena_new();
		o = parse(v);
	} else if (o->bad) {
		fprintf(stderr, "MPCC_SET: error: invalid (see above)\n");
	}
	*out = o;
	return o->bad ? -1 : 0;
}

int
override_apply(struct profile **p)
{
	struct override *o;
	if (current(&o) < 0)
		return -1;
	if (!o)
		return 0;
	if (!*p) {
		*p = xcalloc(1, sizeof **p);
		(*p)->name = "";
		(*p)->policy = "none";
		(*p)->why = "no .mpcc.yaml applies: MPCC_SET alone";
		(*p)->on_unsupported = UNSUP_WARN;
	}
	struct profile *q = *p;
	q->rule = xrealloc(q->rule, (q->nrule + o->nrule) * sizeof *q->rule);
	memcpy(q->rule + q->nrule, o->rule, o->nrule * sizeof *o->rule);
	q->nrule += o->nrule;
	q->override = o->text;
	return 0;
}
