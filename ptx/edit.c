/* edit.c: changing the IR. Statements live in one array per function, so
 * inserting moves the tail and shifts the indices that point into it (label
 * positions, register declarations); analyses are not maintained: call
 * fillcfg()/filldefuse() again. Renaming changes one table entry and marks
 * it, and the printer then prints each statement naming it from the IR.
 * Everything copied from another module (clonebody, addfn) is copied into
 * this module's arena, so the other module may be freed afterwards. */
#include "ptx/ptx.h"
#include <stdarg.h>
#include <string.h>

static Str
cp(Module *m, Str s)
{
	if (!s.s)
		return s;
	return (Str){arena_strndup(m->arena, s.s, s.n), s.n};
}

Str
str(Module *m, const char *s)
{
	return cp(m, (Str){s, strlen(s)});
}

/* a then b, by their lengths: trivia may hold any byte, NUL included (a
 * comment is copied byte for byte), so never measure a span with strlen */
static Str
join(Module *m, Str a, Str b)
{
	char *s = arena_alloc(m->arena, a.n + b.n + 1);

	if (a.n)
		memcpy(s, a.s, a.n);
	if (b.n)
		memcpy(s + a.n, b.s, b.n);
	return (Str){s, a.n + b.n};
}

static Str
cat(Module *m, Str a, const char *b)
{
	return join(m, a, (Str){b, strlen(b)});
}

/* a register not of a range */
static uint
addreg(Fn *fn, Str pfx, int num, int ty, uint decl)
{
	fn->reg = agrow(fn->mod->arena, fn->reg, fn->nreg, &fn->capreg, sizeof *fn->reg);
	fn->reg[fn->nreg] = (Reg){pfx, num, ty, 0, decl, 0};
	fn->nvreg++;
	return fn->nreg++;
}

static void
namereg(Fn *fn, uint r)
{
	char buf[512];
	Str s;

	regname(fn, r, buf, sizeof buf);
	s = str(fn->mod, buf);
	names_put(fn->mod->arena, &fn->regnames, s.s, s.n, r);
}

uint
findreg(const Fn *fn, const char *name)
{
	return lookreg((Fn *)fn, name, strlen(name));
}

uint
findlbl(const Fn *fn, const char *name)
{
	return names_get(fn->lblnames, name, strlen(name));
}

uint
newregat(Fn *fn, int ty, uint at)
{
	Module *m = fn->mod;
	char pfx[32];
	uint r;
	Ins d = {0};

	if (!regtype(ty))
		BUG("newreg: type %d is no register type", ty);
	snprintf(pfx, sizeof pfx, "%%mpcc_%s_", tyname[ty]);
	r = addreg(fn, str(m, pfx), (int)fn->nvreg, ty, ~0u);
	namereg(fn, r);
	d.op = Oreg;
	d.ty = ty;
	d.name = cat(m, str(m, ".reg ."), tyname[ty]);
	d.arg = arena_alloc(m->arena, sizeof(Ref));
	d.arg[0] = REF(RReg, r);
	d.narg = 1;
	ins_insert(fn, at, &d);
	return r;
}

uint
newreg(Fn *fn, int ty)
{
	return newregat(fn, ty, bodystart(fn));
}

uint
newlbl(Fn *fn, const char *name)
{
	char buf[64];

	if (!name) {
		snprintf(buf, sizeof buf, "$L__mpcc_%u", fn->nlbl);
		name = buf;
	}
	if (findlbl(fn, name) != ~0u)
		BUG("newlbl: '%s' exists", name);
	fn->lbl = agrow(fn->mod->arena, fn->lbl, fn->nlbl, &fn->caplbl, sizeof *fn->lbl);
	fn->lbl[fn->nlbl] = (Lbl){str(fn->mod, name), ~0u, 0};
	names_put(fn->mod->arena, &fn->lblnames, fn->lbl[fn->nlbl].name.s,
	          fn->lbl[fn->nlbl].name.n, fn->nlbl);
	return fn->nlbl++;
}

/* indices into the body at or after `at` move by d */
static void
shift(Fn *fn, uint at, int d)
{
	for (uint k = 0; k < fn->nlbl; k++)
		if (fn->lbl[k].ins != ~0u && fn->lbl[k].ins >= at)
			fn->lbl[k].ins += d;
	for (uint k = 0; k < fn->nreg; k++)
		if (fn->reg[k].decl != ~0u && fn->reg[k].decl >= at)
			fn->reg[k].decl += d;
	for (uint k = 0; k < fn->nrange; k++)
		if (fn->range[k].decl != ~0u && fn->range[k].decl >= at)
			fn->range[k].decl += d;
}

