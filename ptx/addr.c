/* addr.c: where the addresses of a function come from, for a pass that
 * changes how arrays are laid out in memory (store).
 *
 * Each register gets an origin: data (integers and floats: indices,
 * loaded values), the function's own memory (a .shared, .local, .const or
 * .global variable of the module, a parameter's address), an address into
 * the array that pointer parameter k points to (generic, or global after
 * cvta.to.global), or mixed (of several origins). Origins only rise
 * (none < data, own, param k < mixed), so a fixed point over the
 * statements ends in a few rounds; registers defined more than once (a
 * pointer bumped in a loop) join their definitions.
 *
 * What keeps a register an address into parameter k: ld.param of the
 * whole parameter, mov, cvta between generic and global, selp of two such
 * addresses, and adding or subtracting data (add, sub, mad with the
 * address as the addend). Two addresses into the same array may be
 * subtracted (data) or compared (setp), and an address may be compared
 * with 0: the same holds of them wherever the array lives. Any other use
 * (stored, passed to a call, compared with another value, turned into an
 * integer by and, shr, cvt...) lets the address escape: the array could
 * then be reached where no parameter says, and cannot live elsewhere.
 *
 * Then per parameter: every memory access through it (the statement, the
 * element type, read or written, atomic), the one element type they share,
 * and why its array could not live in another form; and whether the
 * function reaches global memory that no parameter points to (an address
 * made of data or loaded from memory, a texture or surface, a call into
 * code it does not see): then it is open.
 *
 * needs nothing; breaks nothing */
#include "ptx/ptx.h"

#include <ctype.h>
#include <string.h>

/* the kind, in an origin's low 3 bits; OPARS: an address into one of
 * several parameters' arrays (selp.b64 of two pointers), the set
 * sets[PARAM(o)] */
enum { ONONE, ODATA, OOWN, OMIX, OPAR, OPARS };
#define KIND(o) ((o) & 7)
#define GLOBAL(o) ((o) >> 3 & 1)          /* OPAR: cvta'd to the global space */
#define PARAM(o) ((o) >> 4)
#define PAR(k, g) (OPAR | (uint)(g) << 3 | (uint)(k) << 4)
#define ISPAR(o) (KIND(o) == OPAR || KIND(o) == OPARS)

struct walk {
	Fn *fn;
	struct addrs *a;
	int changed;
	uint64_t *sets;     /* the sets of parameters of OPARS origins, each once */
	uint nsets, capsets;
};

/* the parameters origin o may address (parameters past 63: none) */
static uint64_t
mask(const struct walk *w, uint o)
{
	if (KIND(o) == OPARS)
		return w->sets[PARAM(o)];
	return KIND(o) == OPAR && PARAM(o) < 64 ? (uint64_t)1 << PARAM(o) : 0;
}

/* the origin of an address into one of the arrays of set m */
static uint
pars(struct walk *w, uint64_t m)
{
	uint k = 0;
	while (k < w->nsets && w->sets[k] != m)
		k++;
	if (k == w->nsets) {
		w->sets = agrow(w->fn->mod->arena, w->sets, w->nsets, &w->capsets, sizeof *w->sets);
		w->sets[w->nsets++] = m;
	}
	return OPARS | k << 4;
}

/* is symbol s parameter k of fn (a whole .u64/.b64/.s64, no array)? -1 if
 * it is no parameter; -2 if it is one that holds no pointer */
static int
paramof(const Fn *fn, uint s)
{
	const Str name = fn->mod->sym[s].name;
	for (uint k = 0; k < fn->npar; k++) {
		const Param *p = &fn->par[k];
		if (p->name.n != name.n || memcmp(p->name.s, name.s, name.n))
			continue;
		int t = Tnone;
		for (const char *d = p->decl.s, *e = d + p->decl.n; d < e; d++)
			if (*d == '.') {
				uint n = 0;
				while (d + 1 + n < e && isalnum((uchar)d[1 + n]))
					n++;
				if (tyof((Str){d + 1, n}))
					t = tyof((Str){d + 1, n});
			}
		return (t == Tu64 || t == Tb64 || t == Ts64) && !p->tail.n ? (int)k : -2;
	}
	return -1;
}

