/* lex.c: PTX tokens. A token is an identifier (%r12, $L__BB0_2, _Z3fooPf),
 * a directive or modifier (.reg, .f32, .shared::cta: a dot and a name,
 * glued to what comes before it when adj is set), a number (12, 0x1F,
 * 0f3F800000, 1.5e-3, .5), a string or one punctuation character. Whitespace and comments are trivia:
 * the parser recovers them as the text between two statements, so the lexer
 * only skips them. It never reads past end; `bad` marks an unterminated
 * comment or string for the parser to report. */
#include "ptx/ptx.h"
#include <ctype.h>
#include <string.h>

void
lex_init(Lexer *l, const char *s, size_t n)
{
	l->p = l->start = s;
	l->end = s + n;
	l->line = 1;
	l->bad = NULL;
}

static int
idchar(int c)
{
	return isalnum(c) || c == '_' || c == '$';
}

/* skip whitespace and comments; 1 if something was skipped */
static int
skip(Lexer *l)
{
	const char *p = l->p, *e = l->end, *from = l->p;

	for (;;) {
		while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'
		                 || *p == '\f' || *p == '\v'))
			if (*p++ == '\n')
				l->line++;
		if (p + 1 < e && p[0] == '/' && p[1] == '/') {
			while (p < e && *p != '\n')
				p++;
			continue;
		}
		if (p + 1 < e && p[0] == '/' && p[1] == '*') {
			const char *c = p;
			for (p += 2; p + 1 < e && !(p[0] == '*' && p[1] == '/'); p++)
				if (*p == '\n')
					l->line++;
			if (p + 1 >= e) {
				if (!l->bad)
					l->bad = c;
				p = e;
				break;
			}
			p += 2;
			continue;
		}
		break;
	}
	l->p = p;
	return p != from;
}

static const char *
number(const char *p, const char *e)
{
	int hex = p + 1 < e && p[0] == '0' && p[1] && strchr("xXfFdD", p[1]);

	while (p < e) {
		if (idchar(*p) || *p == '.')
			p++;
		else if (!hex && (*p == '+' || *p == '-') && (p[-1] == 'e' || p[-1] == 'E'))
			p++;
		else
			break;
	}
	return p;
}

Tok
lex(Lexer *l)
{
	Tok t = {0};
	const char *p, *e = l->end;

	t.adj = !skip(l);
	p = l->p;
	t.s = p;
	t.line = l->line;
	if (p >= e) {
		t.kind = TEOF;
		return t;
	}
	if (*p == '.' && p + 1 < e && isdigit((uchar)p[1])
	    && (p == l->start || !(idchar((uchar)p[-1]) || p[-1] == '.'))) {
		t.kind = TNUM;   /* .5, but tex.1d's .1d is a modifier */
		p = number(p, e);
	} else if (*p == '.' && p + 1 < e && idchar((uchar)p[1])) {
		/* one token for qualified modifiers: .shared::cta, .L2::128B */
		t.kind = TDIR;
		for (p++;;) {
			while (p < e && idchar((uchar)*p))
				p++;
			if (p + 2 < e && p[0] == ':' && p[1] == ':' && idchar((uchar)p[2]))
				p += 2;
			else
				break;
		}
	} else if (isalpha((uchar)*p) || *p == '_' || *p == '$' || *p == '%') {
		t.kind = TIDENT;
		for (p++; p < e && idchar((uchar)*p); p++)
			;
	} else if (isdigit((uchar)*p)) {
		t.kind = TNUM;
		p = number(p, e);
	} else if (*p == '"') {
		t.kind = TSTR;
		for (p++; p < e && *p != '"' && *p != '\n'; p++)
			if (*p == '\\' && p + 1 < e && p[1] != '\n')
				p++;
		if (p < e && *p == '"')
			p++;
		else if (!l->bad)
			l->bad = t.s;
	} else {
		t.kind = TPUNCT;
		p++;
	}
	t.n = p - t.s;
	l->p = p;
	return t;
}

int
tokis(Tok t, const char *s)
{
	size_t n = strlen(s);
	return t.n == n && memcmp(t.s, s, n) == 0;
}
