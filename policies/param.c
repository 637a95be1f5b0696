/* param.c: one reader of pass parameters for every form they come in, and
 * one writer for every form they go out in (see param.h).
 *
 * The YAML reader (load.c) and the text reader below both hand each scalar
 * to param_word(), so the conversion, the range checks and their messages
 * exist once. Messages have no position: the YAML reader prefixes
 * "file:line:col: error: ", the text readers their own context. */
#include "policies/param.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const struct schema *const *schemas;
int nschema;

/* a PFACT parameter is named for a fact and of its kind */
static void
factparam(const struct schema *s, const struct param *q)
{
	static const int kind[] = {[FK_INT] = PINT, [FK_NUMS] = PNUMS, [FK_HASH] = PSTR};
	int f = fact_find(q->name);
	if (f < 0)
		BUG("'%s' of '%s' takes a fact, and no fact is named so", q->name, s->name);
	if (q->kind != kind[factdefs[f].kind])
		BUG("'%s' of '%s' is not of the kind of its fact", q->name, s->name);
}

void
policy_passes(const struct schema *const *s, int n)
{
	if (n > MAXPASS)
		BUG("%d passes, room for %d", n, MAXPASS);
	for (int i = 0; i < n; i++) {
		if (s[i]->nparam > MAXPARAM)
			BUG("pass '%s' has %d parameters, room for %d", s[i]->name, s[i]->nparam, MAXPARAM);
		for (int k = 0; k < s[i]->nparam; k++)
			if (s[i]->param[k].flags & PFACT)
				factparam(s[i], &s[i]->param[k]);
	}
	schemas = s;
	nschema = n;
}

static int
named(const char *a, const char *b, size_t n)
{
	return strlen(a) == n && !strncmp(a, b, n);
}

int
schema_find(const char *name, size_t n)
{
	for (int i = 0; i < nschema; i++)
		if (named(schemas[i]->name, name, n))
			return i;
	return -1;
}

int
param_find(const struct schema *s, const char *name, size_t n)
{
	for (int i = 0; i < s->nparam; i++)
		if (named(s->param[i].name, name, n))
			return i;
	return -1;
}

static int
nwords(const char *const *w)
{
	int n = 0;
	while (w && w[n])
		n++;
	return n;
}

static int
isnullword(const char *w)
{
	return !*w || !strcmp(w, "~") || !strcmp(w, "null");
}

/* how a wrong scalar reads in a message: "'abc'", "the string \"32\"", "empty" */
static char *
describe(const char *word, int quoted)
{
	if (!quoted && isnullword(word))
		return xstrdup("empty");
	if (!quoted)
		return fmt("'%.80s'", word);
	return fmt("the string \"%.70s\"", word);
}

/* "a, b or c" (n >= 1) */
static char *
alternatives(const char *const *w, int n)
{
	struct buf b = BUF_INIT;
	for (int i = 0; i < n; i++) {
		if (i)
			buf_puts(&b, i == n - 1 ? " or " : ", ");
		buf_puts(&b, w[i]);
	}
	return buf_take(&b);
}

static char *
joined(const char *const *w, int n)
{
	struct buf b = BUF_INIT;
	for (int i = 0; i < n; i++)
		buf_printf(&b, "%s%s", i ? ", " : "", w[i]);
	return buf_take(&b);
}

/* what a PSETS N is, in words */
static char *
count_words(const struct param *p)
{
	if (p->lo == 1 && p->hi >= 1e6)
		return xstrdup("a positive integer");
	return fmt("an integer from %g to %g", p->lo, p->hi);
}