static uint
orig(const struct walk *w, Ref r)
{
	if (r.kind == RImm)
		return ODATA;
	if (r.kind == RSym)
		return OOWN;
	if (r.kind != RReg)
		return ODATA;
	if (w->fn->reg[r.idx].flags & RGSPECIAL)
		return ODATA;
	return w->a->org[r.idx];
}

static void
refuse(struct walk *w, uint o, const char *why)
{
	uint64_t m = mask(w, o);
	for (uint k = 0; k < w->a->npar && k < 64; k++)
		if ((m >> k & 1) && !w->a->par[k].why)
			w->a->par[k].why = why;
}

/* the origin of a register defined by two origins: two parameters'
 * addresses make one into either array (the kernel still reaches memory
 * through its parameters alone), anything else with one an address of
 * several origins */
static uint
join(struct walk *w, uint a, uint b)
{
	if (a == b || b == ONONE)
		return a;
	if (a == ONONE)
		return b;
	if (ISPAR(a) && ISPAR(b) && mask(w, a) && mask(w, b)) {
		refuse(w, a, "its address is held in a register with another parameter's");
		refuse(w, b, "its address is held in a register with another parameter's");
		return pars(w, mask(w, a) | mask(w, b));
	}
	refuse(w, a, "its address is held in a register with another value");
	refuse(w, b, "its address is held in a register with another value");
	return OMIX;
}

/* a + b (sub: a - b) in 64 bits */
static uint
sum(struct walk *w, uint a, uint b, int sub)
{
	if (a == ONONE || b == ONONE)   /* not known yet: the fixed point comes back */
		return ONONE;
	if (KIND(a) == OMIX || KIND(b) == OMIX) {
		refuse(w, a, "added to a value of several origins");
		refuse(w, b, "added to a value of several origins");
		return OMIX;
	}
	if (sub && ISPAR(a) && a == b)
		return ODATA;   /* the distance between two addresses into one array */
	if (sub && ISPAR(b)) {
		refuse(w, b, "subtracted from another value");
		return ISPAR(a) ? (refuse(w, a, "subtracted from another value"), OMIX) : ODATA;
	}
	if (KIND(b) == ODATA)
		return a;
	if (KIND(a) == ODATA)
		return b;
	refuse(w, a, "added to another address");
	refuse(w, b, "added to another address");
	return OMIX;
}

static int
wide(const Ins *i)
{
	return i->ty && tybits[i->ty] == 64;
}

/* the origin of what instruction i defines (its first operand) */
static uint
result(struct walk *w, const Ins *i)
{
	const Fn *fn = w->fn;
	const Mem *m;
	int k;
	switch (i->op) {
	case Old:
		if (i->narg < 2 || i->arg[1].kind != RMem || !hasspace(i, "param"))
			return ODATA;
		m = &fn->mem[i->arg[1].idx];
		if (m->base.kind == RSym && !m->off && wide(i) && i->arg[0].kind == RReg &&
		    (k = paramof(fn, m->base.idx)) >= 0)
			return PAR(k, 0);
		return ODATA;
	case Omov:
		return i->narg > 1 && wide(i) ? orig(w, i->arg[1]) : ODATA;
	case Ocvta:
		if (i->narg < 2)
			return ODATA;
		if (!hasmod(i, "global"))
			return refuse(w, orig(w, i->arg[1]), "converted to another state space"), OOWN;
		uint o = orig(w, i->arg[1]);
		if (KIND(o) != OPAR)
			return o;   /* OPARS stays what it is: its arrays are refused */
		if ((int)GLOBAL(o) == hasmod(i, "to"))
			return refuse(w, o, "converted to its own state space"), OMIX;
		return PAR(PARAM(o), hasmod(i, "to"));
	case Oadd: case Osub:
		if (!wide(i) || i->narg < 3)
			return ODATA;
		return sum(w, orig(w, i->arg[1]), orig(w, i->arg[2]), i->op == Osub);
	case Omad:
		if (i->narg < 4 || !(wide(i) || hasmod(i, "wide")))
			return ODATA;
		k = (int)sum(w, orig(w, i->arg[1]), orig(w, i->arg[2]), 0);
		if (k == ONONE)
			return ONONE;
		return sum(w, k == ODATA ? ODATA : OMIX, orig(w, i->arg[3]), 0);
	case Oselp:
		if (i->narg < 3 || !wide(i))
			return ODATA;
		return join(w, orig(w, i->arg[1]), orig(w, i->arg[2]));
	}
	return ODATA;
}

