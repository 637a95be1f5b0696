/* sfu.c: warp-partitioned approximation (paper 004, Sections 5.1-5.2).
 *
 * A selected kernel becomes one .entry holding two bodies: the accurate one
 * (the PTX the user's flags produced) and a fast one (the same kernel from a
 * second cicc run with fast-math flags, or, without one, a copy of the
 * accurate body). The entry reads the hardware warp slot %warpid once and
 * sends the warps whose slot is below lambda to the fast body:
 *
 *	mov.u32 %sfu_w, %warpid;  setp.lt.u32 %sfu_p, %sfu_w, LAMBDA;
 *	@%sfu_p bra $SFU_FAST;  <accurate body>  $SFU_FAST: <fast body>
 *
 * The fast body's registers, labels and .local arrays get the suffix _sfu,
 * and the .funcs it calls are copied from the fast module under new names
 * (NAME_sfu, NAME_sfuM for an approximation mask M other than all), so the
 * two bodies never share a name they do not mean to share. What they do mean
 * to share stays one object: kernel parameters, module-level .global/.const/
 * .shared variables, and .shared arrays declared inside the kernel (warps of
 * one CTA may take different bodies and still exchange data through them and
 * meet at the same barriers). In the fast body, FP64 division, reciprocal,
 * square root and reciprocal square root become the SFU forms of the paper's
 * Table 2 (rcp.approx.ftz.f64, rsqrt.approx.f64), optionally refined by one
 * Newton step, since cicc has no fast-math for double.
 *
 * The pass works on PTX text, line by line: cicc's output is regular enough
 * (one statement a line, braces balanced, no braces in strings but .file
 * names), and working on text keeps every kernel that is not selected byte
 * for byte as it was. Names are found by a small identifier scanner that
 * skips comments and strings. */
#define _GNU_SOURCE   /* memmem */
#include <ctype.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "transforms/pass.h"
#include "transforms/sfu.h"

/* growable text */
struct buf {
	char *s;
	size_t n, cap;
};

static void
badd(struct buf *b, const char *s, size_t n)
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
bstr(struct buf *b, const char *s)
{
	badd(b, s, strlen(s));
}

static void
bfmt(struct buf *b, const char *f, ...) __attribute__((format(printf, 2, 3)));
static void
bfmt(struct buf *b, const char *f, ...)
{
	char tmp[512];
	va_list ap;
	int n;
	va_start(ap, f);
	n = vsnprintf(tmp, sizeof tmp, f, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof tmp)
		BUG("bfmt: line too long");
	badd(b, tmp, n);
}

/* a set of names (small: a kernel declares a few dozen) */
struct names {
	char **v;
	int n, cap;
};

static int
nfind(const struct names *s, const char *p, size_t len)
{
	for (int i = 0; i < s->n; i++)
		if (strlen(s->v[i]) == len && !memcmp(s->v[i], p, len))
			return i;
	return -1;
}

static void
nadd(struct names *s, const char *p, size_t len)
{
	if (nfind(s, p, len) >= 0)
		return;
	vgrow(s->v, s->n, s->cap);
	s->v[s->n++] = xstrndup(p, len);
}

/* ---- module structure ---- */

/* one .entry or .func of a module: [beg, end) is its whole text, from the
 * first line of its header to the closing brace (or the ';' of a prototype) */
struct fn {
	const char *beg, *body, *end;  /* body: just after '{'; NULL for a prototype */
	char *name;
	int entry;
};

struct mod {
	const char *text;
	struct fn *fn;
	int nfn, cap;
};

static int
isid0(int c)
{
	return isalpha(c) || c == '_' || c == '$' || c == '%';
}

static int
isid(int c)
{
	return isalnum(c) || c == '_' || c == '$';
}

/* skip a comment or a string starting at p; NULL if there is none */
static const char *
skipjunk(const char *p)
{
	if (p[0] == '/' && p[1] == '/') {
		const char *e = strchr(p, '\n');
		return e ? e : p + strlen(p);
	}
	if (p[0] == '/' && p[1] == '*') {
		const char *e = strstr(p + 2, "*/");
		return e ? e + 2 : p + strlen(p);
	}
	if (p[0] == '"') {
		for (p++; *p && *p != '"'; p++)
			if (*p == '\\' && p[1])
				p++;
		return *p ? p + 1 : p;
	}
	return NULL;
}

/* the next identifier at or after p (skipping comments and strings) before
 * end; its length in *len */
static const char *
nextid(const char *p, const char *end, size_t *len)
{
	int prev = ' ';   /* callers start at a token boundary */
	while (p < end && *p) {
		const char *q = skipjunk(p);
		if (q) {
			p = q;
			prev = ' ';
			continue;
		}
		if ((isid0((uchar)*p) || (*p == '.' && isalpha((uchar)p[1]))) && !isid(prev) &&
		    prev != '.') {
			const char *s = p;
			for (p++; p < end && isid((uchar)*p); p++)
				;
			*len = p - s;
			return s;
		}
		prev = (uchar)*p++;
	}
	return NULL;
}

static char *
fnname(const char *hdr, const char *end, int entry)
{
	const char *p = strstr(hdr, entry ? ".entry" : ".func") + (entry ? 6 : 5);
	size_t len;
	while (isspace((uchar)*p))
		p++;
	if (!entry && *p == '(') {   /* return parameters come first */
		int depth = 0;
		for (; p < end; p++) {
			depth += (*p == '(') - (*p == ')');
			if (!depth)
				break;
		}
	}
	p = nextid(p, end, &len);
	return p ? xstrndup(p, len) : NULL;
}

/* does the statement starting at line begin a function: ".entry"/".func"
 * outside a comment, before any '(' */
static int
fnkind(const char *line, const char *eol)
{
	size_t len;
	for (const char *p = line; (p = nextid(p, eol, &len)); p += len) {
		if (len == 6 && !memcmp(p, ".entry", 6))
			return 2;
		if (len == 5 && !memcmp(p, ".func", 5))
			return 1;
		if (*p != '.')
			return 0;
	}
	return 0;
}

