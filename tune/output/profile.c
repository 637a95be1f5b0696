/* profile.c: the winning setting as a profile of .mpcc.yaml.
 *
 * The file is edited as text, so that every byte outside the profile stays
 * as it was (comments, order, quoting, the other profiles): libyaml gives
 * the position of the 'profiles' mapping and of the profile's key, and the
 * profile's lines (its key's line to the last line of its content) are
 * replaced, or new lines are added after the last profile's content. The
 * result is loaded with the policy loader before it replaces the file. Flow
 * style ("profiles: {a: ...}") is not edited: the profile is printed for the
 * user to paste. */
#include "tune/output/output.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

char *
profile_yaml(const struct setting *s, const struct kern *k, int nk, const char *name,
             const char *indent, const char *note)
{
	struct buf b = BUF_INIT;
	size_t u = strlen(indent) ? strlen(indent) : 2;
	char *i1 = fmt("%s%*s", indent, (int)u, ""), *i2 = fmt("%s%*s", i1, (int)u, "");
	buf_printf(&b, "%s%s:\n", indent, name);
	if (!s->n)
		buf_printf(&b, "%s# written by mpcc-tune: no rule (%s): nvcc's build\n%srules: []\n", i1,
		           note ? note : "no setting met the QoS and ran faster", i1);
	else
		buf_printf(&b, "%s# written by mpcc-tune: the fastest setting within the QoS, confirmed "
		           "against nvcc's build\n%srules:\n", i1, i1);
	for (int i = 0; i < s->n; i++) {
		const struct knob *kn = &s->k[i];
		const struct schema *sc = &passes[kn->pass]->schema;
		struct params p;
		char *err;
		Arena *a = arena_new();
		if (params_parse(sc, kn->params, 0, a, &p, &err) < 0)
			BUG("setting '%s' does not parse: %s", kn->params, err);
		char *y = params_str(&p, W_YAML);
		const struct kern *named = kern_byname(k, nk, kn->kernel);
		buf_printf(&b, "%s# %s\n", i2, named ? named->demangled : kn->kernel);
		buf_printf(&b, "%s- kernels: [\"%s\"]\n", i2, kn->kernel);
		buf_printf(&b, "%s  %s: %s\n", i2, sc->name, y);
		free(y);
		arena_free(a);
	}
	free(i1), free(i2);
	return buf_take(&b);
}

static yaml_node_t *
node(yaml_document_t *d, int i)
{
	return yaml_document_get_node(d, i);
}

/* the byte after the last scalar or flow collection under n */
static size_t
contentend(yaml_document_t *d, yaml_node_t *n)
{
	size_t end = n->end_mark.index;
	if (n->type == YAML_SCALAR_NODE)
		return end;
	if (n->type == YAML_MAPPING_NODE && n->data.mapping.style == YAML_BLOCK_MAPPING_STYLE) {
		end = n->start_mark.index;
		for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
			size_t e = contentend(d, node(d, p->value));
			end = e > end ? e : end;
			e = contentend(d, node(d, p->key));
			end = e > end ? e : end;
		}
	} else if (n->type == YAML_SEQUENCE_NODE &&
	           n->data.sequence.style == YAML_BLOCK_SEQUENCE_STYLE) {
		end = n->start_mark.index;
		for (yaml_node_item_t *i = n->data.sequence.items.start; i < n->data.sequence.items.top; i++) {
			size_t e = contentend(d, node(d, *i));
			end = e > end ? e : end;
		}
	}
	return end;
}

static size_t
lineend(const char *text, size_t len, size_t at)
{
	while (at < len && text[at] != '\n')
		at++;
	return at < len ? at + 1 : at;
}

static size_t
linestart(const char *text, size_t at)
{
	while (at > 0 && text[at - 1] != '\n')
		at--;
	return at;
}

static char *
splice(const char *text, size_t len, size_t from, size_t to, const char *with)
{
	int nl = from > 0 && text[from - 1] != '\n';
	return fmt("%.*s%s%s%.*s", (int)from, text, nl ? "\n" : "", with, (int)(len - to), text + to);
}

static int
isscalar(yaml_node_t *n, const char *s)
{
	return n->type == YAML_SCALAR_NODE && !strcmp((char *)n->data.scalar.value, s);
}

/* the YAML of a whole profile at an indentation: a tuning session's
 * (profile_yaml()) or --measure's (factsyaml()) */
