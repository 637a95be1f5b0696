/* verify.c: the PTX verifier. A pass's output is checked here before ptxas
 * sees it, as LLVM verifies its IR after every pass: what ptxas would
 * reject, and what a pass can break without ptxas noticing.
 *
 * The module: .version first and .target second, each one ptxas knows,
 * the target no newer than the version (they bound what instructions may
 * use), .address_size once; module names defined once. Each function:
 * parameters of a state space and a type, and declarations within one { }
 * scope, declared once, each .reg of a register type; every operand
 * resolves (a register declared or special, a label placed, a symbol or
 * callee declared, a call with the callee's count of arguments); each
 * instruction has a type its opcode takes, the type suffix and the
 * rounding or .approx modifier the ISA requires and only the modifiers of
 * that kind of type, setp/set a comparison of the type, the operand count
 * and types its shape gives (PTX ISA 9.4: Table 26, and Tables 27/28 for
 * the wider registers ld, st and cvt take), immediates of the operand's
 * kind, results in registers, vectors of the size its .vN says, and a
 * .target and .version at least those it needs (ops.h, and the table
 * below for forms that need more). Each rule was checked against ptxas 13,
 * which is the reference, by probes of one difference each. What the
 * parser rejects is syntax (numbers, names, .reg and parameter forms); the
 * rest is here, where a pass's output is checked too.
 *
 * Definedness. PTX gives a register read before any write an undefined
 * value; it is not an error, and ptxas accepts it. cicc writes such reads
 * where LLVM had an undef value (a variable the source never sets on some
 * path, a vector lane it never fills), so a register that is written on
 * some paths to a read but not on others is normal PTX. A register read
 * that no write reaches on any path is different: cicc's registers are
 * virtual and named per value, so a read that nothing writes means a pass
 * renamed, dropped or misplaced a definition. That is the error; cicc's
 * own PTX (every file the test suite builds) has none. */
#define _GNU_SOURCE   /* memmem */
#include "ptx/ptx.h"
#include <stdarg.h>
#include <stdint.h>
#include <string.h>

enum { MAXERR = 50 };

typedef struct V V;
struct V {
	Module *m;
	FILE *err;
	Fn *fn;
	int nerr;
	int sm;         /* .target sm_NN: NN, 0 if none */
	char arch;      /* the letter after the number (sm_90a), 0 if none */
	int ptx;        /* .version 8.5: 85 */
};

/* errors */

static uint
lineof(const Fn *fn, uint k)
{
	for (uint j = k + 1; j-- > 0;)
		if (fn->ins[j].line)
			return fn->ins[j].line;
	return fn->line;
}

static void
report(V *v, uint line, const Ins *i, const char *f, va_list ap)
{
	if (++v->nerr > MAXERR || !v->err)
		return;
	fprintf(v->err, "%s:%u: error: ", v->m->path, line);
	vfprintf(v->err, f, ap);
	fputc('\n', v->err);
	if (i) {
		fputc('\t', v->err);
		printins(v->err, v->fn, i);
		fputc('\n', v->err);
	}
	if (v->nerr == MAXERR)
		fprintf(v->err, "%s: error: too many errors; stopping\n", v->m->path);
}

/* an error at statement k of the current function */
static void __attribute__((format(printf, 3, 4)))
errat(V *v, uint k, const char *f, ...)
{
	va_list ap;

	va_start(ap, f);
	report(v, lineof(v->fn, k), &v->fn->ins[k], f, ap);
	va_end(ap);
}

/* an error at a line (a module item, a function's header) */
static void __attribute__((format(printf, 3, 4)))
errline(V *v, uint line, const char *f, ...)
{
	va_list ap;

	va_start(ap, f);
	report(v, line, NULL, f, ap);
	va_end(ap);
}

/* types */

static int isbit(int t) { return t >= Tb8 && t <= Tb128; }
static int isint(int t) { return t >= Tu8 && t <= Ts64; }
static int isflt(int t) { return t >= Tf16 && t <= Ttf32; }

/* the type twice as wide (mul.wide.s32 writes an s64) */
static int
wide(int t)
{
	switch (t) {
	case Tu16: return Tu32;
	case Tu32: return Tu64;
	case Ts16: return Ts32;
	case Ts32: return Ts64;
	case Tb16: return Tb32;
	case Tb32: return Tb64;
	}
	return Tnone;
}

/* does a register of type r fit an operand of type t (PTX ISA 9.4, Table
 * 26)? relaxed: ld, st and cvt also take a wider register (Tables 27, 28) */
static int
fits(int r, int t, int relaxed)
{
	if (!r || !t)
		return 1;
	if (r == Tpred || t == Tpred)
		return r == t;
	if (tybits[r] < tybits[t])
		return 0;
	if (tybits[r] > tybits[t])
		return relaxed && (isbit(r) || (isint(r) && !isflt(t)) || (isflt(r) && isbit(t)));
	if (isflt(t) && isflt(r))
		return r == t;
	if (isflt(t) || isflt(r))
		return isbit(t) || isbit(r);
	return 1;
}

/* modifiers */

static int
frnd(const Mods *md)
{
	return modhas(md, "rn") || modhas(md, "rz") || modhas(md, "rm") || modhas(md, "rp")
	       || modhas(md, "rna") || modhas(md, "rs");
}

static int
irnd(const Mods *md)
{
	return modhas(md, "rni") || modhas(md, "rzi") || modhas(md, "rmi") || modhas(md, "rpi");
}

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
static int
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
static int
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

static Str
regspan(V *v, uint r)
{
	char buf[512];

	regname(v->fn, r, buf, sizeof buf);
	return str(v->m, buf);
}

/* the module */

/* The .version and .target ptxas 13 knows (every other it calls
 * "Unsupported"). One above them all is taken: a newer toolkit wrote it,
 * and its ptxas knows. */
static const uchar versions[] = {10, 11, 12, 13, 14, 15, 20, 21, 22, 23, 30, 31, 32, 40, 41,
	42, 43, 50, 51, 60, 61, 62, 63, 64, 65, 70, 71, 72, 73, 74, 75, 76, 77, 78, 80, 81, 82,
	83, 84, 85, 86, 87, 88, 90};
/* with the least .version that takes each */
static const struct arch {
	const char *name;
	uchar ptx;
} arches[] = {
	{"10", 10}, {"11", 10}, {"12", 12}, {"13", 12}, {"20", 20}, {"21", 20}, {"30", 30},
	{"32", 40}, {"35", 31}, {"37", 41}, {"50", 40}, {"52", 41}, {"53", 42}, {"60", 50},
	{"61", 50}, {"62", 50}, {"70", 51}, {"72", 61}, {"75", 63}, {"80", 70}, {"82", 62},
	{"86", 71}, {"87", 74}, {"88", 73}, {"89", 78}, {"90", 78}, {"90a", 80}, {"100", 86},
	{"100a", 86}, {"100f", 88}, {"101", 86}, {"101a", 86}, {"101f", 88}, {"103", 88},
	{"103a", 88}, {"103f", 88}, {"110", 90}, {"110a", 90}, {"110f", 90}, {"120", 87},
	{"120a", 87}, {"120f", 88}, {"121", 88}, {"121a", 88}, {"121f", 88},
};