char *
param_expect(const struct param *p)
{
	const char *alt[16];
	char *n, *s;
	int k;
	switch (p->kind) {
	case PINT:
		return xstrdup("an integer");
	case PNUM:
		return xstrdup("a number");
	case PBOOL:
		return xstrdup("true or false");
	case PENUM:
		return alternatives(p->words, nwords(p->words));
	case PSET:
		return xstrdup("a list");
	case PSETS:
		for (k = 0; k < nwords(p->words) && k < 14; k++)
			alt[k] = p->words[k];
		alt[k++] = n = count_words(p);
		alt[k++] = "a list of set ids";
		s = alternatives(alt, k);
		free(n);
		return s;
	case PSTR:
		return xstrdup(p->flags & PTOOL ? "a file name" : "a string");
	case PNUMS:
		return fmt("a list of numbers from %g to %g", p->lo, p->hi);
	}
	BUG("param kind %d", p->kind);
}

char *
param_missing(const struct schema *s, const struct param *p)
{
	char *e = p->kind == PINT ? fmt("%g to %g", p->lo, p->hi) : param_expect(p);
	char *m = fmt("'%s' needs '%s' (%s)", s->name, p->name, e);
	free(e);
	return m;
}

char *
policy_list(const char *const *names, int n)
{
	return joined(names, n);
}

/* "unknown WHAT 'x'IN; did you mean 'y'?" or "... (known: a, b)" */
char *
unknown_msg(const char *what, const char *s, const char *in, const char *const *names, int n)
{
	const char *near = suggest(s, names, n);
	if (near)
		return fmt("unknown %s '%s'%s; did you mean '%s'?", what, s, in, near);
	char *list = joined(names, n);
	char *m = fmt("unknown %s '%s'%s (known: %s)", what, s, in, list);
	free(list);
	return m;
}

char *
param_unknown(const struct schema *s, const char *key, int tool)
{
	const char *names[MAXPARAM];
	int n = 0;
	for (int i = 0; i < s->nparam; i++)
		if (tool || !(s->param[i].flags & PTOOL))
			names[n++] = s->param[i].name;
	char *in = fmt(" in '%s'", s->name);
	char *m = unknown_msg("key", key, in, names, n);
	free(in);
	return m;
}

static int
toint(const char *w, long *out)
{
	char *end;
	if (!*w)
		return -1;
	errno = 0;
	*out = strtol(w, &end, 10);
	return *end || errno ? -1 : 0;
}

static int
word_index(const char *const *words, const char *w)
{
	for (int i = 0; words && words[i]; i++)
		if (!strcmp(words[i], w))
			return i;
	return -1;
}

static char *
notvalue(const struct param *p, const char *word, int quoted)
{
	char *e = param_expect(p), *d = describe(word, quoted);
	char *m = fmt("'%s' must be %s, not %s", p->name, e, d);
	free(e);
	free(d);
	return m;
}

static char *
intword(const struct param *p, const char *w, int quoted, struct value *v)
{
	long n;
	if (quoted || toint(w, &n) < 0)
		return notvalue(p, w, quoted);
	if (n < p->lo || n > p->hi)
		return fmt("'%s' must be between %g and %g, not %ld", p->name, p->lo, p->hi, n);
	v->i = n;
	return NULL;
}

static char *
numword(const struct param *p, const char *w, int quoted, struct value *v)
{
	char *end = NULL;
	double x = !quoted && *w ? strtod(w, &end) : 0;
	if (!end || *end)
		return notvalue(p, w, quoted);
	if (!(x > p->lo))
		return fmt("'%s' must be a number greater than %g, not %s", p->name, p->lo, w);
	if (x > p->hi)
		return fmt("'%s' must be a number at most %g, not %s", p->name, p->hi, w);
	v->x = x;
	return NULL;
}

static char *
boolword(const struct param *p, const char *w, int quoted, struct value *v)
{
	static const char *const t[] = {"true", "True", "TRUE", NULL},
	                         *const f[] = {"false", "False", "FALSE", NULL};
	if (!quoted && word_index(t, w) >= 0)
		return v->i = 1, NULL;
	if (!quoted && word_index(f, w) >= 0)
		return v->i = 0, NULL;
	return notvalue(p, w, quoted);
}

static char *
setitem(const struct param *p, const char *w, struct value *v)
{
	int k = word_index(p->words, w);
	if (k >= 0) {
		v->i |= 1L << k;
		return NULL;
	}
	char *in = fmt(" in '%s'", p->name);
	char *m = unknown_msg(p->item ? p->item : "word", w, in, p->words, nwords(p->words));
	free(in);
	return m;
}