struct gen {
	char *(*yaml)(const struct gen *g, const char *indent);
	const char *name, *note;
	const struct setting *s;    /* a session's winner */
	const struct kern *k;
	int nk;
	const struct factrule *f;       /* --measure's facts */
	int nf;
	int unsup;                  /* on_unsupported of the profile replaced, -1: none */
};

static char *
tunedyaml(const struct gen *g, const char *indent)
{
	return profile_yaml(g->s, g->k, g->nk, g->name, indent, g->note);
}

/* the edit, once the document is loaded: the profile's lines replaced by
 * g's, or g's added */
static char *
edit(yaml_document_t *d, const char *text, size_t len, const char *name, const struct gen *g,
     char **why)
{
	yaml_node_t *root = yaml_document_get_root_node(d), *prof = NULL, *key = NULL;
	if (!root || root->type != YAML_MAPPING_NODE)
		return *why = xstrdup("the policy is not a mapping"), NULL;
	for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++)
		if (isscalar(node(d, p->key), "profiles"))
			key = node(d, p->key), prof = node(d, p->value);
	if (!prof) {
		char *y = g->yaml(g, "  "), *add = fmt("profiles:\n%s", y);
		char *r = splice(text, len, len, len, add);
		free(y), free(add);
		return r;
	}
	if (prof->type == YAML_SCALAR_NODE && !*prof->data.scalar.value &&
	    prof->data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
		size_t at = lineend(text, len, key->end_mark.index);
		char *y = g->yaml(g, "  ");
		char *r = splice(text, len, at, at, y);
		free(y);
		return r;
	}
	if (prof->type != YAML_MAPPING_NODE || prof->data.mapping.style != YAML_BLOCK_MAPPING_STYLE)
		return *why = xstrdup("'profiles' is not a block mapping (flow style is not edited)"), NULL;
	yaml_node_pair_t *first = prof->data.mapping.pairs.start;
	size_t col = node(d, first->key)->start_mark.column;
	char *indent = fmt("%*s", (int)col, "");
	char *y = g->yaml(g, indent), *r;
	free(indent);
	for (yaml_node_pair_t *p = first; p < prof->data.mapping.pairs.top; p++) {
		yaml_node_t *pk = node(d, p->key);
		if (!isscalar(pk, name))
			continue;
		size_t from = linestart(text, pk->start_mark.index);
		size_t e = contentend(d, node(d, p->value)), ke = pk->end_mark.index;
		size_t to = lineend(text, len, e > ke ? e : ke);
		r = splice(text, len, from, to, y);
		free(y);
		return r;
	}
	size_t at = lineend(text, len, contentend(d, prof));
	r = splice(text, len, at, at, y);
	free(y);
	return r;
}

/* load text as a YAML document: 0, or -1 with *why */
static int
document(yaml_document_t *d, const char *text, size_t len, char **why)
{
	yaml_parser_t p;
	yaml_parser_initialize(&p);
	yaml_parser_set_input_string(&p, (const uchar *)text, len);
	int ok = yaml_parser_load(&p, d);
	if (!ok)
		*why = fmt("line %lu: %s", (ulong)p.problem_mark.line + 1, p.problem ? p.problem : "?");
	yaml_parser_delete(&p);
	return ok ? 0 : -1;
}

/* the profile of g put into text: in the document d, or a new document */
static char *
put(yaml_document_t *d, const char *text, size_t len, const struct gen *g, char **why)
{
	if (yaml_document_get_root_node(d))
		return edit(d, text, len, g->name, g, why);
	char *y = g->yaml(g, "  "), *r = fmt("%.*sversion: 1\nprofiles:\n%s", (int)len, text, y);
	free(y);
	return r;
}

char *
profile_edit(const char *text, size_t len, const char *name, const struct setting *s,
             const struct kern *k, int nk, const char *note, char **why)
{
	yaml_document_t d;
	struct gen g = {tunedyaml, name, note, s, k, nk, NULL, 0, -1};
	*why = NULL;
	if (document(&d, text, len, why) < 0)
		return NULL;
	char *r = put(&d, text, len, &g, why);
	yaml_document_delete(&d);
	return r;
}

