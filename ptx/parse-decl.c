/* parse-decl.c: the parser's declarations (parse.c): sections, attributes,
 * variables, .reg and its ranges, and a function's parameters. */
#define _GNU_SOURCE   /* memmem */
#include "ptx/parse.h"
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* section = ".section" name "{" ... "}" */
void
section(P *p)
{
	int depth = 0;

	next(p);
	while (!ispunct_(p->tok, '{')) {
		if (p->tok.kind == TEOF)
			perr(p, p->tok.s, "expected '{' after .section");
		next(p);
	}
	do {
		if (p->tok.kind == TEOF)
			perr(p, p->tok.s, "unterminated .section");
		if (ispunct_(p->tok, '{'))
			depth++;
		if (ispunct_(p->tok, '}'))
			depth--;
		next(p);
	} while (depth > 0);
}

int
isspace_dir(Tok t)
{
	static const char *const ss[] = {".global", ".const", ".shared", ".local", ".param",
		".tex", ".texref", ".surfref", ".samplerref", ".sreg"};
	uint i;

	for (i = 0; i < countof(ss); i++)
		if (tokis(t, ss[i]))
			return 1;
	return 0;
}

/* an opaque handle's type: .texref, .surfref, .samplerref */
static int
isref(Tok t)
{
	return tokis(t, ".texref") || tokis(t, ".surfref") || tokis(t, ".samplerref");
}

/* attribute = ".attribute" "(" ... ")"  (.managed variables, .unified functions) */
void
attribute(P *p)
{
	int depth = 0;

	next(p);
	if (!ispunct_(p->tok, '('))
		perr(p, p->tok.s, "expected '(' after .attribute");
	do {
		if (p->tok.kind == TEOF)
			perr(p, p->tok.s, "expected ')' before end of file");
		depth += ispunct_(p->tok, '(');
		depth -= ispunct_(p->tok, ')');
		next(p);
	} while (depth > 0);
}

/* var = space-dir (dir | num | attribute)* name tail ";"
 * tail = ("[" num? "]")* ("=" initializer)? */
void
var(P *p, Fn *fn)
{
	Ins *i = newins(p, fn, Ovar);
	const char *nameend = NULL, *b = p->tok.s;
	int typed = 0;
	Ref a;

	while (p->tok.kind == TDIR || p->tok.kind == TNUM) {
		int ty = p->tok.kind == TDIR ? typeof_(p->tok.s + 1, p->tok.n - 1) : 0;
		if (ty)
			i->ty = ty;
		typed |= ty || isref(p->tok);
		if (tokis(p->tok, ".attribute"))
			attribute(p);
		else
			next(p);
		nameend = p->lastend;
	}
	/* ptxas: "syntax error" for `.param x;` in a body or `.global x;`;
	 * passes that copy the declaration would rely on a type */
	if (!typed && p->tok.kind == TIDENT)
		perr(p, p->tok.s, "expected a type before %s", tokdesc(p->tok));
	isname(p, "a name");
	i->name = span(b, nameend);
	i->sep = span(nameend, p->tok.s);
	a = REF(RSym, intern(p->m, p->tok.s, p->tok.n));
	i->arg = args(p, &a, 1);
	i->narg = 1;
	next(p);
	b = p->lastend;
	tosemi(p);
	i->tail = span(b, p->lastend - 1);
	endstmt(p, i);
}

/* raw = directive ... (";" | end of line) */
void
raw(P *p, Fn *fn, int line)
{
	Ins *i = newins(p, fn, Oraw);

	if (line)
		restofline(p);
	else if (tokis(p->tok, ".section"))
		section(p);
	else
		tosemi(p);
	endstmt(p, i);
}

/* a register not of a range */
uint
addreg(P *p, Fn *fn, Str pfx, int ty, uint decl)
{
	fn->reg = agrow(p->m->arena, fn->reg, fn->nreg, &fn->capreg, sizeof *fn->reg);
	fn->reg[fn->nreg] = (Reg){pfx, -1, ty, 0, decl, 0};
	while (p->fn && p->capord <= fn->nreg)   /* member()'s registers have no p->ord */
		p->ord = agrow(p->m->arena, p->ord, p->capord, &p->capord, sizeof *p->ord);
	if (p->fn)   /* a body, which regorder() sorts: not mkins() */
		p->ord[fn->nreg] = fn->nvreg;
	fn->nvreg++;
	return fn->nreg++;
}

uint
member(Fn *fn, uint g, int num)
{
	Arena *a = fn->mod->arena;
	uint key[2] = {g, (uint)num}, r;
	const Range *rg = &fn->range[g];
	char *k;

	if ((r = names_get(fn->members, (char *)key, sizeof key)) != ~0u)
		return r;
	fn->reg = agrow(a, fn->reg, fn->nreg, &fn->capreg, sizeof *fn->reg);
	fn->reg[fn->nreg] = (Reg){rg->pfx, num, rg->ty, rg->flags, rg->decl, g + 1};
	k = arena_alloc(a, sizeof key);
	memcpy(k, key, sizeof key);
	names_put(a, &fn->members, k, sizeof key, fn->nreg);
	return fn->nreg++;
}