/* make room for n statements at `at` */
static Ins *
room(Fn *fn, uint at, uint n)
{
	if (at > fn->nins)
		BUG("insert at %u of %u", at, fn->nins);
	shift(fn, at, (int)n);
	while (fn->nins + n > fn->cap)
		fn->ins = agrow(fn->mod->arena, fn->ins, fn->cap, &fn->cap, sizeof *fn->ins);
	memmove(&fn->ins[at + n], &fn->ins[at], (fn->nins - at) * sizeof *fn->ins);
	fn->nins += n;
	return &fn->ins[at];
}

static void
declat(Fn *fn, const Ins *i, uint at)
{
	if (i->op != Oreg)
		return;
	if (i->narg && i->arg[0].kind == RRange) {
		fn->range[i->arg[0].idx].decl = at;
		for (uint k = 0; k < fn->nreg; k++)
			if (fn->reg[k].range == (uint)i->arg[0].idx + 1)
				fn->reg[k].decl = at;
		return;
	}
	for (uint k = 0; k < i->narg; k++)
		if (i->arg[k].kind == RReg)
			fn->reg[i->arg[k].idx].decl = at;
}

Ins *
vmkinsf(Fn *fn, const char *f, va_list ap)
{
	va_list aq;
	va_copy(aq, ap);
	int n = vsnprintf(NULL, 0, f, aq);
	va_end(aq);
	char *text = arena_alloc(fn->mod->arena, n + 1);
	vsnprintf(text, n + 1, f, ap);
	Ins *i = mkins(fn, text);
	if (!i)
		BUG("cannot build '%s'", text);
	return i;
}

uint
newlocal(Fn *fn, const char *name, uint bytes, uint align)
{
	Module *m = fn->mod;
	Ins d = {0};
	uint s = intern(m, name, strlen(name));

	d.op = Ovar;
	d.ty = Tb8;
	d.name = str(m, arena_fmt(m->arena, ".local .align %u .b8", align));
	d.sep = (Str){" ", 1};
	d.tail = str(m, arena_fmt(m->arena, "[%u]", bytes));
	d.arg = arena_alloc(m->arena, sizeof *d.arg);
	d.arg[0] = REF(RSym, s);
	d.narg = 1;
	ins_insert(fn, bodystart(fn), &d);
	return s;
}

Ins *
mkinsfat(Fn *fn, uint at, const char *f, ...)
{
	va_list ap;
	va_start(ap, f);
	int n = vsnprintf(NULL, 0, f, ap);
	va_end(ap);
	char *text = arena_alloc(fn->mod->arena, n + 1);
	va_start(ap, f);
	vsnprintf(text, n + 1, f, ap);
	va_end(ap);
	Ins *i = mkinsat(fn, at, text);
	if (!i)
		BUG("cannot build '%s'", text);
	return i;
}

Ins *
mkinsf(Fn *fn, const char *f, ...)
{
	va_list ap;
	va_start(ap, f);
	Ins *i = vmkinsf(fn, f, ap);
	va_end(ap);
	return i;
}

Ins *
ins_insert(Fn *fn, uint at, const Ins *i)
{
	Ins *d;
	Ins c = *i;

	if (!c.lead.s)
		c.lead = (Str){c.op == Olabel ? "\n" : "\n\t", c.op == Olabel ? 1 : 2};
	d = room(fn, at, 1);
	*d = c;
	if (d->op == Olabel)
		fn->lbl[d->arg[0].idx].ins = at;
	declat(fn, d, at);
	return d;
}

Ins *
ins_replace(Fn *fn, uint at, const Ins *i)
{
	Ins *d = &fn->ins[at];
	Str lead = d->lead, src = d->src;
	uint line = d->line;

	if (at >= fn->nins || i->op == Olabel || d->op == Olabel)
		BUG("ins_replace: %u of %u", at, fn->nins);
	*d = *i;
	d->lead = lead;
	d->src = src;       /* only its line count matters now */
	d->line = line;
	d->flags |= IDIRTY;
	return d;
}

uint
bodystart(const Fn *fn)
{
	uint k = 0;

	while (k < fn->nins && (fn->ins[k].op == Oreg || fn->ins[k].op == Ovar))
		k++;
	return k;
}