static void
define(struct walk *w, Ref r, uint o)
{
	if (r.kind == RVec || r.kind == RList) {
		for (uint k = 0; k < w->fn->vec[r.idx].n; k++)
			define(w, w->fn->vec[r.idx].el[k], ODATA);
		return;
	}
	if (r.kind != RReg || (w->fn->reg[r.idx].flags & RGSPECIAL))
		return;
	uint *d = &w->a->org[r.idx], n = join(w, *d, o);
	if (n != *d) {
		*d = n;
		w->changed = 1;
	}
}

static void
origins(struct walk *w)
{
	Fn *fn = w->fn;
	do {
		w->changed = 0;
		for (uint k = 0; k < fn->nins; k++) {
			const Ins *i = &fn->ins[k];
			if (i->op >= NOP)
				continue;
			for (uint a = 0; a < i->narg; a++)
				if (isdef(i, a))
					define(w, i->arg[a], a == 0 ? result(w, i) : ODATA);
		}
	} while (w->changed);
}

/* ---- uses ---- */

/* does i read or write global memory (or memory of a generic address)? */
static int
globalish(const Mods *md)
{
	static const char *const other[] = {"shared", "local", "const", "param", "tex"};
	for (size_t k = 0; k < countof(other); k++)
		if (modspace(md, other[k]))
			return 0;
	return 1;
}

static void
open_(struct walk *w, uint k, const char *why)
{
	if (!w->a->open) {
		w->a->open = why;
		w->a->openat = k;
	}
}

Ref
immof(const Fn *fn, Ref v)
{
	Ref imm = {0};
	int defs = 0;
	if (v.kind != RReg)
		return v.kind == RImm ? v : imm;
	uint r = v.idx;
	for (uint k = 0; k < fn->nins && defs < 2; k++) {
		const Ins *i = &fn->ins[k];
		for (uint a = 0; i->op < NOP && a < i->narg; a++)
			if (isdef(i, a) && i->arg[a].kind == RReg && i->arg[a].idx == r) {
				defs++;
				imm = i->op == Omov && i->narg == 2 && i->pred.kind == R0 &&
				      i->arg[1].kind == RImm ? i->arg[1] : (Ref){0};
			}
	}
	return defs == 1 ? imm : (Ref){0};
}

/* a store of integer constants of type t (cicc stores 0.0 as u64 0): the
 * floating type of their width; else t */
static int
constants(const Fn *fn, const Ins *i, int t)
{
	if (i->op != Ost || i->narg < 2 || (t != Tu64 && t != Tb64 && t != Ts64 && t != Tu32 &&
	                                    t != Tb32 && t != Ts32))
		return t;
	Ref v = i->arg[1];
	uint n = v.kind == RVec ? fn->vec[v.idx].n : 1;
	for (uint e = 0; e < n; e++) {
		Ref r = immof(fn, v.kind == RVec ? fn->vec[v.idx].el[e] : v);
		if (r.kind != RImm || immform(fn->imm[r.idx].text) != NINT)
			return t;
	}
	return tybits[t] == 64 ? Tf64 : Tf32;
}

