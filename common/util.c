/* util.c: allocation that never fails, messages, files, the arena, struct args */
#include "common/util.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

const char *progname = "mpcc";

void *
xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		die("out of memory");
	return p;
}

void *
xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		die("out of memory");
	return p;
}

void *
xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die("out of memory");
	return p;
}

char *
xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

char *
xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

static char *
vfmt(const char *f, va_list ap)
{
	va_list aq;
	va_copy(aq, ap);
	int n = vsnprintf(NULL, 0, f, aq);
	va_end(aq);
	char *s = xmalloc(n + 1);
	vsnprintf(s, n + 1, f, ap);
	return s;
}

char *
fmt(const char *f, ...)
{
	va_list ap;
	va_start(ap, f);
	char *s = vfmt(f, ap);
	va_end(ap);
	return s;
}

static void
vmsg(const char *kind, const char *f, va_list ap)
{
	fprintf(stderr, "%s: %s", progname, kind);
	vfprintf(stderr, f, ap);
	fputc('\n', stderr);
}

void
die(const char *f, ...)
{
	va_list ap;
	va_start(ap, f);
	vmsg("error: ", f, ap);
	va_end(ap);
	exit(1);
}

void
bug_at(const char *file, int line, const char *f, ...)
{
	va_list ap;
	fprintf(stderr, "%s: BUG at %s:%d: ", progname, file, line);
	va_start(ap, f);
	vfprintf(stderr, f, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

#define MSG(name, kind) \
	void name(const char *f, ...) \
	{ \
		va_list ap; \
		va_start(ap, f); \
		vmsg(kind, f, ap); \
		va_end(ap); \
	}
MSG(error, "error: ")
MSG(warn, "warning: ")
MSG(note, "note: ")

const char *
plural(long n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

int
startswith(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

int
endswith(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && strcmp(s + n - m, suffix) == 0;
}

void
catfile(const char *path, FILE *to)
{
	size_t n;
	char *s = readfile(path, &n);
	if (s)
		fwrite(s, 1, n, to);
	free(s);
}

char *
readfile(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t n = 0, cap = 1 << 16;
	char *buf = xmalloc(cap);
	for (;;) {
		n += fread(buf + n, 1, cap - n - 1, f);
		if (n < cap - 1)
			break;
		cap *= 2;
		buf = xrealloc(buf, cap);
	}
	int bad = ferror(f);
	fclose(f);
	if (bad) {
		free(buf);
		errno = EIO;
		return NULL;
	}
	buf[n] = 0;
	if (len)
		*len = n;
	return buf;
}

static int
writeinplace(const char *path, const char *buf, size_t len)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	int ok = fwrite(buf, 1, len, f) == len;
	ok &= fclose(f) == 0;
	return ok ? 0 : -1;
}

/* write next to the target and rename, so a reader never sees half a file;
 * a device or pipe (/dev/stdout, /dev/null) is written in place, never
 * replaced */
int
writefile(const char *path, const char *buf, size_t len)
{
	struct stat st;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return writeinplace(path, buf, len);
	char *tmp = fmt("%s.mpcc-%ld.tmp", path, (long)getpid());
	FILE *f = fopen(tmp, "wb");
	if (!f) {
		free(tmp);
		return -1;
	}
	int ok = fwrite(buf, 1, len, f) == len;
	ok &= fclose(f) == 0;
	if (!ok || rename(tmp, path) != 0) {
		int e = errno;
		unlink(tmp);
		free(tmp);
		errno = e;
		return -1;
	}
	free(tmp);
	return 0;
}

/* rm -rf in C: symbolic links are removed, never followed. The stack
 * holds the paths, no malloc(): the driver calls it from its signal
 * cleanup */
int
rmtree(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[PATH_MAX];
	if (!d)
		return errno == ENOENT ? 0 : unlink(dir);   /* none, or not a directory */
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		struct stat st;
		if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
			rmtree(path);
		else
			unlink(path);
	}
	closedir(d);
	return rmdir(dir);
}

double
now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int
copyfile(const char *from, const char *to)
{
	struct stat st, out;
	size_t n;
	char *s = stat(from, &st) == 0 ? readfile(from, &n) : NULL;
	int r = s && writefile(to, s, n) == 0 ? 0 : -1;
	if (r == 0 && stat(to, &out) == 0 && S_ISREG(out.st_mode))   /* not a device's */
		r = chmod(to, st.st_mode & 07777);
	free(s);
	return r;
}

/* cp -a in C, for what a build leaves in a directory: directories,
 * regular files with their modes, symbolic links as links (never
 * followed); anything else is left out */
int
copytree(const char *from, const char *to)
{
	struct stat st;
	if (lstat(from, &st) < 0)
		return -1;
	if (S_ISLNK(st.st_mode)) {
		char target[PATH_MAX];
		ssize_t n = readlink(from, target, sizeof target - 1);
		if (n < 0)
			return -1;
		target[n] = 0;
		return symlink(target, to);
	}
	if (S_ISREG(st.st_mode))
		return copyfile(from, to);
	if (!S_ISDIR(st.st_mode))
		return 0;
	DIR *d = opendir(from);
	if (!d || mkdir(to, (st.st_mode & 07777) | 0700) < 0) {
		if (d)
			closedir(d);
		return -1;
	}
	int r = 0;
	for (struct dirent *e; r == 0 && (e = readdir(d));) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char *f = fmt("%s/%s", from, e->d_name), *t = fmt("%s/%s", to, e->d_name);
		r = copytree(f, t);
		free(f), free(t);
	}
	closedir(d);
	return r;
}

/* libstdc++'s demangler (extern "C"); every executable links libstdc++ */
extern char *__cxa_demangle(const char *name, char *buf, size_t *len, int *status);

char *
demangle(const char *mangled)
{
	int status = -1;
	char *d = startswith(mangled, "_Z") ? __cxa_demangle(mangled, NULL, NULL, &status) : NULL;
	return status == 0 && d ? d : xstrdup(mangled);
}

/* arena */

typedef struct Chunk Chunk;
struct Chunk {
	Chunk *next;
	size_t used, size;
	_Alignas(16) unsigned char mem[];
};

struct Arena {
	Chunk *head;
};

Arena *
arena_new(void)
{
	return xcalloc(1, sizeof(Arena));
}

void *
arena_alloc(Arena *a, size_t n)
{
	n = (n + 15) & ~(size_t)15;
	Chunk *c = a->head;
	if (!c || c->size - c->used < n) {
		size_t size = n > (1 << 20) ? n : (1 << 20);
		c = xmalloc(sizeof(Chunk) + size);
		c->used = 0;
		c->size = size;
		c->next = a->head;
		a->head = c;
	}
	void *p = c->mem + c->used;
	c->used += n;
	memset(p, 0, n);
	return p;
}

char *
arena_strndup(Arena *a, const char *s, size_t n)
{
	char *p = arena_alloc(a, n + 1);
	memcpy(p, s, n);
	return p;
}

char *
arena_strdup(Arena *a, const char *s)
{
	return arena_strndup(a, s, strlen(s));
}

char *
arena_fmt(Arena *a, const char *f, ...)
{
	va_list ap, aq;
	va_start(ap, f);
	va_copy(aq, ap);
	int n = vsnprintf(NULL, 0, f, aq);
	va_end(aq);
	char *s = arena_alloc(a, n + 1);
	vsnprintf(s, n + 1, f, ap);
	va_end(ap);
	return s;
}

void
arena_free(Arena *a)
{
	if (!a)
		return;
	for (Chunk *c = a->head, *next; c; c = next) {
		next = c->next;
		free(c);
	}
	free(a);
}

/* struct args */

void
args_insert(struct args *a, int at, const char *s)
{
	if (a->n + 2 > a->cap) {
		a->cap = a->cap ? 2 * a->cap : 16;
		a->v = xrealloc(a->v, a->cap * sizeof *a->v);
	}
	memmove(a->v + at + 1, a->v + at, (a->n - at) * sizeof *a->v);
	a->v[at] = xstrdup(s);
	a->v[++a->n] = NULL;
}

void
args_push(struct args *a, const char *s)
{
	args_insert(a, a->n, s);
}

void
args_pushf(struct args *a, const char *f, ...)
{
	va_list ap;
	va_start(ap, f);
	char *s = vfmt(f, ap);
	va_end(ap);
	args_push(a, s);
	free(s);
}

void
args_pushv(struct args *a, char *const *v, int n)
{
	for (int i = 0; i < n; i++)
		args_push(a, v[i]);
}

void
args_remove(struct args *a, int at)
{
	free(a->v[at]);
	memmove(a->v + at, a->v + at + 1, (a->n - at) * sizeof *a->v);
	a->n--;
}

void
args_release(struct args *a)
{
	for (int i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	a->v = NULL;
	a->n = a->cap = 0;
}

static int
needsquote(const char *s)
{
	if (!*s)
		return 1;
	for (; *s; s++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		            "0123456789-_./=:,+%@", *s))
			return 1;
	return 0;
}

char *
args_join(const struct args *a)
{
	size_t cap = 64, n = 0;
	char *s = xmalloc(cap);
	for (int i = 0; i < a->n; i++) {
		const char *w = a->v[i];
		size_t need = n + 4 * strlen(w) + 4;
		if (need > cap) {
			cap = 2 * need;
			s = xrealloc(s, cap);
		}
		if (i)
			s[n++] = ' ';
		int q = needsquote(w);
		if (q)
			s[n++] = '\'';
		for (; *w; w++) {
			if (q && *w == '\'') {
				memcpy(s + n, "'\\''", 4);
				n += 4;
			} else
				s[n++] = *w;
		}
		if (q)
			s[n++] = '\'';
	}
	s[n] = 0;
	return s;
}

void
buf_put(struct buf *b, const char *s, size_t n)
{
	if (b->n + n + 1 > b->cap) {
		b->cap = 2 * (b->n + n + 1);
		b->s = xrealloc(b->s, b->cap);
	}
	memcpy(b->s + b->n, s, n);
	b->n += n;
	b->s[b->n] = 0;
}

void
buf_puts(struct buf *b, const char *s)
{
	buf_put(b, s, strlen(s));
}

void
buf_printf(struct buf *b, const char *f, ...)
{
	va_list ap;
	va_start(ap, f);
	char *s = vfmt(f, ap);
	va_end(ap);
	buf_puts(b, s);
	free(s);
}

void
buf_json(struct buf *b, const char *s)
{
	if (!s) {
		buf_puts(b, "null");
		return;
	}
	buf_put(b, "\"", 1);
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
		buf_puts(b, esc);
	}
	buf_put(b, "\"", 1);
}

