/* table.c: the opcode and type tables, the name tables (open addressing
 * from a name to a number) and the module's symbols. */
#include "ptx/ptx.h"
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

const struct opinfo opinfo[NPSEUDO] = {
#define OP(name, jmp, ty, sm, ptx) [O##name] = {#name, jmp, ty, sm, ptx},
#include "ptx/ops.h"
#undef OP
	[Olabel] = {"<label>"}, [Oreg] = {".reg"}, [Ovar] = {"<var>"},
	[Oopen] = {"{"}, [Oclose] = {"}"}, [Oloc] = {".loc"}, [Oraw] = {"<raw>"},
	[Ofn] = {"<fn>"},
};

const char *const tyname[NTYPE] = {
	"", "pred", "b8", "b16", "b32", "b64", "b128", "u8", "u16", "u32", "u64",
	"s8", "s16", "s32", "s64", "f16", "f16x2", "bf16", "bf16x2", "f32", "f64", "tf32",
};

const uchar tybits[NTYPE] = {
	[Tpred] = 1, [Tb8] = 8, [Tb16] = 16, [Tb32] = 32, [Tb64] = 64, [Tb128] = 128,
	[Tu8] = 8, [Tu16] = 16, [Tu32] = 32, [Tu64] = 64,
	[Ts8] = 8, [Ts16] = 16, [Ts32] = 32, [Ts64] = 64,
	[Tf16] = 16, [Tf16x2] = 32, [Tbf16] = 16, [Tbf16x2] = 32, [Tf32] = 32, [Tf64] = 64,
	[Ttf32] = 32,
};

int
tyof(Str s)
{
	for (int t = 1; t < NTYPE; t++)
		if (strlen(tyname[t]) == s.n && !memcmp(tyname[t], s.s, s.n))
			return t;
	return Tnone;
}

int
regtype(int t)
{
	return t > Tnone && t < NTYPE && t != Tbf16 && t != Tbf16x2 && t != Ttf32;
}

/* modifiers */

void
modsplit(const Ins *i, Mods *md)
{
	const char *s = i->name.s, *e = s + i->name.n;

	memset(md, 0, sizeof *md);
	while (s < e && md->n < countof(md->part)) {
		const char *d = memchr(s, '.', e - s);
		Str p = {s, (uint)((d ? d : e) - s)};
		int t = tyof(p);
		md->part[md->n++] = p;
		if (t && md->nt < countof(md->t))
			md->t[md->nt++] = t;
		if (p.n == 2 && p.s[0] == 'v' && (p.s[1] == '2' || p.s[1] == '4' || p.s[1] == '8'))
			md->vec = p.s[1] - '0';
		s = d ? d + 1 : e;
	}
}

int
modhas(const Mods *md, const char *m)
{
	size_t n = strlen(m);

	for (uint k = 1; k < md->n; k++)
		if (md->part[k].n == n && !memcmp(md->part[k].s, m, n))
			return 1;
	return 0;
}

int
modspace(const Mods *md, const char *sp)
{
	size_t n = strlen(sp);

	for (uint k = 1; k < md->n; k++)
		if (md->part[k].n >= n && !memcmp(md->part[k].s, sp, n) &&
		    (md->part[k].n == n || (md->part[k].n > n + 1 && !memcmp(md->part[k].s + n, "::", 2))))
			return 1;
	return 0;
}

int
hasmod(const Ins *i, const char *m)
{
	Mods md;

	modsplit(i, &md);
	return modhas(&md, m);
}

int
hasspace(const Ins *i, const char *sp)
{
	Mods md;

	modsplit(i, &md);
	return modspace(&md, sp);
}

/* numbers (PTX ISA 4.5) */

/* past an optional sign and the blanks after it */
static const char *
unsign(Str t, int *neg)
{
	const char *s = t.s, *e = t.s + t.n;

	*neg = s < e && *s == '-';
	if (s < e && (*s == '-' || *s == '+'))
		for (s++; s < e && (*s == ' ' || *s == '\t'); s++)
			;
	return s;
}

