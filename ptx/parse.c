/* parse.c: PTX text -> Module.
 *
 * A recursive-descent parser in chibicc's manner: one function per grammar
 * rule, the rule in a comment above it. The lexer is pulled one token at a
 * time (p->tok, with one token of lookahead in p->nxt) rather than into an
 * array, so that memory stays proportional to the IR, not to the text.
 * Each statement records its leading trivia (the text since the end of the
 * previous statement) and its own text, which is what makes printing
 * lossless (see ptx.h). Errors longjmp back to parse(), which returns NULL:
 * the parser never exits, so the fuzzer and the driver's hook can call it. */
#define _GNU_SOURCE   /* memmem */
#include "ptx/ptx.h"
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>

int ptx_quiet;

typedef struct P P;
struct P {
	Module *m;
	const char *path;
	Fn *fn;
	Lexer lx;
	Tok tok, nxt;
	int hasnxt;
	const char *prevend;    /* end of the previous statement */
	const char *lastend;    /* end of the last token consumed */
	jmp_buf jb;
	Fn scratch;             /* a body's growing arrays, reused from body to body */
	int depth;              /* nesting of operand lists */
	int call;               /* the instruction read last is a call: `(` is a
	                         * list of its operands, not an expression */
	/* registers declared in a { } scope shadow the function's until its
	 * '}': the names they replaced, restored there */
	struct undo { Names **t; const char *s; uint n, old; } *undo;
	uint nundo, capundo, scope;
	uint *ord, capord;      /* fn->nvreg when each register not of a range was made */
};

/* sort the indices by[0..n) by key[by[i]] (distinct keys), tmp of n
 * words: a merge sort, as qsort has no argument for the keys */
static void
sortby(uint *by, uint *tmp, uint n, const uint *key)
{
	uint h = n / 2, i = 0, j = h, k = 0;

	if (n < 2)
		return;
	sortby(by, tmp, h, key);
	sortby(by + h, tmp, n - h, key);
	if (key[by[h - 1]] < key[by[h]])
		return;
	while (i < h || j < n)
		tmp[k++] = j == n || (i < h && key[by[i]] < key[by[j]]) ? by[i++] : by[j++];
	memcpy(by, tmp, n * sizeof *by);
}

/* declare a register name, remembering what it shadows inside a scope */
static void
declare(P *p, Names **t, const char *s, uint n, uint v)
{
	if (p->scope) {
		p->undo = agrow(p->m->arena, p->undo, p->nundo, &p->capundo, sizeof *p->undo);
		p->undo[p->nundo++] = (struct undo){t, s, n, names_get(*t, s, n)};
	}
	names_put(p->m->arena, t, s, n, v);
}

/* restore the names that the declarations since undo record mark hid */
static void
undo(P *p, uint mark)
{
	for (; p->nundo > mark; p->nundo--) {
		struct undo *u = &p->undo[p->nundo - 1];
		names_put(p->m->arena, u->t, u->s, u->n, u->old);
	}
}

static int
typeof_(const char *s, uint n)
{
	if (n < 2 || n > 6 || !strchr("bfpstu", *s) || (!isdigit((uchar)s[n - 1]) && *s != 'p'))
		return Tnone;
	for (int i = 1; i < NTYPE; i++)
		if (tyname[i][0] == *s && strlen(tyname[i]) == n && memcmp(tyname[i], s, n) == 0)
			return i;
	return Tnone;
}

/* errors */

static _Noreturn void
errat(P *p, const char *pos, const char *f, ...)
{
	const char *ls = pos, *le = pos, *q, *start = p->lx.start;
	const char *end = p->lx.end;
	uint line = 1;
	va_list ap;

	if (!ptx_quiet) {
		while (ls > start && ls[-1] != '\n')
			ls--;
		while (le < end && *le != '\n')
			le++;
		for (q = start; q < ls; q++)
			line += *q == '\n';
		fprintf(stderr, "%s:%u:%d: error: ", p->path, line, (int)(pos - ls) + 1);
		va_start(ap, f);
		vfprintf(stderr, f, ap);
		va_end(ap);
		fprintf(stderr, "\n%.*s\n", (int)(le - ls), ls);
		for (q = ls; q < pos; q++)
			fputc(*q == '\t' ? '\t' : ' ', stderr);
		fputs("^\n", stderr);
	}
	longjmp(p->jb, 1);
}

static const char *
tokdesc(Tok t)
{
	static char buf[64];

	if (t.kind == TEOF)
		return "end of file";
	snprintf(buf, sizeof buf, "'%.*s'", t.n > 40 ? 40 : (int)t.n, t.s);
	return buf;
}

/* tokens */

static const uchar okpunct[256] = {
	[','] = 1, [';'] = 1, [':'] = 1, ['('] = 1, [')'] = 1, ['['] = 1, [']'] = 1,
	['{'] = 1, ['}'] = 1, ['<'] = 1, ['>'] = 1, ['+'] = 1, ['-'] = 1, ['@'] = 1,
	['!'] = 1, ['|'] = 1, ['='] = 1,
	/* the rest of the operators of constant expressions (expr.c) */
	['~'] = 1, ['*'] = 1, ['/'] = 1, ['&'] = 1, ['^'] = 1, ['?'] = 1,
};

static void
next(P *p)
{
	p->lastend = p->tok.s + p->tok.n;
	if (p->hasnxt) {
		p->tok = p->nxt;
		p->hasnxt = 0;
	} else
		p->tok = lex(&p->lx);
	if (p->lx.bad)
		errat(p, p->lx.bad, *p->lx.bad == '"' ? "unterminated string" : "unterminated comment");
	if (p->tok.kind == TPUNCT && !okpunct[(uchar)*p->tok.s])
		errat(p, p->tok.s, "unexpected character %s", tokdesc(p->tok));
}

static Tok
peek(P *p)
{
	if (!p->hasnxt) {
		p->nxt = lex(&p->lx);
		p->hasnxt = 1;
	}
	return p->nxt;
}

