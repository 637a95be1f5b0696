/* util.h: what every part of mpcc shares.
 * Memory: xmalloc and friends die on failure, so callers never check for NULL.
 * IR and policy objects come from an arena dropped all at once
 * (doc/STYLE.md, "Memory").
 * struct args is git's strvec: it owns copies of the strings pushed into it.
 *
 * Layers: common (the bottom: it includes nothing of mpcc's). */
#ifndef MPCC_UTIL_H
#define MPCC_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef unsigned long ulong;

#define countof(a) (sizeof(a) / sizeof((a)[0]))
#define BUG(...) bug_at(__FILE__, __LINE__, __VA_ARGS__)

/* util.c */
extern const char *progname;    /* "mpcc", "mpcc-opt": prefixes every message */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));  /* malloc'd */
_Noreturn void die(const char *f, ...) __attribute__((format(printf, 1, 2)));
_Noreturn void bug_at(const char *file, int line, const char *f, ...)
	__attribute__((format(printf, 3, 4)));
void error(const char *f, ...) __attribute__((format(printf, 1, 2)));
void warn(const char *f, ...) __attribute__((format(printf, 1, 2)));
void note(const char *f, ...) __attribute__((format(printf, 1, 2)));
int startswith(const char *s, const char *prefix);
double now(void);                 /* seconds of the monotonic clock */
/* what a count of n says: one when n is 1, else many ("1 set", "2 sets") */
const char *plural(long n, const char *one, const char *many);
int endswith(const char *s, const char *suffix);
char *readfile(const char *path, size_t *len);    /* NULL and errno on failure */
void catfile(const char *path, FILE *to);          /* path's bytes to to; nothing if unreadable */
int rmtree(const char *dir);     /* rm -rf dir: 0 when it is gone, -1 and errno if not */
/* from's bytes into to (writefile()), a regular to with from's mode: 0,
 * or -1 and errno */
int copyfile(const char *from, const char *to);
/* cp -a from to (to made anew; links copied as links): 0, or -1 and errno */
int copytree(const char *from, const char *to);
char *demangle(const char *mangled);  /* malloc'd; a copy of mangled if not C++ */
int writefile(const char *path, const char *buf, size_t len);  /* via rename */
/* did-you-mean: the one of names[0..n) that s is a typo of (an edit for
 * every three letters, at most), else NULL */
const char *suggest(const char *s, const char *const *names, int n);
/* the message for a tool's unknown option opt, the same in all three:
 * "unknown option '--x'; did you mean '--y'?" when opt is near one of
 * names (each written without the prefix pre that they all share), else
 * where the options are listed: "(HELP lists PROG's options)" */
void unknown_option(const char *opt, const char *pre, const char *const *names, int n,
                    const char *help);

/* arena: bump allocator; arena_free drops everything it handed out */
typedef struct Arena Arena;
Arena *arena_new(void);
void *arena_alloc(Arena *a, size_t n);    /* zeroed, 16-byte aligned */
char *arena_strndup(Arena *a, const char *s, size_t n);
char *arena_strdup(Arena *a, const char *s);
char *arena_fmt(Arena *a, const char *f, ...) __attribute__((format(printf, 2, 3)));
void arena_free(Arena *a);

/* growable arrays: vgrow(a, n, cap) makes room for element a[n] */
#define vgrow(a, n, cap) \
	((n) >= (cap) ? ((cap) = (cap) ? 2 * (cap) : 8, \
	                 (a) = xrealloc((a), (cap) * sizeof *(a))) : (a))

struct args {
	char **v;    /* NULL-terminated when nonempty */
	int n, cap;
};
#define ARGS_INIT { 0, 0, 0 }
void args_push(struct args *a, const char *s);
void args_pushf(struct args *a, const char *f, ...) __attribute__((format(printf, 2, 3)));
void args_pushv(struct args *a, char *const *v, int n);
void args_insert(struct args *a, int at, const char *s);
void args_remove(struct args *a, int at);
void args_release(struct args *a);
char *args_join(const struct args *a);    /* shell-quoted where needed, malloc'd */

/* buf: a growing string (git's strbuf); s is NUL-terminated once anything
 * was added, and owned by the buf until buf_release() */
struct buf {
	char *s;
	size_t n, cap;
};
#define BUF_INIT { 0, 0, 0 }
void buf_put(struct buf *b, const char *s, size_t n);
void buf_puts(struct buf *b, const char *s);
void buf_printf(struct buf *b, const char *f, ...) __attribute__((format(printf, 2, 3)));
void buf_json(struct buf *b, const char *s);   /* a JSON string, or null for NULL */
char *buf_take(struct buf *b);                 /* the string (never NULL); b is reset */
void buf_release(struct buf *b);

#endif