static void
access_(struct walk *w, uint k, uint o, const Ins *i, const Mods *md)
{
	struct ptrparam *p = &w->a->par[PARAM(o)];
	struct access *x;
	int raw = md->nt ? md->t[md->nt - 1] : Tnone;
	int t = constants(w->fn, i, raw);
	p->acc = agrow(w->fn->mod->arena, p->acc, p->nacc, &p->cap, sizeof *p->acc);
	x = &p->acc[p->nacc++];
	*x = (struct access){.ins = k, .ty = t, .raw = raw, .vec = md->vec, .global = GLOBAL(o)};
	switch (i->op) {
	case Old: case Oldu:
		x->read = 1;
		break;
	case Ost:
		x->write = 1;
		break;
	case Oatom: case Ored:
		x->read = i->op == Oatom, x->write = x->atomic = 1;
		if (!modhas(md, "add"))
			refuse(w, o, "updated by an atomic other than add");
		break;
	case Oprefetch: case Oprefetchu:
		x->ty = Tnone;
		return;
	default:
		x->read = x->write = 1;
		x->ty = Tnone;
		p->read = p->write = 1;
		refuse(w, o, arena_fmt(w->fn->mod->arena, "read or written by %s", opinfo[i->op].name));
		return;
	}
	if (!globalish(md))
		refuse(w, o, "used as an address of another state space");
	p->read |= x->read, p->write |= x->write;
	if (t == Tnone || !p->ty)
		p->ty = t;
	else if (p->ty != t)
		refuse(w, o, arena_fmt(w->fn->mod->arena, "accessed as both %s and %s", tyname[p->ty],
		                       tyname[t]));
}

/* a call of i: to printf or assert, which read no caller's array, or
 * into code that may reach any memory */
static void
calls(struct walk *w, uint k, const Ins *i)
{
	static const char *const safe[] = {"vprintf", "__assertfail"};
	uint a = 0;
	while (a < i->narg && i->arg[a].kind == RList)
		a++;
	if (a == i->narg || i->arg[a].kind != RSym) {
		open_(w, k, "it calls through a function pointer");
		return;
	}
	const char *s = symname(w->fn->mod, i->arg[a].idx);
	for (size_t j = 0; j < countof(safe); j++)
		if (!strcmp(s, safe[j]))
			return;
	open_(w, k, arena_fmt(w->fn->mod->arena, "it calls %s, which mpcc does not look into", s));
}

/* an address of a parameter's array used where it may escape */
static const char *
escape(const Ins *i, uint a)
{
	switch (i->op) {
	case Ost:
		return hasspace(i, "param") ? "passed to a call" : "stored to memory";
	case Oatom: case Ored:
		return "stored to memory";
	case Ocall:
		return "passed to a call";
	case Osetp: case Oset:
		return "compared with another value";
	case Ocvt:
		return "converted to another type";
	}
	(void)a;
	return "turned into another kind of integer";
}

/* the register operands of i that it reads (not its address's base) */
static void
reads(struct walk *w, uint k, const Ins *i)
{
	for (uint a = 0; a < i->narg; a++) {
		Ref r = i->arg[a];
		if (isdef(i, a) || r.kind == RMem)
			continue;
		if (r.kind == RVec || r.kind == RList) {
			for (uint e = 0; e < w->fn->vec[r.idx].n; e++)
				refuse(w, orig(w, w->fn->vec[r.idx].el[e]), escape(i, a));
			continue;
		}
		uint o = orig(w, r);
		if (!ISPAR(o))
			continue;
		switch (i->op) {
		case Omov: case Ocvta: case Oselp: case Oadd: case Osub:
			if (wide(i))
				continue;
			break;
		case Omad:
			if (a == 3)
				continue;
			break;
		case Osetp:
			if (i->narg > 2 && (orig(w, i->arg[1]) == orig(w, i->arg[2]) ||
			                    i->arg[3 - a].kind == RImm))
				continue;
			break;
		}
		(void)k;
		refuse(w, o, escape(i, a));
	}
}

/* loads, stores and atomics name their data's type; other statements
 * with an address (cp.async, discard, applypriority...) move bytes */