/* does the edited file load, with the profile and its rules? */
static int
loads(const char *path, const char *text, const char *name, int nrules)
{
	char *tmp = fmt("%s.mpcc-tune.%d", path, (int)getpid());
	if (writefile(tmp, text, strlen(text)) < 0) {
		error("cannot write '%s': %s", tmp, strerror(errno));
		free(tmp);
		return -1;
	}
	struct policy *pol = policy_load(tmp);
	int ok = 0;
	for (int i = 0; pol && i < pol->nprof; i++)
		ok |= !strcmp(pol->prof[i].name, name) && pol->prof[i].nrule == nrules;
	unlink(tmp);
	free(tmp);
	return ok ? 0 : -1;
}

int
profile_write(const char *path, const char *name, const struct setting *s,
              const struct kern *k, int nk, const char *note)
{
	size_t len = 0;
	char *text = readfile(path, &len), *why;
	if (!text && errno != ENOENT) {
		error("cannot read '%s': %s", path, strerror(errno));
		return -1;
	}
	char *out = profile_edit(text ? text : "", text ? len : 0, name, s, k, nk, note, &why);
	free(text);
	if (!out) {
		char *y = profile_yaml(s, k, nk, name, "  ", note);
		error("%s: cannot add profile '%s': %s; add it yourself:\n%s", path, name, why, y);
		free(y), free(why);
		return -1;
	}
	if (loads(path, out, name, s->n) < 0) {
		error("%s: the edited policy does not load (see above); nothing was written", path);
		free(out);
		return -1;
	}
	int r = writefile(path, out, strlen(out));
	if (r < 0)
		error("cannot write '%s': %s", path, strerror(errno));
	free(out);
	return r;
}

/* the policy file to write: --policy, the nearest .mpcc.yaml, ./.mpcc.yaml */
char *
profile_path(const struct tuner *tu)
{
	if (tu->o->policy)
		return xstrdup(tu->o->policy);
	char cwd[PATH_MAX];
	if (!getcwd(cwd, sizeof cwd))
		return xstrdup(".mpcc.yaml");
	char *walk = xstrdup(cwd), *p = policy_next(&walk);
	free(walk);
	return p ? p : xstrdup(".mpcc.yaml");
}

/* the report's lines as a sorted list of what was done, without where the
 * rule came from: a profile and MPCC_SET must give the same */
static char *
doneset(const char *report)
{
	static const char *const keys[] = {"src", "arch", "mangled", "transform", "params",
	                                   "applied", "stats"};
	char **v = NULL;
	int n = 0, cap = 0;
	for (const char *l = report ? report : ""; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : "") {
		char *ap = jget(l, "applied");
		int no = !ap || strcmp(ap, "true");
		free(ap);
		if (*l == '\n' || no)   /* a kernel left alone is nvcc's either way */
			continue;
		struct buf b = BUF_INIT;
		for (size_t k = 0; k < countof(keys); k++) {
			char *x = jget(l, keys[k]);
			buf_printf(&b, "%s\t", x ? x : "");
			free(x);
		}
		vgrow(v, n, cap);
		v[n++] = buf_take(&b);
	}
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && strcmp(v[j - 1], v[j]) > 0; j--) {
			char *x = v[j];
			v[j] = v[j - 1], v[j - 1] = x;
		}
	struct buf b = BUF_INIT;
	for (int i = 0; i < n; i++)
		buf_printf(&b, "%s\n", v[i]), free(v[i]);
	free(v);
	return buf_take(&b);
}

/* tmpxft_<8 hex>_<8 hex>: nvcc's temporary names, different every build */
static void
masknames(char *s, size_t n)
{
	for (size_t i = 0; i + 24 <= n; i++)
		if (!memcmp(s + i, "tmpxft_", 7) && s[i + 15] == '_')
			memset(s + i + 7, 'X', 8), memset(s + i + 16, 'X', 8);
}

static int
samebinary(const char *a, const char *b)
{
	size_t na, nb;
	char *x = readfile(a, &na), *y = readfile(b, &nb);
	int same = x && y && na == nb;
	if (same) {
		masknames(x, na), masknames(y, nb);
		same = !memcmp(x, y, na);
	}
	free(x), free(y);
	return same;
}

