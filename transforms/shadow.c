/* shadow.c: instrumented builds for mpcc-tune, with no source edit and no
 * host code (paper 003, 4.5: shadow computations).
 *
 * measure=error: each f64 add, sub, mul, fma, mad, div, sqrt, rcp, rsqrt,
 * abs, neg, min and max of the kernel also computes its f32 twin from its
 * operands rounded to f32 (so the twin's error includes that rounding),
 * and adds min(1, |v64 - v32| / |v64|) to a register of its own (a
 * non-finite v64 adds 0, an f32 overflow 1). At the kernel's exit the
 * registers go into one total per static instruction in a .global array (a
 * whole warp sums its lanes by shfl and lane 0 adds the sums with red.add;
 * a partial warp adds lane by lane), and the last thread of the launch that
 * gets there prints the running totals through vprintf, one line each:
 *     mpcc-shadow KERNEL INS LAUNCHES TOTAL
 * (INS: the instruction's ordinal in the kernel as nvcc wrote it, labels,
 * declarations and .loc not counted: the id that mpcc-tune matches with
 * fiset's operations), at launches 1, 2, 4, ... and every
 * 1024th, so that a program launching the kernel often fills no buffer.
 * measure=time: the first thread of each block reads %globaltimer at entry
 * (red.min), each warp's first active lane at exit (red.max), and the last
 * thread adds the launch's span to a total and prints, every launch,
 *     mpcc-time KERNEL LAUNCHES NANOSECONDS
 *
 * "The last thread": every ret (and exit) of the kernel becomes a branch to
 * one exit block, which calls a .func that counts the threads through one
 * atomic add per group of converged lanes; the one that brings the count to
 * the launch's thread count prints and resets the counter. Launches of one
 * kernel must not overlap (concurrent streams would mix their counts).
 * needs nothing; breaks cfg defuse of fn (adds .funcs, .globals, vprintf) */
#include "transforms/pass.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { MEASURE };
enum { ERROR, TIME };

/* an f64 op that has an f32 twin */
static const char *
twin(const Ins *i)
{
	if (i->ty != Tf64 || i->op >= NOP || (i->pred.kind != R0) || i->narg < 2 ||
	    i->arg[0].kind != RReg)
		return NULL;
	switch (i->op) {
	case Oadd: return "add.rn.f32";
	case Osub: return "sub.rn.f32";
	case Omul: return "mul.rn.f32";
	case Ofma: case Omad: return "fma.rn.f32";
	case Odiv: return "div.rn.f32";
	case Osqrt: return "sqrt.rn.f32";
	case Orcp: return "rcp.rn.f32";
	case Orsqrt: return "rsqrt.approx.f32";
	case Oabs: return "abs.f32";
	case Oneg: return "neg.f32";
	case Omin: return "min.f32";
	case Omax: return "max.f32";
	}
	return NULL;
}

static int
arity(const Ins *i)
{
	switch (i->op) {
	case Ofma: case Omad: return 3;
	case Osqrt: case Orcp: case Orsqrt: case Oabs: case Oneg: return 1;
	}
	return 2;
}

/* the operands are registers or immediates */
static int
plainargs(const Ins *i)
{
	if (i->narg != arity(i) + 1)
		return 0;
	for (int k = 1; k <= arity(i); k++)
		if ((i->arg[k].kind != RReg && i->arg[k].kind != RImm) || i->arg[k].neg)
			return 0;
	return 1;
}

/* the statement indices of the ops to shadow */
static uint *
targets(const Fn *fn, uint *n)
{
	uint *v = xmalloc((fn->nins + 1) * sizeof *v);
	*n = 0;
	for (uint k = 0; k < fn->nins; k++)
		if (twin(&fn->ins[k]) && plainargs(&fn->ins[k]))
			v[(*n)++] = k;
	return v;
}

/* their ids: the ordinal of each among the instructions of fn (labels,
 * declarations and .loc not counted, so -lineinfo does not change them;
 * fiset numbers its operations the same way) */