static const char *
eol(const char *p)
{
	const char *e = strchr(p, '\n');
	return e ? e : p + strlen(p);
}

/* the matching '}' of the '{' just before p; p at end of text if none */
static const char *
closing(const char *p)
{
	int depth = 1;
	while (*p) {
		const char *q = skipjunk(p);
		if (q) {
			p = q;
			continue;
		}
		if (*p == '{')
			depth++;
		else if (*p == '}' && !--depth)
			return p;
		p++;
	}
	return p;
}

/* the first '{' or ';' at depth 0 from p */
static const char *
hdrend(const char *p)
{
	while (*p && *p != '{' && *p != ';') {
		const char *q = skipjunk(p);
		p = q ? q : p + 1;
	}
	return p;
}

static int
modparse(struct mod *m, const char *text)
{
	const char *p = text;
	m->text = text;
	while (*p) {
		const char *e = eol(p), *q = skipjunk(p);
		int kind;
		while (isspace((uchar)*p) && p < e)
			p++;
		if (p < e && (q = skipjunk(p))) {
			p = q;
			if (*p == '\n')
				p++;
			continue;
		}
		if (p < e && (kind = fnkind(p, e))) {
			struct fn f = { p, NULL, NULL, NULL, kind == 2 };
			const char *h = hdrend(p);
			if (!*h)
				return -1;
			f.name = fnname(p, h, f.entry);
			if (*h == '{') {
				f.body = h + 1;
				f.end = closing(h + 1);
				if (!*f.end)
					return -1;
				f.end++;
			} else {
				f.end = h + 1;
			}
			vgrow(m->fn, m->nfn, m->cap);
			m->fn[m->nfn++] = f;
			p = f.end;
			continue;
		}
		if (p < e && *p == '{')    /* a stray block: skip it whole */
			p = closing(p + 1);
		p = *e ? e + 1 : e;
	}
	return 0;
}

static struct fn *
modfind(struct mod *m, const char *name, int wantbody)
{
	for (int i = 0; i < m->nfn; i++)
		if (!strcmp(m->fn[i].name, name) && (!wantbody || m->fn[i].body))
			return &m->fn[i];
	return NULL;
}

/* ---- names a body declares ---- */

struct decls {
	struct names regs;    /* single registers: %SP, temp_param_reg */
	struct names fams;    /* parametrized families: %r for %r<16> */
	struct names labels;
	struct names locals;  /* .local arrays and variables */
	struct names shared;  /* .shared declared in the body */
};

static int
startsdir(const char *p, const char *dir)
{
	size_t n = strlen(dir);
	return !strncmp(p, dir, n) && !isid((uchar)p[n]);
}

static void
declreg(struct decls *d, const char *p, const char *e)
{
	size_t len;
	for (p += 4; (p = nextid(p, e, &len)); p += len) {
		if (*p == '.')
			continue;     /* the type */
		if (p[len] == '<')
			nadd(&d->fams, p, len);
		else
			nadd(&d->regs, p, len);
	}
}

/* the declared name of ".local .align 8 .b8 __local_depot0[32];" */
static void
declvar(struct names *s, const char *p, const char *e)
{
	const char *last = NULL;
	size_t len, lastlen = 0;
	for (; (p = nextid(p, e, &len)); p += len) {
		if (*p != '.' && !last) {
			last = p;
			lastlen = len;
		}
	}
	if (last)
		nadd(s, last, lastlen);
}

static void
scandecls(struct decls *d, const char *body, const char *end)
{
	for (const char *p = body; p < end;) {
		const char *e = eol(p), *s = p;
		if (e > end)
			e = end;
		while (s < e && isspace((uchar)*s))
			s++;
		if (startsdir(s, ".reg"))
			declreg(d, s, e);
		else if (startsdir(s, ".local"))
			declvar(&d->locals, s + 6, e);
		else if (startsdir(s, ".shared"))
			declvar(&d->shared, s + 7, e);
		else if (isid0((uchar)*s)) {
			const char *q = s;
			while (q < e && isid((uchar)*q))
				q++;
			if (*q == ':')
				nadd(&d->labels, s, q - s);
		}
		p = e < end ? e + 1 : end;
	}
}

/* ---- renaming ---- */

struct ren {
	const struct decls *d;
	const struct names *funcs;  /* functions to rename */
	const char *suffix;         /* "_sfu" for the body */
	const char *fsuffix;        /* for the functions */
	const struct names *keep;   /* .shared shared with the accurate body */
};

/* the new name of identifier [p, p+len), or NULL to keep it */
static char *
rename1(const struct ren *r, const char *p, size_t len)
{
	size_t base = len;
	if (nfind(&r->d->regs, p, len) >= 0 || nfind(&r->d->labels, p, len) >= 0 ||
	    nfind(&r->d->locals, p, len) >= 0)
		return fmt("%.*s%s", (int)len, p, r->suffix);
	if (nfind(&r->d->shared, p, len) >= 0 && nfind(r->keep, p, len) < 0)
		return fmt("%.*s%s", (int)len, p, r->suffix);
	if (r->funcs && nfind(r->funcs, p, len) >= 0)
		return fmt("%.*s%s", (int)len, p, r->fsuffix);
	if (*p == '%') {
		while (base > 1 && isdigit((uchar)p[base - 1]))
			base--;
		if (nfind(&r->d->fams, p, base) >= 0)
			return fmt("%.*s%s%.*s", (int)base, p, r->suffix, (int)(len - base), p + base);
	}
	return NULL;
}