int
profile_check(struct tuner *tu, const struct trial *win, const char *policy)
{
	char *dir = fmt("%s/check", tu->o->workdir), *rep = fmt("%s/report.jsonl", dir),
	     *log = fmt("%s/build.log", dir);
	mkdir(dir, 0777);
	unlink(rep);
	char *e_rep = fmt("MPCC_REPORT=%s", rep), *e_prof = fmt("MPCC_PROFILE=%s", tu->o->profile),
	     *e_pol = tu->o->policy ? fmt("MPCC_POLICY=%s", policy) : xstrdup("MPCC_POLICY="),
	     *e_dir = fmt("MPCC_TUNE_DIR=%s", dir);
	const char *env[] = {"MPCC_SET=", e_rep, e_prof, e_pol, e_dir, NULL};
	double wall;
	int st = shell(tu, tu->o->build, env, log, log, 0, &wall), ok = 0;
	size_t n;
	char *text = readfile(rep, &n), *a = doneset(text), *b = doneset(win->report);
	if (st)
		error("the build with profile '%s' failed (see %s)", tu->o->profile, log);
	else if (strcmp(a, b))
		error("the build with profile '%s' is not the winner's:\n--- profile\n%s--- winner\n%s",
		      tu->o->profile, a, b);
	else
		ok = 1;
	if (ok && tu->o->binary) {
		char *w = fmt("%s/binary", win->dir), *mine = tunepath(tu->o->binary, dir);
		if (!(ok = samebinary(w, mine)))
			error("'%s' built from profile '%s' differs from the winner's", mine, tu->o->profile);
		free(w), free(mine);
	}
	if (ok)
		fprintf(stderr, "mpcc-tune: checked: MPCC_PROFILE=%s builds what the winner built "
		        "(%s)\n", tu->o->profile, tu->o->binary ? "same report lines, same binary" : "same report lines");
	free(text), free(a), free(b), free(dir), free(rep), free(log);
	free(e_rep), free(e_prof), free(e_pol), free(e_dir);
	return ok ? 0 : -1;
}

/* ---- --measure's facts, merged into the rules a profile has ---- */

static const char *const unsupword[] = {"warn", "error", "silent"};

/* a new rule of fact f with the pass's parameters params ("{...}") */
static void
factrule(struct buf *b, const char *indent, const struct factrule *f, const char *params)
{
	buf_printf(b, "%s# %s%s\n", indent, f->k->demangled, f->note ? f->note : "");
	buf_printf(b, "%s- kernels: [\"%s\"]\n", indent, f->k->mangled);
	buf_printf(b, "%s  %s: %s\n", indent, pass_name(f->pass), params);
}

/* a whole profile of the facts, for a profile that has no rule */
static char *
factsyaml(const struct gen *g, const char *indent)
{
	struct buf b = BUF_INIT;
	size_t u = strlen(indent) ? strlen(indent) : 2;
	char *i1 = fmt("%s%*s", indent, (int)u, ""), *i2 = fmt("%s%*s", i1, (int)u, "");
	buf_printf(&b, "%s%s:\n%s# written by mpcc-tune --measure: what one run of the program "
	           "measured of each kernel\n", indent, g->name, i1);
	if (g->unsup >= 0)
		buf_printf(&b, "%son_unsupported: %s\n", i1, unsupword[g->unsup]);
	buf_printf(&b, "%srules:\n", i1);
	for (int i = 0; i < g->nf; i++)
		if (!g->f[i].skip) {
			char *p = fmt("{%s}", g->f[i].params);
			factrule(&b, i2, &g->f[i], p);
			free(p);
		}
	free(i1), free(i2);
	return buf_take(&b);
}

/* the value of key in mapping m (*k its key), NULL if none */
static yaml_node_t *
lookup(yaml_document_t *d, yaml_node_t *m, const char *key, yaml_node_t **k)
{
	if (!m || m->type != YAML_MAPPING_NODE)
		return NULL;
	for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++)
		if (isscalar(node(d, p->key), key))
			return *k = node(d, p->key), node(d, p->value);
	return NULL;
}

/* node n in flow style, its scalars as written */
static void
flowtext(struct buf *b, yaml_document_t *d, yaml_node_t *n, const char *text)
{
	if (n->type == YAML_SCALAR_NODE) {
		buf_put(b, text + n->start_mark.index, n->end_mark.index - n->start_mark.index);
	} else if (n->type == YAML_SEQUENCE_NODE) {
		buf_puts(b, "[");
		for (yaml_node_item_t *i = n->data.sequence.items.start; i < n->data.sequence.items.top; i++) {
			buf_puts(b, i > n->data.sequence.items.start ? ", " : "");
			flowtext(b, d, node(d, *i), text);
		}
		buf_puts(b, "]");
	} else {
		buf_puts(b, "{");
		for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
			buf_puts(b, p > n->data.mapping.pairs.start ? ", " : "");
			flowtext(b, d, node(d, p->key), text);
			buf_puts(b, ": ");
			flowtext(b, d, node(d, p->value), text);
		}
		buf_puts(b, "}");
	}
}