static uint *
ordinals(const Fn *fn, const uint *at, uint n)
{
	uint *v = xmalloc((n + 1) * sizeof *v), ord = 0, j = 0;
	for (uint k = 0; k < fn->nins && j < n; k++) {
		if (k == at[j])
			v[j++] = ord;
		ord += fn->ins[k].op < NOP;
	}
	return v;
}

struct sh {
	Fn *fn;
	uint at;
	char *sa[3], *sd, *t, *u, *q;   /* shared temporaries */
	char *exitname;                 /* the exit .func */
};

static void
emit(struct sh *x, const char *f, ...) __attribute__((format(printf, 2, 3)));
static void
emit(struct sh *x, const char *f, ...)
{
	char line[512];
	va_list ap;
	va_start(ap, f);
	vsnprintf(line, sizeof line, f, ap);
	va_end(ap);
	Ins *i = mkins(x->fn, line);
	if (!i)
		BUG("shadow: cannot build '%s'", line);
	ins_insert(x->fn, x->at++, i);
}

static char *
rname(const Fn *fn, uint r)
{
	char buf[64];
	return xstrdup(regname(fn, r, buf, sizeof buf));
}

static char *
operand(const Fn *fn, Ref r)
{
	if (r.kind == RReg)
		return rname(fn, r.idx);
	return xstrndup(fn->imm[r.idx].text.s, fn->imm[r.idx].text.n);
}

/* an f64 immediate as the f32 immediate of its value */
static char *
f32imm(const char *t)
{
	double d;
	if ((t[0] == '0') && (t[1] == 'd' || t[1] == 'D')) {
		unsigned long long bits = strtoull(t + 2, NULL, 16);
		memcpy(&d, &bits, 8);
	} else {
		d = strtod(t, NULL);
	}
	float f = (float)d;
	uint b;
	memcpy(&b, &f, 4);
	return fmt("0f%08X", b);
}

/* the f32 twin of fn->ins[at], before it, into x->sd */
static void
before(struct sh *x, uint at)
{
	/* what is needed of the op, before insertions move the array */
	const Ins *i = &x->fn->ins[at];
	int n = arity(i), imm[3];
	char *a[3];
	for (int k = 0; k < n; k++) {
		a[k] = operand(x->fn, i->arg[k + 1]);
		imm[k] = i->arg[k + 1].kind == RImm;
	}
	const char *op = twin(i);
	x->at = at;
	for (int k = 0; k < n; k++) {
		if (imm[k]) {
			char *f = f32imm(a[k]);
			emit(x, "mov.f32 %s, %s;", x->sa[k], f);
			free(f);
		} else {
			emit(x, "cvt.rn.f32.f64 %s, %s;", x->sa[k], a[k]);
		}
	}
	if (n == 1)
		emit(x, "%s %s, %s;", op, x->sd, x->sa[0]);
	else if (n == 2)
		emit(x, "%s %s, %s, %s;", op, x->sd, x->sa[0], x->sa[1]);
	else
		emit(x, "%s %s, %s, %s, %s;", op, x->sd, x->sa[0], x->sa[1], x->sa[2]);
	for (int k = 0; k < n; k++)
		free(a[k]);
}

/* after the op at x->at: its relative error against the twin into acc */
static void
after(struct sh *x, const char *d, const char *acc)
{
	emit(x, "cvt.f64.f32 %s, %s;", x->t, x->sd);
	emit(x, "sub.f64 %s, %s, %s;", x->t, d, x->t);
	emit(x, "abs.f64 %s, %s;", x->t, x->t);
	emit(x, "abs.f64 %s, %s;", x->u, d);
	emit(x, "max.f64 %s, %s, 0d0010000000000000;", x->u, x->u);
	emit(x, "rcp.approx.ftz.f64 %s, %s;", x->u, x->u);
	emit(x, "mul.f64 %s, %s, %s;", x->t, x->t, x->u);
	emit(x, "testp.finite.f64 %s, %s;", x->q, x->t);
	emit(x, "@!%s mov.f64 %s, 0d3FF0000000000000;", x->q, x->t);
	emit(x, "min.f64 %s, %s, 0d3FF0000000000000;", x->t, x->t);
	emit(x, "testp.finite.f64 %s, %s;", x->q, d);
	emit(x, "@!%s mov.f64 %s, 0d0000000000000000;", x->q, x->t);
	emit(x, "add.f64 %s, %s, %s;", acc, acc, x->t);
}