/* "9.0": ptxas reads the minor as a fraction (8.10 is 8.1) */
static int
knownversion(Str s)
{
	const char *p = s.s, *e = s.s + s.n;
	int v = 0;

	while (p < e && *p >= '0' && *p <= '9' && v < 1000)
		v = v * 10 + (*p++ - '0');
	if (p == s.s || p + 1 >= e || *p != '.' || p[1] < '0' || p[1] > '9')
		return 0;
	v = v * 10 + (p[1] - '0');
	for (p += 2; p < e && *p == '0'; p++)
		;
	if (p < e)
		return 0;
	for (size_t k = 0; k < countof(versions); k++)
		if (versions[k] == v)
			return 1;
	return v > versions[countof(versions) - 1];
}

/* t as sm_NN or compute_NN with its letter: the least .version it
 * needs, 0 for a newer one than the table's, -1 for none */
static int
knownarch(Tok t)
{
	uint n = t.n, k, num = 0;
	const char *s = t.s;

	if (n > 3 && !memcmp(s, "sm_", 3))
		k = 3;
	else if (n > 8 && !memcmp(s, "compute_", 8))
		k = 8;
	else
		return -1;
	for (uint j = 0; j < countof(arches); j++)
		if (strlen(arches[j].name) == n - k && !memcmp(arches[j].name, s + k, n - k))
			return arches[j].ptx;
	for (uint j = k; j < n && s[j] >= '0' && s[j] <= '9' && num < 100000; j++)
		num = num * 10 + (s[j] - '0');
	return num > 121 && num < 1000 && s[k] != '0' ? 0 : -1;
}

static int
debugsection(const Module *m)
{
	for (uint k = 0; k < m->ntop; k++)
		if (m->top[k].op == Oraw && strpre(m->top[k].src, ".section")
		    && memmem(m->top[k].src.s, m->top[k].src.n, ".debug_", 7))
			return 1;
	return 0;
}

/* .target arch ("," (arch | texmode_unified | texmode_independent | debug
 * | map_f64_to_f32))* */
static void
targetlist(V *v, uint line)
{
	Lexer lx;
	Tok t;
	int n = 0, tex = 0, need;

	lex_init(&lx, v->m->target.s, v->m->target.n);
	for (t = lex(&lx);; t = lex(&lx), n++) {
		if (t.kind != TIDENT) {
			errline(v, line, "'.target' expects a target before '%.*s'", (int)t.n, t.s);
			return;
		}
		if ((need = knownarch(t)) < 0 && (!n || !(tokis(t, "texmode_unified")
		    || tokis(t, "texmode_independent") || tokis(t, "debug") || tokis(t, "map_f64_to_f32")))) {
			errline(v, line, "unsupported .target '%.*s'", (int)t.n, t.s);
			return;
		}
		if (need > 0 && v->ptx && v->ptx < need)
			errline(v, line, "'%.*s' requires PTX ISA %d.%d or later (.version is %d.%d)",
			        (int)t.n, t.s, need / 10, need % 10, v->ptx / 10, v->ptx % 10);
		if (tokis(t, "debug") && !debugsection(v->m))
			errline(v, line, "'.target debug' and no .debug section: ptxas finds no debug information");
		if (tokis(t, "map_f64_to_f32") && v->sm >= 13)
			errline(v, line, "'map_f64_to_f32' is for sm_1x below sm_13");
		if (tokis(t, "texmode_unified") || tokis(t, "texmode_independent"))
			if (tex++)
				errline(v, line, "a second texmode in '.target'");
		t = lex(&lx);
		if (t.kind == TEOF)
			return;
		if (!tokis(t, ",")) {
			errline(v, line, "'.target' expects ',' before '%.*s'", (int)t.n, t.s);
			return;
		}
	}
}

/* .version, then .target, first; .address_size 32 or 64 once */
static void
directives(V *v)
{
	Module *m = v->m;
	int nver = 0, nsize = 0;

	for (uint k = 0; k < m->ntop; k++) {
		const Ins *i = &m->top[k];
		int ver = i->op == Oraw && strpre(i->src, ".version");
		int tgt = i->op == Oraw && strpre(i->src, ".target");
		int size = i->op == Oraw && strpre(i->src, ".address_size");
		if (ver && nver++)
			errline(v, i->line, "a second '.version'");
		if ((k == 0 && !ver) || (k == 1 && !tgt && nver))
			errline(v, i->line, "the module starts with '.version' and '.target'");
		if (ver && !knownversion(m->version))
			errline(v, i->line, "unsupported .version '%.*s'", (int)m->version.n, m->version.s);
		if (tgt && k == 1)
			targetlist(v, i->line);
		if (size && nsize++)
			errline(v, i->line, "a second '.address_size'");
		if (size && m->addrsize != 32 && m->addrsize != 64)
			errline(v, i->line, "'.address_size' is 32 or 64");
		if (size && v->ptx && v->ptx < 23)
			errline(v, i->line, "'.address_size' requires PTX ISA 2.3 or later (.version is %d.%d)",
			        v->ptx / 10, v->ptx % 10);
	}
}

/* "sm_90a, debug" -> 90 and 'a'; "9.0" -> 90 */
static void
target(V *v)
{
	v->sm = modtarget(v->m, &v->arch);
	v->ptx = modversion(v->m);   /* 0, not "M.m": no version checks */
	if (!v->m->version.s)
		errline(v, 1, "no '.version' directive");
	if (!v->m->target.s)
		errline(v, 1, "no '.target' directive");
	if (v->m->version.s && v->m->target.s)
		directives(v);
}

static int
isextern(const Ins *i)
{
	return i->name.n >= 7 && !memcmp(i->name.s, ".extern", 7);
}

/* a module-level name is defined once: a variable, or a function's body
 * (declarations of a function may repeat); *declared gets every name */