static int
digitof(int c, int base)
{
	int d = isdigit(c) ? c - '0' : isxdigit(c) ? tolower(c) - 'a' + 10 : 99;
	return d < base ? d : -1;
}

/* the digits of base from s; s itself if there are none */
static const char *
digits(const char *s, const char *e, int base)
{
	while (s < e && digitof((uchar)*s, base) >= 0)
		s++;
	return s;
}

int
numform(Str t)
{
	int neg;
	const char *s = unsign(t, &neg), *e = t.s + t.n, *d;

	if (e - s > 1 && s[0] == '0' && s[1] && strchr("fFdD", s[1])) {
		long want = s[1] == 'f' || s[1] == 'F' ? 8 : 16;
		if (e - s - 2 != want || digits(s + 2, e, 16) != e)
			return NBAD;
		return want == 8 ? NF32 : NF64;
	}
	if (e - s > 1 && s[0] == '0' && s[1] && strchr("xXbB", s[1])) {
		d = digits(s + 2, e, s[1] == 'x' || s[1] == 'X' ? 16 : 2);
		if (d == s + 2)
			return NBAD;
		return d == e || (d + 1 == e && *d == 'U') ? NINT : NBAD;
	}
	d = digits(s, e, 10);
	if (d < e && (*d == '.' || *d == 'e' || *d == 'E')) {
		const char *m = d;
		if (*d == '.')
			d = digits(d + 1, e, 10);
		if (d == s + 1 && *s == '.')
			return NBAD;   /* "." */
		if (d < e && (*d == 'e' || *d == 'E')) {
			const char *x = d + 1 < e && (d[1] == '+' || d[1] == '-') ? d + 2 : d + 1;
			if ((d = digits(x, e, 10)) == x || (m == s && *m != '.'))
				return NBAD;
		}
		return d == e ? NREAL : NBAD;
	}
	if (d == s)
		return NBAD;
	if (*s == '0' && digits(s, e, 8) != d)
		return NBAD;   /* 08: octal */
	return d == e || (d + 1 == e && *d == 'U') ? NINT : NBAD;
}