static int
ispunct_(Tok t, int c)
{
	return t.kind == TPUNCT && *t.s == c;
}

static int
consume(P *p, int c)
{
	if (!ispunct_(p->tok, c))
		return 0;
	next(p);
	return 1;
}

static void
expect(P *p, int c)
{
	if (!consume(p, c))
		errat(p, p->tok.s, "expected '%c' before %s", c, tokdesc(p->tok));
}

static Str
span(const char *a, const char *b)
{
	return (Str){a, (uint)(b - a)};
}

/* the current token as a name, of what: an identifier that is none of
 * `_`, `$` and `%` alone (PTX ISA 4.4; `_` is the sink) */
static void
isname(P *p, const char *what)
{
	if (p->tok.kind != TIDENT)
		errat(p, p->tok.s, "expected %s before %s", what, tokdesc(p->tok));
	if (p->tok.n == 1 && !isalpha((uchar)*p->tok.s))
		errat(p, p->tok.s, "%s is no name: a name of one character is a letter",
		      tokdesc(p->tok));
}

/* statements */

static Ins *
newins(P *p, Fn *fn, int op)
{
	Ins *i;

	if (fn) {
		fn->ins = agrow(p->m->arena, fn->ins, fn->nins, &fn->cap, sizeof *fn->ins);
		i = &fn->ins[fn->nins++];
	} else {
		p->m->top = agrow(p->m->arena, p->m->top, p->m->ntop, &p->m->captop, sizeof *i);
		i = &p->m->top[p->m->ntop++];
	}
	memset(i, 0, sizeof *i);
	i->op = op;
	i->lead = span(p->prevend, p->tok.s);
	i->line = p->tok.line;
	return i;
}

/* the statement i started at i->lead's end and ends with the last token */
static void
endstmt(P *p, Ins *i)
{
	const char *b = i->lead.s + i->lead.n;
	i->src = span(b, p->lastend);
	p->prevend = p->lastend;
}

static Ref *
args(P *p, Ref *a, uint n)
{
	Ref *r = arena_alloc(p->m->arena, (n ? n : 1) * sizeof *r);
	memcpy(r, a, n * sizeof *r);
	return r;
}

/* the rest of a line, for .loc, .file, .version ... */
static void
restofline(P *p)
{
	uint line = p->tok.line;

	next(p);
	while (p->tok.kind != TEOF && p->tok.line == line)
		next(p);
}

static int checknum(P *p, const char *b, Tok t);

/* up to and including ';', braces balanced (an initializer's numbers read
 * as an operand's are) */
static void
tosemi(P *p)
{
	int depth = 0;

	for (;;) {
		if (p->tok.kind == TEOF)
			errat(p, p->tok.s, "expected ';' before end of file");
		if (p->tok.kind == TNUM)
			checknum(p, p->tok.s, p->tok);
		if (ispunct_(p->tok, '{') || ispunct_(p->tok, '('))
			depth++;
		if ((ispunct_(p->tok, '}') || ispunct_(p->tok, ')')) && depth-- == 0)
			errat(p, p->tok.s, "expected ';' before %s", tokdesc(p->tok));
		if (ispunct_(p->tok, ';') && depth == 0)
			break;
		next(p);
	}
	next(p);
}

/* section = ".section" name "{" ... "}" */
static void
section(P *p)
{
	int depth = 0;

	next(p);
	while (!ispunct_(p->tok, '{')) {
		if (p->tok.kind == TEOF)
			errat(p, p->tok.s, "expected '{' after .section");
		next(p);
	}
	do {
		if (p->tok.kind == TEOF)
			errat(p, p->tok.s, "unterminated .section");
		if (ispunct_(p->tok, '{'))
			depth++;
		if (ispunct_(p->tok, '}'))
			depth--;
		next(p);
	} while (depth > 0);
}

static int
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
static void
attribute(P *p)
{
	int depth = 0;

	next(p);
	if (!ispunct_(p->tok, '('))
		errat(p, p->tok.s, "expected '(' after .attribute");
	do {
		if (p->tok.kind == TEOF)
			errat(p, p->tok.s, "expected ')' before end of file");
		depth += ispunct_(p->tok, '(');
		depth -= ispunct_(p->tok, ')');
		next(p);
	} while (depth > 0);
}

/* var = space-dir (dir | num | attribute)* name tail ";"
 * tail = ("[" num? "]")* ("=" initializer)? */
static void
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
		errat(p, p->tok.s, "expected a type before %s", tokdesc(p->tok));
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
static void
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
static uint
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
		errat(p, p->tok.s, "expected a power of two before %s", tokdesc(p->tok));
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
		errat(p, p->tok.s, "expected a register type before %s", tokdesc(p->tok));
	ty = typeof_(p->tok.s + 1, p->tok.n - 1);
	if (!ty)
		errat(p, p->tok.s, "expected a register type before %s", tokdesc(p->tok));
	if (!regtype(ty))
		errat(p, p->tok.s, "%s is no register type: a .b%d register holds it",
		      tokdesc(p->tok), tybits[ty]);
	if (vec > 1 && ty == Tpred)
		errat(p, p->tok.s, "a vector of .pred");
	if (vec * tybits[ty] > 128)
		errat(p, p->tok.s, "a .v%d of .%s is wider than 128 bits", vec, tyname[ty]);
	next(p);
	return ty;
}

/* reg = ".reg" (".align" num)? (".v2" | ".v4")? type
 *       (name "<" num ">" | name ("," name)*) ";" */
static void
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
			errat(p, n.s, "bad register count %s", tokdesc(n));
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

/* a part of a register, written after it (PTX ISA, video instructions and
 * vector elements): ".b" and 1 to 4 byte numbers 0-7 (vadd4 d.b3210,
 * a.b7654; vadd a.b2), ".h" and 1 or 2 half numbers 0-3 (vadd2 .h10), or
 * one element letter (.x .y .z .w .r .g .b .a) */
