/* load.c: one .mpcc.yaml -> struct policy, validated.
 *
 * libyaml loads the whole file as a document (aliases resolved, every node
 * with its marks); the functions below walk it top-down, one per schema level
 * (policy, profile, rule, transform block), and report each problem at the
 * node it concerns as "file:line:col: error: ..." (libyaml's marks are
 * 0-based). They go on after an error so that one run shows every mistake;
 * the file is rejected if any was found, once policy.c has checked what
 * needs the other files too (policy_read()). The schema is in
 * man/mpcc.yaml.5. */
#include "policies/policy.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yaml.h>

struct ctx {
	const char *path;
	yaml_document_t *doc;
	Arena *a;
	int nerr;
};

static Arena *arena;

/* one line per message, even when it quotes a multi-line value */
static void __attribute__((format(printf, 3, 4)))
err(struct ctx *c, yaml_node_t *n, const char *f, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, f);
	vsnprintf(msg, sizeof msg, f, ap);
	va_end(ap);
	fprintf(stderr, "%s:%lu:%lu: error: ", c->path,
	        (ulong)n->start_mark.line + 1, (ulong)n->start_mark.column + 1);
	for (uchar *p = (uchar *)msg; *p; p++)
		if (*p == '\n')
			fputs("\\n", stderr);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(stderr, "\\x%02x", *p);
		else
			fputc(*p, stderr);
	fputc('\n', stderr);
	c->nerr++;
}

static char *
where(struct ctx *c, yaml_node_t *n)
{
	char *s = fmt("%s:%lu:%lu", c->path, (ulong)n->start_mark.line + 1,
	              (ulong)n->start_mark.column + 1);
	char *w = arena_strdup(c->a, s);
	free(s);
	return w;
}

static yaml_node_t *
node(struct ctx *c, int i)
{
	return yaml_document_get_node(c->doc, i);
}

static const char *
str(yaml_node_t *n)
{
	return (const char *)n->data.scalar.value;
}

static int
plain(yaml_node_t *n)
{
	return n->type == YAML_SCALAR_NODE && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
}

static int
isnull(yaml_node_t *n)
{
	return plain(n) && (!*str(n) || !strcmp(str(n), "~") || !strcmp(str(n), "null"));
}

/* how a wrong value reads in a message: "a list", "'abc'", "the string \"32\"" */
static char *
describe(yaml_node_t *n)
{
	static char buf[96];
	if (n->type == YAML_SEQUENCE_NODE)
		return "a list";
	if (n->type == YAML_MAPPING_NODE)
		return "a mapping";
	if (isnull(n))
		return "empty";
	if (plain(n))
		snprintf(buf, sizeof buf, "'%.80s'", str(n));
	else
		snprintf(buf, sizeof buf, "the string \"%.70s\"", str(n));
	return buf;
}

/* a message made elsewhere (param.c), at n; frees it */
static void
errmsg(struct ctx *c, yaml_node_t *n, char *msg)
{
	err(c, n, "%s", msg);
	free(msg);
}

static void
unknown(struct ctx *c, yaml_node_t *k, const char *what, const char *in,
        const char *const *names, int n)
{
	errmsg(c, k, unknown_msg(what, str(k), in, names, n));
}

/* the passes' names, for "unknown transform" */
static const char **
passnames(void)
{
	static const char *names[MAXPASS];
	for (int t = 0; t < nschema; t++)
		names[t] = schemas[t]->name;
	return names;
}

/* Check that n is a mapping with keys from names (each at most once) and put
 * each value in val[] (NULL when absent). in names the mapping in messages
 * (" in 'sfu'"); a key in rule context whose value is a mapping reads as a
 * transform. -1 if n is not a mapping, else the number of bad keys (the
 * caller then leaves out "missing key" errors, which would only repeat them). */
static int
mapping(struct ctx *c, yaml_node_t *n, const char *what, const char *in,
        const char *const *names, int nnames, yaml_node_t **val)
{
	for (int i = 0; i < nnames; i++)
		val[i] = NULL;
	if (n->type != YAML_MAPPING_NODE) {
		err(c, n, "%s must be a mapping, not %s", what, describe(n));
		return -1;
	}
	yaml_node_t *keyof[16] = {0};
	int bad = c->nerr;
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *k = node(c, p->key), *v = node(c, p->value);
		if (k->type != YAML_SCALAR_NODE) {
			err(c, k, "a key must be a string, not %s", describe(k));
			continue;
		}
		int i = 0;
		while (i < nnames && strcmp(str(k), names[i]))
			i++;
		if (i == nnames) {
			int rule = !strcmp(in, " in rule");
			if (rule && v->type == YAML_MAPPING_NODE)
				unknown(c, k, "transform", "", passnames(), nschema);
			else
				unknown(c, k, "key", in, names, nnames);
		} else if (val[i]) {
			err(c, k, "duplicate key '%s'%s (first at line %lu)", str(k), in,
			    (ulong)keyof[i]->start_mark.line + 1);
		} else {
			val[i] = v;
			keyof[i] = k;
		}
	}
	return c->nerr - bad;
}

