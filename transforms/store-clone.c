/* store-clone.c: the clone of a kernel that keeps some of its arrays
 * narrow in device memory (f64 as f32, bf16 or f16; f32 as bf16 or f16).
 *
 * The clone is the kernel as every pass left it, under another name and
 * with the same parameters; the runtime launches it with each narrowed
 * parameter pointing into the narrow copy of its allocation (runtime/).
 * The clone computes every address as the kernel does, from the pointer
 * it was given: an address a into parameter p's array is p + o, o a
 * multiple of the element's width. Only where it touches memory does the
 * clone scale o: it reads and writes p + (o >> SH) (SH = log2 of element
 * width over narrow width), so pointer arithmetic, comparisons of two
 * addresses into one array and loop bounds all stay as they were. A load
 * becomes a narrow load and a conversion up, a store a conversion to
 * nearest and a narrow store, an atomic add a narrow atomic add.
 *
 * Then the conversions that cancel are folded: a cvt.rn.f32.f64 of a value
 * that a cvt.f64.f32 made from an f32 in the same block (fiset's casts
 * meet the load's and store's) is a mov of that f32.
 *
 * needs nothing; breaks nothing of the kernel it clones */
#include "transforms/store.h"

#include <stdlib.h>
#include <string.h>

/* the narrow type's name in a load or store (f16 and bf16 move as b16) */
static const char *
moved(int nt)
{
	return nt == Tf32 ? "f32" : "b16";
}

/* the register type that holds a narrow value */
static int
holds(int nt)
{
	return nt == Tf32 ? Tf32 : Tb16;
}

struct clone {
	Fn *c;
	const struct narrow *nw;
	uint *base, *gbase;     /* per parameter: its pointer, generic and cvta'd */
	uint shift;             /* declarations inserted at bodystart() so far */
	const char *guard;      /* "@%p " of the statement rewritten, or "" */
};

static uint
reg(struct clone *k, int ty)
{
	k->shift++;
	return newreg(k->c, ty);
}

static const char *
name(struct clone *k, uint r)
{
	return regstr(k->c, r);
}

/* insert the text at *at and step past it; g: its guard ("@%p ") or "" */
static void
emitg(struct clone *k, uint *at, const char *g, const char *f, const char *a, const char *b,
      const char *c)
{
	const char *text = arena_fmt(k->c->mod->arena, f, a, b, c);
	Ins *i = mkinsfat(k->c, *at, "%s%s", g, text);
	ins_insert(k->c, (*at)++, i);
}

static void
emit(struct clone *k, uint *at, const char *f, const char *a, const char *b, const char *c)
{
	emitg(k, at, "", f, a, b, c);
}

/* the converted value: up (narrow to wide) into dst, or down into a new
 * register of the narrow type */
static void
widen(struct clone *k, uint *at, const char *dst, uint from, int ty, int nt)
{
	char f[96];
	const char *g = k->guard, *src = name(k, from);
	if (nt == Tbf16) {   /* bf16 is the high half of an f32: no cvt before sm_90 */
		uint u = reg(k, Tb32);
		(*at)++;   /* the declaration came before at */
		emitg(k, at, g, "cvt.u32.u16 %s, %s;", name(k, u), src, NULL);
		emitg(k, at, g, "shl.b32 %s, %s, 16;", name(k, u), name(k, u), NULL);
		if (ty == Tf32) {
			emitg(k, at, g, "mov.b32 %s, %s;", dst, name(k, u), NULL);
			return;
		}
		uint x = reg(k, Tf32);
		(*at)++;
		emitg(k, at, g, "mov.b32 %s, %s;", name(k, x), name(k, u), NULL);
		src = name(k, x);
		nt = Tf32;
	}
	snprintf(f, sizeof f, "cvt.%s.%s %%s, %%s;", tyname[ty], tyname[nt]);
	emitg(k, at, g, f, dst, src, NULL);
}

