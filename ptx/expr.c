/* expr.c: PTX constant expressions (PTX ISA, "Constant Expressions"):
 * `123 + 123`, `(1 << 5)`, `~0`, `0x10 | 0x1`, `1 ? 4 : 8`, the operators
 * of C with C's precedence, and the casts (.s64) and (.u64).
 *
 * The parser keeps an expression as one immediate, its text as written,
 * so that the file prints back byte for byte; this file reads that text
 * again whenever a value is asked for (immnum()), so that no pass sees an
 * expression it could take for a plain number. Values are typed as ptxas
 * types them: an integer literal is .s64, or .u64 with a U or when it does
 * not fit in .s64; a real or 0d literal is .f64. Integers and reals do not
 * mix, and only + - * / and the comparisons take reals: ptxas says
 * "Constant expression type mismatch" and "Integer constant expression
 * expected" for the rest, and so does cexpr(). An 0f literal may not be
 * part of an expression (ptxas: "syntax error" for `0f3F800000 * 1`). */
#include "ptx/ptx.h"
#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

typedef struct E E;
struct E {
	Lexer lx;
	Tok tok;
	const char *start;
	uint depth;
	const char *lastend;    /* end of the last token used */
	const char *at;         /* where the error is */
	jmp_buf jb;
};

static char msg[96];   /* cexpr()'s message outlives the call */

static _Noreturn void
fail(E *e, const char *at, const char *what)
{
	Tok t = e->tok;
	e->at = at;
	if (strncmp(what, "expected", 8) || at != t.s)
		snprintf(msg, sizeof msg, "%s", what);
	else if (t.kind == TEOF)
		snprintf(msg, sizeof msg, "%s before end of file", what);
	else
		snprintf(msg, sizeof msg, "%s before '%.*s'", what, t.n > 40 ? 40 : (int)t.n, t.s);
	longjmp(e->jb, 1);
}

/* past the first n characters of the current token (2 of "<<", which the
 * lexer gives as '<' '<') */
static void
advance(E *e, uint n)
{
	e->lastend = e->lx.p = e->tok.s + n;
	e->tok = lex(&e->lx);
	if (e->lx.bad)
		fail(e, e->lx.bad, "unterminated comment");
}

/* the operator at the current token: "<<", "&&", "+" ..., or NULL */
static const char *
opat(E *e)
{
	static const char *const two[] = {"<<", ">>", "<=", ">=", "==", "!=", "&&", "||"};
	static char one[2];
	Tok t = e->tok;

	if (t.kind == TIDENT && t.n == 1 && *t.s == '%')
		return "%";
	if (t.kind != TPUNCT)
		return NULL;
	for (uint k = 0; k < countof(two); k++)
		if (t.s + 1 < e->lx.end && t.s[0] == two[k][0] && t.s[1] == two[k][1])
			return two[k];
	one[0] = *t.s;
	return one;
}

static int isint(const Cval *v) { return v->ty != Tf64; }

static void
wantint(E *e, const char *at, const Cval *v)
{
	if (!isint(v))
		fail(e, at, "a constant expression needs an integer here, not a real");
}

/* a literal: an integer, a real or 0d bits */
static Cval
literal(E *e)
{
	Str s = {e->tok.s, e->tok.n};
	Cval v = {0};
	int k = numform(s);

	if (e->tok.kind != TNUM)
		fail(e, e->tok.s, "expected a constant");
	if (k == NF32)
		fail(e, e->tok.s, "an 0f constant cannot be part of an expression");
	if (k == NBAD)
		fail(e, e->tok.s, "bad number in a constant expression");
	if (k == NINT) {
		if (!numint(s, &v.u))
			fail(e, e->tok.s, "an integer of the expression does not fit in 64 bits");
		v.ty = s.s[s.n - 1] == 'U' || v.u > INT64_MAX ? Tu64 : Ts64;
	} else {
		if (!numreal(s, &v.d))
			fail(e, e->tok.s, "a real of the expression is out of the range of .f64");
		v.ty = Tf64;
	}
	advance(e, e->tok.n);
	return v;
}

