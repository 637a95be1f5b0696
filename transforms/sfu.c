/* sfu.c: warp-partitioned approximation (paper 004, Sections 5.1-5.2).
 *
 * A selected kernel becomes one .entry holding two bodies: the accurate one
 * (the PTX the user's flags produced) and a fast one (the same kernel from a
 * second cicc run with fast-math flags, or, without one, a copy of the
 * accurate body). The entry reads the hardware warp slot %warpid once and
 * sends the warps whose slot is below lambda to the fast body:
 *
 *	mov.u32 %w, %warpid;  setp.lt.u32 %p, %w, LAMBDA;  @%p bra $SFU_FAST;
 *	<accurate body>  ret;  $SFU_FAST:  <fast body>
 *
 * The fast body is cloned from the fast module with clonebody(): its
 * registers, labels and .local arrays get the suffix _sfu. The .funcs it
 * calls are copied from the fast module with addfn() under new names
 * (NAME_sfu, NAME_sfuM for an approximation mask M other than all), made
 * private, and the fast body's calls are pointed at them. What the two
 * bodies mean to share stays one object: kernel parameters, module-level
 * variables (the fast module's declarations are added only where the name
 * is missing), and the .shared arrays declared in the kernel: warps of one
 * CTA may take different bodies, and must still meet in the same shared
 * memory at the same barriers. In the fast body, FP64 division, reciprocal,
 * square root and reciprocal square root become the SFU forms of the
 * paper's Table 2 (rcp.approx.ftz.f64, rsqrt.approx.f64), optionally refined
 * by one Newton step, since cicc has no fast math for double. */
#define _GNU_SOURCE   /* open_memstream, memmem */
#include <ctype.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "ptx/ptx.h"
#include "transforms/pass.h"

/* the pass's own API (its struct pass, like every pass's, is named only
 * in passes.c) */
/* the fast body's approximations, by kind: the f32 approx instructions it
 * holds and the FP64 operations the pass rewrote */
struct sfu_stats {
	int trans, div, sqrt, rcp;              /* ex2/lg2/sin/cos/tanh, div, (r)sqrt, rcp .approx */
	int f64div, f64rcp, f64sqrt, f64rsqrt;  /* FP64 rewrites */
	const char *kept;  /* "both" bodies, or the one every warp takes: "accurate", "fast" */
};
struct sfu_params {
	int lambda;       /* 0..64: warps with %warpid < lambda take the fast path */
	uint approx;      /* AX_* */
	int newton;       /* 1: one Newton step refines the f64 approximations */
	int allfast;      /* lambda from which every warp of every GPU that runs
	                   * the PTX takes the fast body (64 if unknown) */
};
/* keep only the body every warp takes: SFU_COLLAPSE0 at lambda 0 (the
 * module is left as it was: on an H100 the unused fast body cost
 * Black-Scholes 1.4-2% at lambda 0, over the 1% the issue allows:
 * bench/results/2026-11-22-h100.md, the /c0 rows), and SFU_COLLAPSEFAST
 * at lambda >= allfast (the kernel is then the fast-math one: on an H100
 * the two-body kernel at lambda 64 took 1.17x the fast-math time on the
 * MRI-Q bench, bilateral 0.98x: bench/results/2026-11-23-h100-sfu.md,
 * lambda=64/c1). Both by default. */
enum { SFU_COLLAPSE0 = 1, SFU_COLLAPSEFAST = 2 };
/* Merge kernel fn of m with its twin in fast (NULL: a copy of fn, FP64
 * rewrites only) into one warp-partitioned entry; the rest of m is left as
 * it was. 0: done (at lambda 0 with SFU_COLLAPSE0: m unchanged); -1: left
 * alone, *why says why.
 * needs: m and fast from the same source and cicc; breaks: cfg defuse of fn */
static int sfu(Module *m, Fn *fn, Module *fast, const struct sfu_params *p, int flags,
               struct sfu_stats *st, const char **why);
/* Does the fast body of kernel fn (of the accurate module) need the
 * fast-math cicc run for mask, or are the FP64 rewrites all it can get?
 * Transcendentals and ftz need it; div and sqrt only where fn or a .func it
 * calls holds an f32 div, rcp or sqrt that those flags change; rcp never
 * (no cicc flag). */
static int sfu_needs_fast(const Fn *fn, uint mask);

/* ---- pointing references at other symbols ---- */

/* map[s] != ~0u: symbol s becomes map[s] in every operand of ins[from, to) */
static void
remapref(Fn *fn, Ref *r, const uint *map, uint nmap, int *hit)
{
	switch (r->kind) {
	case RSym:
		if (r->idx < nmap && map[r->idx] != ~0u) {
			r->idx = map[r->idx];
			*hit = 1;
		}
		break;
	case RMem:
		remapref(fn, &fn->mem[r->idx].base, map, nmap, hit);
		remapref(fn, &fn->mem[r->idx].vec, map, nmap, hit);
		break;
	case RVec:
	case RList:
		for (uint k = 0; k < fn->vec[r->idx].n; k++)
			remapref(fn, &fn->vec[r->idx].el[k], map, nmap, hit);
		break;
	}
}

