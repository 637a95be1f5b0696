/* verify-names.c: the verifier's declarations and names. Each .reg, body
 * variable and parameter is declared once in its { } scope, and every
 * operand resolves: a register declared (or special, or a .reg parameter)
 * and in scope where it is used, a label placed, a symbol or callee
 * declared, a call with the callee's counts. The types of registers, the
 * special ones' included, are here for the other checks. */
#include "ptx/verify.h"
#include <string.h>

/* special registers (PTX ISA 10) and their types */
static const struct sreg {
	const char *name;
	uchar ty, xyz;     /* xyz: read as NAME.x, .y, .z */
} sregs[] = {
	{"%tid", Tu32, 1}, {"%ntid", Tu32, 1}, {"%ctaid", Tu32, 1}, {"%nctaid", Tu32, 1},
	{"%clusterid", Tu32, 1}, {"%nclusterid", Tu32, 1}, {"%cluster_ctaid", Tu32, 1},
	{"%cluster_nctaid", Tu32, 1}, {"%laneid", Tu32, 0}, {"%warpid", Tu32, 0},
	{"%nwarpid", Tu32, 0}, {"%smid", Tu32, 0}, {"%nsmid", Tu32, 0}, {"%gridid", Tu64, 0},
	{"%is_explicit_cluster", Tpred, 0}, {"%cluster_ctarank", Tu32, 0},
	{"%cluster_nctarank", Tu32, 0}, {"%lanemask_eq", Tu32, 0}, {"%lanemask_le", Tu32, 0},
	{"%lanemask_lt", Tu32, 0}, {"%lanemask_ge", Tu32, 0}, {"%lanemask_gt", Tu32, 0},
	{"%clock", Tu32, 0}, {"%clock_hi", Tu32, 0}, {"%clock64", Tu64, 0},
	{"%globaltimer", Tu64, 0}, {"%globaltimer_lo", Tu32, 0}, {"%globaltimer_hi", Tu32, 0},
	{"%total_smem_size", Tu32, 0}, {"%aggr_smem_size", Tu32, 0},
	{"%dynamic_smem_size", Tu32, 0}, {"%current_graph_exec", Tu64, 0},
	{"%reserved_smem_offset_begin", Tb32, 0}, {"%reserved_smem_offset_end", Tb32, 0},
	{"%reserved_smem_offset_cap", Tb32, 0},
};

#define S(lit) ((Str){lit, sizeof lit - 1})

/* pfx followed by a number in [0, n) (no leading zero), then suffix */
static int
numbered(Str s, Str pfx, uint n, Str suffix)
{
	uint e = s.n - suffix.n, v = 0;

	if (s.n <= pfx.n + suffix.n || memcmp(s.s, pfx.s, pfx.n)
	    || memcmp(s.s + e, suffix.s, suffix.n))
		return 0;
	for (uint j = pfx.n; j < e; j++) {
		if (s.s[j] < '0' || s.s[j] > '9' || (j == pfx.n && s.s[j] == '0' && e - pfx.n > 1))
			return 0;
		v = v * 10 + (s.s[j] - '0');
		if (v >= n)
			return 0;
	}
	return 1;
}

/* the type of a special register named s; Tnone for a typeless one
 * (%pm0...), -1 if s names none */
int
sregty(Str s)
{
	for (size_t k = 0; k < countof(sregs); k++) {
		size_t n = strlen(sregs[k].name);
		if (s.n == n && !memcmp(s.s, sregs[k].name, n))
			return sregs[k].ty;
		if (sregs[k].xyz && s.n == n + 2 && !memcmp(s.s, sregs[k].name, n)
		    && s.s[n] == '.' && strchr("xyz", s.s[n + 1]))
			return sregs[k].ty;
	}
	if (numbered(s, S("%pm"), 8, S("")) || numbered(s, S("%envreg"), 32, S("")))
		return Tb32;
	if (numbered(s, S("%pm"), 8, S("_64")))
		return Tu64;
	if (numbered(s, S("%reserved_smem_offset_"), 3, S("")))
		return Tb32;
	return -1;
}

/* a .reg parameter of the function named s: its type, -1 if none */
static int
regparam(const Fn *fn, Str s)
{
	for (uint k = 0; k < fn->npar + fn->nret; k++) {
		const Param *p = k < fn->npar ? &fn->par[k] : &fn->ret[k - fn->npar];
		Mods md = {0};
		Ins tmp = {0};
		if (p->name.n != s.n || memcmp(p->name.s, s.s, s.n))
			continue;
		if (p->decl.n < 4 || memcmp(p->decl.s, ".reg", 4))
			return -1;
		tmp.name = p->decl;
		modsplit(&tmp, &md);
		return md.nt ? md.t[md.nt - 1] : Tnone;
	}
	return -1;
}