static Cval cond(E *e);
static Cval unary(E *e);

/* "(" (".s64" | ".u64") ")" unary | "(" cond ")" */
static Cval
paren(E *e)
{
	const char *b;
	Cval v;

	advance(e, e->tok.n);
	if (e->tok.kind == TDIR) {
		int ty = tokis(e->tok, ".s64") ? Ts64 : tokis(e->tok, ".u64") ? Tu64 : 0;
		if (!ty)
			fail(e, e->tok.s, "a constant expression casts to .s64 or .u64 only");
		advance(e, e->tok.n);
		if (!(e->tok.kind == TPUNCT && *e->tok.s == ')'))
			fail(e, e->tok.s, "expected ')'");
		advance(e, 1);
		b = e->tok.s;
		v = unary(e);
		wantint(e, b, &v);
		v.ty = ty;
		return v;
	}
	v = cond(e);
	if (!(e->tok.kind == TPUNCT && *e->tok.s == ')'))
		fail(e, e->tok.s, "expected ')'");
	advance(e, 1);
	return v;
}

// unary = ("+" | "-" | "!" | "~") unary | "(" cast ")" unary | "(" cond ")" | literal
static Cval
unary(E *e)
{
	const char *op = opat(e), *b = e->tok.s;
	Cval v;

	if (++e->depth > 64)
		fail(e, b, "constant expression nested too deeply");
	if (op && strchr("+-!~", *op) && !op[1]) {
		advance(e, 1);
		v = unary(e);
		if (*op == '-' && isint(&v))
			v.u = -v.u;
		else if (*op == '-')
			v.d = -v.d;
		else if (*op == '!' || *op == '~') {
			wantint(e, b, &v);
			if (*op == '!')
				v = (Cval){Ts64, !v.u, 0};
			else
				v.u = ~v.u;
		}
	} else if (op && *op == '(')
		v = paren(e);
	else
		v = literal(e);
	e->depth--;
	return v;
}

/* the binary operators from loosest to tightest, as in C */
static const char *const level[][4] = {
	{"||"}, {"&&"}, {"|"}, {"^"}, {"&"}, {"==", "!="}, {"<", ">", "<=", ">="},
	{"<<", ">>"}, {"+", "-"}, {"*", "/", "%"},
};

static int
atlevel(const char *op, uint l)
{
	for (uint k = 0; k < 4 && level[l][k]; k++)
		if (!strcmp(op, level[l][k]))
			return 1;
	return 0;
}

static int
cmpreal(const char *op, double a, double b)
{
	switch (op[0]) {
	case '<': return op[1] ? a <= b : a < b;
	case '>': return op[1] ? a >= b : a > b;
	case '=': return a == b;
	}
	return a != b;
}

static int
cmpint(const char *op, Cval a, Cval b)
{
	int u = a.ty == Tu64 || b.ty == Tu64;
	int64_t x = (int64_t)a.u, y = (int64_t)b.u;
	int lt = u ? a.u < b.u : x < y, eq = a.u == b.u;

	switch (op[0]) {
	case '<': return op[1] ? lt || eq : lt;
	case '>': return op[1] ? !lt : !lt && !eq;
	case '=': return eq;
	}
	return !eq;
}

/* a op b for reals: + - * / and the comparisons */
static Cval
realop(E *e, const char *at, const char *op, Cval a, Cval b)
{
	if (strchr("<>=!", op[0]))
		return (Cval){Ts64, (uint64_t)cmpreal(op, a.d, b.d), 0};
	if (!strchr("+-*/", op[0]) || op[1])
		fail(e, at, "a constant expression needs integers here, not reals");
	if (op[0] == '/' && b.d == 0)
		fail(e, at, "division by zero in a constant expression");
	a.d = op[0] == '+' ? a.d + b.d : op[0] == '-' ? a.d - b.d : op[0] == '*' ? a.d * b.d
	                                                                         : a.d / b.d;
	return a;
}

