/* verify-report.c: the verifier's messages, "path:line: error: ..." and
 * the statement, to at most MAXERR of them. */
#include "ptx/verify.h"
#include <stdarg.h>

enum { MAXERR = 50 };

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
void __attribute__((format(printf, 3, 4)))
errat(V *v, uint k, const char *f, ...)
{
	va_list ap;

	va_start(ap, f);
	report(v, lineof(v->fn, k), &v->fn->ins[k], f, ap);
	va_end(ap);
}

/* an error at a line (a module item, a function's header) */
void __attribute__((format(printf, 3, 4)))
errline(V *v, uint line, const char *f, ...)
{
	va_list ap;

	va_start(ap, f);
	report(v, line, NULL, f, ap);
	va_end(ap);
}