static void
remap(Fn *fn, uint from, uint to, const uint *map, uint nmap)
{
	for (uint k = from; k < to; k++) {
		Ins *i = &fn->ins[k];
		int hit = 0;
		for (uint j = 0; j < i->narg; j++)
			remapref(fn, &i->arg[j], map, nmap, &hit);
		if (hit)
			ins_touch(i);
	}
}

static uint *
newmap(Module *m)
{
	uint *map = arena_alloc(m->arena, (m->nsym + 64) * sizeof *map);
	memset(map, 0xff, (m->nsym + 64) * sizeof *map);
	return map;
}

/* ---- the .funcs the fast body reaches ---- */

struct funcs {
	Fn *src[64];       /* in the fast module */
	int n;
	int over;          /* more than fit in src: the kernel is left alone */
};

static Fn *
fnbysym(Module *m, Str name)
{
	uint s = names_get(m->symnames, name.s, name.n);
	for (uint k = 0; s != ~0u && k < m->nfn; k++)
		if (m->fn[k]->sym == s && !(m->fn[k]->flags & FDECL))
			return m->fn[k];
	return NULL;
}

static void
refsyms(const Fn *fn, Ref r, void (*f)(const Fn *, uint, void *), void *arg)
{
	switch (r.kind) {
	case RSym:
		f(fn, r.idx, arg);
		break;
	case RMem:
		refsyms(fn, fn->mem[r.idx].base, f, arg);
		break;
	case RVec:
	case RList:
		for (uint k = 0; k < fn->vec[r.idx].n; k++)
			refsyms(fn, fn->vec[r.idx].el[k], f, arg);
		break;
	}
}

static void calleesof(const Fn *fn, struct funcs *out);

static void
callee1(const Fn *fn, uint sym, void *arg)
{
	struct funcs *out = arg;
	Fn *f = fnbysym(fn->mod, fn->mod->sym[sym].name);
	if (!f || (f->flags & FENTRY) || f == fn)
		return;
	for (int k = 0; k < out->n; k++)
		if (out->src[k] == f)
			return;
	if (out->n == (int)countof(out->src)) {
		out->over = 1;
		return;
	}
	out->src[out->n++] = f;
	calleesof(f, out);
}

/* the functions of fn's module that fn names (calls or takes the address
 * of), and theirs, in the order first reached */
static void
calleesof(const Fn *fn, struct funcs *out)
{
	for (uint k = 0; k < fn->nins; k++)
		for (uint j = 0; j < fn->ins[k].narg; j++)
			refsyms(fn, fn->ins[k].arg[j], callee1, out);
}

/* ---- FP64 rewrites (Table 2) ---- */

struct f64 {
	Fn *fn;
	uint at;           /* where the next instruction goes */
	const char *g;     /* guard: "@%p " or "" */
	int newton;
	const char **d, **q;  /* temporaries declared up front, f64 and pred */
	int nd, nq;        /* used so far */
};

static void
emit(struct f64 *x, const char *f, ...) __attribute__((format(printf, 2, 3)));
static void
emit(struct f64 *x, const char *f, ...)
{
	char body[512];
	va_list ap;
	va_start(ap, f);
	vsnprintf(body, sizeof body, f, ap);
	va_end(ap);
	/* the operands may be the clone's registers of a { } (inline asm) */
	ins_insert(x->fn, x->at, mkinsfat(x->fn, x->at, "%s%s;", x->g, body));
	x->at++;
}

static const char *
tmp(struct f64 *x, int ty)
{
	return ty == Tpred ? x->q[x->nq++] : x->d[x->nd++];
}

#define ONE "0d3FF0000000000000"

/* d = refined where x is a normal number, else raw (Newton's step turns
 * 0 * inf into NaN at zeros and infinities) */
static void
keepraw(struct f64 *x, const char *d, const char *v, const char *refined, const char *raw)
{
	const char *q = tmp(x, Tpred);
	emit(x, "testp.normal.f64 %s, %s", q, v);
	emit(x, "selp.f64 %s, %s, %s, %s", d, refined, raw, q);
}

/* d = 1/a */
static void
f64rcp(struct f64 *x, const char *d, const char *a)
{
	if (!x->newton) {
		emit(x, "rcp.approx.ftz.f64 %s, %s", d, a);
		return;
	}
	const char *r = tmp(x, Tf64), *na = tmp(x, Tf64), *e = tmp(x, Tf64), *r1 = tmp(x, Tf64);
	emit(x, "rcp.approx.ftz.f64 %s, %s", r, a);
	emit(x, "neg.f64 %s, %s", na, a);
	emit(x, "fma.rn.f64 %s, %s, %s, " ONE, e, na, r);
	emit(x, "fma.rn.f64 %s, %s, %s, %s", r1, r, e, r);
	keepraw(x, d, a, r1, r);
}