static int
toint(struct ctx *c, yaml_node_t *n, const char *key, long lo, long hi, int *out)
{
	char *end;
	if (plain(n) && *str(n)) {
		errno = 0;
		long v = strtol(str(n), &end, 10);
		if (!*end && !errno) {
			if (v < lo || v > hi) {
				err(c, n, "'%s' must be between %ld and %ld, not %ld", key, lo, hi, v);
				return -1;
			}
			*out = v;
			return 0;
		}
	}
	err(c, n, "'%s' must be an integer, not %s", key, describe(n));
	return -1;
}

static int
tobool(struct ctx *c, yaml_node_t *n, const char *key, int *out)
{
	static const char *const t[] = {"true", "True", "TRUE"}, *const f[] = {"false", "False", "FALSE"};
	for (int i = 0; plain(n) && i < 3; i++) {
		if (!strcmp(str(n), t[i]))
			return *out = 1, 0;
		if (!strcmp(str(n), f[i]))
			return *out = 0, 0;
	}
	err(c, n, "'%s' must be true or false, not %s", key, describe(n));
	return -1;
}

/* "a, b or c" */
static char *
alternatives(const char *const *names, int n)
{
	char *s = policy_list(names, n - 1);
	char *t = fmt("%s or %s", s, names[n - 1]);
	free(s);
	return t;
}

static int
toenum(struct ctx *c, yaml_node_t *n, const char *key, const char *const *names, int nnames)
{
	for (int i = 0; plain(n) && i < nnames; i++)
		if (!strcmp(str(n), names[i]))
			return i;
	char *alt = alternatives(names, nnames);
	err(c, n, "'%s' must be %s, not %s", key, alt, describe(n));
	free(alt);
	return -1;
}

static const char *
tostring(struct ctx *c, yaml_node_t *n, const char *key)
{
	if (n->type == YAML_SCALAR_NODE && !isnull(n))
		return arena_strdup(c->a, str(n));
	err(c, n, "'%s' must be a string, not %s", key, describe(n));
	return NULL;
}

/* globs = "[" glob ("," glob)* "]" */
static char **
globs(struct ctx *c, yaml_node_t *n, const char *key, int *count, const char ***wh)
{
	if (n->type != YAML_SEQUENCE_NODE) {
		err(c, n, "'%s' must be a list of globs, not %s", key, describe(n));
		return NULL;
	}
	yaml_node_item_t *it = n->data.sequence.items.start;
	int m = n->data.sequence.items.top - it;
	if (m == 0) {
		err(c, n, "'%s' needs at least one glob", key);
		return NULL;
	}
	char **v = arena_alloc(c->a, m * sizeof *v);
	if (wh)
		*wh = arena_alloc(c->a, m * sizeof **wh);
	for (int i = 0; i < m; i++) {
		yaml_node_t *g = node(c, it[i]);
		if (wh)
			(*wh)[i] = where(c, g);
		if (g->type != YAML_SCALAR_NODE)
			err(c, g, "a glob in '%s' must be a string, not %s", key, describe(g));
		else if (!*str(g) || isnull(g))
			err(c, g, "empty glob in '%s'", key);
		else
			v[i] = arena_strdup(c->a, str(g));
	}
	*count = m;
	return v;
}

/* one parameter of a pass's block: a scalar, or a list for PSET, PSETS and
 * PNUMS */