/* the type of register r as an operand; -1: an undeclared name */
int
regty(const Fn *fn, uint r)
{
	const Reg *g = &fn->reg[r];
	int t;

	if (!(g->flags & RGSPECIAL))
		return g->ty;
	if ((t = sregty(g->pfx)) >= 0)
		return t;
	return regparam(fn, g->pfx);
}

Str
regspan(V *v, uint r)
{
	char buf[512];

	regname(v->fn, r, buf, sizeof buf);
	return str(v->m, buf);
}

/* declarations in a function */

struct decl {
	char kind;      /* 'r' a range, 'n' a register, 'v' a variable, 'p' a parameter */
	Str name;       /* the range's prefix for 'r' */
	uint count;
};
struct decls {
	struct decl *d;
	uint n, cap;
	uint *scope, nscope, capscope;   /* where each open { } scope starts in d */
};

/* is s the name of a member of range r? */
static int
inrange(const struct decl *r, Str s)
{
	return numbered(s, r->name, r->count, S(""));
}

static int
clash(const struct decl *a, const struct decl *b)
{
	if (a->kind == b->kind || (a->kind == 'p' && b->kind != 'r') || (b->kind == 'p' && a->kind != 'r'))
		return a->name.n == b->name.n && !memcmp(a->name.s, b->name.s, a->name.n);
	if (a->kind == 'r' && (b->kind == 'n' || b->kind == 'p'))
		return inrange(a, b->name);
	if ((a->kind == 'n' || a->kind == 'p') && b->kind == 'r')
		return inrange(b, a->name);
	return 0;
}

static void
declare(V *v, uint k, struct decls *ds, struct decl d)
{
	uint from = ds->nscope ? ds->scope[ds->nscope - 1] : 0;

	for (uint j = from; j < ds->n; j++)
		if (clash(&ds->d[j], &d)) {
			if (d.kind == 'r')
				errat(v, k, "'%.*s<%u>' declares registers this scope already has",
				      (int)d.name.n, d.name.s, d.count);
			else if (ds->d[j].kind == 'p')
				errat(v, k, "'%.*s' is the name of a parameter", (int)d.name.n, d.name.s);
			else
				errat(v, k, "'%.*s' is declared twice in one scope", (int)d.name.n, d.name.s);
			return;
		}
	ds->d = agrow(v->m->arena, ds->d, ds->n, &ds->cap, sizeof *ds->d);
	ds->d[ds->n++] = d;
}

static void
regdecl(V *v, uint k, struct decls *ds)
{
	const Ins *i = &v->fn->ins[k];

	if (!regtype(i->ty))
		errat(v, k, "a .reg without a register type");

	if (i->narg == 2 && i->arg[0].kind == RRange) {
		const Range *g = &v->fn->range[i->arg[0].idx];
		declare(v, k, ds, (struct decl){'r', g->pfx, g->n});
		return;
	}
	for (uint a = 0; a < i->narg; a++)
		if (i->arg[a].kind == RReg)
			declare(v, k, ds, (struct decl){'n', regspan(v, i->arg[a].idx), 1});
}

/* .reg ranges, registers and body-level variables: once per { } scope;
 * an inner scope may declare a name again (cicc's inline asm does). The
 * parameters belong to the outermost scope (ptxas: "Duplicate definition
 * of variable") */
void
decls(V *v)
{
	Fn *fn = v->fn;
	struct decls ds = {0};

	for (uint k = 0; k < fn->npar + fn->nret; k++) {
		const Param *p = k < fn->npar ? &fn->par[k] : &fn->ret[k - fn->npar];
		ds.d = agrow(v->m->arena, ds.d, ds.n, &ds.cap, sizeof *ds.d);
		ds.d[ds.n++] = (struct decl){'p', p->name, 1};
	}
	for (uint k = 0; k < fn->nins; k++) {
		const Ins *i = &fn->ins[k];
		switch (i->op) {
		case Oopen:
			ds.scope = agrow(v->m->arena, ds.scope, ds.nscope, &ds.capscope, sizeof *ds.scope);
			ds.scope[ds.nscope++] = ds.n;
			break;
		case Oclose:
			if (ds.nscope)
				ds.n = ds.scope[--ds.nscope];
			break;
		case Oreg:
			regdecl(v, k, &ds);
			break;
		case Ovar:
			declare(v, k, &ds, (struct decl){'v', v->m->sym[i->arg[0].idx].name, 1});
			break;
		}
	}
}