static int
selector(const char *s, size_t n)
{
	size_t k = 2;
	if (n == 2 && strchr("xyzwrgba", s[1]))
		return 1;
	if (n < 3 || (s[1] != 'b' && s[1] != 'h') || n > (s[1] == 'b' ? 6u : 4u))
		return 0;
	while (k < n && s[k] >= '0' && s[k] <= (s[1] == 'b' ? '7' : '3'))
		k++;
	return k == n;
}

/* an identifier operand with the modifiers glued to it (%tid.x); with sel,
 * a declared register may carry a selector (%r6.b3210): the register, the
 * selector into *sel */
static Ref
name(P *p, Fn *fn, Str *sel)
{
	const char *b = p->tok.s, *e;
	uint r;

	next(p);
	e = p->lastend;
	while (p->tok.kind == TDIR && p->tok.adj)
		next(p);
	if ((r = lookreg(fn, b, p->lastend - b)) != ~0u)
		return REF(RReg, r);
	if (sel && *b == '%' && selector(e, p->lastend - e) && (r = lookreg(fn, b, e - b)) != ~0u) {
		*sel = span(e, p->lastend);
		return REF(RReg, r);
	}
	if (*b == '%') {
		r = addreg(p, fn, span(b, p->lastend), Tnone, ~0u);
		fn->reg[r].flags |= RGSPECIAL;
		names_put(p->m->arena, &fn->regnames, b, p->lastend - b, r);
		return REF(RReg, r);
	}
	return REF(RSym, intern(p->m, b, p->lastend - b));
}

/* the number from b (its sign) to the end of token t as ptxas reads it */
static int
checknum(P *p, const char *b, Tok t)
{
	Str s = span(b, t.s + t.n);
	int k = numform(s);
	uint64_t u;
	double v;

	if (k == NBAD && t.n > 1 && t.s[0] == '0' && t.s[1] && strchr("fFdD", t.s[1]))
		errat(p, t.s, "bad float constant %s", tokdesc(t));
	if (k == NBAD)
		errat(p, t.s, "bad number %s", tokdesc(t));
	if (k == NF32 && b != t.s)
		errat(p, b, "a sign before an 0f constant: write the bits of the negated value");
	if (k == NINT && !numint(s, &u))
		errat(p, t.s, "%s does not fit in 64 bits", tokdesc(t));
	if (k == NREAL && !numreal(s, &v))
		errat(p, t.s, "%s is out of the range of .f64", tokdesc(t));
	return k;
}

static Ref
addimm(P *p, Fn *fn, Str text)
{
	fn->imm = agrow(p->m->arena, fn->imm, fn->nimm, &fn->capimm, sizeof *fn->imm);
	fn->imm[fn->nimm] = (Imm){text};
	return REF(RImm, fn->nimm++);
}

static Ref
imm(P *p, Fn *fn, const char *b)
{
	checknum(p, b, p->tok);
	next(p);
	return addimm(p, fn, span(b, p->lastend));
}

/* Constant expressions. The lexer goes on from e: the tokens of an
 * expression were read by cexpr(), on the text itself */
static void
resync(P *p, const char *e)
{
	for (const char *q = p->tok.s; q < e; q++)
		p->tok.line += *q == '\n';
	p->lx.p = e;
	p->lx.line = p->tok.line;
	p->hasnxt = 0;
	p->tok = (Tok){.s = e, .line = p->tok.line};
	next(p);
}

/* does an operator of a constant expression follow the token that ends
 * at e? Lexes a copy, past the one token of lookahead */
static int
opafter(P *p, const char *e)
{
	Lexer l = p->lx;
	Tok t;

	l.p = e;
	t = lex(&l);
	if (t.kind == TIDENT && t.n == 1 && *t.s == '%')
		return 1;
	return t.kind == TPUNCT && strchr("+-*/<>=!&|^?", *t.s);
}

/* the operand is a number with its sign, no expression: the forms the
 * parser read before it knew expressions, with their own errors */
static int
plainnum(P *p)
{
	if (p->tok.kind == TNUM)
		return !opafter(p, p->tok.s + p->tok.n);
	if (ispunct_(p->tok, '-') || ispunct_(p->tok, '+'))
		return peek(p).kind == TNUM && peek(p).adj && !opafter(p, p->nxt.s + p->nxt.n);
	return 0;
}

/* can a constant expression start here? After `!` or `(` only if a
 * constant, an operator or a cast follows: `!%p1` negates a predicate, and
 * `(` with a name in it, or any `(` in a call's operands, is a list */
static int
exprstart(P *p)
{
	Tok t = p->tok, n;

	if (t.kind == TNUM || ispunct_(t, '-') || ispunct_(t, '+') || ispunct_(t, '~'))
		return 1;
	if (!ispunct_(t, '!') && !(ispunct_(t, '(') && !p->call))
		return 0;
	n = peek(p);
	return n.kind == TNUM || (n.kind == TPUNCT && strchr("(-+~!", *n.s))
	       || (n.kind == TDIR && ispunct_(t, '('));
}

/* a constant expression: its text as written; *v its value */
static Str
exprtext(P *p, Cval *v)
{
	const char *b = p->tok.s, *msg;
	uint n;

	if ((msg = cexpr(span(b, p->lx.end), v, &n)))
		errat(p, b + n, "%s", msg);
	resync(p, b + n);
	return span(b, b + n);
}

/* an address's constant expression, which must be an integer */
static Str
addrexpr(P *p, Cval *v)
{
	Str t = exprtext(p, v);
	if (v->ty == Tf64)
		errat(p, t.s, "an address takes an integer, not '%.*s'", t.n > 40 ? 40 : (int)t.n, t.s);
	return t;
}

static Ref operand(P *p, Fn *fn, Str *sel);