/* is key one of the parameters of pass that the facts set? */
static int
isfact(int pass, const char *key)
{
	int i = param_find(&passes[pass]->schema, key, strlen(key));
	return i >= 0 && fact_param(pass, i) >= 0;
}

/* "{...}": the parameters of block v (NULL: none) but the facts', then the facts */
static char *
merged(yaml_document_t *d, yaml_node_t *v, const char *text, const struct factrule *f)
{
	struct buf b = BUF_INIT;
	buf_puts(&b, "{");
	for (yaml_node_pair_t *p = v && v->type == YAML_MAPPING_NODE ? v->data.mapping.pairs.start : NULL;
	     p && p < v->data.mapping.pairs.top; p++) {
		yaml_node_t *k = node(d, p->key);
		if (k->type == YAML_SCALAR_NODE && isfact(f->pass, (char *)k->data.scalar.value))
			continue;
		flowtext(&b, d, k, text);
		buf_puts(&b, ": ");
		flowtext(&b, d, node(d, p->value), text);
		buf_puts(&b, ", ");
	}
	buf_printf(&b, "%s}", f->params);
	return buf_take(&b);
}

/* is r the kernel's own rule: its one kernels glob the kernel's name? */
static int
ownrule(const struct rule *r, const struct kern *k)
{
	if (r->nkernels != 1)
		return 0;
	char *s = kernel_shortname(k->demangled);
	const char *g = r->kernels[0];
	int own = !strcmp(g, k->mangled) || !strcmp(g, k->demangled) || !strcmp(g, s);
	free(s);
	return own;
}

/* the rule of pp that gives f's kernel f's pass (last wins), -1 if none;
 * f->skip where the last says "off" */
static int
winner(const struct pprofile *pp, struct factrule *f)
{
	int t = schema_find(pass_name(f->pass), strlen(pass_name(f->pass))), win = -1;
	for (int i = 0; i < pp->nrule; i++) {
		const struct rule *r = &pp->rule[i];
		if (t < 0 || !rule_match(r, f->k->src ? f->k->src : "", f->k->mangled, f->k->demangled))
			continue;
		if (r->has & 1u << t)
			win = i, f->skip = 0;
		if (r->off & 1u << t)
			win = -1, f->skip = 1;
	}
	return win;
}

/* one replacement of the text: [from, to) by with */
struct splice {
	size_t from, to;
	char *with;
};

static int
byfrom(const void *a, const void *b)
{
	const struct splice *x = a, *y = b;
	return (x->from < y->from) - (x->from > y->from);
}

/* the splices, the last first, so that each keeps its offsets */
static char *
apply(const char *text, size_t len, struct splice *e, int n)
{
	char *r = xstrndup(text, len);
	qsort(e, n, sizeof *e, byfrom);
	for (int i = 0; i < n; i++) {
		char *x = fmt("%.*s%s%s", (int)e[i].from, r, e[i].with, r + e[i].to);
		free(r), free(e[i].with);
		r = x;
	}
	return r;
}

/* the block of f's pass in rule item: its key and value replaced, from
 * the key's end ("fiset|: {...}") to the value's (a null value: the colon) */
static struct splice
rewrite(yaml_document_t *d, const char *text, yaml_node_t *key, yaml_node_t *v, char *params)
{
	size_t from = key->end_mark.index, to = from;
	while (text[to] && text[to] != ':')
		to++;
	to += text[to] == ':';
	if (!(v->type == YAML_SCALAR_NODE && !*v->data.scalar.value))
		to = contentend(d, v);
	struct splice e = {from, to, fmt(": %s", params)};
	free(params);
	return e;
}