static void
value(struct ctx *c, yaml_node_t *n, const struct param *q, Arena *a, struct value *v)
{
	if (n->type == YAML_SCALAR_NODE) {
		int quoted = !plain(n);
		if (q->kind == PSET)
			v->i = 0;
		if (q->kind == PNUMS)   /* one number: a list of one */
			v->xs = arena_alloc(a, sizeof *v->xs);
		char *m = param_word(q, str(n), quoted, v);
		if (!m && q->kind == PSTR)
			v->s = arena_strdup(a, v->s);
		if (m)
			errmsg(c, n, m);
		return;
	}
	if (n->type != YAML_SEQUENCE_NODE || (q->kind != PSET && q->kind != PSETS && q->kind != PNUMS)) {
		char *e = param_expect(q);
		err(c, n, "'%s' must be %s, not %s", q->name, e, describe(n));
		free(e);
		return;
	}
	yaml_node_item_t *it = n->data.sequence.items.start;
	int m = n->data.sequence.items.top - it;
	v->i = q->kind == PSETS ? SETS_IDS : 0;
	if (q->kind == PSETS)
		v->ids = arena_alloc(a, (m ? m : 1) * sizeof *v->ids);
	if (q->kind == PNUMS)
		v->xs = arena_alloc(a, (m ? m : 1) * sizeof *v->xs);
	char *msg = param_list_end(q, m);
	if (msg)
		errmsg(c, n, msg);
	for (int i = 0; i < m; i++) {
		yaml_node_t *w = node(c, it[i]);
		if (w->type != YAML_SCALAR_NODE)
			err(c, w, "an '%s' item must be a string, not %s", q->name, describe(w));
		else if ((msg = param_word(q, str(w), !plain(w), v)))
			errmsg(c, w, msg);
	}
}

/* block = "{" (param ":" value)* "}" | null: a pass's parameters */
static struct params *
block(struct ctx *c, yaml_node_t *n, const struct schema *s)
{
	struct params *p = arena_alloc(c->a, sizeof *p);
	const char *keys[MAXPARAM];
	yaml_node_t *v[MAXPARAM];
	int nkeys = 0, bad = 0;
	params_default(s, p);
	for (int k = 0; k < s->nparam; k++)
		if (!(s->param[k].flags & PTOOL))
			keys[nkeys++] = s->param[k].name;
	if (isnull(n)) {
		for (int k = 0; k < nkeys; k++)
			v[k] = NULL;
	} else {
		char *what = fmt("'%s'", s->name), *in = fmt(" in '%s'", s->name);
		bad = mapping(c, n, what, in, keys, nkeys, v);
		free(what);
		free(in);
		if (bad < 0)
			return p;
	}
	for (int k = 0, j = 0; k < s->nparam; k++) {
		const struct param *q = &s->param[k];
		if (q->flags & PTOOL)
			continue;
		yaml_node_t *val = v[j++];
		if (val) {
			value(c, val, q, c->a, &p->v[k]);
			p->given |= 1u << k;
		} else if (!q->def && !bad) {
			errmsg(c, n, param_missing(s, q));
		}
	}
	return p;
}

/* a transform block may be "off" (or false): the rule switches it off */
static int
isoff(yaml_node_t *n)
{
	return plain(n) && (!strcmp(str(n), "off") || !strcmp(str(n), "false"));
}

// rule = "{" "kernels" ":" globs ["files" ":" globs] (pass ":" (block | "off"))+ "}"
static void
rule(struct ctx *c, yaml_node_t *n, struct rule *r, const char *dir)
{
	const char *keys[2 + MAXPASS] = {"kernels", "files"};
	yaml_node_t *v[2 + MAXPASS];
	for (int t = 0; t < nschema; t++)
		keys[2 + t] = schemas[t]->name;
	r->dir = dir;
	r->where = where(c, n);
	int bad = mapping(c, n, "a rule", " in rule", keys, 2 + nschema, v);
	if (bad < 0)
		return;
	if (!v[0] && !bad)
		err(c, n, "rule has no 'kernels'");
	else if (v[0])
		r->kernels = globs(c, v[0], "kernels", &r->nkernels, &r->kwhere);
	if (v[1])
		r->files = globs(c, v[1], "files", &r->nfiles, NULL);
	for (int t = 0; t < nschema; t++) {
		yaml_node_t *b = v[2 + t];
		if (!b)
			continue;
		if (isoff(b)) {
			r->off |= 1u << t;
			continue;
		}
		r->has |= 1u << t;
		if (b->type != YAML_MAPPING_NODE && !isnull(b))
			err(c, b, "'%s' must be a mapping or off, not %s", schemas[t]->name, describe(b));
		else
			r->param[t] = block(c, b, schemas[t]);
	}
	if (!r->has && !r->off && !bad) {
		char *alt = alternatives(passnames(), nschema);
		err(c, n, "rule has no transform (%s)", alt);
		free(alt);
	}
}