/* split %r12 into %r and 12; -1 if the name has no number */
static int
splitnum(const char *s, uint n, uint *pfxlen)
{
	uint k = n;
	long v = 0;

	while (k > 0 && isdigit((uchar)s[k - 1]))
		k--;
	if (k == n || k == 0 || n - k > 9 || (s[k] == '0' && n - k > 1))
		return -1;
	for (uint j = k; j < n; j++)
		v = v * 10 + (s[j] - '0');
	*pfxlen = k;
	return (int)v;
}

/* a member of a .reg range first: nearly every register cicc writes is
 * one; but a single name declared after the range (inside a { }: "%f1"
 * shadowing the function's %f<4>) is the inner one, as ptxas reads it */
uint
lookreg(Fn *fn, const char *s, uint n)
{
	uint r, k, one = names_get(fn->regnames, s, n);
	int num = splitnum(s, n, &k);

	if (num >= 0 && (r = names_get(fn->rangenames, s, k)) != ~0u
	    && (uint)num < fn->range[r].n
	    && (one == ~0u || fn->reg[one].decl < fn->range[r].decl))
		return member(fn, r, num);
	return one;
}

/* ".align" num: a power of two */
static void
align(P *p)
{
	uint64_t u;

	next(p);
	if (p->tok.kind != TNUM || checknum(p, p->tok.s, p->tok) != NINT
	    || !numint((Str){p->tok.s, p->tok.n}, &u) || !u || (u & (u - 1)))
		perr(p, p->tok.s, "expected a power of two before %s", tokdesc(p->tok));
	next(p);
}

/* the directives of a .reg up to its names; its type */
static int
regdirs(P *p)
{
	int ty, vec = 1;

	next(p);
	if (tokis(p->tok, ".align"))
		align(p);
	if (tokis(p->tok, ".v2") || tokis(p->tok, ".v4")) {
		vec = p->tok.s[2] - '0';
		next(p);
	}
	if (p->tok.kind != TDIR)
		perr(p, p->tok.s, "expected a register type before %s", tokdesc(p->tok));
	ty = typeof_(p->tok.s + 1, p->tok.n - 1);
	if (!ty)
		perr(p, p->tok.s, "expected a register type before %s", tokdesc(p->tok));
	if (!regtype(ty))
		perr(p, p->tok.s, "%s is no register type: a .b%d register holds it",
		      tokdesc(p->tok), tybits[ty]);
	if (vec > 1 && ty == Tpred)
		perr(p, p->tok.s, "a vector of .pred");
	if (vec * tybits[ty] > 128)
		perr(p, p->tok.s, "a .v%d of .%s is wider than 128 bits", vec, tyname[ty]);
	next(p);
	return ty;
}

/* reg = ".reg" (".align" num)? (".v2" | ".v4")? type
 *       (name "<" num ">" | name ("," name)*) ";" */
void
reg(P *p, Fn *fn)
{
	Ins *i = newins(p, fn, Oreg);
	uint at = i - fn->ins, nr = 0, cap = 0;
	Ref *rs = NULL;
	int ty = regdirs(p);
	const char *nameend = p->lastend;

	i = &fn->ins[at];
	i->ty = ty;
	if (p->scope)
		fn->flags |= FSCOPED;
	i->name = span(i->lead.s + i->lead.n, nameend);
	i->sep = span(nameend, p->tok.s);
	isname(p, "a register name");
	if (ispunct_(peek(p), '<')) {
		Tok name = p->tok, n;
		long cnt;
		char *e;
		next(p);
		next(p);
		n = p->tok;
		cnt = n.kind == TNUM ? strtol(n.s, &e, 10) : -1;
		if (n.kind != TNUM || e != n.s + n.n || cnt <= 0 || cnt > 1 << 24)
			perr(p, n.s, "bad register count %s", tokdesc(n));
		next(p);
		expect(p, '>');
		fn->range = agrow(p->m->arena, fn->range, fn->nrange, &fn->caprange, sizeof *fn->range);
		fn->range[fn->nrange] = (Range){{name.s, name.n}, (uint)cnt, ty, 0, at, fn->nvreg};
		fn->nvreg += (uint)cnt;
		declare(p, &fn->rangenames, name.s, name.n, fn->nrange);
		i = &fn->ins[at];
		i->arg = arena_alloc(p->m->arena, 2 * sizeof(Ref));
		i->arg[0] = REF(RRange, fn->nrange++);
		i->arg[1] = REF(RNum, (uint)cnt);
		i->narg = 2;
	} else {
		for (;;) {
			uint r;
			isname(p, "a register name");
			r = addreg(p, fn, (Str){p->tok.s, p->tok.n}, fn->ins[at].ty, at);
			declare(p, &fn->regnames, p->tok.s, p->tok.n, r);
			rs = agrow(p->m->arena, rs, nr, &cap, sizeof *rs);
			rs[nr++] = REF(RReg, r);
			next(p);
			if (!consume(p, ','))
				break;
		}
		i = &fn->ins[at];
		i->arg = rs;
		i->narg = nr;
	}
	expect(p, ';');
	endstmt(p, i);
}