/* the facts merged into the block sequence rules of pp's rules */
static char *
mergerules(yaml_document_t *d, const char *text, size_t len, yaml_node_t *rules,
           const struct pprofile *pp, struct factrule *f, int nf, int *nrule)
{
	struct splice *e = xmalloc((nf + 1) * sizeof *e);
	struct buf add = BUF_INIT;
	char *indent = fmt("%*s", (int)rules->start_mark.column, "");
	int n = 0;
	*nrule = pp->nrule;
	for (int i = 0; i < nf; i++) {
		int w = winner(pp, &f[i]);
		yaml_node_t *item = w >= 0 ? node(d, rules->data.sequence.items.start[w]) : NULL, *key = NULL;
		yaml_node_t *v = lookup(d, item, pass_name(f[i].pass), &key);
		char *m = merged(d, v, text, &f[i]);
		if (f[i].skip) {
			f[i].how = fmt("no rule: the profile switches %s off for it", pass_name(f[i].pass));
			free(m);
		} else if (w >= 0 && v && ownrule(&pp->rule[w], f[i].k)) {
			e[n++] = rewrite(d, text, key, v, m);
			f[i].how = fmt("merged into its rule at %s", pp->rule[w].where);
		} else {
			factrule(&add, indent, &f[i], m);
			f[i].how = w < 0 ? xstrdup("a new rule") :
			           fmt("a new rule, with the parameters of the rule at %s", pp->rule[w].where);
			free(m);
			++*nrule;
		}
	}
	if (add.n) {
		size_t at = lineend(text, len, contentend(d, rules));
		/* after the last rule; on a line of their own where the file ends without a newline */
		e[n++] = (struct splice){at, at, fmt("%s%s", at == len && text[len - 1] != '\n' ? "\n" : "",
		                                     add.s)};
		buf_release(&add);
	}
	free(indent);
	char *r = apply(text, len, e, n);
	free(e);
	return r;
}

/* the profile name's node in d: its value (*key its key), NULL if none */
static yaml_node_t *
profnode(yaml_document_t *d, const char *name, yaml_node_t **key)
{
	yaml_node_t *root = yaml_document_get_root_node(d), *k;
	return lookup(d, lookup(d, root, "profiles", &k), name, key);
}

char *
profile_merge(const char *path, const char *text, size_t len, const char *name, struct factrule *f,
              int nf, int *nrule, char **why)
{
	yaml_document_t d;
	*why = NULL;
	if (document(&d, text, len, why) < 0)
		return NULL;
	struct policy *pol = len ? policy_load(path) : NULL;
	const struct pprofile *pp = NULL;
	for (int i = 0; pol && i < pol->nprof; i++)
		pp = !strcmp(pol->prof[i].name, name) ? &pol->prof[i] : pp;
	yaml_node_t *key = NULL, *prof = profnode(&d, name, &key), *rk, *rules = lookup(&d, prof, "rules", &rk);
	char *r = NULL;
	if (len && !pol) {
		*why = xstrdup("it does not load (see above)");
	} else if (!pp || !pp->nrule) {
		struct gen g = {factsyaml, name, NULL, NULL, NULL, 0, f, nf, pp ? pp->on_unsupported : -1};
		*nrule = 0;
		for (int i = 0; i < nf; i++)
			f[i].how = xstrdup("a new rule"), ++*nrule;
		r = put(&d, text, len, &g, why);
	} else if (!rules || rules->type != YAML_SEQUENCE_NODE ||
	           rules->data.sequence.style != YAML_BLOCK_SEQUENCE_STYLE ||
	           prof->data.mapping.style != YAML_BLOCK_MAPPING_STYLE ||
	           rules->data.sequence.items.top - rules->data.sequence.items.start != pp->nrule) {
		*why = fmt("the rules of profile '%s' are not a block sequence (flow style is not edited)", name);
	} else {
		r = mergerules(&d, text, len, rules, pp, f, nf, nrule);
	}
	yaml_document_delete(&d);
	return r;
}

int
profile_facts(const char *path, const char *name, struct factrule *f, int nf, int dry)
{
	size_t len = 0;
	char *text = readfile(path, &len), *why;
	int nrule;
	if (!text && errno != ENOENT) {
		error("cannot read '%s': %s", path, strerror(errno));
		return -1;
	}
	char *out = profile_merge(path, text ? text : "", text ? len : 0, name, f, nf, &nrule, &why);
	free(text);
	if (!out) {
		struct gen g = {factsyaml, name, NULL, NULL, NULL, 0, f, nf, -1};
		char *y = factsyaml(&g, "  ");
		error("%s: cannot merge the facts into profile '%s': %s; the rules to merge:\n%s", path,
		      name, why, y);
		free(y), free(why);
		return -1;
	}
	int r = 0;
	if (dry)
		printf("%s", out);
	else if ((r = loads(path, out, name, nrule)) < 0)
		error("%s: the edited policy does not load (see above); nothing was written", path);
	else if ((r = writefile(path, out, strlen(out))) < 0)
		error("cannot write '%s': %s", path, strerror(errno));
	free(out);
	return r;
}