void
ins_remove(Fn *fn, uint at)
{
	if (at >= fn->nins)
		BUG("remove %u of %u", at, fn->nins);
	for (uint k = 0; k < fn->nlbl; k++)
		if (fn->lbl[k].ins == at)
			fn->lbl[k].ins = ~0u;
	for (uint k = 0; k < fn->nreg; k++)
		if (fn->reg[k].decl == at)
			fn->reg[k].decl = ~0u;
	for (uint k = 0; k < fn->nrange; k++)
		if (fn->range[k].decl == at)
			fn->range[k].decl = ~0u;
	memmove(&fn->ins[at], &fn->ins[at + 1], (fn->nins - at - 1) * sizeof *fn->ins);
	fn->nins--;
	shift(fn, at + 1, -1);
}

void
ins_touch(Ins *i)
{
	i->flags |= IDIRTY;
}

void
placelbl(Fn *fn, uint at, uint l)
{
	Ins d = {0};

	if (fn->lbl[l].ins != ~0u)
		BUG("label placed twice");
	d.op = Olabel;
	d.arg = arena_alloc(fn->mod->arena, sizeof(Ref));
	d.arg[0] = REF(RLbl, l);
	d.narg = 1;
	ins_insert(fn, at, &d);
}

void
reg_rename(Fn *fn, uint r, const char *pfx)
{
	Str n = str(fn->mod, pfx);
	uint g = fn->reg[r].range;

	fn->mod->nrenamed++;
	if (!g) {
		fn->reg[r].pfx = n;
		fn->reg[r].flags |= RGRENAMED;
		namereg(fn, r);
		return;
	}
	fn->range[g - 1].pfx = n;   /* the whole range, members made later too */
	fn->range[g - 1].flags |= RGRENAMED;
	names_put(fn->mod->arena, &fn->rangenames, n.s, n.n, g - 1);
	for (uint k = 0; k < fn->nreg; k++)
		if (fn->reg[k].range == g) {
			fn->reg[k].pfx = n;
			fn->reg[k].flags |= RGRENAMED;
		}
}

void
lbl_rename(Fn *fn, uint l, const char *name)
{
	fn->lbl[l].name = str(fn->mod, name);
	fn->lbl[l].renamed = 1;
	fn->mod->nrenamed++;
	names_put(fn->mod->arena, &fn->lblnames, fn->lbl[l].name.s, fn->lbl[l].name.n, l);
}

void
sym_rename(Module *m, uint s, const char *name)
{
	m->sym[s].name = str(m, name);
	m->sym[s].renamed = 1;
	m->nrenamed++;
	names_put(m->arena, &m->symnames, m->sym[s].name.s, m->sym[s].name.n, s);
}

void
fn_rename(Fn *fn, const char *name)
{
	sym_rename(fn->mod, fn->sym, name);
	fn->flags |= FRENAMED;
}

/* clone: the maps from the source function's tables to the destination's */
struct clone {
	Fn *dst;
	const Fn *src;
	const char *suffix;
	uint *reg, *lbl, *sym;   /* src index -> dst index; ~0u: not yet mapped */
	uint *range;
	uchar *sreg, *srange;    /* src's registers and ranges declared inside { } */
};

static uint
mapsym(struct clone *c, uint s)
{
	const Module *sm = c->src->mod;

	if (c->sym[s] == ~0u)
		c->sym[s] = intern(c->dst->mod, cp(c->dst->mod, sm->sym[s].name).s, sm->sym[s].name.n);
	return c->sym[s];
}

static Ref mapref(struct clone *c, Ref r);

static Ref *
maprefs(struct clone *c, const Ref *a, uint n)
{
	Ref *r = arena_alloc(c->dst->mod->arena, (n ? n : 1) * sizeof *r);

	for (uint k = 0; k < n; k++)
		r[k] = mapref(c, a[k]);
	return r;
}

