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
 * .target and .version at least those it needs (ops.h, and the table of
 * verify-ops.c for forms that need more). Each rule was checked against
 * ptxas 13, which is the reference, by probes of one difference each. What the
 * parser rejects is syntax (numbers, names, .reg and parameter forms); the
 * rest is here, where a pass's output is checked too.
 *
 * The walk is here (verifyeach(): the module, then each function) with the
 * module's own checks; the rest is in files it calls, none calling back
 * (ptx/verify.h): verify-names.c (declarations, scopes, every name
 * resolves), verify-ops.c (each instruction's types, modifiers and
 * operands), verify-defined.c (reads that no write reaches), all over
 * verify-report.c (the messages). */
#define _GNU_SOURCE   /* memmem */
#include "ptx/verify.h"
#include <string.h>

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