static void
renametext(struct buf *out, const struct ren *r, const char *p, const char *end)
{
	int prev = ' ';
	while (p < end) {
		const char *q = skipjunk(p);
		if (q) {
			badd(out, p, (q > end ? end : q) - p);
			p = q;
			prev = ' ';
			continue;
		}
		/* a directive or an opcode suffix follows a '.'; a float immediate
		 * like 0d3FF0... starts with a digit: neither is a name */
		if (isid0((uchar)*p) && !isid(prev) && prev != '.') {
			const char *s = p;
			char *n;
			for (p++; p < end && isid((uchar)*p); p++)
				;
			if ((n = rename1(r, s, p - s))) {
				bstr(out, n);
				free(n);
			} else {
				badd(out, s, p - s);
			}
			prev = 'a';
			continue;
		}
		badd(out, p, 1);
		prev = (uchar)*p++;
	}
}

/* ---- FP64 rewrites (Table 2) ---- */

struct f64 {
	uint mask;
	int newton;
	int ntmp, npred;     /* temporaries used so far */
	struct sfu_stats *st;
};

/* operands of "op d, a, b;" into v[], at most 4; returns the count */
static int
operands(const char *p, const char *e, char v[][64])
{
	int n = 0;
	while (p < e && !isspace((uchar)*p))
		p++;                      /* the opcode */
	while (p < e && n < 4) {
		const char *s;
		while (p < e && (isspace((uchar)*p) || *p == ','))
			p++;
		if (p >= e || *p == ';')
			break;
		s = p;
		while (p < e && *p != ',' && *p != ';' && !isspace((uchar)*p))
			p++;
		if (p - s >= 63)
			return -1;
		memcpy(v[n], s, p - s);
		v[n++][p - s] = 0;
	}
	return n;
}

static void
tmp(struct f64 *f, char *out)
{
	sprintf(out, "%%sfu_d%d", f->ntmp++);
}

/* "@%p1 " or "" */
static void
emit(struct buf *b, const char *guard, const char *f, ...) __attribute__((format(printf, 3, 4)));
static void
emit(struct buf *b, const char *guard, const char *f, ...)
{
	char tmp[256];
	va_list ap;
	va_start(ap, f);
	vsnprintf(tmp, sizeof tmp, f, ap);
	va_end(ap);
	bfmt(b, "\t%s%s;\n", guard, tmp);
}

#define ONE "0d3FF0000000000000"

/* d = raw where x is zero, infinite, subnormal or NaN (Newton's step would
 * turn inf * 0 into NaN there), else refined */
static void
keepraw(struct buf *b, struct f64 *f, const char *g, const char *d, const char *x,
        const char *refined, const char *raw)
{
	int p = f->npred++;
	emit(b, g, "testp.normal.f64 %%sfu_q%d, %s", p, x);
	emit(b, g, "selp.f64 %s, %s, %s, %%sfu_q%d", d, refined, raw, p);
}

/* d = 1/a */
static void
f64rcp(struct buf *b, struct f64 *f, const char *g, const char *d, const char *a)
{
	char r[32], na[32], e[32], r1[32];
	if (!f->newton) {
		emit(b, g, "rcp.approx.ftz.f64 %s, %s", d, a);
		return;
	}
	tmp(f, r), tmp(f, na), tmp(f, e), tmp(f, r1);
	emit(b, g, "rcp.approx.ftz.f64 %s, %s", r, a);
	emit(b, g, "neg.f64 %s, %s", na, a);
	emit(b, g, "fma.rn.f64 %s, %s, %s, " ONE, e, na, r);
	emit(b, g, "fma.rn.f64 %s, %s, %s, %s", r1, r, e, r);
	keepraw(b, f, g, d, a, r1, r);
}

/* d = a/b */
static void
f64div(struct buf *b, struct f64 *f, const char *g, const char *d, const char *a, const char *x)
{
	char r[32], nx[32], e[32], r1[32], q[32], rem[32], q1[32];
	tmp(f, r), tmp(f, q);
	emit(b, g, "rcp.approx.ftz.f64 %s, %s", r, x);
	if (!f->newton) {
		emit(b, g, "mul.rn.f64 %s, %s, %s", d, a, r);
		return;
	}
	tmp(f, nx), tmp(f, e), tmp(f, r1), tmp(f, rem), tmp(f, q1);
	emit(b, g, "neg.f64 %s, %s", nx, x);
	emit(b, g, "fma.rn.f64 %s, %s, %s, " ONE, e, nx, r);
	emit(b, g, "fma.rn.f64 %s, %s, %s, %s", r1, r, e, r);
	emit(b, g, "mul.rn.f64 %s, %s, %s", q, a, r1);
	emit(b, g, "fma.rn.f64 %s, %s, %s, %s", rem, nx, q, a);   /* a - x*q */
	emit(b, g, "fma.rn.f64 %s, %s, %s, %s", q1, r1, rem, q);
	emit(b, g, "mul.rn.f64 %s, %s, %s", r, a, r);             /* raw quotient */
	keepraw(b, f, g, d, x, q1, r);
}

/* y = 1/sqrt(a), refined by one Newton step if asked: y + y/2 (1 - a y y) */
static void
f64rsqrt(struct buf *b, struct f64 *f, const char *g, const char *y, const char *a)
{
	char r[32], t[32], e[32], h[32], r1[32];
	if (!f->newton) {
		emit(b, g, "rsqrt.approx.f64 %s, %s", y, a);
		return;
	}
	tmp(f, r), tmp(f, t), tmp(f, e), tmp(f, h), tmp(f, r1);
	emit(b, g, "rsqrt.approx.f64 %s, %s", r, a);
	emit(b, g, "mul.rn.f64 %s, %s, %s", t, a, r);
	emit(b, g, "neg.f64 %s, %s", t, t);
	emit(b, g, "fma.rn.f64 %s, %s, %s, " ONE, e, t, r);
	emit(b, g, "mul.rn.f64 %s, %s, 0d3FE0000000000000", h, r);
	emit(b, g, "fma.rn.f64 %s, %s, %s, %s", r1, h, e, r);
	keepraw(b, f, g, y, a, r1, r);
}

/* d = sqrt(a) = a * rsqrt(a), except sqrt(+-0) = +-0 and sqrt(+inf) = +inf,
 * where the product would be 0 * inf */