static Ref
mapref(struct clone *c, Ref r)
{
	Fn *d = c->dst;
	Module *m = d->mod;
	Ref o = r;

	switch (r.kind) {
	case RReg:
		o.idx = c->reg[r.idx];
		break;
	case RRange:
		o.idx = c->range[r.idx];
		break;
	case RLbl:
		o.idx = c->lbl[r.idx];
		break;
	case RSym:
		o.idx = mapsym(c, r.idx);
		break;
	case RImm:
		d->imm = agrow(m->arena, d->imm, d->nimm, &d->capimm, sizeof *d->imm);
		d->imm[d->nimm] = (Imm){cp(m, c->src->imm[r.idx].text)};
		o.idx = d->nimm++;
		break;
	case RMem: {
		Mem a = c->src->mem[r.idx];
		a.base = mapref(c, a.base);
		a.vec = mapref(c, a.vec);
		a.offs = cp(m, a.offs);
		d->mem = agrow(m->arena, d->mem, d->nmem, &d->capmem, sizeof *d->mem);
		d->mem[d->nmem] = a;
		o.idx = d->nmem++;
		break;
	}
	case RVec:
	case RList: {
		const Vec *v = &c->src->vec[r.idx];
		Vec nv = {maprefs(c, v->el, v->n), v->n};
		d->vec = agrow(m->arena, d->vec, d->nvec, &d->capvec, sizeof *d->vec);
		d->vec[d->nvec] = nv;
		o.idx = d->nvec++;
		break;
	}
	}
	return o;
}

/* src's registers and ranges declared inside { }: their copies stay out
 * of dst's names, which are the body's (mkinsat() adds a scope's), so
 * that two sibling scopes' "data<2>" do not both claim "data_sfu" there */
static void
scoped(struct clone *c)
{
	const Fn *s = c->src;
	Arena *a = c->dst->mod->arena;
	uint depth = 0;

	c->sreg = arena_alloc(a, s->nreg + 1);
	c->srange = arena_alloc(a, s->nrange + 1);
	for (uint k = 0; k < s->nins; k++) {
		const Ins *i = &s->ins[k];
		depth += i->op == Oopen;
		depth -= i->op == Oclose && depth;
		if (i->op != Oreg || !depth)
			continue;
		for (uint j = 0; j < i->narg; j++)
			if (i->arg[j].kind == RRange)
				c->srange[i->arg[j].idx] = 1;
			else if (i->arg[j].kind == RReg)
				c->sreg[i->arg[j].idx] = 1;
	}
}

/* ranges: one prefix, so that a .reg stays a range; declared where their
 * .reg is copied (declat) */
static void
mapranges(struct clone *c)
{
	const Fn *s = c->src;
	Fn *d = c->dst;

	for (uint k = 0; k < s->nrange; k++) {
		Range g = s->range[k];
		g.pfx = cat(d->mod, g.pfx, c->suffix);
		g.flags = 0;
		g.decl = ~0u;
		g.base = d->nvreg;
		d->nvreg += g.n;
		d->range = agrow(d->mod->arena, d->range, d->nrange, &d->caprange, sizeof *d->range);
		d->range[d->nrange] = g;
		if (!c->srange[k])
			names_put(d->mod->arena, &d->rangenames, g.pfx.s, g.pfx.n, d->nrange);
		c->range[k] = d->nrange++;
	}
}

/* registers, in src's order */
static void
mapregs(struct clone *c)
{
	const Fn *s = c->src;
	Fn *d = c->dst;

	for (uint k = 0; k < s->nreg; k++) {
		const Reg *g = &s->reg[k];
		char buf[512];
		uint r;
		if (g->flags & RGSPECIAL) {
			regname(s, k, buf, sizeof buf);
			r = findreg(d, buf);
			if (r == ~0u) {
				r = addreg(d, str(d->mod, buf), -1, Tnone, ~0u);
				d->reg[r].flags |= RGSPECIAL;
				namereg(d, r);
			}
			c->reg[k] = r;
			continue;
		}
		if (g->range)
			r = member(d, c->range[g->range - 1], g->num);
		else {
			r = addreg(d, cat(d->mod, g->pfx, c->suffix), g->num, g->ty, ~0u);
			if (!c->sreg[k])
				namereg(d, r);
		}
		c->reg[k] = r;
	}
}

static void
maplbls(struct clone *c)
{
	for (uint k = 0; k < c->src->nlbl; k++) {
		Str n = cat(c->dst->mod, c->src->lbl[k].name, c->suffix);
		c->lbl[k] = newlbl(c->dst, n.s);
	}
}

static int
isshared(const Ins *i)
{
	return i->op == Ovar && i->name.n >= 7 && !memcmp(i->name.s, ".shared", 7);
}

/* does dst declare a body-level variable named like src's sym v? */
static int
dsthas(const struct clone *c, uint v)
{
	const Str *n = &c->src->mod->sym[v].name;
	const Module *dm = c->dst->mod;

	for (uint k = 0; k < c->dst->nins; k++) {
		const Ins *i = &c->dst->ins[k];
		if (i->op == Ovar && dm->sym[i->arg[0].idx].name.n == n->n
		    && !memcmp(dm->sym[i->arg[0].idx].name.s, n->s, n->n))
			return 1;
	}
	return 0;
}