static uint
narrowed(struct clone *k, uint *at, Ref v, int ty, int nt, int raw)
{
	char f[96];
	const char *g = k->guard, *src = refstr(k->c, v);
	uint d;
	if (v.kind != RReg || raw != ty) {   /* an immediate, or bits: a register of its type */
		uint x = reg(k, ty);
		(*at)++;
		snprintf(f, sizeof f, "mov.%s %%s, %%s;", raw != ty ? (ty == Tf64 ? "b64" : "b32")
		                                                    : tyname[ty]);
		emitg(k, at, g, f, name(k, x), src, NULL);
		src = name(k, x);
	}
	if (ty == Tf64 && nt != Tf32) {   /* through f32: PTX has no bf16 from f64 */
		uint x = reg(k, Tf32);
		(*at)++;
		emitg(k, at, g, "cvt.rn.f32.f64 %s, %s;", name(k, x), src, NULL);
		src = name(k, x);
		ty = Tf32;
	}
	d = reg(k, holds(nt));
	(*at)++;
	snprintf(f, sizeof f, "cvt.rn.%s.%s %%s, %%s;", tyname[nt], tyname[ty]);
	emitg(k, at, g, f, name(k, d), src, NULL);
	return d;
}

/* the address [a+off] scaled: p + ((a - p) >> SH) into a new register,
 * before *at, with the offset off >> SH that the access adds into *noff
 * (accesses of one base at several offsets, a stencil's, then share the
 * register's arithmetic, which ptxas computes once); an offset that is no
 * multiple of 1 << SH goes into the register too */
static uint
address(struct clone *k, uint *at, const Mem *m, uint p, int sh, long *noff)
{
	uint t = reg(k, Tb64);
	char off[32];
	long whole = m->off % (1L << sh) == 0;
	(*at)++;
	*noff = whole ? m->off / (1L << sh) : 0;
	snprintf(off, sizeof off, "%ld", m->off);
	if (m->off && !whole)
		emit(k, at, "add.s64 %s, %s, %s;", name(k, t), refstr(k->c, m->base), off);
	emit(k, at, "sub.s64 %s, %s, %s;", name(k, t),
	     m->off && !whole ? name(k, t) : refstr(k->c, m->base), name(k, p));
	snprintf(off, sizeof off, "%d", sh);
	emit(k, at, "shr.s64 %s, %s, %s;", name(k, t), name(k, t), off);
	emit(k, at, "add.s64 %s, %s, %s;", name(k, t), name(k, p), name(k, t));
	return t;
}

/* the mnemonic of i with its element type ty replaced by the narrow one
 * (atomics of f16 and bf16 take .noftz before it) */
static const char *
mnemonic(struct clone *k, const Ins *i, int ty, int nt)
{
	struct buf b = BUF_INIT;
	Mods md;
	modsplit(i, &md);
	for (uint p = 0; p < md.n; p++) {
		Str s = md.part[p];
		int t = tyof(s);
		if (p)
			buf_printf(&b, ".");
		if (t != ty) {
			buf_printf(&b, "%.*s", (int)s.n, s.s);
			continue;
		}
		if (i->op == Oatom || i->op == Ored)
			buf_printf(&b, nt == Tf32 ? "f32" : nt == Tf16 ? "noftz.f16" : "noftz.bf16");
		else
			buf_printf(&b, "%s", moved(nt));
	}
	const char *s = arena_strdup(k->c->mod->arena, b.s);
	buf_release(&b);
	return s;
}

/* the value operands of i: one, or the elements of a vector {a, b} */
static uint
values(struct clone *k, Ref r, Ref *v)
{
	if (r.kind != RVec) {
		v[0] = r;
		return 1;
	}
	const Vec *e = &k->c->vec[r.idx];
	for (uint j = 0; j < e->n && j < 8; j++)
		v[j] = e->el[j];
	return e->n < 8 ? e->n : 8;
}