static char *
setsword(const struct param *p, const char *w, int quoted, struct value *v)
{
	long n;
	int k = word_index(p->words, w);
	if (k >= 0)
		return v->i = k, NULL;
	if (quoted || toint(w, &n) < 0 || n < p->lo || n > p->hi)
		return notvalue(p, w, quoted);
	v->i = SETS_N;
	v->x = n;
	return NULL;
}

/* one id of a PSETS list, appended to v->ids (grown by the caller's arena) */
static char *
setsid(const struct param *p, const char *w, int quoted, struct value *v)
{
	long n;
	if (quoted || toint(w, &n) < 0 || n < 0) {
		char *d = describe(w, quoted);
		char *m = fmt("a set id in '%s' must be a non-negative integer, not %s", p->name, d);
		free(d);
		return m;
	}
	v->ids[v->nids++] = n;
	return NULL;
}

/* one number of a PNUMS list, appended to v->xs (room made by the caller);
 * NULL xs: a scalar where a list belongs */
static char *
numsitem(const struct param *p, const char *w, int quoted, struct value *v)
{
	char *end = NULL;
	double x = !quoted && *w ? strtod(w, &end) : 0;
	if (!v->xs) {
		char *e = param_expect(p), *d = describe(w, quoted);
		char *m = fmt("'%s' must be %s, not %s", p->name, e, d);
		free(e), free(d);
		return m;
	}
	if (!end || *end || !(x >= p->lo && x <= p->hi)) {
		char *d = describe(w, quoted);
		char *m = fmt("an item of '%s' must be a number from %g to %g, not %s", p->name, p->lo,
		              p->hi, d);
		free(d);
		return m;
	}
	v->xs[v->nids++] = x;
	return NULL;
}

/* A list item is read with v->i (PSET) or v->ids (PSETS) prepared by the
 * caller: PSET starts from mask 0, PSETS from SETS_IDS with room for the
 * items in v->ids. */
char *
param_word(const struct param *p, const char *word, int quoted, struct value *v)
{
	switch (p->kind) {
	case PINT:
		return intword(p, word, quoted, v);
	case PNUM:
		return numword(p, word, quoted, v);
	case PBOOL:
		return boolword(p, word, quoted, v);
	case PENUM:
		if ((v->i = word_index(p->words, word)) >= 0)
			return NULL;
		return notvalue(p, word, quoted);
	case PSET:
		return setitem(p, word, v);
	case PSETS:
		return v->i == SETS_IDS ? setsid(p, word, quoted, v) : setsword(p, word, quoted, v);
	case PSTR:
		if (!*word)
			return notvalue(p, word, quoted);
		v->s = word;
		return NULL;
	case PNUMS:
		return numsitem(p, word, quoted, v);
	}
	BUG("param kind %d", p->kind);
}

char *
param_list_end(const struct param *p, int nitems)
{
	if (nitems > 0 || p->kind == PNUMS)
		return NULL;
	if (p->kind == PSETS)
		return fmt("'%s' needs at least one set id", p->name);
	char *all = joined(p->words, nwords(p->words));
	char *m = fmt("'%s' needs at least one of %s", p->name, all);
	free(all);
	return m;
}

void
params_default(const struct schema *s, struct params *p)
{
	*p = (struct params){.s = s};
	for (int k = 0; k < s->nparam; k++) {
		const struct param *q = &s->param[k];
		char *err = NULL;
		if (!q->def || q->kind == PNUMS || (q->kind == PSTR && !*q->def))   /* none */
			continue;
		if (q->kind == PSET) {
			char *copy = xstrdup(q->def), *save, *w;
			for (w = strtok_r(copy, "+", &save); w && !err; w = strtok_r(NULL, "+", &save))
				err = setitem(q, w, &p->v[k]);
			free(copy);
		} else {
			err = param_word(q, q->def, 0, &p->v[k]);
		}
		if (err)
			BUG("default of '%s' in '%s': %s", q->name, s->name, err);
	}
}