/* every ret and exit of fn becomes a branch to a new last block, which
 * runs tail (NULL-terminated lines) and returns */
static void
oneexit(Fn *fn, const char *const *tail)
{
	uint l = newlbl(fn, "$L__mpcc_shadow_exit");
	for (uint k = 0; k < fn->nins; k++) {
		Ins *i = &fn->ins[k];
		if (i->op != Oret && i->op != Oexit)
			continue;
		Ref pred = i->pred;
		int neg = i->flags & INEGPRED;
		Ins *b = mkins(fn, "bra $L__mpcc_shadow_exit;");
		if (!b)
			BUG("shadow: cannot build a branch");
		b->pred = pred;
		b->flags |= neg;
		ins_replace(fn, k, b);
	}
	placelbl(fn, fn->nins, l);
	struct sh x = {.fn = fn, .at = fn->nins};
	for (int k = 0; tail[k]; k++) {
		size_t n = strlen(tail[k]);
		if (n && tail[k][n - 1] == ':') {   /* a label made by newlbl() */
			char *name = xstrndup(tail[k], n - 1);
			placelbl(fn, x.at++, findlbl(fn, name));
			free(name);
		} else {
			emit(&x, "%s", tail[k]);
		}
	}
	emit(&x, "ret;");
}

/* the module-level part for kernel number id (name: its mangled name):
 * the totals, the counters, the format, vprintf and the two .funcs */
static const char vprintf_decl[] =
	".extern .func (.param .b32 func_retval0) vprintf\n(\n\t.param .b64 vprintf_param_0,\n"
	"\t.param .b64 vprintf_param_1\n)\n;\n";

static void
decl(Module *m, const char *text)
{
	if (adddecl(m, text) < 0)
		BUG("shadow: cannot add '%s'", text);
}

/* ".global .align 1 .b8 NAME[n] = {b0, b1, ..., 0};" for a string */
static char *
cstring(const char *name, const char *s)
{
	struct buf b = BUF_INIT;
	size_t n = strlen(s);
	buf_printf(&b, ".global .align 1 .b8 %s[%zu] = {", name, n + 1);
	for (size_t i = 0; i < n; i++)
		buf_printf(&b, "%u, ", (uchar)s[i]);
	buf_puts(&b, "0};\n");
	return buf_take(&b);
}