static const char *
list(struct clone *k, const uint *r, uint n)
{
	struct buf b = BUF_INIT;
	for (uint j = 0; j < n; j++)
		buf_printf(&b, "%s%s", j ? ", " : "", name(k, r[j]));
	const char *s = arena_fmt(k->c->mod->arena, n > 1 ? "{%s}" : "%s", b.s);
	buf_release(&b);
	return s;
}

/* the operands of i from its from-th on, each after ", " (a cache
 * policy: ld.global.L2::cache_hint.f64 %fd, [a], %rd) */
static const char *
rest(struct clone *k, const Ins *i, uint from)
{
	struct buf b = BUF_INIT;
	for (uint a = from; a < i->narg; a++)
		buf_printf(&b, ", %s", refstr(k->c, i->arg[a]));
	const char *s = arena_strdup(k->c->mod->arena, b.n ? b.s : "");
	buf_release(&b);
	return s;
}

/* rewrite access x (statement at) of parameter p; the index past what it became */
static void
rewrite(struct clone *k, uint at, const struct access *x, int p)
{
	Ins *i = &k->c->ins[at];
	int ty = k->nw[p].ty, nt = k->nw[p].nt, sh = tybits[ty] == 64 && nt != Tf32 ? 2 : 1;
	int ma = i->op == Ost || i->op == Ored || i->op == Oprefetch || i->op == Oprefetchu ? 0 : 1;
	uint pos = at, r[8], nv = 0;
	Ref v[8], dst = i->arg[0];
	const Mem m = k->c->mem[i->arg[ma].idx];
	const char *g = i->pred.kind == RReg
		? arena_fmt(k->c->mod->arena, "@%s%s ", i->flags & INEGPRED ? "!" : "",
		            refstr(k->c, i->pred)) : "";
	const char *mn = x->ty ? mnemonic(k, i, x->raw, nt) : arena_strndup(k->c->mod->arena,
	                                                                 i->name.s, i->name.n);
	long noff;
	uint t = address(k, &pos, &m, x->global ? k->gbase[p] : k->base[p], sh, &noff);
	const char *addr = noff ? arena_fmt(k->c->mod->arena, "%s+%ld", name(k, t), noff) : name(k, t);
	k->guard = g;
	i = &k->c->ins[pos];
	if (!x->ty) {   /* prefetch: the address alone */
		ins_replace(k->c, pos, mkinsfat(k->c, pos, "%s%s [%s]%s;", g, mn, addr, rest(k, i, 1)));
		return;
	}
	if (x->write)   /* the values stored (or added) go down first */
		for (uint j = 0, n = values(k, i->arg[ma + 1], v); j < n; j++, nv++) {
			r[j] = narrowed(k, &pos, v[j], ty, nt, x->raw);
			i = &k->c->ins[pos];
		}
	uint d[8], nd = x->read ? values(k, dst, v) : 0;
	for (uint j = 0; j < nd; j++, pos++)
		d[j] = reg(k, holds(nt));
	i = &k->c->ins[pos];
	Arena *ar = k->c->mod->arena;
	const char *text =
		i->op == Old || i->op == Oldu ? arena_fmt(ar, "%s%s %s, [%s]%s;", g, mn, list(k, d, nd),
		                                          addr, rest(k, i, 2))
		: i->op == Ost || i->op == Ored ? arena_fmt(ar, "%s%s [%s], %s%s;", g, mn, addr,
		                                            list(k, r, nv), rest(k, i, 2))
		: arena_fmt(ar, "%s%s %s, [%s], %s%s;", g, mn, list(k, d, nd), addr, list(k, r, nv),
		            rest(k, i, 3));
	ins_replace(k->c, pos, mkinsfat(k->c, pos, "%s", text));
	pos++;
	for (uint j = 0; j < nd; j++)
		widen(k, &pos, refstr(k->c, v[j]), d[j], ty, nt);
}

/* each narrowed parameter's pointer, as the clone was given it and cvta'd
 * to the global space, at the start of the body */