static void
f64sqrt(struct buf *b, struct f64 *f, const char *g, const char *d, const char *a)
{
	char y[32], s[32];
	int p = f->npred;
	f->npred += 3;
	tmp(f, y), tmp(f, s);
	f64rsqrt(b, f, g, y, a);
	emit(b, g, "mul.rn.f64 %s, %s, %s", s, a, y);
	emit(b, g, "setp.eq.f64 %%sfu_q%d, %s, 0d0000000000000000", p, a);
	emit(b, g, "setp.eq.f64 %%sfu_q%d, %s, 0d7FF0000000000000", p + 1, a);
	emit(b, g, "or.pred %%sfu_q%d, %%sfu_q%d, %%sfu_q%d", p + 2, p, p + 1);
	emit(b, g, "selp.f64 %s, %s, %s, %%sfu_q%d", d, a, s, p + 2);
}

/* the guard ("@%p1 ") and opcode of the instruction line [p, e) */
static const char *
opcode(const char *p, const char *e, char *guard, size_t gcap)
{
	const char *s;
	while (p < e && isspace((uchar)*p))
		p++;
	guard[0] = 0;
	if (*p == '@') {
		s = p;
		while (p < e && !isspace((uchar)*p))
			p++;
		if ((size_t)(p - s) + 2 > gcap)
			return NULL;
		memcpy(guard, s, p - s);
		strcpy(guard + (p - s), " ");
		while (p < e && isspace((uchar)*p))
			p++;
	}
	return p;
}

static int
isop(const char *p, const char *op)
{
	size_t n = strlen(op);
	return !strncmp(p, op, n) && isspace((uchar)p[n]);
}

/* how often the register name occurs as a whole token in [p, end) */
static int
uses(const char *p, const char *end, const char *reg)
{
	size_t len, n = strlen(reg);
	int c = 0;
	for (; (p = nextid(p, end, &len)); p += len)
		c += len == n && !memcmp(p, reg, n);
	return c;
}

/* does [p, e) write reg or hold a label between? (the register a sqrt read
 * must be the same when its reciprocal is taken) */
static int
clobbers(const char *p, const char *e, const char *reg)
{
	char v[4][64], g[32];
	for (; p < e; p = eol(p) + 1) {
		const char *l = eol(p), *op;
		const char *s = p;
		while (s < l && isspace((uchar)*s))
			s++;
		if (s < l && isid0((uchar)*s) && memchr(s, ':', l - s) && !memchr(s, ';', l - s))
			return 1;   /* a label: control may join here */
		op = opcode(p, l, g, sizeof g);
		if (!op || op >= l || *op == '.' || *op == '/')
			continue;
		if (operands(op, l, v) > 0 && strstr(v[0], reg) && uses(v[0], v[0] + strlen(v[0]), reg))
			return 1;
	}
	return 0;
}

/* rewrite one f64 instruction line; 0 if the line is not one */
static int
f64line(struct buf *b, struct f64 *f, const char *p, const char *e, const char *body,
        const char *end, char *dead)
{
	char g[32], v[4][64];
	const char *op = opcode(p, e, g, sizeof g);
	int n;
	if (!op)
		return 0;
	if ((f->mask & AX_DIV) && isop(op, "div.rn.f64") && (n = operands(op, e, v)) == 3) {
		f64div(b, f, g, v[0], v[1], v[2]);
		f->st->f64div++;
		return 1;
	}
	if ((f->mask & (AX_RCP | AX_DIV)) && isop(op, "rcp.rn.f64") && operands(op, e, v) == 2) {
		f64rcp(b, f, g, v[0], v[1]);
		f->st->f64rcp++;
		return 1;
	}
	if ((f->mask & AX_SQRT) && isop(op, "sqrt.rn.f64") && operands(op, e, v) == 2) {
		/* 1/sqrt(a): the sqrt's only use is a reciprocal (or 1.0 / s) in
		 * the same block, with a unchanged in between */
		const char *q = e + 1;
		if (!g[0] && uses(body, end, v[0]) == 2) {
			for (const char *l = q; l < end; l = eol(l) + 1) {
				char g2[32], w[4][64];
				const char *le = eol(l), *op2 = opcode(l, le, g2, sizeof g2);
				int m;
				if (!op2 || !uses(l, le, v[0]))
					continue;
				m = operands(op2, le, w);
				if (!g2[0] && !clobbers(q, l, v[1]) &&
				    ((isop(op2, "rcp.rn.f64") && m == 2 && !strcmp(w[1], v[0])) ||
				     (isop(op2, "div.rn.f64") && m == 3 && !strcmp(w[1], ONE) &&
				      !strcmp(w[2], v[0])))) {
					/* the reciprocal's line becomes the rsqrt */
					memset(dead + (l - body), 1, 1);
					struct buf tmpb = {0};
					f64rsqrt(&tmpb, f, "", w[0], v[1]);
					f->st->f64rsqrt++;
					bstr(b, tmpb.s);
					free(tmpb.s);
					return 1;
				}
				break;
			}
		}
		f64sqrt(b, f, g, v[0], v[1]);
		f->st->f64sqrt++;
		return 1;
	}
	return 0;
}

/* body text with the f64 forms rewritten; temporaries declared up front */
static char *
f64body(const char *body, const char *end, uint mask, int newton, struct sfu_stats *st)
{
	struct f64 f = { mask, newton, 0, 0, st };
	struct buf b = {0}, out = {0};
	char *dead = xcalloc(end - body + 1, 1);  /* 1 at the start of a line to drop */
	for (const char *p = body; p < end;) {
		const char *e = eol(p);
		if (e > end)
			e = end;
		if (!dead[p - body] && !f64line(&b, &f, p, e, body, end, dead))
			badd(&b, p, e - p + (e < end));
		p = e < end ? e + 1 : end;
	}
	free(dead);
	if (f.ntmp)
		bfmt(&out, "\n\t.reg .f64 %%sfu_d<%d>;\n", f.ntmp);
	if (f.npred)
		bfmt(&out, "\t.reg .pred %%sfu_q<%d>;\n", f.npred);
	if (b.s)
		bstr(&out, b.s);
	free(b.s);
	return out.s ? out.s : xstrdup("");
}