/* a parameter's declaration: .param or .reg, and a type (the parser
 * reads it so; a pass that makes a function may not) */
static int
paramok(const Param *p)
{
	Lexer lx;
	Tok t;
	int state, typed = 0;

	lex_init(&lx, p->decl.s, p->decl.s ? p->decl.n : 0);
	t = lex(&lx);
	state = tokis(t, ".param") || tokis(t, ".reg");
	for (; t.kind != TEOF; t = lex(&lx))
		typed |= t.kind == TDIR && (tyof((Str){t.s + 1, t.n - 1}) || tokis(t, ".texref")
		                            || tokis(t, ".surfref") || tokis(t, ".samplerref"));
	return state && typed;
}

void
params(V *v)
{
	Fn *fn = v->fn;
	uint n = fn->nret + fn->npar;

	for (uint a = 0; a < n; a++) {
		const Param *p = a < fn->nret ? &fn->ret[a] : &fn->par[a - fn->nret];
		if (!paramok(p))
			errline(v, fn->line, "parameter '%.*s' needs a state space (.param or .reg) and a type",
			        (int)p->name.n, p->name.s);
		for (uint b = 0; b < a; b++) {
			const Param *q = b < fn->nret ? &fn->ret[b] : &fn->par[b - fn->nret];
			if (p->name.n == q->name.n && !memcmp(p->name.s, q->name.s, p->name.n)) {
				errline(v, fn->line, "parameter '%.*s' is declared twice",
				        (int)p->name.n, p->name.s);
				break;
			}
		}
	}
}

/* names: every operand resolves */

/* mark with stamp the names a body may use besides the module's: its
 * parameters and its body-level variables */
void
locals(V *v, uint *local, uint stamp)
{
	Fn *fn = v->fn;
	Module *m = v->m;

	for (uint k = 0; k < fn->nret + fn->npar; k++) {
		const Param *p = k < fn->npar ? &fn->par[k] : &fn->ret[k - fn->npar];
		uint s = names_get(m->symnames, p->name.s, p->name.n);
		if (s != ~0u)
			local[s] = stamp;
	}
	for (uint k = 0; k < fn->nins; k++)
		if (fn->ins[k].op == Ovar)
			local[fn->ins[k].arg[0].idx] = stamp;
}

static Fn *
symfn(const Module *m, uint s)
{
	Fn *d = NULL;

	for (uint k = 0; k < m->nfn; k++)
		if (m->fn[k]->sym == s) {
			if (!(m->fn[k]->flags & FDECL))
				return m->fn[k];
			d = m->fn[k];
		}
	return d;
}

/* names nobody declares: a sink ("{%f1, _}": the parser reads one just
 * before '}' as a name) and WARP_SZ, PTX's one predefined constant (nvcc
 * writes it for warpSize) */
static int
predefined(Str s)
{
	return (s.n == 1 && s.s[0] == '_') || (s.n == 7 && !memcmp(s.s, "WARP_SZ", 7));
}


/* where each statement's innermost { } scope ends (fn->nins: the body) */
uint *
scopeends(V *v)
{
	Fn *fn = v->fn;
	uint *end = arena_alloc(v->m->arena, (fn->nins + 1) * sizeof *end);
	uint *stack = arena_alloc(v->m->arena, (fn->nins + 1) * sizeof *stack), sp = 0;

	for (uint k = fn->nins; k-- > 0;) {   /* backwards: a '}' is met before its '{' */
		if (fn->ins[k].op == Oclose)
			stack[sp++] = k;
		end[k] = sp ? stack[sp - 1] : fn->nins;
		if (fn->ins[k].op == Oopen && sp)
			sp--;
	}
	return end;
}

/* is a register declared at statement d (a .reg) visible at statement k? */
static int
visible(const struct scope *sc, uint d, uint k)
{
	return d < k && k < sc->end[d];
}