/* list = operand ("," operand)*  up to the closing character c */
static Ref
list(P *p, Fn *fn, int kind, int c)
{
	Ref buf[64], *el = buf;
	uint n = 0, cap = countof(buf);

	/* PTX nests two deep at most ([tex, {x, y}]); the bound keeps the
	 * recursion off the end of the stack on hostile input */
	if (++p->depth > 4)
		errat(p, p->lastend - 1, "operands nested too deeply");
	if (!ispunct_(p->tok, c))
		for (;;) {
			if (n == cap) {
				Ref *nel = arena_alloc(p->m->arena, 2 * cap * sizeof *nel);
				memcpy(nel, el, n * sizeof *el);
				el = nel, cap *= 2;
			}
			el[n] = operand(p, fn, NULL);
			if (consume(p, '|'))
				continue;
			n++;
			if (!consume(p, ','))
				break;
		}
	expect(p, c);
	p->depth--;
	fn->vec = agrow(p->m->arena, fn->vec, fn->nvec, &fn->capvec, sizeof *fn->vec);
	fn->vec[fn->nvec] = (Vec){args(p, el, n), n};
	return REF(kind, fn->nvec++);
}

/* an address's integer: the offset, or the whole address ([8]) */
static void
addrnum(P *p, const char *b)
{
	if (p->tok.kind != TNUM)
		errat(p, p->tok.s, "expected an offset before %s", tokdesc(p->tok));
	if (checknum(p, b, p->tok) != NINT)
		errat(p, p->tok.s, "an address takes an integer, not %s", tokdesc(p->tok));
}

/* the offset after "[base+": a number, or an integer expression (`8+4`) */
static void
offset(P *p, Mem *m)
{
	const char *b = p->tok.s;
	uint64_t u;
	Cval v;

	if (!plainnum(p) && exprstart(p)) {
		m->offs = addrexpr(p, &v);
		m->off = (long)v.u;
		return;
	}
	if (ispunct_(p->tok, '-'))
		next(p);
	addrnum(p, b);
	next(p);
	m->offs = span(b, p->lastend);
	numint(m->offs, &u);
	m->off = (long)u;
}

/* addr = (reg | name | expr) ("+" expr)? ("," vec)?
 * (an expression that is a number is read as before expressions, with
 * its own errors: "[%r+-4]", "[8]") */
static Ref
addr(P *p, Fn *fn)
{
	Mem m = {0};
	Cval v;

	if (p->tok.kind == TIDENT)
		m.base = name(p, fn, NULL);
	else if (p->tok.kind == TNUM && plainnum(p)) {
		addrnum(p, p->tok.s);
		m.base = imm(p, fn, p->tok.s);
	} else if (exprstart(p))
		m.base = addimm(p, fn, addrexpr(p, &v));
	else
		errat(p, p->tok.s, "expected an address before %s", tokdesc(p->tok));
	if (ispunct_(p->tok, '-'))
		errat(p, p->tok.s, "expected '+' before the offset: PTX writes [%%r+-4]");
	if (consume(p, '+'))
		offset(p, &m);
	if (consume(p, ',')) {
		if (!consume(p, '{'))
			errat(p, p->tok.s, "expected '{' before %s", tokdesc(p->tok));
		m.vec = list(p, fn, RVec, '}');
	}
	expect(p, ']');
	fn->mem = agrow(p->m->arena, fn->mem, fn->nmem, &fn->capmem, sizeof *fn->mem);
	fn->mem[fn->nmem] = m;
	return REF(RMem, fn->nmem++);
}

// operand = "!"? (name sel? | ("-" | "+")? num | expr | "_" | "[" addr "]" | "{" list "}" | "(" list ")")
static Ref
operand(P *p, Fn *fn, Str *sel)
{
	int neg = !exprstart(p) && consume(p, '!');
	Cval v;
	Ref r;

	if (p->tok.kind == TIDENT && tokis(p->tok, "_") && !peek(p).adj)
		next(p), r = REF(RSink, 0);
	else if (p->tok.kind == TIDENT)
		r = name(p, fn, sel);
	else if (plainnum(p) && p->tok.kind == TNUM)
		r = imm(p, fn, p->tok.s);
	else if (plainnum(p)) {
		const char *b = p->tok.s;
		next(p);
		r = imm(p, fn, b);
	} else if (exprstart(p))
		r = addimm(p, fn, exprtext(p, &v));
	else if (consume(p, '['))
		r = addr(p, fn);
	else if (consume(p, '{'))
		r = list(p, fn, RVec, '}');
	else if (consume(p, '('))
		r = list(p, fn, RList, ')');
	else
		errat(p, p->tok.s, "expected an operand before %s", tokdesc(p->tok));
	r.neg = neg;
	return r;
}