/* d = a/b, with a final residual correction under newton */
static void
f64div(struct f64 *x, const char *d, const char *a, const char *b)
{
	const char *r = tmp(x, Tf64);
	emit(x, "rcp.approx.ftz.f64 %s, %s", r, b);
	if (!x->newton) {
		emit(x, "mul.rn.f64 %s, %s, %s", d, a, r);
		return;
	}
	const char *nb = tmp(x, Tf64), *e = tmp(x, Tf64), *r1 = tmp(x, Tf64), *q = tmp(x, Tf64);
	const char *rem = tmp(x, Tf64), *q1 = tmp(x, Tf64), *raw = tmp(x, Tf64);
	emit(x, "neg.f64 %s, %s", nb, b);
	emit(x, "fma.rn.f64 %s, %s, %s, " ONE, e, nb, r);
	emit(x, "fma.rn.f64 %s, %s, %s, %s", r1, r, e, r);
	emit(x, "mul.rn.f64 %s, %s, %s", q, a, r1);
	emit(x, "fma.rn.f64 %s, %s, %s, %s", rem, nb, q, a);   /* a - b*q */
	emit(x, "fma.rn.f64 %s, %s, %s, %s", q1, r1, rem, q);
	emit(x, "mul.rn.f64 %s, %s, %s", raw, a, r);
	keepraw(x, d, b, q1, raw);
}

/* y = 1/sqrt(a); newton: y + y/2 (1 - a y y) */
static void
f64rsqrt(struct f64 *x, const char *y, const char *a)
{
	if (!x->newton) {
		emit(x, "rsqrt.approx.f64 %s, %s", y, a);
		return;
	}
	const char *r = tmp(x, Tf64), *t = tmp(x, Tf64), *e = tmp(x, Tf64), *h = tmp(x, Tf64);
	const char *r1 = tmp(x, Tf64);
	emit(x, "rsqrt.approx.f64 %s, %s", r, a);
	emit(x, "mul.rn.f64 %s, %s, %s", t, a, r);
	emit(x, "neg.f64 %s, %s", t, t);
	emit(x, "fma.rn.f64 %s, %s, %s, " ONE, e, t, r);
	emit(x, "mul.rn.f64 %s, %s, 0d3FE0000000000000", h, r);
	emit(x, "fma.rn.f64 %s, %s, %s, %s", r1, h, e, r);
	keepraw(x, y, a, r1, r);
}

/* d = sqrt(a) = a * rsqrt(a), but sqrt(+-0) = +-0 and sqrt(+inf) = +inf,
 * where the product would be 0 * inf */
static void
f64sqrt(struct f64 *x, const char *d, const char *a)
{
	const char *y = tmp(x, Tf64), *s = tmp(x, Tf64);
	const char *p0 = tmp(x, Tpred), *p1 = tmp(x, Tpred), *p = tmp(x, Tpred);
	f64rsqrt(x, y, a);
	emit(x, "mul.rn.f64 %s, %s, %s", s, a, y);
	emit(x, "setp.eq.f64 %s, %s, 0d0000000000000000", p0, a);
	emit(x, "setp.eq.f64 %s, %s, 0d7FF0000000000000", p1, a);
	emit(x, "or.pred %s, %s, %s", p, p0, p1);
	emit(x, "selp.f64 %s, %s, %s, %s", d, a, s, p);
}

enum { FNONE, FDIV, FRCP, FSQRT, FRSQRT };

static int
f64kind(const Ins *i, uint mask)
{
	if ((mask & AX_DIV) && streq(i->name, "div.rn.f64") && i->narg == 3)
		return FDIV;
	if ((mask & (AX_RCP | AX_DIV)) && streq(i->name, "rcp.rn.f64") && i->narg == 2)
		return FRCP;
	if ((mask & AX_SQRT) && streq(i->name, "sqrt.rn.f64") && i->narg == 2)
		return FSQRT;
	return FNONE;
}

/* is statement j the reciprocal of the square root that statement k
 * computes, with k's result used nowhere else, the root's argument not
 * redefined and no label between? (needs defuse) */
static int
rsqrtpair(const Fn *fn, uint k, uint j)
{
	const Ins *s = &fn->ins[k], *r = &fn->ins[j];
	Ref d = s->arg[0], a = s->arg[1];
	if (d.kind != RReg || s->pred.kind || r->pred.kind || fn->use[d.idx].nuse != 1 ||
	    fn->use[d.idx].use[0] != j)
		return 0;
	if (!(streq(r->name, "rcp.rn.f64") && r->narg == 2 && req(r->arg[1], d)) &&
	    !(streq(r->name, "div.rn.f64") && r->narg == 3 && req(r->arg[2], d) &&
	      r->arg[1].kind == RImm && streq(fn->imm[r->arg[1].idx].text, ONE)))
		return 0;
	for (uint t = k + 1; t < j; t++)
		if (fn->ins[t].op == Olabel)
			return 0;
	if (a.kind == RReg)
		for (uint t = 0; t < fn->use[a.idx].ndef; t++)
			if (fn->use[a.idx].def[t] > k && fn->use[a.idx].def[t] < j)
				return 0;
	return 1;
}

/* the sqrt-then-reciprocal pairs of fn->ins[from, n) that become one
 * rsqrt: pair[k] 1 at the sqrt, 2 at its reciprocal, whose partner is k
 * (refreshes defuse) */