/* the .func every thread calls at exit: counts threads; the last prints */
static char *
exitfunc(const char *p, int measure, uint nops)
{
	struct buf b = BUF_INIT;
	buf_printf(&b,
	           ".func %sexit()\n{\n"
	           "\t.reg .pred %%p<4>;\n\t.reg .b32 %%r<12>;\n\t.reg .b64 %%rd<20>;\n"
	           "\t.reg .f64 %%fd<2>;\n\t.local .align 8 .b8 %sbuf[24];\n"
	           "\tmembar.gl;\n\tactivemask.b32 %%r1;\n\tbar.warp.sync %%r1;\n"
	           "\tneg.s32 %%r2, %%r1;\n\tand.b32 %%r2, %%r2, %%r1;\n\tbfind.u32 %%r3, %%r2;\n"
	           "\tmov.u32 %%r4, %%laneid;\n\tsetp.ne.u32 %%p1, %%r3, %%r4;\n"
	           "\t@%%p1 bra $L__out;\n", p, p);
	if (measure == TIME)
		buf_printf(&b, "\tmov.u64 %%rd9, %%globaltimer;\n\tred.global.max.u64 [%st1], %%rd9;\n"
		           "\tmembar.gl;\n", p);
	buf_printf(&b,
	           "\tpopc.b32 %%r5, %%r1;\n\tcvt.u64.u32 %%rd1, %%r5;\n"
	           "\tatom.global.add.u64 %%rd2, [%scnt], %%rd1;\n\tadd.u64 %%rd2, %%rd2, %%rd1;\n"
	           "\tmov.u32 %%r6, %%nctaid.x;\n\tmov.u32 %%r7, %%nctaid.y;\n"
	           "\tmul.wide.u32 %%rd3, %%r6, %%r7;\n\tmov.u32 %%r6, %%nctaid.z;\n"
	           "\tcvt.u64.u32 %%rd4, %%r6;\n\tmul.lo.u64 %%rd3, %%rd3, %%rd4;\n"
	           "\tmov.u32 %%r6, %%ntid.x;\n\tmov.u32 %%r7, %%ntid.y;\n"
	           "\tmul.wide.u32 %%rd4, %%r6, %%r7;\n\tmov.u32 %%r6, %%ntid.z;\n"
	           "\tcvt.u64.u32 %%rd5, %%r6;\n\tmul.lo.u64 %%rd4, %%rd4, %%rd5;\n"
	           "\tmul.lo.u64 %%rd3, %%rd3, %%rd4;\n\tsetp.ne.u64 %%p1, %%rd2, %%rd3;\n"
	           "\t@%%p1 bra $L__out;\n\tmembar.gl;\n"
	           "\tld.volatile.global.u64 %%rd6, [%slaunch];\n\tadd.u64 %%rd6, %%rd6, 1;\n"
	           "\tst.volatile.global.u64 [%slaunch], %%rd6;\n"
	           "\tst.volatile.global.u64 [%scnt], 0;\n"
	           "\tmov.u64 %%rd10, %sbuf;\n\tcvta.local.u64 %%rd11, %%rd10;\n"
	           "\tmov.u64 %%rd12, %sfmt;\n\tcvta.global.u64 %%rd12, %%rd12;\n",
	           p, p, p, p, p, p);
	if (measure == TIME) {
		buf_printf(&b,
		           "\tld.volatile.global.u64 %%rd7, [%st0];\n\tld.volatile.global.u64 %%rd8, [%st1];\n"
		           "\tsub.u64 %%rd8, %%rd8, %%rd7;\n\tld.volatile.global.u64 %%rd9, [%sns];\n"
		           "\tadd.u64 %%rd9, %%rd9, %%rd8;\n\tst.volatile.global.u64 [%sns], %%rd9;\n"
		           "\tst.volatile.global.u64 [%st0], -1;\n\tst.volatile.global.u64 [%st1], 0;\n"
		           "\tmembar.gl;\n"
		           "\tst.local.u64 [%%rd10], %%rd6;\n\tst.local.u64 [%%rd10+8], %%rd9;\n"
		           "\t{\n\t.param .b64 param0;\n\tst.param.b64 [param0], %%rd12;\n"
		           "\t.param .b64 param1;\n\tst.param.b64 [param1], %%rd11;\n"
		           "\t.param .b32 retval0;\n\tcall.uni (retval0), vprintf, (param0, param1);\n"
		           "\t}\n",
		           p, p, p, p, p, p);
	} else {
		buf_printf(&b,
		           "\tadd.u64 %%rd7, %%rd6, -1;\n\tand.b64 %%rd7, %%rd7, %%rd6;\n"
		           "\tsetp.eq.u64 %%p2, %%rd7, 0;\n\tand.b64 %%rd8, %%rd6, 1023;\n"
		           "\tsetp.eq.u64 %%p3, %%rd8, 0;\n\tor.pred %%p2, %%p2, %%p3;\n"
		           "\t@!%%p2 bra $L__out;\n\tmov.u32 %%r8, 0;\n"
		           "$L__loop:\n\tsetp.ge.u32 %%p1, %%r8, %u;\n\t@%%p1 bra $L__out;\n"
		           "\tmul.wide.u32 %%rd13, %%r8, 4;\n\tmov.u64 %%rd14, %sins;\n"
		           "\tadd.u64 %%rd14, %%rd14, %%rd13;\n\tld.global.u32 %%r9, [%%rd14];\n"
		           "\tmul.wide.u32 %%rd13, %%r8, 8;\n\tmov.u64 %%rd14, %stot;\n"
		           "\tadd.u64 %%rd14, %%rd14, %%rd13;\n\tld.volatile.global.f64 %%fd1, [%%rd14];\n"
		           "\tst.local.u32 [%%rd10], %%r9;\n\tst.local.u64 [%%rd10+8], %%rd6;\n"
		           "\tst.local.f64 [%%rd10+16], %%fd1;\n"
		           "\t{\n\t.param .b64 param0;\n\tst.param.b64 [param0], %%rd12;\n"
		           "\t.param .b64 param1;\n\tst.param.b64 [param1], %%rd11;\n"
		           "\t.param .b32 retval0;\n\tcall.uni (retval0), vprintf, (param0, param1);\n"
		           "\t}\n\tadd.u32 %%r8, %%r8, 1;\n\tbra.uni $L__loop;\n",
		           nops, p, p);
	}
	buf_puts(&b, "$L__out:\n\tret;\n}\n");
	return buf_take(&b);
}