static int
typed(const Ins *i)
{
	return i->op == Old || i->op == Oldu || i->op == Ost || i->op == Oatom || i->op == Ored ||
	       i->op == Oprefetch || i->op == Oprefetchu;
}

/* is the j-th address of an untyped statement global or generic? Its
 * state spaces come in the order of its addresses (cp.async.ca.shared.global
 * [dst], [src]); one past them is global or generic */
static int
nthglobal(const Mods *md, int j)
{
	static const char *const sp[] = {"global", "shared", "local", "const", "param"};
	for (uint k = 1; k < md->n; k++)
		for (size_t s = 0; s < countof(sp); s++) {
			Mods one = {.n = 2, .part = {md->part[0], md->part[k]}};
			if (modspace(&one, sp[s]) && j-- == 0)
				return s == 0;
		}
	return 1;
}

/* the addresses of statement k */
static void
addresses(struct walk *w, uint k, const Ins *i)
{
	Mods md;
	int j = 0;
	modsplit(i, &md);
	for (uint a = 0; a < i->narg; a++) {
		if (i->arg[a].kind != RMem)
			continue;
		const Mem *m = &w->fn->mem[i->arg[a].idx];
		uint o = m->base.kind == RReg ? orig(w, m->base) : OOWN;
		int global = typed(i) ? globalish(&md) : nthglobal(&md, j++);
		if (KIND(o) == OPAR)
			access_(w, k, o, i, &md);
		else if (KIND(o) == OPARS)   /* each of its arrays, refused already */
			for (uint p = 0; p < w->a->npar && p < 64; p++) {
				if (mask(w, o) >> p & 1)
					access_(w, k, PAR(p, 0), i, &md);
			}
		else if (global && (KIND(o) != OOWN || !typed(i)) && i->op != Oprefetch &&
		         i->op != Oprefetchu)
			open_(w, k, typed(i) ? "it reaches global memory through an address loaded from "
			                       "memory or made of data"
			                     : arena_fmt(w->fn->mod->arena, "%s moves global memory it "
			                                 "does not address through a parameter",
			                                 opinfo[i->op].name));
	}
}

static void
uses(struct walk *w)
{
	Fn *fn = w->fn;
	for (uint k = 0; k < fn->nins; k++) {
		const Ins *i = &fn->ins[k];
		if (i->op >= NOP)
			continue;
		reads(w, k, i);
		if (i->op == Ocall)
			calls(w, k, i);
		if (i->op == Otex || i->op == Otld4 || i->op == Osuld || i->op == Osust ||
		    i->op == Osured)
			open_(w, k, "it reads or writes a texture or a surface");
		else
			addresses(w, k, i);
	}
}

struct addrs *
filladdrs(Fn *fn)
{
	Arena *ar = fn->mod->arena;
	struct addrs *a = arena_alloc(ar, sizeof *a);
	struct walk w = {fn, a, 0, NULL, 0, 0};
	memset(a, 0, sizeof *a);
	a->npar = fn->npar;
	a->par = arena_alloc(ar, (fn->npar + 1) * sizeof *a->par);
	memset(a->par, 0, (fn->npar + 1) * sizeof *a->par);
	a->org = arena_alloc(ar, (fn->nreg + 1) * sizeof *a->org);
	memset(a->org, 0, (fn->nreg + 1) * sizeof *a->org);
	origins(&w);
	uses(&w);
	for (uint k = 0; k < fn->npar; k++) {
		struct ptrparam *p = &a->par[k];
		if (p->ty && !p->why && p->ty != Tf64 && p->ty != Tf32)
			p->why = arena_fmt(ar, "accessed as %s, not as floating point", tyname[p->ty]);
	}
	if (fn->mod->addrsize == 32)
		a->open = "its module has 32-bit addresses";
	return a;
}

int
addrparam(const struct addrs *a, uint r, int *global)
{
	uint o = a->org[r];
	if (KIND(o) != OPAR)
		return -1;
	if (global)
		*global = GLOBAL(o);
	return (int)PARAM(o);
}