// ins = ("@" "!"? reg)? opcode dir* (operand (("," | "|") operand)*)? ";"
static void
ins(P *p, Fn *fn)
{
	Ins *i = newins(p, fn, 0);
	uint at = i - fn->ins, n = 0;
	Ref buf[16], *a = buf, pred = {0};
	Str sbuf[16], *sl = sbuf;
	int anysel = 0;
	uint cap = countof(buf);
	int op, flags = 0, ty = 0;
	Str nm, sep = {0};

	if (consume(p, '@')) {
		if (consume(p, '!'))
			flags |= INEGPRED;
		Tok pt = p->tok;
		if (pt.kind == TIDENT)
			pred = name(p, fn, NULL);
		if (pred.kind != RReg)
			errat(p, pt.s, "expected a predicate before %s", tokdesc(pt));
	}
	if (p->tok.kind != TIDENT)
		errat(p, p->tok.s, "expected an instruction before %s", tokdesc(p->tok));
	if ((op = opcode(p->tok.s, p->tok.n)) < 0)
		errat(p, p->tok.s, "unknown instruction %s", tokdesc(p->tok));
	nm.s = p->tok.s;
	next(p);
	while (p->tok.kind == TDIR && p->tok.adj) {
		int t = typeof_(p->tok.s + 1, p->tok.n - 1);
		if (t)
			ty = t;
		next(p);
	}
	nm.n = p->lastend - nm.s;
	p->call = op == Ocall;
	if (!ispunct_(p->tok, ';')) {
		sep = span(p->lastend, p->tok.s);
		for (;;) {
			if (n == cap) {
				Ref *na = arena_alloc(p->m->arena, 2 * cap * sizeof *na);
				Str *ns = arena_alloc(p->m->arena, 2 * cap * sizeof *ns);
				memcpy(na, a, n * sizeof *a);
				memcpy(ns, sl, n * sizeof *sl);
				a = na, sl = ns, cap *= 2;
			}
			sl[n] = (Str){0};
			a[n] = operand(p, fn, &sl[n]);
			anysel |= sl[n].s != NULL;
			if (consume(p, '|')) {
				n++;
				if (n == cap)
					errat(p, p->tok.s, "too many operands");
				sl[n] = (Str){0};
				a[n] = operand(p, fn, NULL);
				a[n].bar = 1;
			}
			n++;
			if (!consume(p, ','))
				break;
		}
	}
	if (!ispunct_(p->tok, ';'))
		errat(p, p->tok.s, "expected ';' before %s", tokdesc(p->tok));
	next(p);
	if (n > 0xffff)
		errat(p, nm.s, "too many operands");
	i = &fn->ins[at];
	i->op = op;
	i->ty = ty;
	i->flags = flags;
	i->pred = pred;
	i->name = nm;
	i->sep = sep;
	i->arg = args(p, a, n);
	i->narg = n;
	i->sel = NULL;
	if (anysel) {
		i->sel = arena_alloc(p->m->arena, n * sizeof *i->sel);
		memcpy(i->sel, sl, n * sizeof *sl);
	}
	endstmt(p, i);
}

static void
label(P *p, Fn *fn)
{
	Ins *i = newins(p, fn, Olabel);
	uint l = names_get(fn->lblnames, p->tok.s, p->tok.n);

	isname(p, "a label");
	if (l != ~0u && fn->lbl[l].ins != ~0u)
		errat(p, p->tok.s, "duplicate label %s", tokdesc(p->tok));
	if (l == ~0u) {
		fn->lbl = agrow(p->m->arena, fn->lbl, fn->nlbl, &fn->caplbl, sizeof *fn->lbl);
		l = fn->nlbl++;
		names_put(p->m->arena, &fn->lblnames, p->tok.s, p->tok.n, l);
	}
	fn->lbl[l] = (Lbl){{p->tok.s, p->tok.n}, i - fn->ins, 0};
	i->arg = arena_alloc(p->m->arena, sizeof(Ref));
	i->arg[0] = REF(RLbl, l);
	i->narg = 1;
	next(p);
	expect(p, ':');
	endstmt(p, i);
}

static void
loc(P *p, Fn *fn)
{
	Ins *i = newins(p, fn, Oloc);
	uint line = p->tok.line, k = 0;

	next(p);
	while (p->tok.kind != TEOF && p->tok.line == line) {
		if (p->tok.kind == TNUM && k < 3 && p->tok.adj == 0)
			i->loc[k++] = (uint)strtoul(p->tok.s, NULL, 0);
		else
			k = 3;
		next(p);
	}
	endstmt(p, i);
}

/* labels named by bra and call are resolved once the body is read */
static void
resolve(P *p, Fn *fn)
{
	for (uint k = 0; k < fn->nins; k++) {
		Ins *i = &fn->ins[k];
		if (i->op >= NOP)
			continue;
		for (uint j = 0; j < i->narg; j++) {
			Ref *r = &i->arg[j];
			uint l;
			if (r->kind != RSym)
				continue;
			l = names_get(fn->lblnames, p->m->sym[r->idx].name.s, p->m->sym[r->idx].name.n);
			if (l != ~0u && fn->lbl[l].ins != ~0u)
				r->kind = RLbl, r->idx = l;
			else if (i->op == Obra)
				errat(p, i->src.s, "undefined label '%.*s'",
				      (int)p->m->sym[r->idx].name.n, p->m->sym[r->idx].name.s);
		}
	}
}

// body = "{" stmt* "}"
// stmt = "{" | "}" | label | ".reg" ... | var | ".loc" ... | directive ... | ins
static void
body(P *p, Fn *fn)
{
	uint depth = 0, *marks = NULL, capmarks = 0;

	for (;;) {
		Tok t = p->tok;
		if (t.kind == TEOF)
			errat(p, t.s, "expected '}' before end of file");
		if (ispunct_(t, '{')) {
			Ins *i = newins(p, fn, Oopen);
			next(p);
			endstmt(p, i);
			marks = agrow(p->m->arena, marks, depth, &capmarks, sizeof *marks);
			marks[depth++] = p->nundo;
			p->scope = depth;
		} else if (ispunct_(t, '}')) {
			if (depth == 0)
				break;
			undo(p, marks[--depth]);
			p->scope = depth;
			Ins *i = newins(p, fn, Oclose);
			next(p);
			endstmt(p, i);
		} else if (t.kind == TIDENT || ispunct_(t, '@')) {
			if (t.kind == TIDENT && ispunct_(peek(p), ':'))
				label(p, fn);
			else
				ins(p, fn);
		}
		else if (tokis(t, ".reg"))
			reg(p, fn);
		else if (isspace_dir(t))
			var(p, fn);
		else if (tokis(t, ".loc"))
			loc(p, fn);
		else if (tokis(t, ".file") || tokis(t, ".version") || tokis(t, ".target"))
			raw(p, fn, 1);
		else if (t.kind == TDIR)
			raw(p, fn, 0);
		else
			ins(p, fn);
	}
	fn->close = span(p->prevend, p->tok.s);
	next(p);
	p->prevend = p->lastend;
	resolve(p, fn);
}