/* ---- statistics ---- */

static void
count(struct sfu_stats *st, const char *p, const char *end)
{
	static const struct { const char *op; int kind; } ops[] = {
		{"ex2.approx", 0}, {"lg2.approx", 0}, {"sin.approx", 0}, {"cos.approx", 0},
		{"tanh.approx", 0}, {"div.approx", 1}, {"div.full", 1}, {"sqrt.approx", 2},
		{"rsqrt.approx.f32", 2}, {"rsqrt.approx.ftz.f32", 2}, {"rcp.approx.f32", 3},
		{"rcp.approx.ftz.f32", 3},
	};
	for (; p < end; p = eol(p) + 1) {
		char g[32];
		const char *op = opcode(p, eol(p), g, sizeof g);
		for (size_t i = 0; op && i < countof(ops); i++) {
			if (!startswith(op, ops[i].op))
				continue;
			int *c[] = { &st->trans, &st->div, &st->sqrt, &st->rcp };
			(*c[ops[i].kind])++;
			break;
		}
	}
}

/* ---- the merge ---- */

/* .funcs of m reachable from [body, end), in call order: any identifier
 * that names a function defined in m (a call, or its address taken) */
static void
callees(struct mod *m, const char *body, const char *end, struct names *out)
{
	size_t len;
	for (const char *p = body; (p = nextid(p, end, &len)); p += len) {
		char *name = xstrndup(p, len);
		struct fn *f = *p == '%' || *p == '.' ? NULL : modfind(m, name, 1);
		free(name);
		if (!f || f->entry || nfind(out, f->name, strlen(f->name)) >= 0)
			continue;
		nadd(out, f->name, strlen(f->name));
		callees(m, f->body, f->end, out);
	}
}

static int
sametext(struct fn *a, struct fn *b)
{
	return a->end - a->beg == b->end - b->beg && !memcmp(a->beg, b->beg, a->end - a->beg);
}

/* module-level declarations (not functions) of [p, end): one statement a
 * line in cicc's output; each is added to out unless acc has its name */
static void
moddecls(struct buf *out, struct mod *acc, struct mod *fast)
{
	const char *p = fast->text;
	for (int i = 0; i <= fast->nfn; i++) {
		const char *end = i < fast->nfn ? fast->fn[i].beg : p + strlen(p);
		for (const char *l = p; l < end; l = eol(l) + 1) {
			const char *e = eol(l), *s = l;
			size_t len;
			while (s < e && isspace((uchar)*s))
				s++;
			if (!(startsdir(s, ".global") || startsdir(s, ".const") || startsdir(s, ".shared") ||
			      (startsdir(s, ".extern") && !fnkind(s, e))))
				continue;
			struct names nm = {0};
			declvar(&nm, s, memchr(s, '=', e - s) ? memchr(s, '=', e - s) : e);
			/* declared in acc (anywhere at module level)? */
			const char *a = acc->text;
			int found = 0;
			for (; (a = nextid(a, a + strlen(a), &len)); a += len)
				if (nm.n && len == strlen(nm.v[0]) && !memcmp(a, nm.v[0], len)) {
					found = 1;
					break;
				}
			if (!found) {
				badd(out, l, e - l);
				bstr(out, "\n");
			}
			if (e >= end)
				break;
		}
		if (i < fast->nfn)
			p = fast->fn[i].end;
	}
}

/* the header of f with its name replaced and .visible/.weak dropped: the
 * copies are private to this module */
static void
funchead(struct buf *out, struct fn *f, const char *hdrend, const char *fsuffix)
{
	const char *p = f->beg;
	size_t len;
	int named = 0;
	for (const char *q; (q = nextid(p, hdrend, &len)); p = q + len) {
		badd(out, p, q - p);
		if ((len == 8 && !memcmp(q, ".visible", 8)) || (len == 5 && !memcmp(q, ".weak", 5))) {
			while (q[len] == ' ' || q[len] == '\t')
				len++;
			continue;
		}
		badd(out, q, len);
		if (!named && len == strlen(f->name) && !memcmp(q, f->name, len)) {
			bstr(out, fsuffix);
			named = 1;
		}
	}
	badd(out, p, hdrend - p);
}

static const char *
bodystart(struct fn *f)
{
	return f->body - 1;   /* the '{' */
}

/* the fast body (renamed, with f64 rewrites) of kernel kf from module fast */
static char *
fastbody(struct fn *kf, struct fn *ka, const struct names *funcs, const char *fsuffix,
         const struct sfu_params *p, int alone, struct sfu_stats *st, const char **why)
{
	struct decls da = {0}, df = {0};
	struct names keep = {0};
	struct buf rb = {0};
	scandecls(&da, ka->body, ka->end - 1);
	scandecls(&df, kf->body, kf->end - 1);
	/* .shared in the kernel: the same declaration in both is one object */
	for (int i = 0; !alone && i < df.shared.n; i++) {
		if (nfind(&da.shared, df.shared.v[i], strlen(df.shared.v[i])) < 0)
			continue;
		nadd(&keep, df.shared.v[i], strlen(df.shared.v[i]));
	}
	struct ren r = { &df, funcs, "_sfu", fsuffix, &keep };
	/* drop the fast body's copies of the shared .shared declarations */
	for (const char *l = kf->body; l < kf->end - 1; l = eol(l) + 1) {
		const char *e = eol(l), *s = l;
		if (e > kf->end - 1)
			e = kf->end - 1;
		while (s < e && isspace((uchar)*s))
			s++;
		if (startsdir(s, ".shared")) {
			struct names nm = {0};
			declvar(&nm, s + 7, e);
			if (nm.n && nfind(&keep, nm.v[0], strlen(nm.v[0])) >= 0) {
				/* same name, so it must be the same declaration */
				const char *a = memmem(ka->body, ka->end - ka->body, s, e - s);
				if (!a) {
					*why = "a .shared array of the kernel differs between the accurate and fast PTX";
					return NULL;
				}
				if (e >= kf->end - 1)
					break;
				continue;
			}
		}
		renametext(&rb, &r, l, e + (e < kf->end - 1));
		if (e >= kf->end - 1)
			break;
	}
	char *s = f64body(rb.s ? rb.s : "", rb.s ? rb.s + rb.n : "", p->approx, p->newton, st);
	free(rb.s);
	return s;
}