static const char enterfunc[] =
	".func %senter()\n{\n\t.reg .pred %%p<2>;\n\t.reg .b32 %%r<4>;\n\t.reg .b64 %%rd<2>;\n"
	"\tmov.u32 %%r1, %%tid.x;\n\tmov.u32 %%r2, %%tid.y;\n\tor.b32 %%r1, %%r1, %%r2;\n"
	"\tmov.u32 %%r2, %%tid.z;\n\tor.b32 %%r1, %%r1, %%r2;\n\tsetp.ne.u32 %%p1, %%r1, 0;\n"
	"\t@%%p1 bra $L__done;\n\tmov.u64 %%rd1, %%globaltimer;\n"
	"\tred.global.min.u64 [%st0], %%rd1;\n$L__done:\n\tret;\n}\n";

static void
module_part(Module *m, const char *p, const char *name, int measure, const uint *ins, uint n)
{
	decl(m, vprintf_decl);
	const char *const vars[] = {"cnt", "launch", "ns", "t1"};
	for (size_t k = 0; k < countof(vars); k++) {
		char *v = fmt(".global .align 8 .u64 %s%s;\n", p, vars[k]);
		decl(m, v);
		free(v);
	}
	char *v = fmt(".global .align 8 .u64 %st0 = -1;\n", p);
	decl(m, v);
	free(v);
	char *fname = fmt("%sfmt", p), *f;
	if (measure == TIME)
		f = fmt("mpcc-time %s %%llu %%llu\n", name);
	else
		f = fmt("mpcc-shadow %s %%u %%llu %%.9e\n", name);
	char *s = cstring(fname, f);
	decl(m, s);
	free(s), free(f), free(fname);
	if (measure == ERROR) {
		struct buf b = BUF_INIT;
		buf_printf(&b, ".global .align 8 .f64 %stot[%u];\n", p, n);
		decl(m, b.s);
		buf_release(&b);
		buf_printf(&b, ".global .align 4 .u32 %sins[%u] = {", p, n);
		for (uint k = 0; k < n; k++)
			buf_printf(&b, "%s%u", k ? ", " : "", ins[k]);
		buf_puts(&b, "};\n");
		decl(m, b.s);
		buf_release(&b);
	} else {
		char *e = fmt(enterfunc, p, p);
		decl(m, e);
		free(e);
	}
	char *e = exitfunc(p, measure, n);
	decl(m, e);
	free(e);
}

/* a prefix for the kernel's module-level names, unique in m */
static char *
prefix(const Module *m, const Fn *fn)
{
	uint k = 0;
	while (k < m->nfn && m->fn[k] != fn)
		k++;
	return fmt("__mpcc_sh%u_", k);
}

static void
timing(Fn *fn, const char *p)
{
	char *call = fmt("call %sexit;", p), *enter = fmt("call.uni %senter;", p);
	const char *const tail[] = {call, NULL};
	struct sh x = {.fn = fn, .at = bodystart(fn)};
	emit(&x, "%s", enter);
	oneexit(fn, tail);
	free(call), free(enter);
}

/* the exit block's lines that add each thread's totals to the .global
 * ones: a whole warp sums its lanes first (shfl.bfly, 5 steps) and lane 0
 * adds the sum, 32 times fewer atomics; a partial warp adds lane by lane */
