/* report.c: --mpcc-report, one JSON object per line and per kernel and
 * transform.
 *
 * Many compiles append to the same file at once (make -j), so each line is
 * built in memory and written with one write(2) on an O_APPEND descriptor
 * while holding flock(LOCK_EX): O_APPEND alone makes the seek and the write
 * one step, and the lock covers file systems where it does not (NFS) and a
 * short write that would have to be finished by a second call.
 *
 * jget() reads a line back (mpcc-tune checks each build's report with it,
 * and finds a pass's statistics by the keys its table declares). */
#include "transforms/pass.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

static void
key(struct buf *b, const char *k)
{
	buf_puts(b, b->n > 1 ? ",\"" : "\"");
	buf_puts(b, k);
	buf_puts(b, "\":");
}

/* the report line for r, without its newline; malloc'd */
char *
report_line(const struct report *r)
{
	struct buf b = BUF_INIT;
	buf_puts(&b, "{");
	key(&b, "src"), buf_json(&b, r->src);
	key(&b, "arch"), buf_json(&b, r->arch);
	key(&b, "mangled"), buf_json(&b, r->mangled);
	key(&b, "demangled"), buf_json(&b, r->demangled);
	key(&b, "transform"), buf_json(&b, r->transform);
	if (r->profile)
		key(&b, "profile"), buf_json(&b, r->profile);
	if (r->rule)
		key(&b, "rule"), buf_json(&b, r->rule);
	key(&b, "params"), buf_puts(&b, r->params && *r->params ? r->params : "{}");
	key(&b, "applied"), buf_puts(&b, r->applied ? "true" : "false");
	key(&b, "reason"), buf_json(&b, r->reason);
	key(&b, "stats"), buf_puts(&b, r->stats && *r->stats ? r->stats : "{}");
	if (r->ptxas)
		key(&b, "ptxas"), buf_puts(&b, r->ptxas);
	buf_puts(&b, "}");
	return b.s;
}

/* the report that could not be written: said once, not for every line (a
 * compile appends one for each kernel and transform, and the cause is the
 * same for all) */
static char *unwritable;

int
report_append(const char *path, const struct report *r)
{
	char *line = report_line(r);
	size_t n = strlen(line);
	line[n++] = '\n';  /* report_line's buffer always has room for one more */
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
	int ok = fd >= 0 && flock(fd, LOCK_EX) == 0;
	size_t done = 0;
	while (ok && done < n) {
		ssize_t w = write(fd, line + done, n - done);
		if (w < 0 && errno == EINTR)
			continue;
		ok = w > 0;
		done += ok ? (size_t)w : 0;
	}
	int e = errno;
	if (fd >= 0)
		close(fd);  /* drops the lock */
	free(line);
	if (!ok && !(unwritable && !strcmp(unwritable, path))) {
		warn("cannot append to report '%s': %s", path, strerror(e));
		free(unwritable);
		unwritable = xstrdup(path);
	}
	return ok ? 0 : -1;
}

static char *
copy(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

void
reports_add(struct reports *l, const struct report *r)
{
	vgrow(l->r, l->n, l->cap);
	struct report *c = &l->r[l->n++];
	*c = (struct report){copy(r->src), copy(r->arch), copy(r->mangled), copy(r->demangled),
	                     copy(r->transform), copy(r->params), r->applied, copy(r->reason),
	                     copy(r->stats), copy(r->profile), copy(r->rule), copy(r->ptxas)};
}

void
reports_flush(struct reports *l, const char *path, const char *restored)
{
	for (int i = 0; i < l->n; i++) {
		struct report *r = &l->r[i];
		if (restored && r->applied) {
			r->applied = 0;
			free((char *)r->reason);
			r->reason = xstrdup(restored);
		}
		if (path)
			report_append(path, r);
		const char *const f[] = {r->src, r->arch, r->mangled, r->demangled, r->transform,
		                         r->params, r->reason, r->stats, r->profile, r->rule,
		                         r->ptxas};
		for (size_t k = 0; k < countof(f); k++)
			free((char *)f[k]);
	}
	free(l->r);
	*l = (struct reports){0};
}

/* skip a JSON value at s: its end */
static const char *
skipvalue(const char *s)
{
	int depth = 0;
	do {
		if (*s == '"') {
			for (s++; *s && *s != '"'; s++)
				if (*s == '\\' && s[1])
					s++;
		} else if (*s == '{' || *s == '[') {
			depth++;
		} else if (*s == '}' || *s == ']') {
			depth--;
		}
		if (*s)
			s++;
	} while (*s && (depth > 0 || (*s != ',' && *s != '}' && *s != ']')));
	return s;
}

/* the value of top-level key of the object text line: [*v, *e); 0 if absent */
static int
jfind(const char *line, const char *key, const char **v, const char **e)
{
	const char *s = strchr(line, '{');
	if (!s)
		return 0;
	for (s++; *s && *s != '}';) {
		while (*s == ' ' || *s == ',')
			s++;
		if (*s != '"')
			return 0;
		const char *k = ++s;
		while (*s && *s != '"')
			s += *s == '\\' && s[1] ? 2 : 1;
		int match = (size_t)(s - k) == strlen(key) && !strncmp(k, key, s - k);
		s = *s ? s + 1 : s;
		while (*s == ' ' || *s == ':')
			s++;
		*v = s;
		s = *e = skipvalue(s);
		if (match)
			return 1;
	}
	return 0;
}

char *
jget(const char *line, const char *key)
{
	const char *v, *s;
	if (!jfind(line, key, &v, &s))
		return NULL;
	if (*v != '"')
		return xstrndup(v, s - v);
	struct buf b = BUF_INIT;
	for (const char *p = v + 1; p < s - 1; p++) {
		if (*p == '\\' && p + 1 < s - 1) {
			p++;
			buf_put(&b, *p == 'n' ? "\n" : *p == 't' ? "\t" : p, 1);
		} else {
			buf_put(&b, p, 1);
		}
	}
	return buf_take(&b);
}

char *
jset(const char *line, const char *key, const char *value)
{
	const char *v, *e;
	if (!jfind(line, key, &v, &e))
		return xstrdup(line);
	return fmt("%.*s%s%s", (int)(v - line), line, value, e);
}