/* ---- debug info (-G, -lineinfo) ---- */

/* the lines of text that start with directive dir (".file"), or the block
 * of ".section NAME" up to its closing brace; malloc'd, "" if none */
static char *
debugpart(const char *text, const char *dir, const char *section)
{
	struct buf b = {0};
	for (const char *p = text; *p; p = *eol(p) ? eol(p) + 1 : eol(p)) {
		const char *s = p, *e = eol(p);
		while (s < e && isspace((uchar)*s))
			s++;
		if (dir && startsdir(s, dir))
			badd(&b, s, e - s + 1);
		if (section && startsdir(s, ".section")) {
			const char *n = s + 8;
			while (*n == ' ' || *n == '\t')
				n++;
			if (startsdir(n, section)) {
				const char *o = strchr(e, '{'), *c = o ? closing(o + 1) : NULL;
				if (c)
					badd(&b, s, c - s);
			}
		}
	}
	return b.s ? b.s : xstrdup("");
}

/* The fast body's .loc lines name the fast module's .file numbers and its
 * debug strings (function_name $L__info_stringN, for inlined code). Keep
 * them where the accurate module has the same .file table and the same
 * strings; else drop the function_name/inlined_at part, or the whole .loc
 * (then a debugger maps the fast body to no source line). */
static char *
fixloc(char *body, const char *acc, const char *fast)
{
	char *fa = debugpart(acc, ".file", NULL), *ff = debugpart(fast, ".file", NULL);
	char *sa = debugpart(acc, NULL, ".debug_str"), *sf = debugpart(fast, NULL, ".debug_str");
	int drop = strcmp(fa, ff) != 0, strip = strcmp(sa, sf) != 0;
	struct buf b = {0};
	free(fa), free(ff), free(sa), free(sf);
	if (!drop && !strip)
		return body;
	for (const char *p = body; *p; p = *eol(p) ? eol(p) + 1 : eol(p)) {
		const char *s = p, *e = eol(p), *fn;
		while (s < e && isspace((uchar)*s))
			s++;
		if (startsdir(s, ".loc")) {
			if (drop)
				continue;
			if ((fn = memmem(s, e - s, ", function_name", 15))) {
				badd(&b, p, fn - p);
				bstr(&b, "\n");
				continue;
			}
		}
		badd(&b, p, e - p + (*e != 0));
	}
	free(body);
	return b.s ? b.s : xstrdup("");
}

/* a callee's definition, renamed, with f64 rewrites */
static void
fastfunc(struct buf *out, struct fn *f, const struct names *funcs, const char *fsuffix,
         const struct sfu_params *p, struct sfu_stats *st)
{
	struct decls d = {0};
	struct names none = {0};
	struct buf rb = {0};
	scandecls(&d, f->body, f->end - 1);
	/* registers and labels live in the function's own scope: only the
	 * calls need new names */
	struct decls empty = {0};
	struct ren r = { &empty, funcs, "", fsuffix, &none };
	funchead(out, f, bodystart(f), fsuffix);
	bstr(out, "{");
	renametext(&rb, &r, f->body, f->end - 1);
	char *s = f64body(rb.s, rb.s + rb.n, p->approx, p->newton, st);
	bstr(out, s);
	bstr(out, "}\n");
	free(s);
	free(rb.s);
	(void)d;
}

/* the accurate body with the partition prologue after its leading
 * declarations */
static void
accbody(struct buf *out, struct fn *ka, int lambda)
{
	const char *p = ka->body, *end = ka->end - 1;
	/* leading declarations: blank lines, .reg/.local/.shared/.param lines */
	for (;;) {
		const char *s = p, *e = eol(p);
		while (s < e && isspace((uchar)*s))
			s++;
		if (e >= end || !(s == e || *s == '.' || startswith(s, "//")) ||
		    startsdir(s, ".loc") || startsdir(s, ".pragma"))
			break;
		p = e + 1;
	}
	badd(out, ka->body, p - ka->body);
	bstr(out, "\t.reg .b32 %sfu_w;\n\t.reg .pred %sfu_p;\n");
	bstr(out, "\tmov.u32 %sfu_w, %warpid;\n");
	bfmt(out, "\tsetp.lt.u32 %%sfu_p, %%sfu_w, %d;\n", lambda);
	bstr(out, "\t@%sfu_p bra $SFU_FAST;\n");
	badd(out, p, end - p);
	bstr(out, "\tret;\n$SFU_FAST:\n");
}