/* a .param's type: one that a variable may have, or a kernel's opaque handle */
static void
paramtype(P *p, int where)
{
	int ty = typeof_(p->tok.s + 1, p->tok.n - 1);

	if (tokis(p->tok, ".texref") || tokis(p->tok, ".surfref")
	    || (tokis(p->tok, ".samplerref") && p->m->target.s
	        && memmem(p->m->target.s, p->m->target.n, "texmode_independent", 19))) {
		if (where != PENTRY)
			perr(p, p->tok.s, "%s in a parameter of a .func", tokdesc(p->tok));
	} else if (p->tok.kind != TDIR || (!ty && !tokis(p->tok, ".samplerref")))
		perr(p, p->tok.s, "expected a parameter type before %s", tokdesc(p->tok));
	else if (!regtype(ty) || ty == Tpred || ty == Tf16x2)
		perr(p, p->tok.s, "%s is no parameter type", tokdesc(p->tok));
	next(p);
}

/* what follows .param: (".align" num)? type (".ptr" space? (".align" num)?)? */
static void
paramdirs(P *p, int where)
{
	if (tokis(p->tok, ".align"))
		align(p);
	paramtype(p, where);
	if (!tokis(p->tok, ".ptr"))
		return;
	if (where != PENTRY)
		perr(p, p->tok.s, "'.ptr' in a parameter of a .func");
	next(p);
	if (tokis(p->tok, ".global") || tokis(p->tok, ".shared") || tokis(p->tok, ".local")
	    || tokis(p->tok, ".const"))
		next(p);
	if (tokis(p->tok, ".align"))
		align(p);
}

// param = ".param" paramdirs name ("[" num? "]")? | ".reg" regdirs name
static Param
param(P *p, int where, int *nosize)
{
	Param pa = {0};
	const char *b = p->tok.s;
	int isreg = tokis(p->tok, ".reg");

	if (isreg && where != PENTRY)
		regdirs(p);
	else if (tokis(p->tok, ".param")) {
		next(p);
		paramdirs(p, where);
	} else
		perr(p, p->tok.s, where == PENTRY ? "expected '.param' before %s"
		      : "expected '.param' or '.reg' before %s", tokdesc(p->tok));
	if (p->tok.kind != TIDENT)
		perr(p, p->tok.s, "expected a parameter name before %s", tokdesc(p->tok));
	pa.decl = span(b, p->lastend);
	pa.name = (Str){p->tok.s, p->tok.n};
	next(p);
	b = p->lastend;
	if (ispunct_(p->tok, '[')) {
		const char *at = p->tok.s;
		uint64_t u = 0;
		if (isreg)
			perr(p, at, "a .reg parameter is no array");
		next(p);
		if (p->tok.kind == TNUM) {
			if (checknum(p, p->tok.s, p->tok) != NINT || !numint((Str){p->tok.s, p->tok.n}, &u))
				perr(p, p->tok.s, "expected a size before %s", tokdesc(p->tok));
			next(p);
		}
		expect(p, ']');
		*nosize = !u;
		if (!u && where == PENTRY)
			perr(p, at, "a kernel's parameter array needs a size");
		if (!u && where == PRET)
			perr(p, at, "a return value's array needs a size");
		if (ispunct_(p->tok, '['))
			perr(p, p->tok.s, "a parameter array has one dimension");
	}
	pa.tail = span(b, p->lastend);
	return pa;
}

// paramlist = "(" (param ("," param)*)? ")"
Param *
paramlist(P *p, uint *n, int where)
{
	Param buf[256], *v = buf;
	uint cap = countof(buf), nreg = 0;
	const char *b = p->tok.s;
	int nosize = 0;

	*n = 0;
	expect(p, '(');
	if (!ispunct_(p->tok, ')'))
		for (;;) {
			if (*n == cap) {
				Param *nv = arena_alloc(p->m->arena, 2 * cap * sizeof *nv);
				memcpy(nv, v, *n * sizeof *v);
				v = nv, cap *= 2;
			}
			if (nosize)   /* [] or [0]: ptxas's incomplete array */
				perr(p, v[*n - 1].name.s, "only the last parameter may be an array without a size");
			nreg += tokis(p->tok, ".reg");
			v[(*n)++] = param(p, where, &nosize);
			if (!consume(p, ','))
				break;
		}
	expect(p, ')');
	if (where == PRET && *n > 1 && nreg < *n)
		perr(p, b, "a .func returns one .param value at most (several must all be .reg)");
	Param *r = arena_alloc(p->m->arena, (*n ? *n : 1) * sizeof *r);
	memcpy(r, v, *n * sizeof *r);
	return r;
}