static const char *const unsup_name[] = {"warn", "error", "silent"};

// profile = "{" ["rules" ":" "[" rule* "]"] ["on_unsupported" ":" unsup] "}" | null
static void
profile(struct ctx *c, yaml_node_t *k, yaml_node_t *n, struct pprofile *p, const char *dir)
{
	static const char *const keys[] = {"rules", "on_unsupported"};
	yaml_node_t *v[2];
	p->name = arena_strdup(c->a, str(k));
	p->where = where(c, k);
	p->line = k->start_mark.line + 1;
	p->on_unsupported = -1;
	if (!*p->name)
		err(c, k, "empty profile name");
	if (isnull(n))
		return;
	char *what = fmt("profile '%s'", p->name), *in = fmt(" in profile '%s'", p->name);
	int bad = mapping(c, n, what, in, keys, 2, v);
	free(what);
	free(in);
	if (bad < 0)
		return;
	if (v[1])
		p->on_unsupported = toenum(c, v[1], "on_unsupported", unsup_name, 3);
	if (!v[0] || isnull(v[0]))
		return;
	if (v[0]->type != YAML_SEQUENCE_NODE) {
		err(c, v[0], "'rules' must be a list, not %s", describe(v[0]));
		return;
	}
	yaml_node_item_t *it = v[0]->data.sequence.items.start;
	p->nrule = v[0]->data.sequence.items.top - it;
	p->rule = arena_alloc(c->a, p->nrule * sizeof *p->rule);
	for (int i = 0; i < p->nrule; i++)
		rule(c, node(c, it[i]), &p->rule[i], dir);
}

static void
profiles(struct ctx *c, yaml_node_t *n, struct policy *pol)
{
	if (n->type != YAML_MAPPING_NODE) {
		err(c, n, "'profiles' must be a mapping of profile names, not %s", describe(n));
		pol->unnamed = 1;
		return;
	}
	yaml_node_pair_t *p = n->data.mapping.pairs.start;
	int m = n->data.mapping.pairs.top - p;
	pol->prof = arena_alloc(c->a, m * sizeof *pol->prof);
	for (int i = 0; i < m; i++) {
		yaml_node_t *k = node(c, p[i].key);
		if (k->type != YAML_SCALAR_NODE) {
			err(c, k, "a profile name must be a string, not %s", describe(k));
			continue;
		}
		int dup = 0;
		for (int j = 0; j < pol->nprof && !dup; j++)
			if (!strcmp(pol->prof[j].name, str(k))) {
				err(c, k, "duplicate profile '%s' (first at line %d)", str(k),
				    pol->prof[j].line);
				dup = 1;
			}
		if (!dup)
			profile(c, k, node(c, p[i].value), &pol->prof[pol->nprof++], pol->dir);
	}
}

// policy = "{" "version" ":" 1 ["root" ":" bool] ["inherit" ":" bool]
//              ["default_profile" ":" name] ["on_unsupported" ":" unsup]
//              ["profiles" ":" "{" (name ":" profile)* "}"] "}"
static void
policy(struct ctx *c, yaml_node_t *n, struct policy *pol)
{
	static const char *const keys[] = {"version", "root", "inherit", "default_profile",
	                                   "on_unsupported", "profiles"};
	yaml_node_t *v[6];
	int bad = mapping(c, n, "a policy", "", keys, 6, v), version;
	/* a mistyped key may be 'profiles': its names are not all known */
	pol->unnamed = bad != 0;
	if (bad < 0)
		return;
	if (!v[0]) {
		if (!bad)
			err(c, n, "missing 'version: 1'");
	} else if (plain(v[0]) && *str(v[0]) && strspn(str(v[0]), "0123456789") == strlen(str(v[0]))
	           && strtol(str(v[0]), NULL, 10) != 1)
		err(c, v[0], "unsupported version %s; this mpcc reads version 1", str(v[0]));
	else
		toint(c, v[0], "version", 1, 1, &version);
	if (v[1])
		tobool(c, v[1], "root", &pol->root);
	if (v[2])
		tobool(c, v[2], "inherit", &pol->inherit);
	if (v[3] && (pol->default_profile = tostring(c, v[3], "default_profile")))
		pol->default_where = where(c, v[3]);
	if (v[4])
		pol->on_unsupported = toenum(c, v[4], "on_unsupported", unsup_name, 3);
	if (v[5] && !isnull(v[5]))
		profiles(c, v[5], pol);
}