char *
sfu(const char *acc, const char *fast, const char *kernel, const struct sfu_params *p,
    int flags, struct sfu_stats *st, const char **why)
{
	struct mod ma = {0}, mf = {0};
	struct fn *ka, *kf;
	struct names funcs = {0};
	struct buf out = {0}, fb = {0};
	char fsuffix[16];
	int copy = !fast;

	memset(st, 0, sizeof *st);
	*why = NULL;
	if (p->lambda < 0 || p->lambda > 64) {
		*why = "lambda is not in 0..64";
		return NULL;
	}
	if (modparse(&ma, acc) || (fast && modparse(&mf, fast))) {
		*why = "unbalanced braces in the PTX";
		return NULL;
	}
	if (!fast)
		mf = ma;
	if (!(ka = modfind(&ma, kernel, 1)) || !ka->entry) {
		*why = "no such kernel";
		return NULL;
	}
	if (!(kf = modfind(&mf, kernel, 1)) || !kf->entry) {
		*why = "the kernel is missing from the fast PTX";
		return NULL;
	}
	const char *old = strstr(ka->body, "%sfu_");
	if (old && old < ka->end) {
		*why = "the kernel already holds an sfu partition";
		return NULL;
	}
	if (bodystart(ka) - ka->beg != bodystart(kf) - kf->beg ||
	    memcmp(ka->beg, kf->beg, bodystart(ka) - ka->beg)) {
		*why = "the kernel's header differs between the accurate and fast PTX";
		return NULL;
	}
	if (p->approx == AX_ALL)
		strcpy(fsuffix, "_sfu");
	else
		snprintf(fsuffix, sizeof fsuffix, "_sfu%x", p->approx);

	callees(&mf, kf->body, kf->end, &funcs);
	int alone = (flags & SFU_COLLAPSE64) && p->lambda == 64;
	int accurate = (flags & SFU_COLLAPSE0) && p->lambda == 0;   /* the input as it was */
	char *body = fastbody(kf, ka, &funcs, fsuffix, p, alone, st, why);
	if (!body)
		return NULL;
	for (int i = 0; i < funcs.n; i++)
		fastfunc(&fb, modfind(&mf, funcs.v[i], 1), &funcs, fsuffix, p, st);
	if (fast) {
		body = fixloc(body, acc, fast);
		if (fb.s) {
			fb.s = fixloc(fb.s, acc, fast);
			fb.n = strlen(fb.s);
		}
	}
	count(st, body, body + strlen(body));
	if (fb.s)
		count(st, fb.s, fb.s + fb.n);

	/* nothing differs: the fast body would be the accurate one */
	int same = !copy && sametext(ka, kf);
	for (int i = 0; same && i < funcs.n; i++) {
		struct fn *a = modfind(&ma, funcs.v[i], 1), *f = modfind(&mf, funcs.v[i], 1);
		same = a && sametext(a, f);
	}
	if ((copy || same) && !(st->f64div + st->f64rcp + st->f64sqrt + st->f64rsqrt)) {
		*why = copy ? "no FP64 division, reciprocal or square root to approximate"
		            : "the fast-math PTX of the kernel is the same as the accurate one: "
		              "nothing to approximate (is -use_fast_math already on?)";
		free(body);
		free(fb.s);
		return NULL;
	}

	/* module text before the kernel, the fast module's own declarations and
	 * functions, the merged kernel, the rest */
	badd(&out, acc, ka->beg - acc);
	if (fast && !accurate)
		moddecls(&out, &ma, &mf);
	for (int i = 0; !accurate && i < funcs.n; i++) {
		char name[512];
		snprintf(name, sizeof name, "%s%s", funcs.v[i], fsuffix);
		if (modfind(&ma, name, 1)) {   /* added by an earlier kernel's merge */
			*why = NULL;
			continue;
		}
		struct fn *f = modfind(&mf, funcs.v[i], 1);
		funchead(&out, f, bodystart(f), fsuffix);
		bstr(&out, ";\n");
	}
	if (fb.s && !accurate) {
		/* drop copies already present from an earlier merge */
		struct mod mc = {0};
		modparse(&mc, fb.s);
		for (int i = 0; i < mc.nfn; i++)
			if (!modfind(&ma, mc.fn[i].name, 1)) {
				badd(&out, mc.fn[i].beg, mc.fn[i].end - mc.fn[i].beg);
				bstr(&out, "\n");
			}
	}
	badd(&out, ka->beg, ka->body - ka->beg);
	if (accurate) {
		badd(&out, ka->body, ka->end - ka->body);
	} else if ((flags & SFU_COLLAPSE64) && p->lambda == 64) {
		bstr(&out, body);
		bstr(&out, "}");
	} else {
		accbody(&out, ka, p->lambda);
		bstr(&out, body);
		bstr(&out, "}");
	}
	bstr(&out, ka->end);
	free(body);
	free(fb.s);
	return out.s;
}

/* ---- parameters and the tools' entry ---- */

static const char *const axname[] = {"transcendental", "div", "sqrt", "rcp", "ftz"};

int
sfu_params_parse(const char *s, struct sfu_params *p, int *flags, char **fastpath,
                 char **kernels, char **err)
{
	char *copy = xstrdup(s ? s : ""), *tok, *save;
	*p = (struct sfu_params){ 32, AX_ALL, 0 };
	*flags = SFU_COLLAPSE0;
	*fastpath = NULL;
	*kernels = NULL;
	*err = NULL;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *v = strchr(tok, '='), *end;
		if (!v) {
			*err = fmt("sfu: expected 'name=value', got '%s'", tok);
			break;
		}
		*v++ = 0;
		if (!strcmp(tok, "lambda")) {
			long l = strtol(v, &end, 10);
			if (*end || end == v || l < 0 || l > 64) {
				*err = fmt("sfu: lambda must be 0..64, got '%s'", v);
				break;
			}
			p->lambda = (int)l;
		} else if (!strcmp(tok, "fast")) {
			*fastpath = xstrdup(v);
		} else if (!strcmp(tok, "kernels")) {
			*kernels = xstrdup(v);
		} else if (!strcmp(tok, "newton")) {
			if (strcmp(v, "0") && strcmp(v, "1")) {
				*err = fmt("sfu: newton must be 0 or 1, got '%s'", v);
				break;
			}
			p->newton = *v == '1';
		} else if (!strcmp(tok, "collapse")) {
			/* 0: always two bodies; 1: one at lambda 0; 2: one at 0 and 64 */
			if (strcmp(v, "0") && strcmp(v, "1") && strcmp(v, "2")) {
				*err = fmt("sfu: collapse must be 0, 1 or 2, got '%s'", v);
				break;
			}
			*flags = *v == '0' ? 0 : *v == '1' ? SFU_COLLAPSE0 : SFU_COLLAPSE0 | SFU_COLLAPSE64;
		} else if (!strcmp(tok, "approx")) {
			char *a, *s2;
			p->approx = 0;
			for (a = strtok_r(v, "+", &s2); a; a = strtok_r(NULL, "+", &s2)) {
				size_t i;
				for (i = 0; i < countof(axname) && strcmp(a, axname[i]); i++)
					;
				if (i == countof(axname)) {
					*err = fmt("sfu: unknown approximation '%s' (transcendental, div, "
					           "sqrt, rcp, ftz)", a);
					break;
				}
				p->approx |= 1u << i;
			}
			if (*err)
				break;
		} else {
			*err = fmt("sfu: unknown parameter '%s' (lambda, fast, approx, newton, "
			           "collapse, kernels)", tok);
			break;
		}
	}
	free(copy);
	return *err ? -1 : 0;
}

