/* report.c: --mpcc-report, one JSON object per line and per kernel and
 * transform.
 *
 * Many compiles append to the same file at once (make -j), so each line is
 * built in memory and written with one write(2) on an O_APPEND descriptor
 * while holding flock(LOCK_EX): O_APPEND alone makes the seek and the write
 * one step, and the lock covers file systems where it does not (NFS) and a
 * short write that would have to be finished by a second call. */
#include "policies/policy.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

struct buf {
	char *s;
	size_t n, cap;
};

static void
put(struct buf *b, const char *s, size_t n)
{
	if (b->n + n + 1 > b->cap) {
		b->cap = 2 * (b->n + n + 1);
		b->s = xrealloc(b->s, b->cap);
	}
	memcpy(b->s + b->n, s, n);
	b->n += n;
	b->s[b->n] = 0;
}

static void
puts_(struct buf *b, const char *s)
{
	put(b, s, strlen(s));
}

/* a JSON string, or null */
static void
jstr(struct buf *b, const char *s)
{
	if (!s) {
		puts_(b, "null");
		return;
	}
	put(b, "\"", 1);
	for (; *s; s++) {
		uchar c = *s;
		char esc[8];
		if (c == '"' || c == '\\')
			esc[0] = '\\', esc[1] = c, esc[2] = 0;
		else if (c == '\n')
			strcpy(esc, "\\n");
		else if (c == '\t')
			strcpy(esc, "\\t");
		else if (c < 0x20 || c == 0x7f)
			snprintf(esc, sizeof esc, "\\u%04x", c);
		else
			esc[0] = c, esc[1] = 0;
		puts_(b, esc);
	}
	put(b, "\"", 1);
}

static void
key(struct buf *b, const char *k)
{
	puts_(b, b->n > 1 ? ",\"" : "\"");
	puts_(b, k);
	puts_(b, "\":");
}

/* the report line for r, without its newline; malloc'd */
char *
report_line(const struct report *r)
{
	struct buf b = {0};
	puts_(&b, "{");
	key(&b, "src"), jstr(&b, r->src);
	key(&b, "arch"), jstr(&b, r->arch);
	key(&b, "mangled"), jstr(&b, r->mangled);
	key(&b, "demangled"), jstr(&b, r->demangled);
	key(&b, "transform"), jstr(&b, r->transform);
	if (r->profile)
		key(&b, "profile"), jstr(&b, r->profile);
	if (r->rule)
		key(&b, "rule"), jstr(&b, r->rule);
	key(&b, "params"), puts_(&b, r->params && *r->params ? r->params : "{}");
	key(&b, "applied"), puts_(&b, r->applied ? "true" : "false");
	key(&b, "reason"), jstr(&b, r->reason);
	key(&b, "stats"), puts_(&b, r->stats && *r->stats ? r->stats : "{}");
	puts_(&b, "}");
	return b.s;
}

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
	if (!ok)
		warn("cannot append to report '%s': %s", path, strerror(e));
	return ok ? 0 : -1;
}