int
params_has(const struct params *p, int k)
{
	return (p->given >> k) & 1;
}

int
params_hashed(const struct params *p)
{
	struct facts f;
	params_facts(p, &f);
	for (int i = 0; i < NFACT; i++)
		if (factdefs[i].kind == FK_HASH && f.f[i].s)
			return 1;
	return 0;
}

void
params_facts(const struct params *p, struct facts *f)
{
	memset(f, 0, sizeof *f);
	for (int k = 0; k < p->s->nparam; k++) {
		const struct value *v = &p->v[k];
		int i = p->s->param[k].flags & PFACT ? fact_find(p->s->param[k].name) : -1;
		if (i < 0)
			continue;
		switch (factdefs[i].kind) {
		case FK_INT: f->f[i].i = v->i; break;
		case FK_NUMS: f->f[i].xs = v->nids ? v->xs : NULL, f->f[i].n = v->nids; break;
		case FK_HASH: f->f[i].s = v->s; break;
		}
	}
}

/* the next "key=value" of text at depth 0 of [ ]: its end */
static const char *
itemend(const char *s)
{
	int depth = 0;
	for (; *s && (*s != ',' || depth > 0); s++)
		depth += *s == '[' ? 1 : *s == ']' ? -1 : 0;
	return s;
}

/* the items of a text list value "[a,b]" or "a+b", into p's value */
static char *
textlist(const struct param *q, char *val, Arena *a, struct value *v)
{
	size_t n = strlen(val);
	char sep = '+', *save, *w;
	if (n >= 2 && val[0] == '[' && val[n - 1] == ']')
		val[n - 1] = 0, val++, sep = ',';
	int nitems = 1;
	for (char *c = val; *c; c++)
		nitems += *c == sep;
	if (q->kind == PSETS) {
		v->i = SETS_IDS;
		v->ids = arena_alloc(a, nitems * sizeof *v->ids);
		v->nids = 0;
	} else if (q->kind == PNUMS) {
		v->xs = arena_alloc(a, nitems * sizeof *v->xs);
		v->nids = 0;
	} else {
		v->i = 0;
	}
	char seps[2] = {sep, 0};
	char *err = NULL;
	int got = 0;
	for (w = strtok_r(val, seps, &save); w && !err; w = strtok_r(NULL, seps, &save), got++)
		err = param_word(q, w, 0, v);
	return err ? err : param_list_end(q, got);
}

static int
islist(const struct param *q, const char *val)
{
	size_t n = strlen(val);
	if (n >= 2 && val[0] == '[' && val[n - 1] == ']')
		return 1;
	return q->kind == PSET || q->kind == PNUMS || (q->kind == PSETS && strchr(val, '+'));
}

static char *
notlist(const struct param *q)
{
	char *e = param_expect(q), *m = fmt("'%s' must be %s, not a list", q->name, e);
	free(e);
	return m;
}

/* one "key=value" item; NULL or the message */
static char *
textitem(const struct schema *s, char *item, int tool, Arena *a, struct params *p)
{
	char *eq = strchr(item, '=');
	if (!eq)
		return fmt("expected 'key=value' in '%s', not '%s'", s->name, item);
	*eq = 0;
	int k = param_find(s, item, strlen(item));
	if (k < 0 || (!tool && (s->param[k].flags & PTOOL)))
		return param_unknown(s, item, tool);
	if (params_has(p, k))
		return fmt("duplicate key '%s' in '%s'", item, s->name);
	const struct param *q = &s->param[k];
	struct value v = {0};
	char *val = eq + 1, *err;
	if (q->kind == PSTR)
		val = arena_strdup(a, val);
	if (islist(q, val) && (q->kind == PSET || q->kind == PSETS || q->kind == PNUMS))
		err = textlist(q, val, a, &v);
	else if (islist(q, val))
		err = notlist(q);
	else
		err = param_word(q, val, 0, &v);
	if (err)
		return err;
	p->v[k] = v;
	p->given |= 1u << k;
	return NULL;
}