void
sfu_stats_json(const struct sfu_stats *st, char *buf, size_t cap)
{
	snprintf(buf, cap,
	         "{\"transcendental\":%d,\"div\":%d,\"sqrt\":%d,\"rcp\":%d,"
	         "\"f64_div\":%d,\"f64_rcp\":%d,\"f64_sqrt\":%d,\"f64_rsqrt\":%d}",
	         st->trans, st->div, st->sqrt, st->rcp, st->f64div, st->f64rcp, st->f64sqrt,
	         st->f64rsqrt);
}

void
sfu_params_json(const struct sfu_params *p, char *buf, size_t cap)
{
	size_t n = snprintf(buf, cap, "{\"lambda\":%d,\"newton\":%d,\"approx\":[", p->lambda,
	                    p->newton);
	for (size_t i = 0, k = 0; i < countof(axname) && n < cap; i++)
		if (p->approx & (1u << i))
			n += snprintf(buf + n, cap - n, "%s\"%s\"", k++ ? "," : "", axname[i]);
	if (n < cap)
		snprintf(buf + n, cap - n, "]}");
}

char *
sfu_opt(const char *args, const char *in, FILE *msg)
{
	struct sfu_params p;
	char *fastpath, *kernels, *err, *fast = NULL, *text = xstrdup(in);
	struct mod m = {0};
	int flags;
	if (sfu_params_parse(args, &p, &flags, &fastpath, &kernels, &err))
		die("%s", err);
	if (fastpath && !(fast = readfile(fastpath, NULL)))
		die("cannot read '%s'", fastpath);
	if (modparse(&m, in))
		die("unbalanced braces in the PTX");
	for (int i = 0; i < m.nfn; i++) {
		struct sfu_stats st;
		const char *why;
		char *demangled, *next, js[256];
		if (!m.fn[i].entry || !m.fn[i].body)
			continue;
		demangled = demangle(m.fn[i].name);
		if (kernels && fnmatch(kernels, m.fn[i].name, 0) && fnmatch(kernels, demangled, 0)) {
			free(demangled);
			continue;
		}
		free(demangled);
		next = sfu(text, fast, m.fn[i].name, &p, flags, &st, &why);
		if (!next) {
			if (msg)
				fprintf(msg, "%s: note: sfu: kernel '%s' left alone: %s\n", progname,
				        m.fn[i].name, why);
			continue;
		}
		free(text);
		text = next;
		sfu_stats_json(&st, js, sizeof js);
		if (msg)
			fprintf(msg, "%s: note: sfu: kernel '%s' lambda %d: %s\n", progname,
			        m.fn[i].name, p.lambda, js);
	}
	free(fast);
	free(fastpath);
	free(kernels);
	return text;
}

/* ---- the driver's hook ---- */

#if __has_include("policies/report.c")
#define HAVE_REPORT 1
#else
#define HAVE_REPORT 0   /* the policy layer's report.c is not in this tree yet */
#endif

static void
sfu_report(const struct hook *h, const char *mangled, const struct sfu_params *p,
           const struct sfu_stats *st, const char *why)
{
	char params[256], stats[256];
	char *demangled = demangle(mangled);
	sfu_params_json(p, params, sizeof params);
	sfu_stats_json(st, stats, sizeof stats);
	if (why)
		note("%s: sfu: kernel '%s' left alone: %s", h->src, demangled, why);
#if HAVE_REPORT
	if (h->report) {
		struct report r = {.src = h->src, .arch = h->arch, .mangled = mangled,
		                   .demangled = demangled, .transform = "sfu", .params = params,
		                   .applied = !why, .reason = why, .stats = why ? NULL : stats};
		report_append(h->report, &r);
	}
#endif
	free(demangled);
}

char *
sfu_module(const char *text, const struct hook *h)
{
	struct mod m = {0};
	char *cur = NULL;
	if (!h->prof || h->dryrun || modparse(&m, text))
		return NULL;
	for (int i = 0; i < m.nfn; i++) {
		struct choice c;
		struct sfu_stats st = {0};
		const char *why = NULL, *fp;
		char *demangled, *fast = NULL, *next;
		if (!m.fn[i].entry || !m.fn[i].body)
			continue;
		demangled = demangle(m.fn[i].name);
		profile_match(h->prof, h->src, m.fn[i].name, demangled, &c);
		free(demangled);
		if (!c.rule[T_SFU])
			continue;
		const struct sfu_params *p = &c.rule[T_SFU]->sfu;
		fp = h->fastptx ? h->fastptx(h->drv, p->approx) : NULL;
		if (fp && !(fast = readfile(fp, NULL)))
			fp = NULL;
		next = sfu(cur ? cur : text, fast, m.fn[i].name, p, SFU_COLLAPSE0, &st, &why);
		if (!fp && !why)
			note("%s: sfu: no fast-math PTX for '%s': FP64 rewrites only", h->src, m.fn[i].name);
		sfu_report(h, m.fn[i].name, p, &st, why);
		free(fast);
		if (next) {
			free(cur);
			cur = next;
		}
	}
	return cur;
}