static void
rsqrtpairs(Fn *fn, uint from, uint n, uint mask, uchar *pair, uint *partner)
{
	filldefuse(fn);
	for (uint k = from; k < n; k++) {
		Ins *i = &fn->ins[k];
		if (f64kind(i, mask) != FSQRT || i->arg[0].kind != RReg ||
		    fn->use[i->arg[0].idx].nuse != 1)
			continue;
		uint j = fn->use[i->arg[0].idx].use[0];
		if (j > k && j < n && rsqrtpair(fn, k, j)) {
			pair[k] = 1, pair[j] = 2;
			partner[j] = k;
		}
	}
}

/* what f64body() rewrites in fn, counted, fn left as it is: a function
 * of the fast PTX whose copy an earlier kernel's merge made */
static void
f64tally(Fn *fn, uint mask, struct sfu_stats *st)
{
	Arena *A = fn->mod->arena;
	uchar *pair = arena_alloc(A, fn->nins + 1);
	uint *partner = arena_alloc(A, (fn->nins + 1) * sizeof *partner);
	rsqrtpairs(fn, 0, fn->nins, mask, pair, partner);
	for (uint k = 0; k < fn->nins; k++)
		switch (pair[k] == 2 ? FRSQRT : pair[k] == 1 ? FNONE : f64kind(&fn->ins[k], mask)) {
		case FDIV: st->f64div++; break;
		case FRCP: st->f64rcp++; break;
		case FSQRT: st->f64sqrt++; break;
		case FRSQRT: st->f64rsqrt++; break;
		}
}

/* rewrite the FP64 operations of fn->ins[from, *to); *to moves with the
 * inserted statements */
static void
f64body(Fn *fn, uint from, uint *to, const struct sfu_params *p, struct sfu_stats *st)
{
	uint c = 0;
	for (uint k = from; k < *to; k++)
		c += f64kind(&fn->ins[k], p->approx) != FNONE;
	if (!c)
		return;
	/* at most 8 f64 and 4 predicate temporaries a form, declared at from */
	Arena *A = fn->mod->arena;
	struct f64 x = {fn, 0, "", p->newton, arena_alloc(A, 8 * c * sizeof(char *)),
	                arena_alloc(A, 4 * c * sizeof(char *)), 0, 0};
	for (uint k = 0; k < 8 * c; k++)
		x.d[k] = regstr(fn, newregat(fn, Tf64, from));
	for (uint k = 0; k < 4 * c; k++)
		x.q[k] = regstr(fn, newregat(fn, Tpred, from));
	*to += 12 * c;
	uint n = *to;
	uchar *pair = arena_alloc(A, fn->nins + 1);   /* 1: the sqrt of an rsqrt pair; 2: its rcp */
	uint *partner = arena_alloc(A, (fn->nins + 1) * sizeof *partner);
	rsqrtpairs(fn, from, n, p->approx, pair, partner);
	/* from the end, so that the indices still to visit do not move */
	for (uint k = n; k-- > from;) {
		Ins *i = &fn->ins[k];
		int kind = pair[k] == 2 ? FRSQRT : f64kind(i, p->approx);
		if (pair[k] == 1) {     /* its reciprocal became the rsqrt */
			ins_remove(fn, k);
			(*to)--;
			continue;
		}
		if (kind == FNONE)
			continue;
		char guard[80] = "";
		const char *d = refstr(fn, i->arg[0]), *a, *b = NULL;
		a = refstr(fn, kind == FRSQRT ? fn->ins[partner[k]].arg[1] : i->arg[1]);
		if (kind == FDIV)
			b = refstr(fn, i->arg[2]);
		if (i->pred.kind)
			snprintf(guard, sizeof guard, "@%s%s ", i->flags & INEGPRED ? "!" : "",
			         refstr(fn, i->pred));
		x.at = k + 1;
		x.g = guard;
		switch (kind) {
		case FDIV: f64div(&x, d, a, b); st->f64div++; break;
		case FRCP: f64rcp(&x, d, a); st->f64rcp++; break;
		case FSQRT: f64sqrt(&x, d, a); st->f64sqrt++; break;
		case FRSQRT: f64rsqrt(&x, d, a); st->f64rsqrt++; break;
		}
		*to += x.at - (k + 1) - 1;
		ins_remove(fn, k);
	}
}

/* ---- statistics ---- */

static void
count(const Fn *fn, uint from, uint to, struct sfu_stats *st)
{
	static const struct { const char *op; int kind; } ops[] = {
		{"ex2.approx", 0}, {"lg2.approx", 0}, {"sin.approx", 0}, {"cos.approx", 0},
		{"tanh.approx", 0}, {"div.approx", 1}, {"div.full", 1}, {"sqrt.approx", 2},
		{"rsqrt.approx.f32", 2}, {"rsqrt.approx.ftz.f32", 2}, {"rcp.approx.f32", 3},
		{"rcp.approx.ftz.f32", 3},
	};
	int *c[] = { &st->trans, &st->div, &st->sqrt, &st->rcp };
	for (uint k = from; k < to; k++)
		for (size_t i = 0; fn->ins[k].op < NOP && i < countof(ops); i++)
			if (strpre(fn->ins[k].name, ops[i].op)) {
				(*c[ops[i].kind])++;
				break;
			}
}