/* a op b for integers, .u64 if either is (shifts: the type of a) */
static Cval
intop(E *e, const char *at, const char *op, Cval a, Cval b)
{
	int u = a.ty == Tu64 || b.ty == Tu64;
	int64_t x = (int64_t)a.u, y = (int64_t)b.u;
	Cval r = {u ? Tu64 : Ts64, 0, 0};

	if ((op[0] == '/' || op[0] == '%') && b.u == 0)
		fail(e, at, "division by zero in a constant expression");
	if (strchr("<>=!", op[0]) && strcmp(op, "<<") && strcmp(op, ">>"))
		return (Cval){Ts64, (uint64_t)cmpint(op, a, b), 0};
	switch (op[0] + 256 * op[1]) {
	case '+': r.u = a.u + b.u; break;
	case '-': r.u = a.u - b.u; break;
	case '*': r.u = a.u * b.u; break;
	case '/': r.u = u ? a.u / b.u : y == -1 ? -a.u : (uint64_t)(x / y); break;
	case '%': r.u = u ? a.u % b.u : y == -1 ? 0 : (uint64_t)(x % y); break;
	case '&': r.u = a.u & b.u; break;
	case '|': r.u = a.u | b.u; break;
	case '^': r.u = a.u ^ b.u; break;
	case '&' + 256 * '&': r = (Cval){Ts64, a.u && b.u, 0}; break;
	case '|' + 256 * '|': r = (Cval){Ts64, a.u || b.u, 0}; break;
	case '<' + 256 * '<': r = (Cval){a.ty, b.u > 63 ? 0 : a.u << b.u, 0}; break;
	default:   /* >>: arithmetic for .s64; a count past 63 shifts everything out */
		r.ty = a.ty;
		if (a.ty == Tu64)
			r.u = b.u > 63 ? 0 : a.u >> b.u;
		else
			r.u = (uint64_t)(b.u > 63 ? (x < 0 ? -1 : 0) : x >> b.u);
	}
	return r;
}

/* binary operators of level l and tighter, left to right */
static Cval
binary(E *e, uint l)
{
	Cval a, b;
	const char *op;

	if (l == countof(level))
		return unary(e);
	a = binary(e, l + 1);
	while ((op = opat(e)) && atlevel(op, l)) {
		const char *at = e->tok.s;
		char o[3] = {op[0], op[1], 0};   /* op may be opat()'s buffer */
		advance(e, (uint)strlen(o));
		b = binary(e, l + 1);
		if (isint(&a) != isint(&b))
			fail(e, at, "a constant expression mixes an integer and a real");
		a = isint(&a) ? intop(e, at, o, a, b) : realop(e, at, o, a, b);
	}
	return a;
}

// cond = binary ("?" cond ":" cond)?   (integers only: ptxas takes no real there)
static Cval
cond(E *e)
{
	const char *at;
	Cval c, a, b;

	if (++e->depth > 64)
		fail(e, e->tok.s, "constant expression nested too deeply");
	c = binary(e, 0);
	if (e->tok.kind == TPUNCT && *e->tok.s == '?') {
		at = e->tok.s;
		wantint(e, at, &c);
		advance(e, 1);
		a = cond(e);
		if (!(e->tok.kind == TPUNCT && *e->tok.s == ':'))
			fail(e, e->tok.s, "expected ':'");
		advance(e, 1);
		b = cond(e);
		wantint(e, at, &a);
		wantint(e, at, &b);
		c = (Cval){a.ty == Tu64 || b.ty == Tu64 ? Tu64 : Ts64, c.u ? a.u : b.u, 0};
	}
	e->depth--;
	return c;
}

const char *
cexpr(Str t, Cval *v, uint *len)
{
	E e = {0};

	lex_init(&e.lx, t.s, t.n);
	e.tok.s = t.s;
	if (setjmp(e.jb)) {
		*len = (uint)(e.at - t.s);
		return msg;
	}
	advance(&e, 0);
	*v = cond(&e);
	*len = (uint)(e.lastend - t.s);
	return NULL;
}