char *
buf_take(struct buf *b)
{
	char *s = b->s ? b->s : xstrdup("");
	*b = (struct buf)BUF_INIT;
	return s;
}

void
buf_release(struct buf *b)
{
	free(b->s);
	*b = (struct buf)BUF_INIT;
}

/* edit distance with transpositions (optimal string alignment), for
 * did-you-mean: "fats" is one edit from "fast" */
static int
distance(const char *a, const char *b)
{
	int n = strlen(a), m = strlen(b), d[64][64];
	if (n >= 63 || m >= 63)
		return 99;
	for (int i = 0; i <= n; i++)
		d[i][0] = i;
	for (int j = 0; j <= m; j++)
		d[0][j] = j;
	for (int i = 1; i <= n; i++)
		for (int j = 1; j <= m; j++) {
			int best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
			if (d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]
			    && d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	return d[n][m];
}

const char *
suggest(const char *s, const char *const *names, int n)
{
	const char *best = NULL;
	int bestd = 99;
	for (int i = 0; i < n; i++) {
		int d = distance(s, names[i]);
		int len = strlen(names[i]);
		if (d < bestd && d <= (len < 6 ? 1 : len / 3)) {
			best = names[i];
			bestd = d;
		}
	}
	return best;
}

void
unknown_option(const char *opt, const char *pre, const char *const *names, int n,
               const char *help)
{
	size_t np = strlen(pre);
	const char *near = startswith(opt, pre) ? suggest(opt + np, names, n) : NULL;
	if (near)
		error("unknown option '%s'; did you mean '%s%s'?", opt, pre, near);
	else
		error("unknown option '%s' (%s lists %s's options)", opt, help, progname);
}