/* what the fast code fn would approximate, without changing it */
static void
tally(const Fn *fn, uint mask, struct sfu_stats *st)
{
	count(fn, 0, fn->nins, st);
	for (uint k = 0; k < fn->nins; k++)
		switch (f64kind(&fn->ins[k], mask)) {
		case FDIV: st->f64div++; break;
		case FRCP: st->f64rcp++; break;
		case FSQRT: st->f64sqrt++; break;
		}
}

static int
hasf64(const Fn *fn, uint mask)
{
	for (uint k = 0; k < fn->nins; k++)
		if (f64kind(&fn->ins[k], mask) != FNONE)
			return 1;
	return 0;
}

/* ---- does the fast body need the fast-math cicc run? ---- */

/* the f32 operations -prec_div=0 and -prec_sqrt=0 change; without them in
 * the accurate code the fast-math PTX is the accurate one (checked on the
 * libdevice functions: every kernel those flags change holds one) */
static int
precop(const Ins *i, uint mask)
{
	static const struct { const char *op; uint ax; } ops[] = {
		{"div.rn.f32", AX_DIV}, {"div.rn.ftz.f32", AX_DIV}, {"rcp.rn.f32", AX_DIV},
		{"rcp.rn.ftz.f32", AX_DIV}, {"sqrt.rn.f32", AX_SQRT}, {"sqrt.rn.ftz.f32", AX_SQRT},
	};
	for (size_t k = 0; i->op < NOP && k < countof(ops); k++)
		if ((mask & ops[k].ax) && streq(i->name, ops[k].op))
			return 1;
	return 0;
}

static int
hasprec(const Fn *fn, uint mask)
{
	for (uint k = 0; k < fn->nins; k++)
		if (precop(&fn->ins[k], mask))
			return 1;
	return 0;
}

int
sfu_needs_fast(const Fn *fn, uint mask)
{
	struct funcs fs = {0};
	if (mask & (AX_TRANS | AX_FTZ))
		return 1;
	if (!(mask & (AX_DIV | AX_SQRT)))
		return 0;
	calleesof(fn, &fs);
	int yes = hasprec(fn, mask);
	for (int k = 0; k < fs.n && !yes; k++)
		yes = hasprec(fs.src[k], mask);
	return yes;
}

/* ---- debug info (-G, -lineinfo) ---- */

/* the module items that start with pfx (".file", ".section"), as text */
static const char *
toptext(const Module *m, const char *pfx)
{
	const char *all = "";
	for (uint k = 0; k < m->ntop; k++)
		if (m->top[k].op == Oraw && strpre(m->top[k].src, pfx))
			all = arena_fmt(m->arena, "%s%s\n", all, itemtext(m, k, NULL));
	return all;
}

/* The fast body's .loc lines name the fast module's .file numbers and
 * debug strings; keep them only where the accurate module has the same
 * .file table and the same sections (one source, one cicc: the usual case),
 * else a debugger would show wrong lines: then drop them, and it maps only
 * the accurate body to source. */
static int
samedebug(const Module *a, const Module *b)
{
	return !strcmp(toptext(a, ".file"), toptext(b, ".file")) &&
	       !strcmp(toptext(a, ".section"), toptext(b, ".section"));
}

static void
droplocs(Fn *fn, uint from, uint *to)
{
	for (uint k = *to; k-- > from;)
		if (fn->ins[k].op == Oloc) {
			ins_remove(fn, k);
			(*to)--;
		}
}

/* ---- the merge ---- */

static int
samefn(const Fn *a, const Fn *b)
{
	if (a->nins != b->nins)
		return 0;
	for (uint k = 0; k < a->nins; k++)
		if (a->ins[k].src.n != b->ins[k].src.n ||
		    memcmp(a->ins[k].src.s, b->ins[k].src.s, a->ins[k].src.n))
			return 0;
	return 1;
}

/* a copied .func is private to this module: drop .visible and .weak */
static void
hide(Module *m, Fn *fn)
{
	char *h = arena_strndup(m->arena, fn->head.s, fn->head.n);
	uint off = fn->nameoff;
	for (const char *w; (w = strstr(h, ".visible ")) || (w = strstr(h, ".weak "));) {
		size_t n = w[1] == 'v' ? 9 : 6;
		if ((uint)(w - h) >= off)
			break;
		memmove((char *)w, w + n, strlen(w + n) + 1);
		off -= n;
	}
	fn->head = str(m, h);
	fn->nameoff = off;
	fn->headname = (Str){fn->head.s + off, fn->headname.n};
	fn->flags &= ~(FVISIBLE | FWEAK);
	fn->flags |= FRENAMED;
}


/* the partition: "mov %warpid; setp; @p bra $SFU_FAST" after the leading
 * declarations, "ret; $SFU_FAST:" at the end */
static void
partition(Fn *fn, int lambda)
{
	uint l = newlbl(fn, "$SFU_FAST"), at = bodystart(fn);
	/* declared where the code goes: a .reg may follow a label there */
	const char *w = regstr(fn, newregat(fn, Tb32, at));
	const char *p = regstr(fn, newregat(fn, Tpred, at + 1));
	at += 2;
	ins_insert(fn, at, mkinsf(fn, "mov.u32 %s, %%warpid;", w));
	ins_insert(fn, at + 1, mkinsf(fn, "setp.lt.u32 %s, %s, %d;", p, w, lambda));
	ins_insert(fn, at + 2, mkinsf(fn, "@%s bra $SFU_FAST;", p));
	ins_insert(fn, fn->nins, mkinsf(fn, "ret;"));
	placelbl(fn, fn->nins, l);
}