static char **
flush(Fn *fn, const char *p, char **acc, uint n)
{
	char *m = rname(fn, newreg(fn, Tb32)), *q = rname(fn, newreg(fn, Tpred));
	char *lo = rname(fn, newreg(fn, Tb32)), *hi = rname(fn, newreg(fn, Tb32));
	char *lo2 = rname(fn, newreg(fn, Tb32)), *hi2 = rname(fn, newreg(fn, Tb32));
	char *t = rname(fn, newreg(fn, Tf64));
	newlbl(fn, "$L__mpcc_shadow_slow");
	newlbl(fn, "$L__mpcc_shadow_done");
	char **v = xcalloc(n * 26 + 12, sizeof *v);   /* 25 lines an op, 10 more */
	int k = 0;
	v[k++] = fmt("activemask.b32 %s;", m);
	v[k++] = fmt("setp.ne.b32 %s, %s, 0xFFFFFFFF;", q, m);
	v[k++] = fmt("@%s bra $L__mpcc_shadow_slow;", q);
	for (uint i = 0; i < n; i++)
		for (int off = 16; off >= 1; off /= 2) {
			v[k++] = fmt("mov.b64 {%s, %s}, %s;", lo, hi, acc[i]);
			v[k++] = fmt("shfl.sync.bfly.b32 %s, %s, %d, 31, 0xFFFFFFFF;", lo2, lo, off);
			v[k++] = fmt("shfl.sync.bfly.b32 %s, %s, %d, 31, 0xFFFFFFFF;", hi2, hi, off);
			v[k++] = fmt("mov.b64 %s, {%s, %s};", t, lo2, hi2);
			v[k++] = fmt("add.f64 %s, %s, %s;", acc[i], acc[i], t);
		}
	v[k++] = fmt("mov.u32 %s, %%laneid;", lo);
	v[k++] = fmt("setp.ne.u32 %s, %s, 0;", q, lo);
	v[k++] = fmt("@%s bra $L__mpcc_shadow_done;", q);
	v[k++] = xstrdup("$L__mpcc_shadow_slow:");
	for (uint i = 0; i < n; i++)
		v[k++] = fmt("red.global.add.f64 [%stot+%u], %s;", p, 8 * i, acc[i]);
	v[k++] = xstrdup("$L__mpcc_shadow_done:");
	v[k++] = fmt("call %sexit;", p);
	free(m), free(q), free(lo), free(hi), free(lo2), free(hi2), free(t);
	return v;
}

static void
errors(Fn *fn, const char *p, const uint *orig, uint n)
{
	struct sh x = {.fn = fn};
	for (int k = 0; k < 3; k++)
		x.sa[k] = rname(fn, newreg(fn, Tf32));
	x.sd = rname(fn, newreg(fn, Tf32));
	x.t = rname(fn, newreg(fn, Tf64));
	x.u = rname(fn, newreg(fn, Tf64));
	x.q = rname(fn, newreg(fn, Tpred));
	char **acc = xmalloc(n * sizeof *acc);
	for (uint k = 0; k < n; k++)
		acc[k] = rname(fn, newreg(fn, Tf64));
	/* the ops again, after the declarations moved them: same order */
	uint m;
	uint *at = targets(fn, &m);
	if (m != n)
		BUG("shadow: %u ops, then %u", n, m);
	for (uint k = n; k-- > 0;) {
		char *d = rname(fn, fn->ins[at[k]].arg[0].idx);
		before(&x, at[k]);
		x.at++;   /* over the op itself */
		after(&x, d, acc[k]);
		free(d);
	}
	x.at = bodystart(fn);
	for (uint k = 0; k < n; k++)
		emit(&x, "mov.f64 %s, 0d0000000000000000;", acc[k]);
	char **tail = flush(fn, p, acc, n);
	oneexit(fn, (const char *const *)tail);
	(void)orig;
	for (uint k = 0; tail[k]; k++)
		free(tail[k]);
	for (uint k = 0; k < n; k++)
		free(acc[k]);
	for (int k = 0; k < 3; k++)
		free(x.sa[k]);
	free(tail), free(acc), free(at), free(x.sd), free(x.t), free(x.u), free(x.q);
}