static void
bases(struct clone *k)
{
	Fn *c = k->c;
	for (uint p = 0; p < c->npar; p++) {
		if (!k->nw[p].ty)
			continue;
		k->base[p] = reg(k, Tb64);
		k->gbase[p] = reg(k, Tb64);
		uint at = bodystart(c);
		emit(k, &at, "ld.param.u64 %s, [%s];", name(k, k->base[p]),
		     arena_strndup(c->mod->arena, c->par[p].name.s, c->par[p].name.n), NULL);
		emit(k, &at, "cvta.to.global.u64 %s, %s;", name(k, k->gbase[p]), name(k, k->base[p]),
		     NULL);
		k->shift += 2;
	}
}

/* the accesses to rewrite, in text order (then rewritten last first, so
 * that the statements each adds leave the others' indices alone) */
struct todo {
	uint ins;
	int p;
	const struct access *x;
};

static int
byins(const void *a, const void *b)
{
	const struct todo *x = a, *y = b;
	return (x->ins > y->ins) - (x->ins < y->ins);
}

/* a cvt.rn.f32.f64 of a value that a cvt.f64.f32 of the same block made
 * from an f32 that nothing redefines in between: a mov of that f32 (the
 * round trip is exact; .ftz on either side is left alone) */
static void
fold(Fn *c)
{
	fillcfg(c);
	filldefuse(c);
	for (uint k = 0; k < c->nins; k++) {
		Ins *i = &c->ins[k];
		Cvt v, w;
		if (i->op != Ocvt || !cvtof(i, &v) || v.dst != Tf32 || v.src != Tf64 || v.rnd != 'n' ||
		    v.ftz || v.sat || v.other || i->narg != 2 || i->arg[1].kind != RReg)
			continue;
		const Use *u = &c->use[i->arg[1].idx];
		if (u->ndef != 1 || c->insblk[u->def[0]] != c->insblk[k] || u->def[0] > k)
			continue;
		const Ins *d = &c->ins[u->def[0]];
		if (d->op != Ocvt || !cvtof(d, &w) || w.dst != Tf64 || w.src != Tf32 || w.ftz ||
		    w.other || d->narg != 2 || d->arg[1].kind != RReg || d->pred.kind != R0)
			continue;
		uint x = d->arg[1].idx, again = 0;
		for (uint j = u->def[0] + 1; j < k && !again; j++)
			for (uint e = 0; e < c->use[x].ndef; e++)
				again |= c->use[x].def[e] == j;
		if (again)
			continue;
		const char *g = i->pred.kind == RReg
			? arena_fmt(c->mod->arena, "@%s%s ", i->flags & INEGPRED ? "!" : "",
			            refstr(c, i->pred)) : "";
		ins_replace(c, k, mkinsfat(c, k, "%smov.f32 %s, %s;", g, refstr(c, i->arg[0]),
		                           regstr(c, x)));
	}
}

Fn *
store_clone(Fn *fn, const struct narrow *nw, const char *cname, const char **why)
{
	Module *m = fn->mod;
	if (findfn(m, cname)) {
		*why = arena_fmt(m->arena, "its module has a function named %s already", cname);
		return NULL;
	}
	Fn *c = addfn(m, fn, cname);
	struct addrs *a = filladdrs(c);
	struct clone k = {c, nw, arena_alloc(m->arena, (c->npar + 1) * sizeof(uint)),
	                  arena_alloc(m->arena, (c->npar + 1) * sizeof(uint)), 0, ""};
	struct todo *t = NULL;
	int n = 0, cap = 0;
	for (uint p = 0; p < c->npar; p++)
		for (uint j = 0; nw[p].ty && j < a->par[p].nacc; j++) {
			vgrow(t, n, cap);
			t[n++] = (struct todo){a->par[p].acc[j].ins, (int)p, &a->par[p].acc[j]};
		}
	qsort(t, n, sizeof *t, byins);
	bases(&k);
	for (int j = n - 1; j >= 0; j--)
		rewrite(&k, t[j].ins + k.shift, t[j].x, t[j].p);
	free(t);
	fold(c);
	return c;
}