static void
resolve(V *v, uint k, Ref r, const struct scope *sc)
{
	Fn *fn = v->fn;
	Str s;
	uint n;

	switch (r.kind) {
	case RReg:
		if (regty(fn, r.idx) < 0) {
			s = regspan(v, r.idx);
			errat(v, k, "undeclared register '%.*s'", (int)s.n, s.s);
		} else if (!(fn->reg[r.idx].flags & RGSPECIAL)
		           && (fn->reg[r.idx].decl == ~0u || !visible(sc, fn->reg[r.idx].decl, k))) {
			s = regspan(v, r.idx);
			errat(v, k, "'%.*s' is used where its .reg declaration is not in scope "
			      "(before it, or outside its { })", (int)s.n, s.s);
		}
		break;
	case RSym:
		if (!sc->declared[r.idx] && sc->local[r.idx] != sc->stamp
		    && !predefined(v->m->sym[r.idx].name))
			errat(v, k, "undefined name '%.*s'", (int)v->m->sym[r.idx].name.n,
			      v->m->sym[r.idx].name.s);
		break;
	case RLbl:
		if (fn->lbl[r.idx].ins == ~0u)
			errat(v, k, "label '%.*s' is never placed", (int)fn->lbl[r.idx].name.n,
			      fn->lbl[r.idx].name.s);
		break;
	case RMem:
		resolve(v, k, fn->mem[r.idx].base, sc);
		resolve(v, k, fn->mem[r.idx].vec, sc);
		break;
	case RVec:
	case RList:
		n = fn->vec[r.idx].n;
		for (uint j = 0; j < n; j++)
			resolve(v, k, fn->vec[r.idx].el[j], sc);
		break;
	}
}

static uint
listlen(const Fn *fn, Ref r)
{
	return r.kind == RList ? fn->vec[r.idx].n : 0;
}

/* call (rets), f, (args) [, proto]: f is a declared function, called with
 * its counts of return values and arguments */
static void
callee(V *v, uint k)
{
	const Ins *i = &v->fn->ins[k];
	uint a = i->narg && i->arg[0].kind == RList, nret = a ? listlen(v->fn, i->arg[0]) : 0;
	Fn *f;
	Str s;

	if (a >= i->narg || i->arg[a].kind != RSym) {
		if (a >= i->narg)
			errat(v, k, "'call' without a function");
		return;
	}
	s = v->m->sym[i->arg[a].idx].name;
	if (!(f = symfn(v->m, i->arg[a].idx))) {
		errat(v, k, "call to '%.*s', which is not a declared function", (int)s.n, s.s);
		return;
	}
	if (f->flags & FENTRY) {
		errat(v, k, "call to the kernel '%.*s'", (int)s.n, s.s);
		return;
	}
	if (nret != f->nret)
		errat(v, k, "call to '%.*s' with %u %s; it has %u", (int)s.n, s.s,
		      nret, plural(nret, "return value", "return values"), f->nret);
	uint nargs = listlen(v->fn, a + 1 < i->narg ? i->arg[a + 1] : (Ref){0});
	if (nargs != f->npar)
		errat(v, k, "call to '%.*s' with %u %s; it takes %u", (int)s.n, s.s, nargs,
		      plural(nargs, "argument", "arguments"), f->npar);
}

/* the labels of "L: .branchtargets A, B;" */
static void
branchtargets(V *v, uint k)
{
	const Ins *i = &v->fn->ins[k];
	Lexer lx;
	Tok t;

	lex_init(&lx, i->src.s, i->src.n);
	if (!i->src.s || !tokis(lex(&lx), ".branchtargets"))
		return;
	for (t = lex(&lx); t.kind != TEOF; t = lex(&lx))
		if (t.kind == TIDENT && names_get(v->fn->lblnames, t.s, t.n) == ~0u)
			errat(v, k, "undefined label '%.*s'", (int)t.n, t.s);
}

void
names(V *v, const struct scope *sc)
{
	Fn *fn = v->fn;

	for (uint k = 0; k < fn->nins; k++) {
		const Ins *i = &fn->ins[k];
		if (i->op == Olabel && fn->lbl[i->arg[0].idx].ins != k)
			errat(v, k, "label '%.*s' is out of place", (int)fn->lbl[i->arg[0].idx].name.n,
			      fn->lbl[i->arg[0].idx].name.s);
		if (i->op == Oraw)
			branchtargets(v, k);
		if (i->op >= NOP)
			continue;
		resolve(v, k, i->pred, sc);
		for (uint a = 0; a < i->narg; a++) {
			Ref r = i->arg[a];
			if (i->op == Ocall && r.kind == RSym && a == (i->arg[0].kind == RList))
				continue;   /* the callee: callee() */
			if (i->op == Obra && r.kind == RSym)
				errat(v, k, "undefined label '%.*s'", (int)v->m->sym[r.idx].name.n,
				      v->m->sym[r.idx].name.s);
			else
				resolve(v, k, r, sc);
		}
		if (i->op == Ocall)
			callee(v, k);
	}
}
