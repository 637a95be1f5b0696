/* parse-tok.c: the parser's reading (parse.c): the next token, its
 * number as ptxas reads it, a statement's span, errors, and the names
 * that a declaration in a { } scope hides until its '}'. */
#include "ptx/parse.h"
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int ptx_quiet;

/* declare a register name, remembering what it shadows inside a scope */
void
declare(P *p, Names **t, const char *s, uint n, uint v)
{
	if (p->scope) {
		p->undo = agrow(p->m->arena, p->undo, p->nundo, &p->capundo, sizeof *p->undo);
		p->undo[p->nundo++] = (struct undo){t, s, n, names_get(*t, s, n)};
	}
	names_put(p->m->arena, t, s, n, v);
}

/* restore the names that the declarations since undo record mark hid */
void
undo(P *p, uint mark)
{
	for (; p->nundo > mark; p->nundo--) {
		struct undo *u = &p->undo[p->nundo - 1];
		names_put(p->m->arena, u->t, u->s, u->n, u->old);
	}
}

int
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

_Noreturn void
perr(P *p, const char *pos, const char *f, ...)
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

const char *
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

void
next(P *p)
{
	p->lastend = p->tok.s + p->tok.n;
	if (p->hasnxt) {
		p->tok = p->nxt;
		p->hasnxt = 0;
	} else
		p->tok = lex(&p->lx);
	if (p->lx.bad)
		perr(p, p->lx.bad, *p->lx.bad == '"' ? "unterminated string" : "unterminated comment");
	if (p->tok.kind == TPUNCT && !okpunct[(uchar)*p->tok.s])
		perr(p, p->tok.s, "unexpected character %s", tokdesc(p->tok));
}

Tok
peek(P *p)
{
	if (!p->hasnxt) {
		p->nxt = lex(&p->lx);
		p->hasnxt = 1;
	}
	return p->nxt;
}

int
ispunct_(Tok t, int c)
{
	return t.kind == TPUNCT && *t.s == c;
}

int
consume(P *p, int c)
{
	if (!ispunct_(p->tok, c))
		return 0;
	next(p);
	return 1;
}

void
expect(P *p, int c)
{
	if (!consume(p, c))
		perr(p, p->tok.s, "expected '%c' before %s", c, tokdesc(p->tok));
}

Str
span(const char *a, const char *b)
{
	return (Str){a, (uint)(b - a)};
}

/* the current token as a name, of what: an identifier that is none of
 * `_`, `$` and `%` alone (PTX ISA 4.4; `_` is the sink) */
void
isname(P *p, const char *what)
{
	if (p->tok.kind != TIDENT)
		perr(p, p->tok.s, "expected %s before %s", what, tokdesc(p->tok));
	if (p->tok.n == 1 && !isalpha((uchar)*p->tok.s))
		perr(p, p->tok.s, "%s is no name: a name of one character is a letter",
		      tokdesc(p->tok));
}

/* statements */

Ins *
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
void
endstmt(P *p, Ins *i)
{
	const char *b = i->lead.s + i->lead.n;
	i->src = span(b, p->lastend);
	p->prevend = p->lastend;
}

Ref *
args(P *p, Ref *a, uint n)
{
	Ref *r = arena_alloc(p->m->arena, (n ? n : 1) * sizeof *r);
	memcpy(r, a, n * sizeof *r);
	return r;
}

/* the rest of a line, for .loc, .file, .version ... */
void
restofline(P *p)
{
	uint line = p->tok.line;

	next(p);
	while (p->tok.kind != TEOF && p->tok.line == line)
		next(p);
}

/* up to and including ';', braces balanced (an initializer's numbers read
 * as an operand's are) */
void
tosemi(P *p)
{
	int depth = 0;

	for (;;) {
		if (p->tok.kind == TEOF)
			perr(p, p->tok.s, "expected ';' before end of file");
		if (p->tok.kind == TNUM)
			checknum(p, p->tok.s, p->tok);
		if (ispunct_(p->tok, '{') || ispunct_(p->tok, '('))
			depth++;
		if ((ispunct_(p->tok, '}') || ispunct_(p->tok, ')')) && depth-- == 0)
			perr(p, p->tok.s, "expected ';' before %s", tokdesc(p->tok));
		if (ispunct_(p->tok, ';') && depth == 0)
			break;
		next(p);
	}
	next(p);
}


/* the number from b (its sign) to the end of token t as ptxas reads it */
int
checknum(P *p, const char *b, Tok t)
{
	Str s = span(b, t.s + t.n);
	int k = numform(s);
	uint64_t u;
	double v;

	if (k == NBAD && t.n > 1 && t.s[0] == '0' && t.s[1] && strchr("fFdD", t.s[1]))
		perr(p, t.s, "bad float constant %s", tokdesc(t));
	if (k == NBAD)
		perr(p, t.s, "bad number %s", tokdesc(t));
	if (k == NF32 && b != t.s)
		perr(p, b, "a sign before an 0f constant: write the bits of the negated value");
	if (k == NINT && !numint(s, &u))
		perr(p, t.s, "%s does not fit in 64 bits", tokdesc(t));
	if (k == NREAL && !numreal(s, &v))
		perr(p, t.s, "%s is out of the range of .f64", tokdesc(t));
	return k;
}
