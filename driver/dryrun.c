/* dryrun.c: reading what `nvcc -dryrun` prints.
 * Every step is a "#$ " line on stderr: "NAME=value" sets a variable that
 * nvcc exports to the later steps, "-- Filter Dependencies -- [> file]" is
 * nvcc's own dependency filter (-M, -MD), and anything else is a command
 * nvcc runs with "sh -c". Other lines are nvcc's own messages. */
#include "driver/mpcc.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static int
isname(const char *s, size_t n)
{
	if (!n || !(isalpha((uchar)s[0]) || s[0] == '_'))
		return 0;
	for (size_t i = 1; i < n; i++)
		if (!(isalnum((uchar)s[i]) || s[i] == '_'))
			return 0;
	return 1;
}

static void
classify(struct step *s)
{
	const char *eq = strchr(s->line, '=');
	const char *sp = strpbrk(s->line, " \t\"'");
	if (eq && (!sp || eq < sp) && isname(s->line, eq - s->line)) {
		s->kind = S_VAR;
		s->name = xstrndup(s->line, eq - s->line);
		s->value = xstrdup(eq + 1);
	} else if (startswith(s->line, "-- Filter Dependencies --")) {
		const char *p = s->line + strlen("-- Filter Dependencies --");
		p += strspn(p, " ");
		s->kind = S_DEPS;
		if (*p == '>') {
			p++;
			p += strspn(p, " ");
			s->depsout = xstrndup(p, strcspn(p, " "));
		}
	} else
		s->kind = S_CMD;
}

/* the steps of a dryrun's stderr, in order; returns their count */
int
dryrun_parse(const char *text, struct step **out)
{
	struct step *s = NULL;
	int n = 0, cap = 0;
	for (const char *p = text; *p;) {
		const char *nl = until(p, '\n');
		vgrow(s, n, cap);
		struct step *st = &s[n++];
		*st = (struct step){0};
		if (startswith(p, "#$ ")) {
			st->line = xstrndup(p + 3, nl - p - 3);
			classify(st);
		} else {
			st->kind = S_TEXT;
			st->line = xstrndup(p, nl - p);
		}
		p = *nl ? nl + 1 : nl;
	}
	*out = s;
	return n;
}

void
steps_release(struct step *s, int n)
{
	for (int i = 0; i < n; i++) {
		free(s[i].line);
		free(s[i].name);
		free(s[i].value);
		free(s[i].depsout);
	}
	free(s);
}

/* buffer for one word */
struct word {
	char *s;
	size_t n, cap;
};

static void
put(struct word *w, const char *s, size_t n)
{
	if (w->n + n + 1 > w->cap) {
		w->cap = 2 * (w->n + n + 1);
		w->s = xrealloc(w->s, w->cap);
	}
	memcpy(w->s + w->n, s, n);
	w->n += n;
	w->s[w->n] = 0;
}

/* $NAME or ${NAME} at p; returns the characters used */
static size_t
dollar(struct word *w, const char *p, const char *(*lookup)(const char *))
{
	size_t n;
	int brace = p[1] == '{';
	const char *name = p + 1 + brace;
	for (n = 0; isalnum((uchar)name[n]) || name[n] == '_'; n++)
		;
	if (!lookup || !n || (brace && name[n] != '}')) {
		put(w, "$", 1);
		return 1;
	}
	char *key = xstrndup(name, n);
	const char *v = lookup(key);
	free(key);
	if (v)
		put(w, v, strlen(v));
	return 1 + brace + n + brace;
}

int
shsplit(struct args *out, const char *s, const char *(*lookup)(const char *))
{
	struct word w = {0};
	int inword = 0;
	for (const char *p = s; *p;) {
		if (strchr(" \t\n\r", *p)) {
			if (inword)
				args_push(out, w.s ? w.s : "");
			inword = 0;
			w.n = 0;
			if (w.s)
				w.s[0] = 0;
			p++;
			continue;
		}
		inword = 1;
		if (*p == '\'') {
			const char *e = strchr(p + 1, '\'');
			if (!e)
				goto unclosed;
			put(&w, p + 1, e - p - 1);
			p = e + 1;
		} else if (*p == '"') {
			for (p++; *p != '"'; ) {
				if (!*p)
					goto unclosed;
				if (*p == '\\' && p[1] && strchr("\"\\$`\n", p[1])) {
					put(&w, p + 1, 1);
					p += 2;
				} else if (*p == '$')
					p += dollar(&w, p, lookup);
				else
					put(&w, p++, 1);
			}
			p++;
		} else if (*p == '\\' && p[1]) {
			put(&w, p + 1, 1);
			p += 2;
		} else if (*p == '$')
			p += dollar(&w, p, lookup);
		else
			put(&w, p++, 1);
	}
	if (inword)
		args_push(out, w.s ? w.s : "");
	free(w.s);
	return 0;
unclosed:
	free(w.s);
	return -1;
}

/* index of the value of option name ("-o" then "X", or "-o=X"), or -1 */
int
optindex(const struct args *a, const char *name)
{
	size_t n = strlen(name);
	for (int i = 1; i < a->n; i++) {
		if (!strcmp(a->v[i], name) && i + 1 < a->n)
			return i + 1;
		if (!strncmp(a->v[i], name, n) && a->v[i][n] == '=')
			return i;
	}
	return -1;
}

const char *
optval(const struct args *a, const char *name)
{
	int i = optindex(a, name);
	if (i < 0)
		return NULL;
	const char *v = a->v[i];
	return startswith(v, name) && v[strlen(name)] == '=' ? v + strlen(name) + 1 : v;
}