enum { PENTRY, PIN, PRET };   /* a kernel's parameter, a .func's, its return value */

/* a .param's type: one that a variable may have, or a kernel's opaque handle */
static void
paramtype(P *p, int where)
{
	int ty = typeof_(p->tok.s + 1, p->tok.n - 1);

	if (tokis(p->tok, ".texref") || tokis(p->tok, ".surfref")
	    || (tokis(p->tok, ".samplerref") && p->m->target.s
	        && memmem(p->m->target.s, p->m->target.n, "texmode_independent", 19))) {
		if (where != PENTRY)
			errat(p, p->tok.s, "%s in a parameter of a .func", tokdesc(p->tok));
	} else if (p->tok.kind != TDIR || (!ty && !tokis(p->tok, ".samplerref")))
		errat(p, p->tok.s, "expected a parameter type before %s", tokdesc(p->tok));
	else if (!regtype(ty) || ty == Tpred || ty == Tf16x2)
		errat(p, p->tok.s, "%s is no parameter type", tokdesc(p->tok));
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
		errat(p, p->tok.s, "'.ptr' in a parameter of a .func");
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
		errat(p, p->tok.s, where == PENTRY ? "expected '.param' before %s"
		      : "expected '.param' or '.reg' before %s", tokdesc(p->tok));
	if (p->tok.kind != TIDENT)
		errat(p, p->tok.s, "expected a parameter name before %s", tokdesc(p->tok));
	pa.decl = span(b, p->lastend);
	pa.name = (Str){p->tok.s, p->tok.n};
	next(p);
	b = p->lastend;
	if (ispunct_(p->tok, '[')) {
		const char *at = p->tok.s;
		uint64_t u = 0;
		if (isreg)
			errat(p, at, "a .reg parameter is no array");
		next(p);
		if (p->tok.kind == TNUM) {
			if (checknum(p, p->tok.s, p->tok) != NINT || !numint((Str){p->tok.s, p->tok.n}, &u))
				errat(p, p->tok.s, "expected a size before %s", tokdesc(p->tok));
			next(p);
		}
		expect(p, ']');
		*nosize = !u;
		if (!u && where == PENTRY)
			errat(p, at, "a kernel's parameter array needs a size");
		if (!u && where == PRET)
			errat(p, at, "a return value's array needs a size");
		if (ispunct_(p->tok, '['))
			errat(p, p->tok.s, "a parameter array has one dimension");
	}
	pa.tail = span(b, p->lastend);
	return pa;
}

// params = "(" (param ("," param)*)? ")"
static Param *
params(P *p, uint *n, int where)
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
				errat(p, v[*n - 1].name.s, "only the last parameter may be an array without a size");
			nreg += tokis(p->tok, ".reg");
			v[(*n)++] = param(p, where, &nosize);
			if (!consume(p, ','))
				break;
		}
	expect(p, ')');
	if (where == PRET && *n > 1 && nreg < *n)
		errat(p, b, "a .func returns one .param value at most (several must all be .reg)");
	Param *r = arena_alloc(p->m->arena, (*n ? *n : 1) * sizeof *r);
	memcpy(r, v, *n * sizeof *r);
	return r;
}

/* A body grows its arrays in the parser's scratch arrays, which are then
 * copied at their exact size: doubling in an arena would leave every old
 * copy behind (half the memory on a large file). */
#define BORROW(a, n, cap) (fn->a = p->scratch.a, fn->cap = p->scratch.cap, fn->n = 0)
#define GIVEBACK(a, n, cap) do { \
		p->scratch.a = fn->a, p->scratch.cap = fn->cap; \
		fn->a = arena_alloc(p->m->arena, (fn->n + 1) * sizeof *fn->a); \
		if (fn->n) \
			memcpy(fn->a, p->scratch.a, fn->n * sizeof *fn->a); \
		fn->cap = fn->n; \
	} while (0)

static void
borrow(P *p, Fn *fn)
{
	BORROW(ins, nins, cap);
	BORROW(reg, nreg, capreg);
	BORROW(lbl, nlbl, caplbl);
	BORROW(imm, nimm, capimm);
	BORROW(mem, nmem, capmem);
	BORROW(vec, nvec, capvec);
}

static void
giveback(P *p, Fn *fn)
{
	GIVEBACK(ins, nins, cap);
	GIVEBACK(reg, nreg, capreg);
	GIVEBACK(lbl, nlbl, caplbl);
	GIVEBACK(imm, nimm, capimm);
	GIVEBACK(mem, nmem, capmem);
	GIVEBACK(vec, nvec, capvec);
}

static void
remap(Ref *r, const uint *to)
{
	if (r->kind == RReg)
		r->idx = to[r->idx];
}

/* Put the registers in the order they would have if every member of every
 * range had been made where the range is declared: passes walk registers
 * by index (declarations hoisted, liveness sets, fresh names), and their
 * output must not change with the order in which members are first used. */
static void
regorder(P *p, Fn *fn)
{
	Arena *a = p->m->arena;
	uint n = fn->nreg, *key, *by, *to;
	Reg *old;
	int sorted = 1;

	while (p->capord <= n)
		p->ord = agrow(a, p->ord, p->capord, &p->capord, sizeof *p->ord);
	key = p->ord;
	for (uint r = 0; r < n; r++) {
		const Reg *g = &fn->reg[r];
		if (g->range)
			key[r] = fn->range[g->range - 1].base + (uint)g->num;
		sorted &= !r || key[r] > key[r - 1];
	}
	if (sorted)
		return;
	by = arena_alloc(a, (n + 1) * sizeof *by);
	to = arena_alloc(a, (n + 1) * sizeof *to);
	old = arena_alloc(a, (n + 1) * sizeof *old);
	for (uint r = 0; r < n; r++)
		by[r] = r;
	sortby(by, to, n, key);
	memcpy(old, fn->reg, n * sizeof *old);
	for (uint k = 0; k < n; k++)
		to[by[k]] = k, fn->reg[k] = old[by[k]];
	for (uint k = 0; k < fn->nins; k++) {
		remap(&fn->ins[k].pred, to);
		for (uint j = 0; j < fn->ins[k].narg; j++)
			remap(&fn->ins[k].arg[j], to);
	}
	for (uint k = 0; k < fn->nmem; k++)
		remap(&fn->mem[k].base, to);
	for (uint k = 0; k < fn->nvec; k++)
		for (uint j = 0; j < fn->vec[k].n; j++)
			remap(&fn->vec[k].el[j], to);
	names_map(fn->regnames, to);
	names_map(fn->members, to);
}

