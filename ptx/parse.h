/* parse.h: what the files of the parser share (parse.c, the module,
 * calls each; none calls back into parse.c): parse-ins.c (a body),
 * parse-decl.c (declarations), over parse-tok.c (tokens, errors).
 * Private to them. */
#ifndef MPCC_PARSE_H
#define MPCC_PARSE_H

#include <setjmp.h>

#include "ptx/ptx.h"

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
/* parse-tok.c */
/* declare a register name, remembering what it shadows inside a scope */
void declare(P *p, Names **t, const char *s, uint n, uint v);
/* restore the names that the declarations since undo record mark hid */
void undo(P *p, uint mark);
int typeof_(const char *s, uint n);   /* T* of a type name, Tnone if none */
/* print "path:line:col: error: ..." (unless ptx_quiet) and leave the parse */
_Noreturn void perr(P *p, const char *pos, const char *f, ...);
const char *tokdesc(Tok t);   /* "'x'" or "end of file", for messages */
void next(P *p);
Tok peek(P *p);
int ispunct_(Tok t, int c);
int consume(P *p, int c);
void expect(P *p, int c);
Str span(const char *a, const char *b);
void isname(P *p, const char *what);
Ins *newins(P *p, Fn *fn, int op);
void endstmt(P *p, Ins *i);
Ref *args(P *p, Ref *a, uint n);
void restofline(P *p);
void tosemi(P *p);
int checknum(P *p, const char *b, Tok t);

/* parse-decl.c */
void section(P *p);
int isspace_dir(Tok t);
void attribute(P *p);
void var(P *p, Fn *fn);
void raw(P *p, Fn *fn, int line);
uint addreg(P *p, Fn *fn, Str pfx, int ty, uint decl);
void reg(P *p, Fn *fn);
enum { PENTRY, PIN, PRET };   /* a kernel's parameter, a .func's, its return value */
Param *paramlist(P *p, uint *n, int where);

/* parse-ins.c */
void ins(P *p, Fn *fn);
void body(P *p, Fn *fn);

#endif