/* the character at line:column (0-based, in characters) of text */
static int
charat(const char *text, size_t len, size_t line, size_t col)
{
	const char *p = text, *end = text + len;
	for (; line && p < end; p++)
		line -= *p == '\n';
	for (; p < end && *p != '\n'; p++)
		if (((uchar)*p & 0xc0) != 0x80 && !col--)
			return (uchar)*p;
	return -1;
}

/* libyaml's error; a tab where it wanted indentation or a token gets a
 * message that says so ("found character that cannot start any token") */
static void
yamlerr(const char *path, yaml_parser_t *p, const char *text, size_t len)
{
	yaml_mark_t m = p->problem_mark;
	if (p->problem && charat(text, len, m.line, m.column) == '\t') {
		fprintf(stderr, "%s:%lu:%lu: error: a tab character, which YAML does not allow in "
		        "indentation; indent with spaces\n", path, (ulong)m.line + 1,
		        (ulong)m.column + 1);
		return;
	}
	fprintf(stderr, "%s:%lu:%lu: error: %s", path, (ulong)m.line + 1, (ulong)m.column + 1,
	        p->problem ? p->problem : "cannot read the file");
	if (p->context)
		fprintf(stderr, " %s (started at %lu:%lu)", p->context,
		        (ulong)p->context_mark.line + 1, (ulong)p->context_mark.column + 1);
	fputc('\n', stderr);
}

static char *
absdir(const char *path)
{
	char *copy = xstrdup(path), *slash = strrchr(copy, '/');
	const char *d = slash ? (slash == copy ? "/" : (*slash = 0, copy)) : ".";
	char *r = realpath(d, NULL);
	free(copy);
	return r ? r : xstrdup(d);
}

static struct policy *
parse(const char *path, const char *text, size_t len)
{
	yaml_parser_t p;
	yaml_document_t doc;
	struct policy *pol = arena_alloc(arena, sizeof *pol);
	struct ctx c = {.path = path, .doc = &doc, .a = arena};
	char *dir = absdir(path);
	pol->path = arena_strdup(arena, path);
	pol->dir = arena_strdup(arena, dir);
	free(dir);
	pol->inherit = 1;
	pol->on_unsupported = -1;
	yaml_parser_initialize(&p);
	yaml_parser_set_input_string(&p, (const uchar *)text, len);
	if (!yaml_parser_load(&p, &doc)) {
		yamlerr(path, &p, text, len);
		yaml_parser_delete(&p);
		return NULL;
	}
	yaml_node_t *top = yaml_document_get_root_node(&doc);
	if (!top || isnull(top))
		fprintf(stderr, "%s:1:1: error: empty policy; it needs at least 'version: 1'\n", path), c.nerr++;
	else
		policy(&c, top, pol);
	yaml_document_delete(&doc);
	if (!c.nerr && top) {
		if (!yaml_parser_load(&p, &doc))
			yamlerr(path, &p, text, len), c.nerr++;
		else {
			yaml_node_t *more = yaml_document_get_root_node(&doc);
			if (more)
				err(&c, more, "a policy file holds one yaml document");
			yaml_document_delete(&doc);
		}
	}
	yaml_parser_delete(&p);
	pol->nerr = c.nerr;
	return pol;
}

static struct {
	char *path;
	struct policy *pol;  /* NULL: broken, errors already printed */
} *cache;
static int ncache, capcache;

struct policy *
policy_read(const char *path)
{
	for (int i = 0; i < ncache; i++)
		if (!strcmp(cache[i].path, path)) {
			if (!cache[i].pol || cache[i].pol->nerr) {
				fprintf(stderr, "%s: error: invalid policy (see above)\n", path);
				return NULL;
			}
			return cache[i].pol;
		}
	if (!arena)
		arena = arena_new();
	size_t len;
	char *text = readfile(path, &len);
	struct policy *pol = NULL;
	if (!text)
		error("cannot open policy '%s': %s", path, strerror(errno));
	else if (strlen(text) != len)
		fprintf(stderr, "%s: error: a policy file must not contain NUL bytes\n", path);
	else
		pol = parse(path, text, len);
	free(text);
	vgrow(cache, ncache, capcache);
	cache[ncache].path = xstrdup(path);
	cache[ncache++].pol = pol;
	return pol;
}

struct policy *
policy_load(const char *path)
{
	struct policy *pol = policy_read(path);
	return pol && !pol->nerr ? pol : NULL;
}