static char *
statsjson(const Fn *fn, int measure, const uint *ins, const uint *ord, uint n)
{
	struct buf b = BUF_INIT;
	buf_printf(&b, "{\"measure\":\"%s\",\"ops\":[", measure == TIME ? "time" : "error");
	for (uint k = 0; k < n; k++) {
		const Ins *i = &fn->ins[ins[k]];
		char *name = xstrndup(i->name.s, i->name.n);
		buf_printf(&b, "%s{\"ins\":%u,\"op\":", k ? "," : "", ord[k]);
		buf_json(&b, name);
		buf_printf(&b, ",\"line\":%u}", insline(fn, ins[k], NULL));
		free(name);
	}
	buf_puts(&b, "]}");
	return buf_take(&b);
}

static int
apply(struct passctx *cx, Fn *fn, const struct params *p, struct outcome *o)
{
	int measure = p->v[MEASURE].i;
	uint n;
	uint *ins = targets(fn, &n);
	if (findlbl(fn, "$L__mpcc_shadow_exit") != ~0u) {
		free(ins);
		return o->why = xstrdup("the kernel is already instrumented"), -1;
	}
	if (measure == ERROR && n == 0) {
		free(ins);
		o->advised = 1;
		return o->why = xstrdup("no f64 arithmetic to shadow"), -1;
	}
	/* the exit code's activemask (PTX ISA 6.2), shfl.sync and red.add.f64
	 * (sm_60) */
	int isa = modversion(cx->m), sm = ptxsm(cx);
	if (isa < 62 || sm < 60) {
		free(ins);
		return o->why = fmt("the instrumentation needs PTX ISA 6.2 and sm_60; this PTX is "
		                    ".version %.*s for sm_%d", (int)cx->m->version.n,
		                    cx->m->version.s ? cx->m->version.s : "", sm), -1;
	}
	uint *ord = ordinals(fn, ins, n);
	o->stats = statsjson(fn, measure, ins, ord, measure == ERROR ? n : 0);
	char *pfx = prefix(cx->m, fn), *name = symstr(cx->m, fn->sym);
	module_part(cx->m, pfx, name, measure, ord, n);
	free(ord);
	if (measure == TIME)
		timing(fn, pfx);
	else
		errors(fn, pfx, ins, n);
	free(pfx), free(name), free(ins);
	return 0;
}

static void
describe(FILE *out, const struct params *p)
{
	if (p->v[MEASURE].i == TIME)
		fprintf(out, "           times each launch with %%globaltimer; the last thread prints "
		             "'mpcc-time KERNEL LAUNCHES NS'\n");
	else
		fprintf(out, "           each f64 operation also runs in f32; the last thread prints "
		             "'mpcc-shadow KERNEL INS LAUNCHES ERROR' per operation\n");
}

static void
explain(FILE *out, struct passctx *cx, Fn *fn, const struct params *p)
{
	uint n;
	uint *ins = targets(fn, &n);
	(void)cx;
	if (p->v[MEASURE].i == ERROR)
		fprintf(out, "           %u f64 operations to shadow\n", n);
	free(ins);
}

static void
dump(FILE *out, struct passctx *cx, Fn *fn, const struct params *p)
{
	(void)p;
	char *name = symstr(cx->m, fn->sym);
	for (uint k = 0; k < fn->nins; k++)
		if (fn->ins[k].op == Ocall) {
			fprintf(out, "shadow: %s: ", name);
			printins(out, fn, &fn->ins[k]);
			fputc('\n', out);
		}
	free(name);
}

static const char *const measures[] = {"error", "time", NULL};

static const struct param params[] = {
	[MEASURE] = {"measure", PENUM, 0, 0, 0, measures, NULL, "error",
	             "error: each f64 operation's relative error against its f32 twin, "
	             "summed per instruction; time: each launch's span by %globaltimer"},
};

const struct pass shadow_pass = {
	.schema = {"shadow", "instrumented build for mpcc-tune: f64 errors against f32 twins, or kernel times",
	           params, countof(params), describe},
	.apply = apply,
	.explain = explain,
	.dump = dump,
};
