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
     const struct setting *s, const struct kern *k, int nk, const char *note, char **why)
{
	yaml_node_t *root = yaml_document_get_root_node(d), *prof = NULL, *key = NULL;
	if (!root || root->type != YAML_MAPPING_NODE)
		return *why = xstrdup("the policy is not a mapping"), NULL;
	for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++)
		if (isscalar(node(d, p->key), "profiles"))
			key = node(d, p->key), prof = node(d, p->value);
	if (!prof) {
		char *y = profile_yaml(s, k, nk, name, "  ", note), *add = fmt("profiles:\n%s", y);
		char *r = splice(text, len, len, len, add);
		free(y), free(add);
		return r;
	}
	if (prof->type == YAML_SCALAR_NODE && !*prof->data.scalar.value &&
	    prof->data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
		size_t at = lineend(text, len, key->end_mark.index);
		char *y = profile_yaml(s, k, nk, name, "  ", note);
		char *r = splice(text, len, at, at, y);
		free(y);
		return r;
	}
	if (prof->type != YAML_MAPPING_NODE || prof->data.mapping.style != YAML_BLOCK_MAPPING_STYLE)
		return *why = xstrdup("'profiles' is not a block mapping (flow style is not edited)"), NULL;
	yaml_node_pair_t *first = prof->data.mapping.pairs.start;
	size_t col = node(d, first->key)->start_mark.column;
	char *indent = fmt("%*s", (int)col, "");
	char *y = profile_yaml(s, k, nk, name, indent, note), *r;
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
             const struct kern *k, int nk, const char *note, char **why)
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
		char *y = profile_yaml(s, k, nk, name, "  ", note);
		r = fmt("%.*sversion: 1\nprofiles:\n%s", (int)len, text, y);
		free(y);
	} else
		r = edit(&d, text, len, name, s, k, nk, note, why);
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
	if (tu->policy)
		return xstrdup(tu->policy);
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
	char *dir = fmt("%s/check", tu->workdir), *rep = fmt("%s/report.jsonl", dir),
	     *log = fmt("%s/build.log", dir);
	mkdir(dir, 0777);
	unlink(rep);
	char *e_rep = fmt("MPCC_REPORT=%s", rep), *e_prof = fmt("MPCC_PROFILE=%s", tu->profile),
	     *e_pol = tu->policy ? fmt("MPCC_POLICY=%s", policy) : xstrdup("MPCC_POLICY="),
	     *e_dir = fmt("MPCC_TUNE_DIR=%s", dir);
	const char *env[] = {"MPCC_SET=", e_rep, e_prof, e_pol, e_dir, NULL};
	double wall;
	int st = shell(tu, tu->build, env, log, log, 0, &wall), ok = 0;
	size_t n;
	char *text = readfile(rep, &n), *a = doneset(text), *b = doneset(win->report);
	if (st)
		error("the build with profile '%s' failed (see %s)", tu->profile, log);
	else if (strcmp(a, b))
		error("the build with profile '%s' is not the winner's:\n--- profile\n%s--- winner\n%s",
		      tu->profile, a, b);
	else
		ok = 1;
	if (ok && tu->binary) {
		char *w = fmt("%s/binary", win->dir), *mine = tunepath(tu->binary, dir);
		if (!(ok = samebinary(w, mine)))
			error("'%s' built from profile '%s' differs from the winner's", mine, tu->profile);
		free(w), free(mine);
	}
	if (ok)
		fprintf(stderr, "mpcc-tune: checked: MPCC_PROFILE=%s builds what the winner built "
		        "(%s)\n", tu->profile, tu->binary ? "same report lines, same binary" : "same report lines");
	free(text), free(a), free(b), free(dir), free(rep), free(log);
	free(e_rep), free(e_prof), free(e_pol), free(e_dir);
	return ok ? 0 : -1;
}
