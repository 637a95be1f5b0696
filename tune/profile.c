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
#include "tune/tune.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yaml.h>

static const char *
kname(const char *mangled, const struct kern *k, int nk)
{
	for (int i = 0; i < nk; i++)
		if (!strcmp(k[i].mangled, mangled))
			return k[i].demangled;
	return mangled;
}

char *
profile_yaml(const struct setting *s, const struct kern *k, int nk, const char *name,
             const char *indent)
{
	struct buf b = BUF_INIT;
	size_t u = strlen(indent) ? strlen(indent) : 2;
	char *i1 = fmt("%s%*s", indent, (int)u, ""), *i2 = fmt("%s%*s", i1, (int)u, "");
	buf_printf(&b, "%s%s:\n", indent, name);
	if (!s->n)
		buf_printf(&b, "%s# written by mpcc-tune: no setting met the QoS and ran faster than "
		           "nvcc's build\n%srules: []\n", i1, i1);
	else
		buf_printf(&b, "%s# written by mpcc-tune: the setting that met the QoS fastest\n"
		           "%srules:\n", i1, i1);
	for (int i = 0; i < s->n; i++) {
		const struct knob *kn = &s->k[i];
		const struct schema *sc = &passes[kn->pass]->schema;
		struct params p;
		char *err;
		Arena *a = arena_new();
		if (params_parse(sc, kn->params, 0, a, &p, &err) < 0)
			BUG("setting '%s' does not parse: %s", kn->params, err);
		char *y = params_str(&p, W_YAML);
		buf_printf(&b, "%s# %s\n", i2, kname(kn->kernel, k, nk));
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

/* the edit, once the document is loaded */
static char *
edit(yaml_document_t *d, const char *text, size_t len, const char *name,
     const struct setting *s, const struct kern *k, int nk, char **why)
{
	yaml_node_t *root = yaml_document_get_root_node(d), *prof = NULL, *key = NULL;
	if (!root || root->type != YAML_MAPPING_NODE)
		return *why = xstrdup("the policy is not a mapping"), NULL;
	for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++)
		if (isscalar(node(d, p->key), "profiles"))
			key = node(d, p->key), prof = node(d, p->value);
	if (!prof) {
		char *y = profile_yaml(s, k, nk, name, "  "), *add = fmt("profiles:\n%s", y);
		char *r = splice(text, len, len, len, add);
		free(y), free(add);
		return r;
	}
	if (prof->type == YAML_SCALAR_NODE && !*prof->data.scalar.value &&
	    prof->data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
		size_t at = lineend(text, len, key->end_mark.index);
		char *y = profile_yaml(s, k, nk, name, "  ");
		char *r = splice(text, len, at, at, y);
		free(y);
		return r;
	}
	if (prof->type != YAML_MAPPING_NODE || prof->data.mapping.style != YAML_BLOCK_MAPPING_STYLE)
		return *why = xstrdup("'profiles' is not a block mapping (flow style is not edited)"), NULL;
	yaml_node_pair_t *first = prof->data.mapping.pairs.start;
	size_t col = node(d, first->key)->start_mark.column;
	char *indent = fmt("%*s", (int)col, "");
	char *y = profile_yaml(s, k, nk, name, indent), *r;
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

char *
profile_edit(const char *text, size_t len, const char *name, const struct setting *s,
             const struct kern *k, int nk, char **why)
{
	yaml_parser_t p;
	yaml_document_t d;
	*why = NULL;
	yaml_parser_initialize(&p);
	yaml_parser_set_input_string(&p, (const uchar *)text, len);
	if (!yaml_parser_load(&p, &d)) {
		*why = fmt("line %lu: %s", (ulong)p.problem_mark.line + 1, p.problem ? p.problem : "?");
		yaml_parser_delete(&p);
		return NULL;
	}
	char *r;
	if (!yaml_document_get_root_node(&d)) {
		char *y = profile_yaml(s, k, nk, name, "  ");
		r = fmt("%.*sversion: 1\nprofiles:\n%s", (int)len, text, y);
		free(y);
	} else
		r = edit(&d, text, len, name, s, k, nk, why);
	yaml_document_delete(&d);
	yaml_parser_delete(&p);
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
              const struct kern *k, int nk)
{
	size_t len = 0;
	char *text = readfile(path, &len), *why;
	if (!text && errno != ENOENT) {
		error("cannot read '%s': %s", path, strerror(errno));
		return -1;
	}
	char *out = profile_edit(text ? text : "", text ? len : 0, name, s, k, nk, &why);
	free(text);
	if (!out) {
		char *y = profile_yaml(s, k, nk, name, "  ");
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