/* the fast module's .funcs that the fast body reaches, copied into m under
 * new names (or the copies an earlier kernel's merge made); map[old] = new
 * for the calls. st counts what every one of them approximates: they are
 * this kernel's fast code as much as the earlier kernel's */
static void
copyfuncs(Module *m, Module *fast, const struct funcs *fs, const char *fsuffix,
          const struct sfu_params *p, int debug, struct sfu_stats *st, uint **mapp,
          uint *nmapp)
{
	Fn *nf[countof(fs->src)];
	uint old[countof(fs->src)];
	for (int k = 0; k < fs->n; k++) {
		const char *base = symname(fast, fs->src[k]->sym);
		const char *name = arena_fmt(m->arena, "%s%s", base, fsuffix);
		Str ns = {name, (uint)strlen(name)};
		old[k] = intern(m, base, strlen(base));
		if (!(nf[k] = fnbysym(m, ns))) {   /* an earlier kernel's merge made it */
			nf[k] = addfn(m, fs->src[k], name);
			hide(m, nf[k]);
		} else {
			nf[k] = NULL;
		}
	}
	uint *map = newmap(m), nmap = m->nsym + 64;
	for (int k = 0; k < fs->n; k++) {
		const char *name = arena_fmt(m->arena, "%s%s", symname(fast, fs->src[k]->sym), fsuffix);
		map[old[k]] = intern(m, name, strlen(name));
	}
	for (int k = 0; k < fs->n; k++) {
		if (!nf[k]) {
			const char *name = symname(m, map[old[k]]);
			Fn *copy = fnbysym(m, (Str){name, (uint)strlen(name)});
			count(copy, 0, copy->nins, st);
			f64tally(fs->src[k], p->approx, st);
			continue;
		}
		uint to = nf[k]->nins;
		remap(nf[k], 0, to, map, nmap);
		f64body(nf[k], 0, &to, p, st);
		if (!debug)
			droplocs(nf[k], 0, &to);
		count(nf[k], 0, to, st);
	}
	*mapp = map;
	*nmapp = nmap;
}

/* the fast module's module-level declarations that m lacks */
static void
copydecls(Module *m, const Module *fast)
{
	for (uint k = 0; k < fast->ntop; k++) {
		const Ins *i = &fast->top[k];
		if (i->op != Ovar && !(i->op == Ofn && (fast->fn[i->arg[0].idx]->flags & FDECL)))
			continue;
		size_t n;
		const char *t = itemtext(fast, k, &n);
		if (adddecln(m, t, n) < 0)
			BUG("sfu: cannot add '%s'", t);
	}
}

/* what sfu() says when the fast body would be the accurate one: nothing to
 * do, which apply() tells from a refusal */
static const char nof64[] = "no FP64 division, reciprocal or square root to approximate";
static const char nofast[] = "the fast-math PTX of the kernel is the same as the accurate one: "
                             "nothing to approximate (is -use_fast_math already on?)";

/* sfu() without the copy of m it may make: fast is the fast module, or
 * that copy when selfcopy (FP64 rewrites alone) */
static int
merge(Module *m, Fn *fn, Module *fast, int selfcopy, const struct sfu_params *p, int flags,
      struct sfu_stats *st, const char **why)
{
	Fn *kf;
	struct funcs fs = {0};
	char fsuffix[16];
	uint *map, nmap, from, to;

	if (!(kf = fnbysym(fast, m->sym[fn->sym].name)) || !(kf->flags & FENTRY))
		return *why = "the kernel is missing from the fast PTX", -1;
	if (kf->npar != fn->npar)
		return *why = "the kernel's parameters differ between the accurate and fast PTX", -1;
	calleesof(kf, &fs);
	if (fs.over)
		return *why = "the kernel calls more than 64 functions (a -G build?)", -1;
	int same = samefn(fn, kf), f64 = hasf64(kf, p->approx);
	for (int k = 0; k < fs.n; k++) {
		Fn *a = fnbysym(m, fast->sym[fs.src[k]->sym].name);
		same = same && a && samefn(a, fs.src[k]);
		f64 = f64 || hasf64(fs.src[k], p->approx);
	}
	if (same && !f64)
		return *why = selfcopy ? nof64 : nofast, -1;
	if ((flags & SFU_COLLAPSE0) && p->lambda == 0) {
		/* every warp accurate: the module as it was; the counts say what
		 * a higher lambda would approximate */
		tally(kf, p->approx, st);
		for (int k = 0; k < fs.n; k++)
			tally(fs.src[k], p->approx, st);
		st->kept = "accurate";
		return 0;
	}