int
params_parse(const struct schema *s, const char *text, int tool, Arena *a,
             struct params *p, char **err)
{
	char *copy = xstrdup(text ? text : "");
	*err = NULL;
	params_default(s, p);
	for (char *it = copy; *it && !*err;) {
		char *end = (char *)itemend(it);
		int last = !*end;
		*end = 0;
		*err = textitem(s, it, tool, a, p);
		it = last ? end : end + 1;
	}
	for (int k = 0; k < s->nparam && !*err; k++)
		if (!s->param[k].def && !(s->param[k].flags & PTOOL) && !params_has(p, k))
			*err = param_missing(s, &s->param[k]);
	free(copy);
	return *err ? -1 : 0;
}

char *
numstr(double x)
{
	for (int prec = 1; prec < 17; prec++) {
		char *s = fmt("%.*g", prec, x);
		if (strtod(s, NULL) == x)
			return s;
		free(s);
	}
	return fmt("%.17g", x);
}

/* a word in the given style: JSON quotes it */
static void
word(struct buf *b, const char *w, int style)
{
	if (style == W_JSON)
		buf_json(b, w);
	else
		buf_puts(b, w);
}

static void
value(struct buf *b, const struct param *q, const struct value *v, int style)
{
	const char *sep = style == W_JSON || style == W_TEXT ? "," : ", ";
	char *n;
	switch (q->kind) {
	case PINT:
	case PBOOL:
		if (q->kind == PBOOL)
			buf_puts(b, v->i ? "true" : "false");
		else
			buf_printf(b, "%ld", v->i);
		return;
	case PNUM:
		buf_puts(b, n = numstr(v->x));
		free(n);
		return;
	case PENUM:
		word(b, q->words[v->i], style);
		return;
	case PSET:
		buf_puts(b, "[");
		for (int i = 0, first = 1; q->words[i]; i++)
			if (v->i & 1L << i) {
				buf_puts(b, first ? "" : sep);
				word(b, q->words[i], style);
				first = 0;
			}
		buf_puts(b, "]");
		return;
	case PSETS:
		if (v->i >= 0) {
			word(b, q->words[v->i], style);
		} else if (v->i == SETS_N) {
			buf_printf(b, "%ld", (long)v->x);
		} else {
			buf_puts(b, "[");
			for (int i = 0; i < v->nids; i++)
				buf_printf(b, "%s%ld", i ? sep : "", v->ids[i]);
			buf_puts(b, "]");
		}
		return;
	case PSTR:
		word(b, v->s ? v->s : "", style);
		return;
	case PNUMS:
		buf_puts(b, "[");
		for (int i = 0; i < v->nids; i++) {
			buf_puts(b, i ? sep : "");
			buf_puts(b, n = numstr(v->xs[i]));
			free(n);
		}
		buf_puts(b, "]");
		return;
	}
}

void
params_write(struct buf *b, const struct params *p, int style)
{
	static const char *const open[] = {"{", "", "", "{"}, *const close[] = {"}", "", "", "}"},
	                         *const between[] = {",", " ", ",", ", "},
	                         *const is[] = {":", "=", "=", ": "};
	int first = 1;
	buf_puts(b, open[style]);
	for (int k = 0; k < p->s->nparam; k++) {
		const struct param *q = &p->s->param[k];
		if ((q->flags & PTOOL) || (q->kind == PNUMS && !p->v[k].nids) ||
		    (q->kind == PSTR && !p->v[k].s))
			continue;
		buf_puts(b, first ? "" : between[style]);
		word(b, q->name, style);
		buf_puts(b, is[style]);
		value(b, q, &p->v[k], style);
		first = 0;
	}
	buf_puts(b, close[style]);
}

char *
params_str(const struct params *p, int style)
{
	struct buf b = BUF_INIT;
	params_write(&b, p, style);
	return buf_take(&b);
}
