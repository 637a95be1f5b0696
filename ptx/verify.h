/* verify.h: what the files of the verifier share (verify.c, the walk,
 * calls each; none calls back into verify.c): verify-names.c (declarations,
 * scopes, names; the types of registers), verify-ops.c (instructions),
 * verify-defined.c (reads that no write reaches), over verify-report.c
 * (the messages). Private to them. */
#ifndef MPCC_VERIFY_H
#define MPCC_VERIFY_H

#include "ptx/ptx.h"

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

struct scope {
	const uchar *declared;  /* module names */
	const uint *local;      /* == stamp: a name of this function */
	uint stamp;
	uint *end;              /* per statement: the '}' ending its innermost scope */
};

/* verify-report.c */
/* an error at statement k of the current function */
void errat(V *v, uint k, const char *f, ...) __attribute__((format(printf, 3, 4)));
/* an error at a line (a module item, a function's header) */
void errline(V *v, uint line, const char *f, ...) __attribute__((format(printf, 3, 4)));

/* verify-names.c */
int sregty(Str s);    /* a special register's type: Tnone if typeless, -1 if none */
int regty(const Fn *fn, uint r);    /* register r's type as an operand; -1: undeclared */
Str regspan(V *v, uint r);          /* its name, in the module's arena */
void params(V *v);
void decls(V *v);
void locals(V *v, uint *local, uint stamp);
uint *scopeends(V *v);
void names(V *v, const struct scope *sc);

/* verify-ops.c */
void instructions(V *v);

/* verify-defined.c */
void defined(V *v);

#endif