/* body-level variables get the suffix, but for .shared ones: warps running
 * either copy in one CTA must still meet in the same shared memory. A
 * .shared declaration is copied only if dst has none of that name.
 * Parameters map by position. */
static void
mapnames(struct clone *c, uchar *skip)
{
	const Fn *s = c->src;
	Module *dm = c->dst->mod;

	for (uint k = 0; k < s->nins; k++)
		if (isshared(&s->ins[k]))
			skip[k] = dsthas(c, s->ins[k].arg[0].idx);
		else if (s->ins[k].op == Ovar) {
			uint v = s->ins[k].arg[0].idx;
			Str n = cat(dm, s->mod->sym[v].name, c->suffix);
			c->sym[v] = intern(dm, n.s, n.n);
		}
	for (uint k = 0; k < s->npar && k < c->dst->npar; k++) {
		uint v = names_get(s->mod->symnames, s->par[k].name.s, s->par[k].name.n);
		if (v != ~0u)
			c->sym[v] = intern(dm, cp(dm, c->dst->par[k].name).s, c->dst->par[k].name.n);
	}
}

/* a statement that starts a line: .loc and .file end at the end of theirs */
static void
ownline(Module *m, Ins *i)
{
	if (!i->lead.s || !memchr(i->lead.s, '\n', i->lead.n))
		i->lead = join(m, (Str){"\n", 1}, i->lead);
}

uint
clonebody(Fn *dst, uint at, const Fn *src, const char *suffix)
{
	Module *m = dst->mod;
	struct clone c = {dst, src, suffix, NULL, NULL, NULL, NULL, NULL, NULL};
	uint n = 0, base, j = 0;
	int renamed = *suffix != 0;
	uchar *skip = arena_alloc(m->arena, src->nins + 1);
	Str held = {0};    /* the leads of skipped statements */
	Ins *out;

	c.reg = arena_alloc(m->arena, (src->nreg + 1) * sizeof *c.reg);
	c.range = arena_alloc(m->arena, (src->nrange + 1) * sizeof *c.range);
	scoped(&c);
	dst->flags |= src->flags & FSCOPED;
	mapranges(&c);
	c.lbl = arena_alloc(m->arena, (src->nlbl + 1) * sizeof *c.lbl);
	c.sym = arena_alloc(m->arena, (src->mod->nsym + 1) * sizeof *c.sym);
	memset(c.sym, 0xff, (src->mod->nsym + 1) * sizeof *c.sym);
	mapregs(&c);
	maplbls(&c);
	mapnames(&c, skip);
	for (uint k = 0; k < src->nins; k++)
		n += !skip[k];
	out = room(dst, at, n);
	base = at;
	for (uint k = 0; k < src->nins; k++) {
		const Ins *i = &src->ins[k];
		Ins *o = &out[j];
		if (skip[k]) {
			/* its lead stays: a line directive before it must keep its newline */
			if (k + 1 < src->nins) {
				Str l = i->lead;
				held = join(m, held, l);
			}
			continue;
		}
		*o = *i;
		o->lead = cp(m, i->lead);
		if (held.n) {
			o->lead = join(m, held, o->lead);
			held = (Str){0};
		}
		o->src = cp(m, i->src);
		o->name = cp(m, i->name);
		o->sep = cp(m, i->sep);
		o->tail = cp(m, i->tail);
		o->pred = mapref(&c, i->pred);
		o->arg = maprefs(&c, i->arg, i->narg);
		if (i->sel) {
			o->sel = arena_alloc(m->arena, i->narg * sizeof *o->sel);
			for (uint a = 0; a < i->narg; a++)
				o->sel[a] = cp(m, i->sel[a]);
		}
		if (renamed && o->op != Oraw && o->op != Oloc)
			o->flags |= IDIRTY;
		if (o->op == Olabel)
			dst->lbl[o->arg[0].idx].ins = base + j;
		declat(dst, o, base + j);
		j++;
	}
	if (n) {
		ownline(m, &dst->ins[at]);
		if (at + n < dst->nins)
			ownline(m, &dst->ins[at + n]);
	}
	return n;
}