static void
modnames(V *v, uchar *declared)
{
	Module *m = v->m;
	uchar *def = arena_alloc(m->arena, m->nsym + 1);

	for (uint k = 0; k < m->ntop; k++) {
		const Ins *i = &m->top[k];
		uint s, line = i->line;
		if (i->op == Ovar)
			s = i->arg[0].idx;
		else if (i->op == Ofn) {
			Fn *f = m->fn[i->arg[0].idx];
			s = f->sym, line = f->line;
			declared[s] = 1;
			if (f->flags & FDECL)
				continue;
		} else
			continue;
		declared[s] = 1;
		if (i->op == Ovar && isextern(i))
			continue;
		if (def[s])
			errline(v, line, "'%.*s' is defined twice", (int)m->sym[s].name.n, m->sym[s].name.s);
		def[s] = 1;
	}
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
static void
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

static void
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
static void
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

struct scope {
	const uchar *declared;  /* module names */
	const uint *local;      /* == stamp: a name of this function */
	uint stamp;
	uint *end;              /* per statement: the '}' ending its innermost scope */
};

/* where each statement's innermost { } scope ends (fn->nins: the body) */
static uint *
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

static void
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

/* instructions */

#define NM(i) (int)(i)->name.n, (i)->name.s

static void
cvtround(V *v, uint k, const Mods *md)
{
	const Ins *i = &v->fn->ins[k];
	int d = md->t[0], a = md->t[1], f = frnd(md), n = irnd(md);
	int needf = 0, needn = 0;

	if (md->nt != 2)
		return;
	if (isflt(d) && isflt(a)) {
		if (tybits[d] < tybits[a] || d == Tf16x2 || d == Tbf16x2 || d == Ttf32)
			needf = 1;
		else if (tybits[d] > tybits[a] && (f || n))
			errat(v, k, "'%.*s' widens: it takes no rounding modifier", NM(i));
		else if (d == a && f)
			errat(v, k, "'%.*s' takes only an integer rounding modifier (.rni, .rzi, .rmi, .rpi)", NM(i));
	} else if (isflt(d))
		needf = 1;
	else if (isflt(a))
		needn = 1;
	else if (f || n)
		errat(v, k, "'%.*s' converts integers: it takes no rounding modifier", NM(i));
	if (needf && (!f || n))
		errat(v, k, "'%.*s' needs a rounding modifier (.rn, .rz, .rm, .rp)", NM(i));
	if (needn && (!n || f))
		errat(v, k, "'%.*s' needs an integer rounding modifier (.rni, .rzi, .rmi, .rpi)", NM(i));
}

/* how many of the parts are types that no register has, so not in
 * tyname[]: lanes (add.u16x2 works on .b32 registers) and the 8-, 6- and
 * 4-bit floats of cvt (cvt.rn.f16x2.e4m3x2 %r1, %rs1) */
static int
othertypes(const Mods *md)
{
	static const char *const names[] = {"u16x2", "s16x2", "f32x2", "e4m3", "e5m2", "e4m3x2",
		"e5m2x2", "e2m3x2", "e3m2x2", "e2m1x2", "e2m1x4", "ue8m0x2", "s2f6x2"};
	int n = 0;

	for (size_t j = 0; j < countof(names); j++)
		n += modhas(md, names[j]);
	return n;
}

/* the type suffix, and the rounding and .approx modifiers that have no
 * default (PTX ISA 9.7.3 and cvt; ptxas 13 rejects each one missing) */
static void
suffixes(V *v, uint k, const Mods *md)
{
	const Ins *i = &v->fn->ins[k];
	int t = md->nt ? md->t[0] : Tnone, ap = modhas(md, "approx");

	if (opinfo[i->op].ty && !md->nt && !othertypes(md)) {
		errat(v, k, "'%.*s' needs a type suffix", NM(i));
		return;
	}
	switch (i->op) {
	case Odiv:
		if (t == Tf32 && !ap && !modhas(md, "full") && !frnd(md))
			errat(v, k, "'%.*s' needs .approx, .full or a rounding modifier (.rn, .rz, .rm, .rp)", NM(i));
		if (t == Tf64 && (ap || modhas(md, "full")))
			errat(v, k, "'%.*s': an .f64 division takes a rounding modifier, not .approx or .full", NM(i));
		else if (t == Tf64 && !frnd(md))
			errat(v, k, "'%.*s' needs a rounding modifier (.rn, .rz, .rm, .rp)", NM(i));
		break;
	case Orcp:
	case Osqrt:
		if (t == Tf32 && !ap && !frnd(md))
			errat(v, k, "'%.*s' needs .approx or a rounding modifier (.rn, .rz, .rm, .rp)", NM(i));
		if (t == Tf64 && ap && (i->op == Osqrt || !modhas(md, "ftz")))
			errat(v, k, "'%.*s': of the .f64 approximations only rcp.approx.ftz.f64 exists", NM(i));
		else if (t == Tf64 && !ap && !frnd(md))
			errat(v, k, "'%.*s' needs a rounding modifier (.rn, .rz, .rm, .rp)", NM(i));
		break;
	case Orsqrt: case Osin: case Ocos: case Olg2: case Oex2: case Otanh:
		if (isflt(t) && !ap)
			errat(v, k, "'%.*s' needs .approx", NM(i));
		break;
	case Ofma:
	case Omad:
		if (isflt(t) && !frnd(md))
			errat(v, k, "'%.*s' needs a rounding modifier (.rn, .rz, .rm, .rp)", NM(i));
		break;
	case Ocvt:
		cvtround(v, k, md);
		break;
	}
}

/* The types each opcode takes (its first type suffix), as ptxas 13 takes
 * them (probed with every type on every opcode here); an opcode not
 * listed is not checked. */
#define B(t) (1u << (t))
#define INT (B(Tu16) | B(Tu32) | B(Tu64) | B(Ts16) | B(Ts32) | B(Ts64))
#define SINT (B(Ts16) | B(Ts32) | B(Ts64))
#define BITS (B(Tb16) | B(Tb32) | B(Tb64))
#define FLT (B(Tf32) | B(Tf64))
#define HALF (B(Tf16) | B(Tf16x2) | B(Tbf16) | B(Tbf16x2))
#define MEM (B(Tb8) | B(Tu8) | B(Ts8) | BITS | B(Tb128) | INT | FLT)
static const struct optype {
	ushort op;
	uint types;
} optypes[] = {
	{Oadd, INT | HALF | FLT}, {Osub, INT | HALF | FLT}, {Omul, INT | HALF | FLT},
	{Omad, INT | FLT}, {Omul24, B(Tu32) | B(Ts32)}, {Omad24, B(Tu32) | B(Ts32)},
	{Osad, INT}, {Odiv, INT | FLT}, {Orem, INT}, {Oabs, SINT | HALF | FLT},
	{Oneg, SINT | HALF | FLT}, {Omin, INT | HALF | FLT}, {Omax, INT | HALF | FLT},
	{Opopc, B(Tb32) | B(Tb64)}, {Oclz, B(Tb32) | B(Tb64)}, {Obrev, B(Tb32) | B(Tb64)},
	{Obfi, B(Tb32) | B(Tb64)}, {Obfind, B(Tu32) | B(Tu64) | B(Ts32) | B(Ts64)},
	{Obfe, B(Tu32) | B(Tu64) | B(Ts32) | B(Ts64)}, {Oand, B(Tpred) | BITS},
	{Oor, B(Tpred) | BITS}, {Oxor, B(Tpred) | BITS}, {Onot, B(Tpred) | BITS},
	{Ocnot, BITS}, {Oshl, BITS}, {Oshr, BITS | INT}, {Osetp, BITS | INT | HALF | FLT},
	{Oselp, BITS | INT | FLT}, {Omov, B(Tpred) | BITS | B(Tb128) | INT | FLT},
	{Old, MEM}, {Oldu, MEM}, {Ost, MEM}, {Orcp, FLT}, {Osqrt, FLT}, {Orsqrt, FLT},
	{Osin, B(Tf32)}, {Ocos, B(Tf32)}, {Olg2, B(Tf32)}, {Oex2, HALF | B(Tf32)},
	{Otanh, HALF | B(Tf32)}, {Ofma, HALF | FLT}, {Otestp, FLT}, {Ocopysign, FLT},
	{Oprmt, B(Tb32)}, {Olop3, B(Tb32)}, {Oaddc, INT}, {Osubc, INT},
	{Ocvta, B(Tu32) | B(Tu64)},
};

static const char *const cmps[] = {"eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs",
	"equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"};

/* the comparison of setp and set: one, and one that the type has (eq
 * and ne for bits, lo ls hi hs for unsigned too, the unordered ones and
 * num and nan for floating point); .and, .or or .xor with a predicate
 * operand, and only then */
static void
compare(V *v, uint k, const Mods *md)
{
	const Ins *i = &v->fn->ins[k];
	int t = i->op == Oset ? (md->nt > 1 ? md->t[1] : Tnone) : md->nt ? md->t[0] : Tnone;
	int c = -1, boolop = modhas(md, "and") || modhas(md, "or") || modhas(md, "xor");
	uint n = 0;

	for (uint j = 0; j < countof(cmps); j++)
		if (modhas(md, cmps[j]))
			c = (int)j;
	if (c < 0) {
		errat(v, k, "'%.*s' needs a comparison (.eq, .ne, .lt, .le, .gt, .ge ...)", NM(i));
		return;
	}
	if (t && ((isbit(t) && c > 1) || (t >= Ts8 && t <= Ts64 && c > 5)
	          || (t >= Tu8 && t <= Tu64 && c > 9) || (isflt(t) && c >= 6 && c <= 9)))
		errat(v, k, "'%.*s': .%s does not compare .%s", NM(i), cmps[c], tyname[t]);
	if (t && (!isflt(t) || t == Tbf16 || t == Tbf16x2) && modhas(md, "ftz"))
		errat(v, k, "'%.*s': .ftz is for floating-point types other than .bf16", NM(i));
	if (i->op == Oset && md->nt > 1 && !(B(md->t[0]) & (B(Tu32) | B(Ts32) | B(Tf32) | HALF)))
		errat(v, k, "'%.*s': set writes .u32, .s32, .f32 or a half type, not .%s", NM(i),
		      tyname[md->t[0]]);
	if (i->op == Oset && md->nt < 2)
		errat(v, k, "'%.*s' needs the type of its result and of its sources", NM(i));
	for (uint a = 0; a < i->narg; a++)
		n += !i->arg[a].bar;
	if (boolop && n == 3)
		errat(v, k, "'%.*s' needs the predicate its .and, .or or .xor combines", NM(i));
	if (!boolop && n == 4)
		errat(v, k, "'%.*s': a predicate operand needs .and, .or or .xor", NM(i));
}

static int mixed(const Ins *i, const Mods *md);

/* the opcode takes the type; its modifiers are for that kind of type */
static void
types(V *v, uint k, const Mods *md)
{
	const Ins *i = &v->fn->ins[k];
	int t = md->nt ? md->t[0] : Tnone, arith = 0;

	if (i->op == Osetp || i->op == Oset)
		compare(v, k, md);
	if (!t || (md->nt > 1 && i->op != Oset && i->op != Ocvt && !mixed(i, md)))
		return;   /* a second type: operands() says it */
	for (size_t j = 0; j < countof(optypes); j++)
		if (optypes[j].op == i->op && !(optypes[j].types & B(t))) {
			errat(v, k, "'%.*s': %s takes no .%s", NM(i), opinfo[i->op].name, tyname[t]);
			return;
		}
	switch (i->op) {
	case Oadd: case Osub: case Omul: case Omad: case Odiv: case Orem: case Omin: case Omax:
	case Oabs: case Oneg:
		arith = 1;
	}
	if (arith && isint(t) && (frnd(md) || modhas(md, "ftz") || modhas(md, "approx")
	                          || modhas(md, "full")))
		errat(v, k, "'%.*s': its rounding and .ftz, .approx, .full are for floating-point types",
		      NM(i));
	if ((i->op == Omul || i->op == Omad) && isint(t)
	    && !modhas(md, "lo") && !modhas(md, "hi") && !modhas(md, "wide"))
		errat(v, k, "'%.*s' needs .lo, .hi or .wide", NM(i));
	if ((i->op == Omul || i->op == Omad) && !isint(t)
	    && (modhas(md, "lo") || modhas(md, "hi") || modhas(md, "wide")))
		errat(v, k, "'%.*s': .lo, .hi and .wide are for integer types", NM(i));
	if ((i->op == Omul || i->op == Omad) && modhas(md, "wide") && tybits[t] > 32)
		errat(v, k, "'%.*s': .wide is for 16- and 32-bit integers", NM(i));
	if ((t == Tbf16 || t == Tbf16x2) && i->op != Oex2 && i->op != Osetp && modhas(md, "ftz"))
		errat(v, k, "'%.*s': .bf16 takes no .ftz", NM(i));
	if (i->op == Oex2 && (t == Tf16 || t == Tf16x2) && modhas(md, "ftz"))
		errat(v, k, "'%.*s': ex2 of .f16 takes no .ftz", NM(i));
	if (i->op == Oex2 && (t == Tbf16 || t == Tbf16x2) && !modhas(md, "ftz"))
		errat(v, k, "'%.*s': ex2 of .bf16 needs .ftz", NM(i));
	if (i->op == Ocvta && v->m->addrsize > 0 && tybits[t] != v->m->addrsize)
		errat(v, k, "'%.*s': an address is .u%d here (.address_size)", NM(i), v->m->addrsize);
	if (i->op == Ocvt && md->nt + othertypes(md) != 2)
		errat(v, k, "'%.*s' needs the type of its result and of its source", NM(i));
	if ((i->op == Oadd || i->op == Osub) && isint(t) && t != Ts32 && modhas(md, "sat"))
		errat(v, k, "'%.*s': .sat on an integer is for .s32 only", NM(i));
	if ((i->op == Oabs || i->op == Oneg || i->op == Omin || i->op == Omax) && frnd(md))
		errat(v, k, "'%.*s' takes no rounding modifier", NM(i));
}
#undef B

/* forms that need more than their opcode's base form (ops.h): a type or a
 * modifier among the parts of the name, from the "Target ISA Notes" */
static const struct form {
	ushort op;
	const char *part;
	uchar sm, ptx;
} forms[] = {
	{Oadd, "f16", 53, 42}, {Oadd, "f16x2", 53, 42}, {Osub, "f16", 53, 42},
	{Osub, "f16x2", 53, 42}, {Omul, "f16", 53, 42}, {Omul, "f16x2", 53, 42},
	{Ofma, "f16", 53, 42}, {Ofma, "f16x2", 53, 42}, {Oneg, "f16", 53, 60},
	{Oneg, "f16x2", 53, 60}, {Oabs, "f16", 53, 65}, {Oabs, "f16x2", 53, 65},
	{Osetp, "f16", 53, 42}, {Osetp, "f16x2", 53, 42}, {Oset, "f16", 53, 42},
	{Oset, "f16x2", 53, 42},
	{Oadd, "bf16", 90, 78}, {Oadd, "bf16x2", 90, 78}, {Osub, "bf16", 90, 78},
	{Osub, "bf16x2", 90, 78}, {Omul, "bf16", 90, 78}, {Omul, "bf16x2", 90, 78},
	{Ofma, "bf16", 80, 70}, {Ofma, "bf16x2", 80, 70}, {Ofma, "relu", 80, 70},
	{Oneg, "bf16", 80, 70}, {Oneg, "bf16x2", 80, 70}, {Oabs, "bf16", 80, 70},
	{Oabs, "bf16x2", 80, 70}, {Osetp, "bf16", 90, 78}, {Osetp, "bf16x2", 90, 78},
	{Oset, "bf16", 90, 78}, {Oset, "bf16x2", 90, 78},
	{Omin, "f16", 80, 70}, {Omin, "f16x2", 80, 70}, {Omin, "bf16", 80, 70},
	{Omin, "bf16x2", 80, 70}, {Omax, "f16", 80, 70}, {Omax, "f16x2", 80, 70},
	{Omax, "bf16", 80, 70}, {Omax, "bf16x2", 80, 70}, {Omin, "NaN", 80, 70},
	{Omax, "NaN", 80, 70}, {Omin, "xorsign", 86, 72}, {Omax, "xorsign", 86, 72},
	{Oex2, "f16", 75, 70}, {Oex2, "f16x2", 75, 70}, {Oex2, "bf16", 90, 78},
	{Oex2, "bf16x2", 90, 78}, {Otanh, "bf16", 90, 78}, {Otanh, "bf16x2", 90, 78},
	{Oadd, "f32x2", 100, 86}, {Osub, "f32x2", 100, 86}, {Omul, "f32x2", 100, 86},
	{Ofma, "f32x2", 100, 86}, {Oadd, "u16x2", 90, 80}, {Oadd, "s16x2", 90, 80},
	{Ocvt, "f16x2", 80, 70}, {Ocvt, "bf16", 80, 70}, {Ocvt, "bf16x2", 80, 70},
	{Ocvt, "tf32", 80, 70}, {Ocvt, "relu", 80, 70},
	{Oatom, "f64", 60, 50}, {Ored, "f64", 60, 50}, {Oatom, "f16x2", 60, 62},
	{Ored, "f16x2", 60, 62}, {Oatom, "f16", 70, 63}, {Ored, "f16", 70, 63},
	{Oatom, "bf16", 90, 78}, {Oatom, "bf16x2", 90, 78}, {Ored, "bf16", 90, 78},
	{Ored, "bf16x2", 90, 78},
	{Old, "b128", 70, 83}, {Ost, "b128", 70, 83}, {Omov, "b128", 70, 83},
	{Ocp, "bulk", 90, 80}, {Oshfl, "sync", 30, 60}, {Ovote, "sync", 30, 60},
	{Obar, "warp", 30, 60}, {Ofence, "proxy", 70, 75}, {Omembar, "proxy", 60, 75},
};

/* add/sub/fma.f32.f16 (and .bf16): an f32 result of f16 inputs (PTX ISA
 * 8.6, sm_100); the only second type an arithmetic shape takes */
static int
mixed(const Ins *i, const Mods *md)
{
	return (i->op == Oadd || i->op == Osub || i->op == Ofma) && md->nt == 2 &&
	       md->t[0] == Tf32 && (md->t[1] == Tf16 || md->t[1] == Tbf16);
}

static void
needs(V *v, uint k, const Mods *md)
{
	const Ins *i = &v->fn->ins[k];
	int sm = opinfo[i->op].sm, ptx = opinfo[i->op].ptx;

	for (size_t f = 0; f < countof(forms); f++)
		if (forms[f].op == i->op && modhas(md, forms[f].part)) {
			sm = sm > forms[f].sm ? sm : forms[f].sm;
			ptx = ptx > forms[f].ptx ? ptx : forms[f].ptx;
		}
	if (mixed(i, md))
		sm = sm > 100 ? sm : 100, ptx = ptx > 86 ? ptx : 86;
	if (v->sm && sm > v->sm)
		errat(v, k, "'%.*s' requires sm_%d or higher (.target is sm_%d)", NM(i), sm, v->sm);
	if (v->ptx && ptx > v->ptx)
		errat(v, k, "'%.*s' requires PTX ISA %d.%d or later (.version is %d.%d)", NM(i),
		      ptx / 10, ptx % 10, v->ptx / 10, v->ptx % 10);
	if ((i->op == Osetmaxnreg || i->op == Owgmma) && v->sm && v->arch != 'a' && v->arch != 'f')
		errat(v, k, "'%.*s' requires an architecture-specific target such as sm_%da "
		      "(.target is sm_%d)", NM(i), v->sm, v->sm);
}

/* An instruction's operands, one letter each (STYLE: a table as a switch):
 *   d the first type suffix   e the second   W twice the first (mul.wide)
 *   u .u32   p .pred   a an address [..]   x anything
 * Letters after '|' are optional. The second half of "a|b" is a .pred. */
static const char *
shape(const Ins *i, const Mods *md)
{
	int w = modhas(md, "wide");

	if (mixed(i, md))
		return i->op == Ofma ? "deed" : "ded";
	switch (i->op) {
	case Oadd: case Osub: case Oand: case Oor: case Oxor: case Odiv: case Orem:
	case Ocopysign: case Omul24: case Oaddc: case Osubc:
		return "ddd";
	case Omul:
		return w ? "Wdd" : "ddd";
	case Omad:
		return w ? "WddW" : "dddd";
	case Omad24: case Omadc: case Osad: case Ofma: case Oprmt:
		return "dddd";
	case Olop3:
		return "ddddx|p";
	case Omin: case Omax:
		return "ddd|d";
	case Oabs: case Oneg: case Onot: case Ocnot: case Orcp: case Osqrt: case Orsqrt:
	case Osin: case Ocos: case Olg2: case Oex2: case Otanh: case Obrev: case Omov:
	case Ocvta: case Oalloca:
		return "dd";
	case Opopc: case Oclz: case Obfind: case Ogetctarank:
		return "ud";
	case Otestp:
		return "pd";
	case Oshl: case Oshr: case Oszext: case Omapa: case Oredux:
		return "ddu";
	case Oshf: case Ofns:
		return "dddu";
	case Obfe:
		return "dduu";
	case Obfi:
		return "ddduu";
	case Obmsk:
		return "duu";
	case Osetp:
		return "pdd|p";
	case Oset:
		return "dee|p";
	case Oselp:
		return "dddp";
	case Oslct:
		return "ddde";
	case Ocvt:
		return md->nt == 2 ? "de|e" : NULL;
	case Old: case Oldu:
		return "da";
	case Ost:
		return "ad";
	case Oatom:
		return md->vec ? NULL : "dad|d";
	case Ored:
		return md->vec ? NULL : "ad";
	case Oshfl:
		return "dduu|u";
	case Ovote:
		return "dp|u";
	case Omatch:
		return "ud|u";
	case Oactivemask: case Ostacksave: case Ostackrestore:
		return "d";
	case Onanosleep: case Obrx:
		return "u|x";
	case Oisspacep:
		return "px";
	case Oelect:
		return "uu";
	case Odp4a: case Odp2a:
		return "uuuu";
	}
	return NULL;
}

static int
relaxed(const Ins *i)
{
	return i->op == Old || i->op == Oldu || i->op == Ost || i->op == Ocvt;
}

/* the type an operand letter asks for */
static int
want(char c, const Mods *md)
{
	switch (c) {
	case 'd': return md->nt ? md->t[0] : Tnone;
	case 'e': return md->nt > 1 ? md->t[1] : Tnone;
	case 'W': return md->nt ? wide(md->t[0]) : Tnone;
	case 'u': return Tu32;
	case 'p': return Tpred;
	}
	return Tnone;
}

/* the same shape() the verifier checks against, for the passes: a pass
 * that changes an instruction's type must know which operands carry it */
int
argtype(const Ins *i, uint a)
{
	Mods md;
	const char *sh;
	uint pos = 0;

	if (a >= i->narg)
		return Tnone;
	if (i->arg[a].bar)
		return Tpred;   /* the second half of "a|b" */
	modsplit(i, &md);
	if (!(sh = shape(i, &md)))
		return Tnone;
	for (uint k = 0; k < a; k++)
		pos += !i->arg[k].bar;
	for (; *sh; sh++)
		if (*sh != '|' && !pos--)
			return want(*sh, &md);
	return Tnone;
}

static void
regfits(V *v, uint k, uint pos, uint r, int t, int rel)
{
	const Ins *i = &v->fn->ins[k];
	int rt = regty(v->fn, r);
	Str s;

	if (rt < 0 || fits(rt, t, rel))
		return;
	s = regspan(v, r);
	if (!pos)
		errat(v, k, "'%.*s' guard: '%.*s' is .%s, not .pred", NM(i), (int)s.n, s.s,
		      rt ? tyname[rt] : "(untyped)");
	else
		errat(v, k, "'%.*s' operand %u: '%.*s' is .%s, not .%s", NM(i), pos, (int)s.n, s.s,
		      rt ? tyname[rt] : "(untyped)", tyname[t]);
}

/* can an immediate of form k (immform()) stand for an operand of type
 * t? As ptxas 13 reads them: an integer for an integer, bit or predicate
 * operand; a real or 0d bits for .f32, .f64 and .b64; 0f bits for .f32,
 * .f64 and .b32; no immediate at all for .f16, .bf16, their pairs, .tf32 */
static int
immfits(int k, int t)
{
	switch (t) {
	case Tf32: case Tf64:
		return k != NINT;
	case Tf16: case Tf16x2: case Tbf16: case Tbf16x2: case Ttf32:
		return 0;
	case Tb32:
		return k == NINT || k == NF32;
	case Tb64:
		return k == NINT || k == NREAL || k == NF64;
	}
	return k == NINT;
}

static void
immediate(V *v, uint k, uint pos, Ref r, int t)
{
	const Ins *i = &v->fn->ins[k];
	Str s = v->fn->imm[r.idx].text;

	if (t && !immfits(immform(s), t))
		errat(v, k, "'%.*s' operand %u: '%.*s' is no .%s constant", NM(i), pos, (int)s.n, s.s,
		      tyname[t]);
}

/* mov.b64 %rd, {%r1, %r2}: 2 or 4 parts that add up to the type */
static void
pack(V *v, uint k, uint pos, const Vec *x, const Mods *md)
{
	const Ins *i = &v->fn->ins[k];
	int t = md->nt ? md->t[0] : Tnone;

	if (x->n != 2 && x->n != 4) {
		errat(v, k, "'%.*s' operand %u: a vector of %u %s (2 or 4)", NM(i), pos, x->n,
		      plural(x->n, "part", "parts"));
		return;
	}
	for (uint e = 0; e < x->n; e++) {
		int rt;
		if (x->el[e].kind != RReg || (rt = regty(v->fn, x->el[e].idx)) <= 0 || !t)
			continue;
		if (tybits[rt] * x->n != tybits[t]) {
			Str s = regspan(v, x->el[e].idx);
			errat(v, k, "'%.*s' operand %u: '%.*s' is .%s; %u parts of .%s take %u bits each",
			      NM(i), pos, (int)s.n, s.s, tyname[rt], x->n, tyname[t], tybits[t] / x->n);
			return;
		}
	}
}

/* ld.v4 {a, b, c, d}: as many registers as .vN says, each fitting t */
static void
vector(V *v, uint k, uint pos, const Vec *x, const Mods *md, int t)
{
	const Ins *i = &v->fn->ins[k];

	if (x->n != md->vec) {
		errat(v, k, "'%.*s' operand %u: a vector of %u, not %u", NM(i), pos, x->n, md->vec);
		return;
	}
	for (uint e = 0; e < x->n; e++)
		if (x->el[e].kind == RReg)
			regfits(v, k, pos, x->el[e].idx, t, relaxed(i));
		else if (x->el[e].kind == RImm && isflt(t))   /* ptxas takes 1.5 for .u32 here */
			immediate(v, k, pos, x->el[e], t);
}

/* the sink _ (read as a name where a character follows it: "_|%p") */
static int
issink(const V *v, Ref r)
{
	return r.kind == RSink || (r.kind == RSym && streq(v->m->sym[r.idx].name, "_"));
}

/* a result goes to a register, or to the sink _ */
static void
result(V *v, uint k, uint pos, Ref r)
{
	const Ins *i = &v->fn->ins[k];

	if (r.kind == RVec) {
		for (uint e = 0; e < v->fn->vec[r.idx].n; e++)
			result(v, k, pos, v->fn->vec[r.idx].el[e]);
		return;
	}
	if (r.kind != RReg && !issink(v, r))
		errat(v, k, "'%.*s' operand %u: a result goes to a register, not '%s'", NM(i), pos,
		      refstr(v->fn, r));
}

static void
address(V *v, uint k, uint pos, Ref r, const Mods *md)
{
	const Ins *i = &v->fn->ins[k];
	Ref b;
	int rt;

	if (r.kind != RMem) {
		errat(v, k, "'%.*s' operand %u must be an address", NM(i), pos);
		return;
	}
	b = v->fn->mem[r.idx].base;
	if (b.kind == RImm && !modspace(md, "local"))
		errat(v, k, "'%.*s' operand %u: an address of a number is for .local only", NM(i), pos);
	if (b.kind == RReg && (rt = regty(v->fn, b.idx)) > 0
	    && (rt == Tpred || isflt(rt) || (tybits[rt] != 32 && tybits[rt] != 64))) {
		Str s = regspan(v, b.idx);
		errat(v, k, "'%.*s' operand %u: the address register '%.*s' is .%s", NM(i), pos,
		      (int)s.n, s.s, tyname[rt]);
	}
}

/* operand pos of statement k, of letter c; def: a result */
static void
operand(V *v, uint k, uint pos, char c, Ref r, const Mods *md, int def)
{
	const Ins *i = &v->fn->ins[k];
	int t = want(c, md), data = (i->op == Old || i->op == Oldu) ? pos == 1 : i->op == Ost && pos == 2;

	if (c == 'a') {
		address(v, k, pos, r, md);
		return;
	}
	if (def)
		result(v, k, pos, r);
	else if (issink(v, r))
		errat(v, k, "'%.*s' operand %u: '_' takes a result, it has no value", NM(i), pos);
	if (r.kind == RImm && !def)
		immediate(v, k, pos, r, t);
	if (r.kind == RVec && i->op == Omov) {
		pack(v, k, pos, &v->fn->vec[r.idx], md);
		return;
	}
	if (r.kind == RVec && data && md->vec) {
		vector(v, k, pos, &v->fn->vec[r.idx], md, t);
		return;
	}
	if (r.kind == RVec && c != 'x') {
		errat(v, k, "'%.*s' operand %u: a vector where a single value goes", NM(i), pos);
		return;
	}
	if (data && md->vec)
		errat(v, k, "'%.*s' operand %u: needs a vector of %u", NM(i), pos, md->vec);
	else if (r.kind == RReg && t)
		regfits(v, k, pos, r.idx, t, relaxed(i) && c != 'u');
}

static uint
nplain(const Ins *i)
{
	uint n = 0;

	for (uint a = 0; a < i->narg; a++)
		n += !i->arg[a].bar;
	return n;
}

/* the guard, the count of operands and each one's type */
static void
operands(V *v, uint k, const Mods *md)
{
	const Ins *i = &v->fn->ins[k];
	const char *sh = shape(i, md);
	char letters[16];
	uint need, most, n = nplain(i), pos = 0, j = 0;

	if (i->pred.kind == RReg)
		regfits(v, k, 0, i->pred.idx, Tpred, 0);
	if (!sh)
		return;
	/* the passes read the last type, the shapes the first: one only */
	if (md->nt > 1 && !strchr(sh, 'e') && strpbrk(sh, "dW")) {
		errat(v, k, "'%.*s' takes one type suffix, not %u", NM(i), md->nt);
		return;
	}
	need = strcspn(sh, "|");
	for (const char *c = sh; *c && j + 1 < sizeof letters; c++)
		if (*c != '|')
			letters[j++] = *c;
	most = j;
	if (n < need || n > most) {
		if (need == most)
			errat(v, k, "'%.*s' takes %u operands, not %u", NM(i), need, n);
		else
			errat(v, k, "'%.*s' takes %u to %u operands, not %u", NM(i), need, most, n);
		return;
	}
	for (uint a = 0; a < i->narg; a++) {
		Ref r = i->arg[a];
		if (r.bar) {
			if (r.kind == RReg)
				regfits(v, k, pos, r.idx, Tpred, 0);
			else if (isdef(i, a))
				result(v, k, pos, r);
			continue;
		}
		operand(v, k, pos + 1, letters[pos], r, md, isdef(i, a));
		pos++;
	}
}

/* a special register is read only */
static void
writes(V *v, uint k)
{
	const Ins *i = &v->fn->ins[k];

	for (uint a = 0; a < i->narg; a++) {
		const Reg *g;
		if (!isdef(i, a) || i->arg[a].kind != RReg)
			continue;
		g = &v->fn->reg[i->arg[a].idx];
		if ((g->flags & RGSPECIAL) && sregty(g->pfx) >= 0)
			errat(v, k, "'%.*s' writes the special register '%.*s'", NM(i), (int)g->pfx.n,
			      g->pfx.s);
	}
}

static void
instructions(V *v)
{
	Fn *fn = v->fn;

	for (uint k = 0; k < fn->nins; k++) {
		Mods md;
		if (fn->ins[k].op >= NOP)
			continue;
		modsplit(&fn->ins[k], &md);
		suffixes(v, k, &md);
		types(v, k, &md);
		needs(v, k, &md);
		operands(v, k, &md);
		writes(v, k);
	}
}

/* definedness (see the top of the file) */

struct flow {
	uint *dense;        /* register -> its bit, ~0u if the body never names it */
	uint nbit, w;       /* bits, and 64-bit words per set */
	Word *must;     /* per block: written on every path to its start */
	Word *may;      /* per block: written on some path to its start */
	Word *genm;     /* per block: written by it, unguarded */
	Word *geny;     /* per block: written by it */
	uint *reg;          /* bit -> its register */
	Word *wrote;    /* written somewhere in the body */
	uchar *told;        /* per bit: already reported */
};

static void
number(struct flow *fl, const Fn *fn, Ref r)
{
	switch (r.kind) {
	case RReg:
		if (!(fn->reg[r.idx].flags & RGSPECIAL) && fl->dense[r.idx] == ~0u) {
			fl->reg[fl->nbit] = r.idx;
			fl->dense[r.idx] = fl->nbit++;
		}
		break;
	case RMem:
		number(fl, fn, fn->mem[r.idx].base);
		number(fl, fn, fn->mem[r.idx].vec);
		break;
	case RVec:
	case RList:
		for (uint j = 0; j < fn->vec[r.idx].n; j++)
			number(fl, fn, fn->vec[r.idx].el[j]);
		break;
	}
}

/* apply f to every register bit that r names */
static void
each(struct flow *fl, const Fn *fn, Ref r, void (*f)(void *, uint), void *arg)
{
	switch (r.kind) {
	case RReg:
		if (fl->dense[r.idx] != ~0u)
			f(arg, fl->dense[r.idx]);
		break;
	case RMem:
		each(fl, fn, fn->mem[r.idx].base, f, arg);
		each(fl, fn, fn->mem[r.idx].vec, f, arg);
		break;
	case RVec:
	case RList:
		for (uint j = 0; j < fn->vec[r.idx].n; j++)
			each(fl, fn, fn->vec[r.idx].el[j], f, arg);
		break;
	}
}

static void set(void *s, uint b) { bset(s, b); }

/* the registers statement i writes: into may, and into must unless guarded
 * (an address [%r] is read even where the operand is written) */
static void
defs(struct flow *fl, const Fn *fn, const Ins *i, Word *must, Word *may)
{
	if (i->op >= NOP)
		return;
	for (uint a = 0; a < i->narg; a++)
		if (isdef(i, a) && i->arg[a].kind != RMem) {
			each(fl, fn, i->arg[a], set, may);
			if (!i->pred.kind)
				each(fl, fn, i->arg[a], set, must);
		}
}

/* a forward problem without kills: start(b) = meet of start(p) | gen(p)
 * over the reachable predecessors, from the entry's empty sets; iterate in
 * reverse post-order until nothing changes */
static void
solve(struct flow *fl, const Fn *fn)
{
	uint w = fl->w;

	for (uint b = 0; b < fn->nblk; b++) {
		for (uint k = fn->blk[b].first; k < fn->blk[b].end; k++)
			defs(fl, fn, &fn->ins[k], fl->genm + b * w, fl->geny + b * w);
		if (b != fn->rpo[0])
			memset(fl->must + b * w, 0xff, w * sizeof *fl->must);
	}
	for (int changed = 1; changed;) {
		changed = 0;
		for (uint r = 1; r < fn->nrpo; r++) {
			uint b = fn->rpo[r];
			Word *m = fl->must + b * w, *y = fl->may + b * w;
			for (uint j = 0; j < fn->blk[b].npred; j++) {
				uint p = fn->blk[b].pred[j];
				if (fn->blk[p].rpo == ~0u)
					continue;
				for (uint x = 0; x < w; x++) {
					Word nm = m[x] & (fl->must[p * w + x] | fl->genm[p * w + x]);
					Word ny = y[x] | fl->may[p * w + x] | fl->geny[p * w + x];
					changed |= nm != m[x] || ny != y[x];
					m[x] = nm, y[x] = ny;
				}
			}
		}
	}
}

struct use {
	V *v;
	struct flow *fl;
	uint k;
	const Word *may;
};

static void
checkuse(void *arg, uint b)
{
	struct use *u = arg;
	Str s;

	if (bget(u->may, b) || !bget(u->fl->wrote, b) || u->fl->told[b])
		return;
	u->fl->told[b] = 1;
	s = regspan(u->v, u->fl->reg[b]);
	errat(u->v, u->k, "'%.*s' is read here, but none of its writes reaches here", (int)s.n, s.s);
}

/* walk each reachable block from its start sets; report reads that no
 * write reaches */
static void
reads(V *v, struct flow *fl)
{
	Fn *fn = v->fn;
	uint w = fl->w;
	Word *m = arena_alloc(v->m->arena, 2 * w * sizeof *m), *y = m + w;

	for (uint r = 0; r < fn->nrpo; r++) {
		uint b = fn->rpo[r];
		memcpy(m, fl->must + b * w, w * sizeof *m);
		memcpy(y, fl->may + b * w, w * sizeof *m);
		for (uint k = fn->blk[b].first; k < fn->blk[b].end; k++) {
			const Ins *i = &fn->ins[k];
			struct use u = {v, fl, k, y};
			if (i->op >= NOP)
				continue;
			each(fl, fn, i->pred, checkuse, &u);
			for (uint a = 0; a < i->narg; a++)
				if (!isdef(i, a) || i->arg[a].kind == RMem)
					each(fl, fn, i->arg[a], checkuse, &u);
			defs(fl, fn, i, m, y);
		}
	}
}

static void
defined(V *v)
{
	Fn *fn = v->fn;
	Arena *a = v->m->arena;
	struct flow fl = {0};
	size_t n;

	fillcfg(fn);
	fl.dense = arena_alloc(a, (fn->nreg + 1) * sizeof *fl.dense);
	fl.reg = arena_alloc(a, (fn->nreg + 1) * sizeof *fl.reg);
	memset(fl.dense, 0xff, (fn->nreg + 1) * sizeof *fl.dense);
	for (uint k = 0; k < fn->nins; k++)
		if (fn->ins[k].op < NOP) {
			number(&fl, fn, fn->ins[k].pred);
			for (uint j = 0; j < fn->ins[k].narg; j++)
				number(&fl, fn, fn->ins[k].arg[j]);
		}
	if (!fl.nbit || !fn->nrpo)
		return;
	fl.w = nwords(fl.nbit);
	n = (size_t)fn->nblk * fl.w * sizeof(Word);
	fl.must = arena_alloc(a, n);
	fl.may = arena_alloc(a, n);
	fl.genm = arena_alloc(a, n);
	fl.geny = arena_alloc(a, n);
	fl.told = arena_alloc(a, fl.nbit + 1);
	fl.wrote = arena_alloc(a, fl.w * sizeof *fl.wrote);
	solve(&fl, fn);
	for (size_t x = 0; x < (size_t)fn->nblk * fl.w; x++)
		fl.wrote[x % fl.w] |= fl.geny[x];
	reads(v, &fl);
}

/* the module */

int
verify(Module *m, FILE *err)
{
	return verifyeach(m, err, NULL);
}

int
verifyeach(Module *m, FILE *err, uint *nerr)
{
	V v = {m, err, NULL, 0, 0, 0, 0};
	uchar *declared = arena_alloc(m->arena, m->nsym + 1);
	uint *local = arena_alloc(m->arena, (m->nsym + 1) * sizeof *local);

	target(&v);
	modnames(&v, declared);
	for (uint k = 0; k < m->nfn; k++) {
		struct scope sc = {declared, local, k + 1, NULL};
		int before = v.nerr;
		v.fn = m->fn[k];
		params(&v);
		if (!(v.fn->flags & FDECL)) {
			decls(&v);
			locals(&v, local, k + 1);
			sc.end = scopeends(&v);
			names(&v, &sc);
			instructions(&v);
			defined(&v);
		}
		if (nerr)
			nerr[k] = v.nerr - before;
	}
	return v.nerr;
}