// function = linkage* (".entry" | ".func") ("(" params ")")? name ("(" params ")")?
//            perf* (body | ";")
static void
function(P *p)
{
	Module *m = p->m;
	Ins *it = newins(p, NULL, Ofn);
	Fn *fn = arena_alloc(m->arena, sizeof *fn);
	const char *b = p->tok.s, *pb;

	fn->mod = m;
	fn->line = p->tok.line;
	fn->lead = it->lead;
	for (;; next(p)) {
		if (tokis(p->tok, ".visible"))
			fn->flags |= FVISIBLE;
		else if (tokis(p->tok, ".extern"))
			fn->flags |= FEXTERN;
		else if (tokis(p->tok, ".weak"))
			fn->flags |= FWEAK;
		else if (tokis(p->tok, ".entry")) {
			fn->flags |= FENTRY;
			next(p);
			break;
		} else if (tokis(p->tok, ".func")) {
			next(p);
			break;
		} else if (p->tok.kind == TDIR)
			;
		else
			errat(p, p->tok.s, "expected '.func' or '.entry' before %s", tokdesc(p->tok));
	}
	while (p->tok.kind == TDIR)   /* .noreturn, .attribute(.unified(...)) */
		if (tokis(p->tok, ".attribute"))
			attribute(p);
		else
			next(p);
	if (ispunct_(p->tok, '(') && (fn->flags & FENTRY))
		errat(p, p->tok.s, "a kernel returns nothing");
	if (ispunct_(p->tok, '('))
		fn->ret = params(p, &fn->nret, PRET);
	isname(p, "a function name");
	fn->nameoff = p->tok.s - b;
	fn->headname = (Str){p->tok.s, p->tok.n};
	fn->sym = intern(m, p->tok.s, p->tok.n);
	next(p);
	if (p->tok.kind == TDIR && p->tok.adj)
		errat(p, p->tok.s, "a function name has no '.'");
	if (ispunct_(p->tok, '('))
		fn->par = params(p, &fn->npar, fn->flags & FENTRY ? PENTRY : PIN);
	pb = p->tok.s;
	while (!ispunct_(p->tok, '{') && !ispunct_(p->tok, ';')) {
		if (tokis(p->tok, ".pragma")) {   /* entry-level: ends with its own ';' */
			tosemi(p);
			continue;
		}
		if (p->tok.kind == TEOF || (p->tok.kind != TDIR && p->tok.kind != TNUM
		    && p->tok.kind != TSTR && !ispunct_(p->tok, ',') && !ispunct_(p->tok, '(')
		    && !ispunct_(p->tok, ')') && p->tok.kind != TIDENT))
			errat(p, p->tok.s, "expected '{' or ';' before %s", tokdesc(p->tok));
		next(p);
	}
	fn->perf = pb < p->tok.s ? span(pb, p->lastend) : (Str){0};
	fn->head = span(b, p->lastend);
	fn->open = span(p->lastend, p->tok.s + 1);
	it->src = fn->head;
	m->fn = agrow(m->arena, m->fn, m->nfn, &m->capfn, sizeof *m->fn);
	m->fn[m->nfn] = fn;
	it->arg = arena_alloc(m->arena, sizeof(Ref));
	it->arg[0] = REF(RFn, m->nfn++);
	it->narg = 1;
	if (consume(p, ';')) {
		fn->flags |= FDECL;
		p->prevend = p->lastend;
		return;
	}
	next(p);
	p->prevend = p->lastend;
	p->fn = fn;
	borrow(p, fn);
	body(p, fn);
	regorder(p, fn);
	giveback(p, fn);
	p->fn = NULL;
}

// item = ".version" ... | ".target" ... | ".address_size" num | ".file" ...
//      | ".section" ... | ".pragma" ... ";" | linkage* (var | function)
static void
item(P *p)
{
	Tok t = p->tok;
	Module *m = p->m;

	if (tokis(t, ".version") || tokis(t, ".target") || tokis(t, ".address_size")) {
		Tok v = peek(p);
		Ins *i;
		uint64_t u = 0;
		raw(p, NULL, 1);
		i = &m->top[m->ntop - 1];
		if (v.line != t.line)   /* the directive alone: say so in verify() */
			v.s = i->src.s + i->src.n, v.kind = TEOF;
		if (tokis(t, ".version"))
			m->version = span(v.s, i->src.s + i->src.n);
		else if (tokis(t, ".target"))
			m->target = span(v.s, i->src.s + i->src.n);
		else if (v.kind == TNUM && numint((Str){v.s, v.n}, &u) && u < 1024)
			m->addrsize = (int)u;
		else
			m->addrsize = -1;
	} else if (tokis(t, ".file"))
		raw(p, NULL, 1);
	else if (tokis(t, ".section") || tokis(t, ".pragma") || tokis(t, ".alias"))
		raw(p, NULL, 0);
	else if (t.kind == TDIR) {
		/* linkage, then a variable or a function */
		Lexer save = p->lx;
		Tok st = p->tok, sn = p->nxt;
		int hn = p->hasnxt, isfn = 0;
		while (p->tok.kind == TDIR && (tokis(p->tok, ".visible") || tokis(p->tok, ".extern")
		       || tokis(p->tok, ".weak") || tokis(p->tok, ".common")))
			next(p);
		if (tokis(p->tok, ".func") || tokis(p->tok, ".entry"))
			isfn = 1;
		else if (!isspace_dir(p->tok))
			errat(p, p->tok.s, "unknown directive %s", tokdesc(p->tok));
		p->lx = save, p->tok = st, p->nxt = sn, p->hasnxt = hn;
		if (isfn)
			function(p);
		else
			var(p, NULL);
	} else
		errat(p, t.s, "expected a directive before %s", tokdesc(t));
}