	int debug = samedebug(m, fast);
	if (p->approx == AX_ALL)
		strcpy(fsuffix, "_sfu");
	else
		snprintf(fsuffix, sizeof fsuffix, "_sfu%x", p->approx);
	if (!selfcopy)
		copydecls(m, fast);
	copyfuncs(m, fast, &fs, fsuffix, p, debug, st, &map, &nmap);
	if ((flags & SFU_COLLAPSEFAST) && p->lambda >= (p->allfast > 0 ? p->allfast : 64)) {
		while (fn->nins)
			ins_remove(fn, fn->nins - 1);
		st->kept = "fast";
		from = 0;
		to = clonebody(fn, 0, kf, "_sfu");
	} else {
		partition(fn, p->lambda);
		st->kept = "both";
		from = fn->nins;
		to = from + clonebody(fn, from, kf, "_sfu");
	}
	remap(fn, from, to, map, nmap);
	f64body(fn, from, &to, p, st);
	if (!debug)
		droplocs(fn, from, &to);
	count(fn, from, to, st);
	return 0;
}

/* Merge kernel fn of m with its twin in fast (the same source through cicc
 * with fast-math flags; NULL: a copy of fn, for the FP64 rewrites alone)
 * into one entry that sends the warps whose %warpid is below p->lambda to
 * the fast body. The rest of m is left as it was. 0: done, st counts the
 * approximate operations of the fast body by kind; -1: fn left alone, *why
 * says why (nothing to approximate, no twin, ...).
 * needs: nothing; breaks: cfg defuse loops of fn, m's function order */
int
sfu(Module *m, Fn *fn, Module *fast, const struct sfu_params *p, int flags,
    struct sfu_stats *st, const char **why)
{
	Module *own = NULL;

	memset(st, 0, sizeof *st);
	*why = NULL;
	if (p->lambda < 0 || p->lambda > 64)
		return *why = "lambda is not in 0..64", -1;
	if (!(fn->flags & FENTRY) || (fn->flags & FDECL))
		return *why = "not a kernel", -1;
	if (findlbl(fn, "$SFU_FAST") != ~0u)
		return *why = "the kernel already holds an sfu partition", -1;
	if (!fast) {   /* FP64 rewrites only: clone from a copy of the module */
		if (!(own = modcopy(m)))
			return *why = "cannot reparse the module", -1;
	}
	int rc = merge(m, fn, own ? own : fast, own != NULL, p, flags, st, why);
	if (own)
		mod_free(own);
	return rc;
}

/* the statistics: what the fast body approximates */
enum { ST_TRANS, ST_DIV, ST_SQRT, ST_RCP, ST_F64DIV, ST_F64RCP, ST_F64SQRT, ST_F64RSQRT, ST_KEPT,
       ST_ALLFAST };

static const struct field statkey[] = {
	[ST_TRANS] = {"transcendental", FINT, 0, 0, NULL, 0,
	              "f32 ex2, lg2, sin, cos and tanh .approx instructions in the fast code (its body and the functions it calls)"},
	[ST_DIV] = {"div", FINT, 0, 0, NULL, 0, "f32 approximate divisions in the fast code"},
	[ST_SQRT] = {"sqrt", FINT, 0, 0, NULL, 0, "f32 sqrt.approx and rsqrt.approx in the fast code"},
	[ST_RCP] = {"rcp", FINT, 0, 0, NULL, 0, "f32 rcp.approx in the fast code"},
	[ST_F64DIV] = {"f64_div", FINT, 0, 0, NULL, 0, "f64 divisions rewritten through rcp.approx.ftz.f64 (fiset may then run it in f32)"},
	[ST_F64RCP] = {"f64_rcp", FINT, 0, 0, NULL, 0, "f64 reciprocals rewritten to rcp.approx.ftz.f64 (fiset may then run it in f32)"},
	[ST_F64SQRT] = {"f64_sqrt", FINT, 0, 0, NULL, 0, "f64 square roots rewritten through rsqrt.approx.f64 (fiset may then run it in f32)"},
	[ST_F64RSQRT] = {"f64_rsqrt", FINT, 0, 0, NULL, 0, "f64 reciprocal square roots rewritten to rsqrt.approx.f64 (fiset may then run it in f32)"},
	[ST_KEPT] = {"kept", FSTR, 0, 0, NULL, 0,
	             "both bodies, or the one every warp takes: accurate (lambda 0) or fast"},
	[ST_ALLFAST] = {"all_fast_from", FINT, 0, 0, NULL, 0,
	                "the lambda from which every warp of every GPU that runs the PTX takes the fast body"},
};
static const struct field statroot = {"sfu", FOBJ, 0, 0, statkey, countof(statkey),
                                      "the fast body's approximations"};

static void
statsjson(const struct sfu_stats *st, int allfast, struct outcome *o)
{
	const int v[] = {st->trans, st->div, st->sqrt, st->rcp, st->f64div, st->f64rcp, st->f64sqrt,
	                 st->f64rsqrt};
	struct statw w;
	statw_begin(&w, &statroot);
	for (int k = ST_TRANS; k <= ST_F64RSQRT; k++)
		statw_int(&w, k, v[k]);
	statw_str(&w, ST_KEPT, st->kept ? st->kept : "both");
	statw_int(&w, ST_ALLFAST, allfast);
	o->stats = statw_end(&w);
}