static Param *
cpparams(Module *m, const Param *p, uint n)
{
	Param *r = arena_alloc(m->arena, (n ? n : 1) * sizeof *r);

	for (uint k = 0; k < n; k++)
		r[k] = (Param){cp(m, p[k].decl), cp(m, p[k].name), cp(m, p[k].tail)};
	return r;
}

/* where a new module item goes: before the first function definition */
static uint
firstdef(const Module *m)
{
	for (uint k = 0; k < m->ntop; k++)
		if (m->top[k].op == Ofn && !(m->fn[m->top[k].arg[0].idx]->flags & FDECL))
			return k;
	return m->ntop;
}

static void
additem(Module *m, uint at, const Ins *it)
{
	m->top = agrow(m->arena, m->top, m->ntop, &m->captop, sizeof *m->top);
	memmove(&m->top[at + 1], &m->top[at], (m->ntop - at) * sizeof *m->top);
	m->top[at] = *it;
	m->ntop++;
}

Fn *
addfn(Module *m, const Fn *src, const char *name)
{
	Fn *fn = arena_alloc(m->arena, sizeof *fn);
	Ins it = {0};

	fn->mod = m;
	fn->flags = src->flags & (FENTRY | FDECL | FVISIBLE | FEXTERN | FWEAK);
	fn->head = cp(m, src->head);
	fn->nameoff = src->nameoff;
	fn->headname = (Str){fn->head.s + fn->nameoff, src->headname.n};
	fn->sym = intern(m, str(m, name).s, strlen(name));
	if (strlen(name) != src->headname.n || memcmp(name, src->headname.s, src->headname.n))
		fn->flags |= FRENAMED;
	fn->ret = cpparams(m, src->ret, src->nret);
	fn->nret = src->nret;
	fn->par = cpparams(m, src->par, src->npar);
	fn->npar = src->npar;
	fn->perf = cp(m, src->perf);
	fn->open = cp(m, src->open);
	fn->close = cp(m, src->close);
	if (!(src->flags & FDECL))
		clonebody(fn, 0, src, "");
	m->fn = agrow(m->arena, m->fn, m->nfn, &m->capfn, sizeof *m->fn);
	m->fn[m->nfn] = fn;
	it.op = Ofn;
	it.lead = (Str){"\n\n", 2};
	it.src = fn->head;
	it.arg = arena_alloc(m->arena, sizeof(Ref));
	it.arg[0] = REF(RFn, m->nfn++);
	it.narg = 1;
	additem(m, firstdef(m), &it);
	return fn;
}

/* is a variable or function of this name declared at module level? */
static int
declared(const Module *m, Str name)
{
	uint s = names_get(m->symnames, name.s, name.n);

	if (s == ~0u)
		return 0;
	for (uint k = 0; k < m->ntop; k++) {
		const Ins *i = &m->top[k];
		if (i->op == Ovar && i->arg[0].idx == s)
			return 1;
		if (i->op == Ofn && m->fn[i->arg[0].idx]->sym == s)
			return 1;
	}
	return 0;
}

int
adddecl(Module *m, const char *text)
{
	return adddecln(m, text, strlen(text));
}

/* a comment of the text may hold a NUL byte, which the parser keeps */
int
adddecln(Module *m, const char *text, size_t n)
{
	Module *t = parse("<adddecl>", text, n);
	int added = 0;

	if (!t)
		return -1;
	for (uint k = 0; k < t->ntop; k++) {
		Ins it = t->top[k];
		if (it.op == Ofn) {
			Fn *f = t->fn[it.arg[0].idx];
			if (declared(m, t->sym[f->sym].name))
				continue;
			char *nm = arena_strndup(m->arena, t->sym[f->sym].name.s, t->sym[f->sym].name.n);
			Fn *nf = addfn(m, f, nm);
			(void)nf;
			added = 1;
			continue;
		}
		if (it.op != Ovar || declared(m, t->sym[it.arg[0].idx].name))
			continue;
		it.lead = (Str){"\n", 1};
		it.src = cp(m, it.src);
		it.name = cp(m, it.name);
		it.sep = cp(m, it.sep);
		it.tail = cp(m, it.tail);
		it.arg = arena_alloc(m->arena, sizeof(Ref));
		it.arg[0] = REF(RSym, intern(m, cp(m, t->sym[t->top[k].arg[0].idx].name).s,
		                             t->sym[t->top[k].arg[0].idx].name.n));
		it.narg = 1;
		additem(m, firstdef(m), &it);
		added = 1;
	}
	mod_free(t);
	return added;
}