// module = item* EOF
static Module *
parsein(Arena *a, const char *path, char *copy, size_t n)
{
	Module *m;
	P *p = arena_alloc(a, sizeof *p);
	volatile int ok = 0;

	m = arena_alloc(a, sizeof *m);
	m->arena = a;
	m->path = arena_strdup(m->arena, path);
	m->text = (Str){copy, n};
	p->m = m;
	p->path = m->path;
	lex_init(&p->lx, copy, n);
	p->prevend = copy;
	if (!setjmp(p->jb)) {
		p->tok = lex(&p->lx);
		p->lastend = copy;
		if (p->lx.bad)
			errat(p, p->lx.bad, *p->lx.bad == '"' ? "unterminated string" : "unterminated comment");
		while (p->tok.kind != TEOF)
			item(p);
		m->tailtext = span(p->prevend, copy + n);
		ok = 1;
	}
	if (!ok) {
		arena_free(m->arena);
		return NULL;
	}
	return m;
}

Module *
parse(const char *path, const char *text, size_t n)
{
	Arena *a = arena_new();
	char *copy = arena_alloc(a, n + 1);

	memcpy(copy, text, n);
	return parsein(a, path, copy, n);
}

/* read straight into the arena: a large file is held once */
Module *
parsefile(const char *path)
{
	Arena *a;
	char *s;
	size_t n = 0, k;
	FILE *f = fopen(path, "rb");

	if (!f || fseek(f, 0, SEEK_END) || (long)(n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		error("cannot read '%s': %s", path, strerror(errno));
		if (f)
			fclose(f);
		return NULL;
	}
	a = arena_new();
	s = arena_alloc(a, n + 1);
	k = fread(s, 1, n, f);
	fclose(f);
	if (k != n) {
		error("cannot read '%s'", path);
		arena_free(a);
		return NULL;
	}
	return parsein(a, path, s, n);
}

void
mod_free(Module *m)
{
	if (m)
		arena_free(m->arena);
}

/* mkins: one instruction from text, for passes (see ptx.h) */
Ins *
mkins(Fn *fn, const char *text)
{
	Module *m = fn->mod;
	P *p = arena_alloc(m->arena, sizeof *p);
	size_t n = strlen(text);
	char *copy = arena_alloc(m->arena, n + 1);
	Ins *i = NULL;
	uint at = fn->nins;

	memcpy(copy, text, n);
	p->m = m;
	p->path = "<mkins>";
	lex_init(&p->lx, copy, n);
	p->prevend = copy;
	if (setjmp(p->jb)) {
		fn->nins = at;
		return NULL;
	}
	p->tok = lex(&p->lx);
	p->lastend = copy;
	if (p->lx.bad)
		errat(p, p->lx.bad, "unterminated string");
	ins(p, fn);
	if (p->tok.kind != TEOF)
		errat(p, p->tok.s, "expected the end of the instruction before %s", tokdesc(p->tok));
	i = arena_alloc(m->arena, sizeof *i);
	*i = fn->ins[at];
	fn->nins = at;
	for (uint j = 0; j < i->narg; j++) {
		Ref *r = &i->arg[j];
		uint l;
		if (r->kind == RSym && (l = names_get(fn->lblnames, m->sym[r->idx].name.s,
		                                      m->sym[r->idx].name.n)) != ~0u)
			r->kind = RLbl, r->idx = l;
	}
	i->lead = (Str){0};
	i->src = (Str){0};
	i->sep = (Str){0};   /* cicc's " \t" */
	i->line = 0;
	return i;
}

static void
declreg(P *p, Fn *fn, uint r)
{
	const Reg *g = &fn->reg[r];
	const char *s = g->num < 0 ? g->pfx.s : regstr(fn, r);

	declare(p, &fn->regnames, s, g->num < 0 ? g->pfx.n : strlen(s), r);
}

/* the names of the { } scopes open at statement at, put over the
 * function's as the parser had them there (declare() keeps what they
 * hide in p->undo): those of a scope closed before at are taken back.
 * Keys stay in the tables, so they are names the function keeps: a
 * register not of a range has its whole name in pfx (num < 0) */
static void
scopesat(P *p, Fn *fn, uint at)
{
	uint *marks = NULL, cap = 0;

	for (uint k = 0; k < at && k < fn->nins; k++) {
		const Ins *i = &fn->ins[k];
		if (i->op == Oopen) {
			marks = agrow(p->m->arena, marks, p->scope, &cap, sizeof *marks);
			marks[p->scope++] = p->nundo;
		} else if (i->op == Oclose && p->scope)
			undo(p, marks[--p->scope]);
		else if (i->op == Oreg && p->scope && i->narg && i->arg[0].kind == RRange) {
			Str pfx = fn->range[i->arg[0].idx].pfx;
			declare(p, &fn->rangenames, pfx.s, pfx.n, i->arg[0].idx);
		} else if (i->op == Oreg && p->scope)
			for (uint a = 0; a < i->narg; a++)
				if (i->arg[a].kind == RReg)
					declreg(p, fn, i->arg[a].idx);
	}
}

Ins *
mkinsat(Fn *fn, uint at, const char *text)
{
	P p = {0};
	Ins *i;

	if (!(fn->flags & FSCOPED))
		return mkins(fn, text);
	p.m = fn->mod;
	scopesat(&p, fn, at);
	i = mkins(fn, text);
	undo(&p, 0);
	return i;
}