int
numint(Str t, uint64_t *u)
{
	int neg, base = 10;
	const char *s = unsign(t, &neg), *e = t.s + t.n;
	uint64_t v = 0;

	if (numform(t) != NINT)
		return 0;
	if (e - s > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		base = 16, s += 2;
	else if (e - s > 1 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B'))
		base = 2, s += 2;
	else if (*s == '0')
		base = 8;
	for (int d; s < e && (d = digitof((uchar)*s, base)) >= 0; s++) {
		if (v > (UINT64_MAX - d) / base)
			return 0;
		v = v * base + d;
	}
	*u = neg ? -v : v;
	return 1;
}

int
numreal(Str t, double *v)
{
	int neg, k = numform(t);
	const char *s = unsign(t, &neg), *e = t.s + t.n;
	char buf[64], *end;

	if ((k != NF32 && k != NF64 && k != NREAL) || e - s >= (long)sizeof buf)
		return 0;
	memcpy(buf, s, e - s);
	buf[e - s] = 0;
	if (k == NF32) {
		uint32_t w = (uint32_t)strtoul(buf + 2, NULL, 16);
		float f;
		memcpy(&f, &w, sizeof f);
		*v = f;
	} else if (k == NF64) {
		uint64_t x = strtoull(buf + 2, NULL, 16);
		memcpy(v, &x, sizeof *v);
	} else {
		errno = 0;
		*v = strtod(buf, &end);
		if (errno == ERANGE)
			return 0;
	}
	*v = neg ? -*v : *v;
	return 1;
}

int
cvtof(const Ins *i, Cvt *c)
{
	Mods md;
	memset(c, 0, sizeof *c);
	if (i->op != Ocvt)
		return 0;
	modsplit(i, &md);
	if (md.nt != 2)
		return 0;
	c->dst = md.t[0], c->src = md.t[1];
	for (uint k = 1; k < md.n; k++) {
		Str p = md.part[k];
		if (tyof(p))
			continue;
		if (p.n >= 2 && p.n <= 3 && p.s[0] == 'r' && strchr("nzmp", p.s[1]) &&
		    (p.n == 2 || p.s[2] == 'i')) {
			c->rnd = p.s[1];
			c->irnd = p.n == 3;
		} else if (streq(p, "ftz"))
			c->ftz = 1;
		else if (streq(p, "sat"))
			c->sat = 1;
		else
			c->other = 1;
	}
	return 1;
}

/* a constant expression that is the whole of t, else 0 */
static int
exprof(Str t, Cval *c)
{
	uint n;
	return numform(t) == NBAD && !cexpr(t, c, &n) && n == t.n;
}

int
immnum(Str t, double *v)
{
	uint64_t u;
	int neg;

	switch (numform(t)) {
	case NF32:
		return numreal(t, v) ? 'f' : 0;
	case NF64:
		return numreal(t, v) ? 'd' : 0;
	case NREAL:
		return numreal(t, v) ? 'n' : 0;
	case NINT:
		if (!numint(t, &u))
			return 0;
		unsign(t, &neg);
		*v = neg ? -(double)-u : (double)u;
		return 'n';
	}
	Cval c;
	if (!exprof(t, &c))
		return 0;
	*v = c.ty == Tf64 ? c.d : c.ty == Ts64 ? (double)(int64_t)c.u : (double)c.u;
	return 'n';
}

int
immform(Str t)
{
	Cval c;
	int k = numform(t);
	if (k != NBAD || !exprof(t, &c))
		return k;
	return c.ty == Tf64 ? NREAL : NINT;
}

int
immf32(Str t, float *f)
{
	double v;
	if (!immnum(t, &v))
		return 0;
	*f = (float)v;
	return 1;
}

int
streq(Str s, const char *t)
{
	return s.n == strlen(t) && !memcmp(s.s, t, s.n);
}

int
strpre(Str s, const char *t)
{
	return s.n >= strlen(t) && !memcmp(s.s, t, strlen(t));
}

int
modtype(const Mods *md, int ty)
{
	for (uint k = 0; k < md->nt; k++)
		if (md->t[k] == ty)
			return 1;
	return 0;
}

/* names: open addressing from a name to a number */
struct Names {
	Str *key;
	uint *val;
	uint n, cap;
};

static uint
hash(const char *s, uint n)
{
	uint h = 2166136261u;
	while (n--)
		h = (h ^ (uchar)*s++) * 16777619u;
	return h;
}

uint
names_get(const Names *t, const char *s, uint n)
{
	uint i;

	if (!t)
		return ~0u;
	for (i = hash(s, n) & (t->cap - 1); t->key[i].s; i = (i + 1) & (t->cap - 1))
		if (t->key[i].n == n && memcmp(t->key[i].s, s, n) == 0)
			return t->val[i];
	return ~0u;
}

static void
names_grow(Arena *a, Names *t)
{
	Names old = *t;
	uint i, j;

	t->cap = old.cap ? 2 * old.cap : 64;
	t->key = arena_alloc(a, t->cap * sizeof *t->key);
	t->val = arena_alloc(a, t->cap * sizeof *t->val);
	for (i = 0; i < old.cap; i++) {
		if (!old.key[i].s)
			continue;
		for (j = hash(old.key[i].s, old.key[i].n) & (t->cap - 1); t->key[j].s;
		     j = (j + 1) & (t->cap - 1))
			;
		t->key[j] = old.key[i];
		t->val[j] = old.val[i];
	}
}

void
names_put(Arena *a, Names **tp, const char *s, uint n, uint v)
{
	Names *t = *tp;
	uint i;

	if (!t)
		t = *tp = arena_alloc(a, sizeof *t);
	if (2 * (t->n + 1) > t->cap)
		names_grow(a, t);
	for (i = hash(s, n) & (t->cap - 1); t->key[i].s; i = (i + 1) & (t->cap - 1))
		if (t->key[i].n == n && memcmp(t->key[i].s, s, n) == 0) {
			t->val[i] = v;
			return;
		}
	t->key[i] = (Str){s, n};
	t->val[i] = v;
	t->n++;
}

void
names_map(Names *t, const uint *to)
{
	for (uint i = 0; t && i < t->cap; i++)
		if (t->key[i].s && t->val[i] != ~0u)
			t->val[i] = to[t->val[i]];
}

/* grow an arena array: the old copy is left to the arena */
void *
agrow(Arena *a, void *p, uint n, uint *cap, size_t size)
{
	void *q;

	if (n < *cap)
		return p;
	*cap = *cap ? 2 * *cap : 16;
	q = arena_alloc(a, *cap * size);
	if (n)
		memcpy(q, p, n * size);
	return q;
}

int
opcode(const char *s, size_t n)
{
	static Names *t;
	static Arena *a;
	uint i;

	if (!t) {
		a = arena_new();
		for (i = 0; i < NOP; i++)
			names_put(a, &t, opinfo[i].name, strlen(opinfo[i].name), i);
	}
	i = names_get(t, s, n);
	return i == ~0u ? -1 : (int)i;
}

uint
intern(Module *m, const char *s, size_t n)
{
	uint i = names_get(m->symnames, s, n);

	if (i != ~0u)
		return i;
	m->sym = agrow(m->arena, m->sym, m->nsym, &m->capsym, sizeof *m->sym);
	m->sym[m->nsym] = (Sym){{s, n}, 0};
	names_put(m->arena, &m->symnames, s, n, m->nsym);
	return m->nsym++;
}

char *
symstr(const Module *m, uint sym)
{
	return xstrndup(m->sym[sym].name.s, m->sym[sym].name.n);
}

const char *
symname(const Module *m, uint sym)
{
	return arena_strndup(m->arena, m->sym[sym].name.s, m->sym[sym].name.n);
}

int
perfdir(const Fn *fn, const char *d, uint v[3])
{
	if (!fn->perf.s)
		return 0;
	const char *p = fn->perf.s, *end = p + fn->perf.n;
	size_t n = strlen(d);
	for (; p + n <= end; p++) {
		if (memcmp(p, d, n) || (p + n < end && (isalnum((uchar)p[n]) || p[n] == '_')))
			continue;
		int k = 0;
		for (p += n; p < end && k < 3;) {
			while (p < end && (*p == ' ' || *p == '\t' || *p == ','))
				p++;
			if (p == end || !isdigit((uchar)*p))
				break;
			uint x = 0;
			while (p < end && isdigit((uchar)*p))
				x = x * 10 + (uint)(*p++ - '0');
			v[k++] = x;
		}
		return k;
	}
	return 0;
}

Fn *
findfn(Module *m, const char *name)
{
	uint s = names_get(m->symnames, name, strlen(name));

	for (uint i = 0; s != ~0u && i < m->nfn; i++)
		if (m->fn[i]->sym == s && !(m->fn[i]->flags & FDECL))
			return m->fn[i];
	for (uint i = 0; s != ~0u && i < m->nfn; i++)
		if (m->fn[i]->sym == s)
			return m->fn[i];
	return NULL;
}

int
modtarget(const Module *m, char *arch)
{
	const char *s = m->target.s, *e = s ? s + m->target.n : s;
	int sm = 0;

	if (arch)
		*arch = 0;
	if (!s || e - s <= 3 || memcmp(s, "sm_", 3))
		return 0;
	for (s += 3; s < e && *s >= '0' && *s <= '9' && sm < 10000; s++)
		sm = sm * 10 + (*s - '0');
	if (arch && s < e && *s >= 'a' && *s <= 'z')
		*arch = *s;
	return sm;
}

int
modversion(const Module *m)
{
	const char *s = m->version.s, *e = s ? s + m->version.n : s;
	int v = 0;

	for (; s && s < e && *s >= '0' && *s <= '9' && v < 1000; s++)
		v = v * 10 + (*s - '0');
	if (s && s + 1 < e && *s == '.' && s[1] >= '0' && s[1] <= '9')
		return v * 10 + (s[1] - '0');
	return 0;   /* not "M.m" */
}