enum { LAMBDA, APPROX, NEWTON, FAST, COLLAPSE };

/* the lambda from which every warp takes the fast body on every GPU that
 * runs the PTX: the most resident warps per SM of the targets ptxas builds
 * it for, and of every newer one where it is also embedded for JIT
 * compilation (or has no target: the -ptx output) */
static int
allfast(const struct passctx *cx)
{
	int w = 0;
	for (int i = 0; i < cx->nsm; i++) {
		const struct target *t = target(cx->sm[i]);
		int n = t ? t->maxwarps : 64;
		w = n > w ? n : w;
	}
	if (!cx->nsm || cx->jit) {
		int n = mostwarps(archnum(cx->arch));
		w = n > w ? n : w;
	}
	return w;
}

static int
apply(struct passctx *cx, Fn *fn, const struct params *p, struct outcome *o)
{
	struct sfu_params sp = {p->v[LAMBDA].i, p->v[APPROX].i, p->v[NEWTON].i, allfast(cx)};
	static const int collapse[] = {0, SFU_COLLAPSE0, SFU_COLLAPSE0 | SFU_COLLAPSEFAST};
	const char *path = p->v[FAST].s, *why;
	struct sfu_stats st;
	int need = path || sfu_needs_fast(fn, sp.approx);
	Module *fast = path ? passctx_load(cx, path) : need ? passctx_fast(cx, sp.approx) : NULL;
	if (path && !fast)
		return o->why = fmt("cannot read the fast-math PTX '%s'", path), -1;
	if (!fast && need && cx->h)
		note("%s: sfu: no fast-math PTX for '%s': FP64 rewrites only", cx->src,
		     demangled(fn));
	if (sfu(cx->m, fn, fast, &sp, collapse[p->v[COLLAPSE].i], &st, &why) < 0) {
		o->advised = why == nof64 || why == nofast;
		return o->why = xstrdup(why), -1;
	}
	statsjson(&st, sp.allfast, o);
	return 0;
}

/* explain: what lambda means for the warps */
static void
describe(FILE *out, const struct params *p)
{
	long lambda = p->v[LAMBDA].i;
	struct buf b = BUF_INIT;
	for (int i = 0; p->s->param[APPROX].words[i]; i++)
		if (p->v[APPROX].i & 1L << i)
			buf_printf(&b, "%s%s", b.n ? ", " : "", p->s->param[APPROX].words[i]);
	const char *list = b.s ? b.s : "";
	if (lambda == 0)
		fprintf(out, "           every warp runs the accurate path (lambda 0: the kernel is unchanged in effect)\n");
	else if (lambda >= 64)
		fprintf(out, "           every warp runs the fast path (%s)\n", list);
	else
		fprintf(out, "           warps with %%warpid < %ld run the fast path (%s), the others the accurate one\n",
		        lambda, list);
	if (p->v[NEWTON].i)
		fprintf(out, "           f64 approximations are refined by one Newton step\n");
	buf_release(&b);
}

static const char *const approx[] = {"transcendental", "div", "sqrt", "rcp", "ftz", NULL};

static const struct param params[] = {
	[LAMBDA] = {"lambda", PINT, 0, 0, 64, NULL, NULL, NULL,
	            "warps whose hardware slot %warpid is below lambda take the fast path"},
	[APPROX] = {"approx", PSET, 0, 0, 0, approx, "approximation",
	            "transcendental+div+sqrt+rcp+ftz",
	            "what the fast path approximates (the parts of -use_fast_math; f64 div, rcp, sqrt)"},
	[NEWTON] = {"newton", PBOOL, 0, 0, 0, NULL, NULL, "false",
	            "refine the f64 approximations by one Newton step"},
	[FAST] = {"fast", PSTR, PTOOL, 0, 0, NULL, NULL, NULL,
	          "the fast-math PTX of the same source (nvcc -ptx -use_fast_math); none: FP64 rewrites only"},
	[COLLAPSE] = {"collapse", PINT, PTOOL, 0, 2, NULL, NULL, "2",
	              "keep one body: 0 never, 1 at lambda 0, 2 also at lambda >= the targets' "
	              "resident warps per SM"},
};

/* a rule that approximates transcendentals or flushes denormals needs the
 * fast-math cicc for any kernel; div, sqrt and rcp alone wait for the
 * accurate PTX (sfu_needs_fast) */
static uint
fastmasks(const struct params *p)
{
	uint mask = p->v[APPROX].i & AX_ALL;
	return mask & (AX_TRANS | AX_FTZ) ? 1u << mask : 0;
}

/* 64: every warp fast on sm_90, the kernel collapsed to its fast body */
static const char *const sweep[] = {"lambda=32", "lambda=64", NULL};

const struct pass sfu_pass = {
	.schema = {"sfu", "warp-partitioned approximation: warps below lambda run fast-math code",
	           params, countof(params), describe},
	.stats = &statroot,
	.apply = apply,
	.fastmasks = fastmasks,
	.tune = &(const struct tuning){TUNE_TRANSFORM, .knob = "lambda", .strongest = "lambda=64",
	                               .guess = 2.0, .axis = "lambda (warps on the fast path)"},
	.sweep = sweep,
};
