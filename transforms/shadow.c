/* shadow.c: instrumented builds for mpcc-tune, with no source edit and no
 * host code (paper 003, 4.5: shadow computations).
 *
 * measure=error: each f64 add, sub, mul, fma, mad, div, sqrt, rcp, rsqrt,
 * abs, neg, min and max of the kernel also computes its f32 twin from its
 * operands rounded to f32 (so the twin's error includes that rounding),
 * and adds min(1, |v64 - v32| / |v64|) to its own slot of a per-thread
 * .local array (a non-finite v64 adds 0, an f32 overflow 1). At the
 * kernel's exit one loop over the array adds each slot into one total per
 * static instruction in a .global array (a whole warp sums its lanes by
 * shfl and lane 0 adds the sums with red.add; a partial warp adds lane by
 * lane), and the last thread of the launch that gets there prints the
 * running totals through vprintf, one line each:
 *     mpcc-shadow KERNEL INS LAUNCHES TOTAL
 * (INS: the instruction's ordinal in the kernel as nvcc wrote it, labels,
 * declarations and .loc not counted: the id that mpcc-tune matches with
 * fiset's operations), at launches 1, 2, 4, ... and every
 * 1024th, so that a program launching the kernel often fills no buffer.
 * measure=time: the first thread of each block reads %globaltimer at entry
 * (red.min), the block's last group of lanes to exit reads it again
 * (red.max), and the launch's last thread adds the span to a total and
 * prints, every launch,
 *     mpcc-time KERNEL LAUNCHES NANOSECONDS THREADS BLOCK NSMID START END
 * (the launch's threads, a block's, and %nsmid: how many warps an SM holds
 * at once, for fiset's cost model; START and END: the span, by
 * %globaltimer, so that mpcc-tune sees where kernels of several streams ran
 * side by side and the time of each measures the others too). Each loop's
 * trips are counted too (shadow-trips.c: an add at each header and at each
 * back edge, the sums at the exit), and the last thread prints, at the
 * launches the error lines print at,
 *     mpcc-trips KERNEL LAUNCHES LOOP HEADS ENTRIES
 * (LOOP: 1, 2, ... as looporder() numbers the kernel's loops; HEADS: the
 * times any thread ran the loop's header, ENTRIES: the times a thread came
 * into it from outside, both over every launch so far). The report says
 * how many loops the kernel has, whether they are counted (all or none),
 * and the fnhash() of the kernel as the pass found it.
 *
 * The code added is about 20 instructions per operation and a fixed exit:
 * sums kept in registers and reduced op by op at the exit made a large
 * kernel's PTX 20 times larger and ptxas run for minutes (a public n-body
 * of 1,800 f64 operations); the array keeps the registers the kernel had.
 *
 * "The last thread": every ret (and exit) of the kernel becomes a branch to
 * one exit block, which calls a .func that counts the threads: one shared
 * atomic add per group of converged lanes into its block's count (zeroed
 * by the block's first thread at the entry, before a bar.sync), and one
 * global add per block, by the group that completes the block; the one
 * that brings the launch's count to its thread count prints and resets
 * the counter. Launches of one
 * kernel must not overlap (concurrent streams would mix their counts);
 * those of different kernels may, each kernel counting its own, and their
 * START and END say that they did.
 * needs nothing; breaks cfg defuse loops of fn (adds .funcs, .globals,
 * vprintf) */
#include "transforms/shadow.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { MEASURE, MAX_OPS, TRIPS };
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

/* the statement indices of the ops to shadow: every one, or max of them
 * evenly spread over the kernel; *all counts every one */
static uint *
targets(const Fn *fn, uint max, uint *n, uint *all)
{
	uint *v = arena_alloc(fn->mod->arena, (fn->nins + 1) * sizeof *v), m = 0;
	for (uint k = 0; k < fn->nins; k++)
		if (twin(&fn->ins[k]) && plainargs(&fn->ins[k]))
			v[m++] = k;
	*all = *n = m;
	if (m > max) {
		*n = 0;
		for (uint j = 0; j < m; j++)
			if (j == 0 || (unsigned long long)j * max / m != (unsigned long long)(j - 1) * max / m)
				v[(*n)++] = v[j];
	}
	return v;
}

/* their ids: the ordinal of each among the instructions of fn (as fiset
 * and mpcc-tune number them) */
static uint *
ids(const Fn *fn, const uint *at, uint n)
{
	uint *all = ordinals(fn), *v = arena_alloc(fn->mod->arena, (n + 1) * sizeof *v);
	for (uint j = 0; j < n; j++)
		v[j] = all[at[j]];
	return v;
}

struct sh {
	Fn *fn;
	uint at;
	const char *sa[3], *sd, *t, *u, *q;   /* shared temporaries */
	const char *acc;                      /* the per-thread array of sums */
};

static void
emit(struct sh *x, const char *f, ...) __attribute__((format(printf, 2, 3)));
static void
emit(struct sh *x, const char *f, ...)
{
	va_list ap;
	va_start(ap, f);
	Ins *i = vmkinsf(x->fn, f, ap);
	va_end(ap);
	ins_insert(x->fn, x->at++, i);
}

/* operand k of the statement just emitted, written as x->t, is the
 * kernel's register r: bound by index, since the text cannot name r where
 * inline asm declared it in a { } ("{.reg .f64 data; ...}"): its name no
 * longer resolves once the parser closed that scope, and one that hides a
 * name of the body resolves to the body's register (issue 38) */
static void
bind(struct sh *x, uint k, uint r)
{
	Ins *i = &x->fn->ins[x->at - 1];
	if (k >= i->narg || i->arg[k].kind != RReg)
		BUG("shadow: operand %u of '%s' is no register", k, instext(x->fn, i));
	i->arg[k] = REF(RReg, r);
	ins_touch(i);
}

/* an f64 immediate as the f32 immediate of its value */
static const char *
f32imm(const Fn *fn, Str t)
{
	double d = 0;
	immnum(t, &d);
	float f = (float)d;
	uint b;
	memcpy(&b, &f, 4);
	return arena_fmt(fn->mod->arena, "0f%08X", b);
}

/* the f32 twin of fn->ins[at], before it, into x->sd */
static void
before(struct sh *x, uint at)
{
	/* what is needed of the op, before insertions move the array */
	const Ins *i = &x->fn->ins[at];
	int n = arity(i);
	Ref r[3];
	for (int k = 0; k < n; k++)
		r[k] = i->arg[k + 1];
	const char *op = twin(i);
	x->at = at;
	for (int k = 0; k < n; k++) {
		if (r[k].kind == RImm) {
			emit(x, "mov.f32 %s, %s;", x->sa[k], f32imm(x->fn, x->fn->imm[r[k].idx].text));
		} else {
			emit(x, "cvt.rn.f32.f64 %s, %s;", x->sa[k], x->t);
			bind(x, 1, r[k].idx);
		}
	}
	if (n == 1)
		emit(x, "%s %s, %s;", op, x->sd, x->sa[0]);
	else if (n == 2)
		emit(x, "%s %s, %s, %s;", op, x->sd, x->sa[0], x->sa[1]);
	else
		emit(x, "%s %s, %s, %s, %s;", op, x->sd, x->sa[0], x->sa[1], x->sa[2]);
}

/* after the op at x->at: its relative error against the twin, added to
 * slot k of the array (d: the op's result, bound where x->t stands) */
static void
after(struct sh *x, uint d, uint k)
{
	emit(x, "cvt.f64.f32 %s, %s;", x->t, x->sd);
	emit(x, "sub.f64 %s, %s, %s;", x->t, x->t, x->t);
	bind(x, 1, d);
	emit(x, "abs.f64 %s, %s;", x->t, x->t);
	emit(x, "abs.f64 %s, %s;", x->u, x->t);
	bind(x, 1, d);
	emit(x, "max.f64 %s, %s, 0d0010000000000000;", x->u, x->u);
	emit(x, "rcp.approx.ftz.f64 %s, %s;", x->u, x->u);
	emit(x, "mul.f64 %s, %s, %s;", x->t, x->t, x->u);
	emit(x, "testp.finite.f64 %s, %s;", x->q, x->t);
	emit(x, "@!%s mov.f64 %s, 0d3FF0000000000000;", x->q, x->t);
	emit(x, "min.f64 %s, %s, 0d3FF0000000000000;", x->t, x->t);
	emit(x, "testp.finite.f64 %s, %s;", x->q, x->t);
	bind(x, 1, d);
	emit(x, "@!%s mov.f64 %s, 0d0000000000000000;", x->q, x->t);
	emit(x, "ld.local.f64 %s, [%s+%u];", x->u, x->acc, 8 * k);
	emit(x, "add.f64 %s, %s, %s;", x->u, x->u, x->t);
	emit(x, "st.local.f64 [%s+%u], %s;", x->acc, 8 * k, x->u);
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
		Ins *b = mkinsf(fn, "bra $L__mpcc_shadow_exit;");
		b->pred = pred;
		b->flags |= neg;
		ins_replace(fn, k, b);
	}
	placelbl(fn, fn->nins, l);
	struct sh x = {.fn = fn, .at = fn->nins};
	for (int k = 0; tail[k]; k++) {
		size_t n = strlen(tail[k]);
		if (n && tail[k][n - 1] == ':') {   /* a label made by newlbl() */
			const char *name = arena_strndup(fn->mod->arena, tail[k], n - 1);
			placelbl(fn, x.at++, findlbl(fn, name));
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
static const char *
cstring(Arena *A, const char *name, const char *s)
{
	struct buf b = BUF_INIT;
	size_t n = strlen(s);
	buf_printf(&b, ".global .align 1 .b8 %s[%zu] = {", name, n + 1);
	for (size_t i = 0; i < n; i++)
		buf_printf(&b, "%u, ", (uchar)s[i]);
	buf_puts(&b, "0};\n");
	const char *t = arena_strdup(A, b.s);
	buf_release(&b);
	return t;
}

/* the call of vprintf with the format at %rd12 and the arguments at %rd11 */
static const char callvprintf[] =
	"\t{\n\t.param .b64 param0;\n\tst.param.b64 [param0], %rd12;\n"
	"\t.param .b64 param1;\n\tst.param.b64 [param1], %rd11;\n"
	"\t.param .b32 retval0;\n\tcall.uni (retval0), vprintf, (param0, param1);\n\t}\n";

/* on to $L__out unless the launch (%rd6) is the 1st, 2nd, 4th, ... or a
 * 1024th: the lines of a kernel launched often fill no buffer */
static void
often(struct buf *b)
{
	buf_puts(b, "\tadd.u64 %rd7, %rd6, -1;\n\tand.b64 %rd7, %rd7, %rd6;\n"
	            "\tsetp.eq.u64 %p2, %rd7, 0;\n\tand.b64 %rd8, %rd6, 1023;\n"
	            "\tsetp.eq.u64 %p3, %rd8, 0;\n\tor.pred %p2, %p2, %p3;\n"
	            "\t@!%p2 bra $L__out;\n");
}

/* measure=time: the launch's span into the total; its line, every launch,
 * with the span's start and end (vprintf's arguments at their natural
 * alignment: the u32 %nsmid at 32, the u64s after it at 40 and 48) */
static void
timelines(struct buf *b, const char *p)
{
	buf_printf(b,
	           "\tld.volatile.global.u64 %%rd7, [%st0];\n\tld.volatile.global.u64 %%rd8, [%st1];\n"
	           "\tsub.u64 %%rd13, %%rd8, %%rd7;\n\tld.volatile.global.u64 %%rd9, [%sns];\n"
	           "\tadd.u64 %%rd9, %%rd9, %%rd13;\n\tst.volatile.global.u64 [%sns], %%rd9;\n"
	           "\tst.volatile.global.u64 [%st0], -1;\n\tst.volatile.global.u64 [%st1], 0;\n"
	           "\tmembar.gl;\n"
	           "\tst.local.u64 [%%rd10], %%rd6;\n\tst.local.u64 [%%rd10+8], %%rd9;\n"
	           "\tst.local.u64 [%%rd10+16], %%rd3;\n\tst.local.u64 [%%rd10+24], %%rd4;\n"
	           "\tmov.u32 %%r10, %%nsmid;\n\tst.local.u32 [%%rd10+32], %%r10;\n"
	           "\tst.local.u64 [%%rd10+40], %%rd7;\n\tst.local.u64 [%%rd10+48], %%rd8;\n%s",
	           p, p, p, p, p, p, callvprintf);
}

/* measure=time, nloop loops counted: a line per loop with its totals */
static void
tripslines(struct buf *b, const char *p, uint nloop)
{
	often(b);
	buf_printf(b,
	           "\tmov.u64 %%rd12, %stfmt;\n\tcvta.global.u64 %%rd12, %%rd12;\n\tmov.u32 %%r8, 0;\n"
	           "$L__loop:\n\tsetp.ge.u32 %%p1, %%r8, %u;\n\t@%%p1 bra $L__out;\n"
	           "\tmul.wide.u32 %%rd13, %%r8, 16;\n\tmov.u64 %%rd14, %strips;\n"
	           "\tadd.u64 %%rd14, %%rd14, %%rd13;\n\tld.volatile.global.u64 %%rd15, [%%rd14];\n"
	           "\tld.volatile.global.u64 %%rd16, [%%rd14+8];\n\tadd.u32 %%r8, %%r8, 1;\n"
	           "\tst.local.u64 [%%rd10], %%rd6;\n\tst.local.u32 [%%rd10+8], %%r8;\n"
	           "\tst.local.u64 [%%rd10+16], %%rd15;\n\tst.local.u64 [%%rd10+24], %%rd16;\n"
	           "%s\tbra.uni $L__loop;\n",
	           p, nloop, p, callvprintf);
}

/* measure=error: a line per shadowed instruction with its total */
static void
errorlines(struct buf *b, const char *p, uint nops)
{
	often(b);
	buf_printf(b,
	           "\tmov.u32 %%r8, 0;\n"
	           "$L__loop:\n\tsetp.ge.u32 %%p1, %%r8, %u;\n\t@%%p1 bra $L__out;\n"
	           "\tmul.wide.u32 %%rd13, %%r8, 4;\n\tmov.u64 %%rd14, %sins;\n"
	           "\tadd.u64 %%rd14, %%rd14, %%rd13;\n\tld.global.u32 %%r9, [%%rd14];\n"
	           "\tmul.wide.u32 %%rd13, %%r8, 8;\n\tmov.u64 %%rd14, %stot;\n"
	           "\tadd.u64 %%rd14, %%rd14, %%rd13;\n\tld.volatile.global.f64 %%fd1, [%%rd14];\n"
	           "\tst.local.u32 [%%rd10], %%r9;\n\tst.local.u64 [%%rd10+8], %%rd6;\n"
	           "\tst.local.f64 [%%rd10+16], %%fd1;\n"
	           "%s\tadd.u32 %%r8, %%r8, 1;\n\tbra.uni $L__loop;\n",
	           nops, p, p, callvprintf);
}

/* the .func every thread calls at exit: counts threads, a block's in
 * shared memory first (blk, zeroed at entry); the last group of converged
 * lanes of each block adds the block's threads to the launch's count (one
 * global atomic a block, not one a warp: on one address, a warp's each
 * made a short memory-bound kernel of 4M warps run 5x slower), and the
 * last thread of the launch prints. A group's membar.gl before it counts
 * makes its writes (the totals, the trips) visible to the block's last
 * group, whose membar.gl passes them on to the launch's last thread */
static const char *
exitfunc(Arena *A, const char *p, int measure, uint nops, uint nloop)
{
	struct buf b = BUF_INIT;
	buf_printf(&b,
	           ".func %sexit()\n{\n"
	           "\t.reg .pred %%p<4>;\n\t.reg .b32 %%r<12>;\n\t.reg .b64 %%rd<20>;\n"
	           "\t.reg .f64 %%fd<2>;\n\t.local .align 8 .b8 %sbuf[56];\n"
	           "\tmembar.gl;\n\tactivemask.b32 %%r1;\n\tbar.warp.sync %%r1;\n"
	           "\tneg.s32 %%r2, %%r1;\n\tand.b32 %%r2, %%r2, %%r1;\n\tbfind.u32 %%r3, %%r2;\n"
	           "\tmov.u32 %%r4, %%laneid;\n\tsetp.ne.u32 %%p1, %%r3, %%r4;\n"
	           "\t@%%p1 bra $L__out;\n"
	           "\tmov.u32 %%r6, %%ntid.x;\n\tmov.u32 %%r7, %%ntid.y;\n\tmul.lo.u32 %%r6, %%r6, %%r7;\n"
	           "\tmov.u32 %%r7, %%ntid.z;\n\tmul.lo.u32 %%r6, %%r6, %%r7;\n"
	           "\tpopc.b32 %%r5, %%r1;\n\tatom.shared.add.u32 %%r8, [%sblk], %%r5;\n"
	           "\tadd.u32 %%r8, %%r8, %%r5;\n\tsetp.ne.u32 %%p1, %%r8, %%r6;\n"
	           "\t@%%p1 bra $L__out;\n\tmembar.gl;\n", p, p, p);
	if (measure == TIME)
		buf_printf(&b, "\tmov.u64 %%rd9, %%globaltimer;\n\tred.global.max.u64 [%st1], %%rd9;\n"
		           "\tmembar.gl;\n", p);
	buf_printf(&b,
	           "\tcvt.u64.u32 %%rd4, %%r6;\n"
	           "\tatom.global.add.u64 %%rd2, [%scnt], %%rd4;\n\tadd.u64 %%rd2, %%rd2, %%rd4;\n"
	           "\tmov.u32 %%r6, %%nctaid.x;\n\tmov.u32 %%r7, %%nctaid.y;\n"
	           "\tmul.wide.u32 %%rd3, %%r6, %%r7;\n\tmov.u32 %%r6, %%nctaid.z;\n"
	           "\tcvt.u64.u32 %%rd5, %%r6;\n\tmul.lo.u64 %%rd3, %%rd3, %%rd5;\n"
	           "\tmul.lo.u64 %%rd3, %%rd3, %%rd4;\n\tsetp.ne.u64 %%p1, %%rd2, %%rd3;\n"
	           "\t@%%p1 bra $L__out;\n\tmembar.gl;\n"
	           "\tld.volatile.global.u64 %%rd6, [%slaunch];\n\tadd.u64 %%rd6, %%rd6, 1;\n"
	           "\tst.volatile.global.u64 [%slaunch], %%rd6;\n"
	           "\tst.volatile.global.u64 [%scnt], 0;\n"
	           "\tmov.u64 %%rd10, %sbuf;\n\tcvta.local.u64 %%rd11, %%rd10;\n"
	           "\tmov.u64 %%rd12, %sfmt;\n\tcvta.global.u64 %%rd12, %%rd12;\n",
	           p, p, p, p, p, p);
	if (measure == TIME)
		timelines(&b, p);
	if (measure == TIME && nloop)
		tripslines(&b, p, nloop);
	if (measure == ERROR)
		errorlines(&b, p, nops);
	buf_puts(&b, "$L__out:\n\tret;\n}\n");
	const char *t = arena_strdup(A, b.s);
	buf_release(&b);
	return t;
}

/* the .func every thread calls at the top of the body: the block's first
 * thread zeroes its count (and, measure=time, reads %globaltimer), and the
 * block waits for it: no thread of it counts itself out before */
static const char *
enterfunc(Arena *A, const char *p, int measure)
{
	return arena_fmt(A,
	                 ".func %senter()\n{\n\t.reg .pred %%p<2>;\n\t.reg .b32 %%r<4>;\n"
	                 "\t.reg .b64 %%rd<2>;\n"
	                 "\tmov.u32 %%r1, %%tid.x;\n\tmov.u32 %%r2, %%tid.y;\n\tor.b32 %%r1, %%r1, %%r2;\n"
	                 "\tmov.u32 %%r2, %%tid.z;\n\tor.b32 %%r1, %%r1, %%r2;\n\tsetp.ne.u32 %%p1, %%r1, 0;\n"
	                 "\t@%%p1 bra $L__done;\n\tst.shared.u32 [%sblk], 0;\n%s"
	                 "$L__done:\n\tbar.sync 0;\n\tret;\n}\n",
	                 p, p, measure == TIME ? arena_fmt(A, "\tmov.u64 %%rd1, %%globaltimer;\n"
	                                                 "\tred.global.min.u64 [%st0], %%rd1;\n", p) : "");
}

static void
module_part(Module *m, const char *p, const char *name, int measure, const uint *ins, uint n,
            uint nloop)
{
	Arena *A = m->arena;
	decl(m, vprintf_decl);
	const char *const vars[] = {"cnt", "launch", "ns", "t1"};
	for (size_t k = 0; k < countof(vars); k++)
		decl(m, arena_fmt(A, ".global .align 8 .u64 %s%s;\n", p, vars[k]));
	decl(m, arena_fmt(A, ".shared .align 4 .u32 %sblk;\n", p));
	decl(m, arena_fmt(A, ".global .align 8 .u64 %st0 = -1;\n", p));
	const char *f = measure == TIME ? arena_fmt(A, "mpcc-time %s %%llu %%llu %%llu %%llu %%u %%llu %%llu\n", name)
	                                : arena_fmt(A, "mpcc-shadow %s %%u %%llu %%.9e\n", name);
	decl(m, cstring(A, arena_fmt(A, "%sfmt", p), f));
	if (measure == ERROR) {
		struct buf b = BUF_INIT;
		decl(m, arena_fmt(A, ".global .align 8 .f64 %stot[%u];\n", p, n));
		buf_printf(&b, ".global .align 4 .u32 %sins[%u] = {", p, n);
		for (uint k = 0; k < n; k++)
			buf_printf(&b, "%s%u", k ? ", " : "", ins[k]);
		buf_puts(&b, "};\n");
		decl(m, b.s);
		buf_release(&b);
	}
	decl(m, enterfunc(A, p, measure));
	if (measure == TIME && nloop) {
		decl(m, arena_fmt(A, ".global .align 8 .u64 %strips[%u];\n", p, 2 * nloop));
		decl(m, cstring(A, arena_fmt(A, "%stfmt", p),
		                arena_fmt(A, "mpcc-trips %s %%llu %%u %%llu %%llu\n", name)));
	}
	decl(m, exitfunc(A, p, measure, n, nloop));
}

/* a prefix for the kernel's module-level names, unique in m */
static const char *
prefix(const Module *m, const Fn *fn)
{
	uint k = 0;
	while (k < m->nfn && m->fn[k] != fn)
		k++;
	return arena_fmt(m->arena, "__mpcc_sh%u_", k);
}

/* measure=time: the timer's reads, and with count the loops' counters
 * (shadow-trips.c), whose exit lines come before the exit .func's call */
static void
timing(Fn *fn, const char *p, int count)
{
	Arena *A = fn->mod->arena;
	const char **lines = count ? trips_count(fn, p) : NULL;
	uint n = 0;
	while (lines && lines[n])
		n++;
	const char **tail = arena_alloc(A, (n + 2) * sizeof *tail);
	for (uint k = 0; k < n; k++)
		tail[k] = lines[k];
	tail[n] = arena_fmt(A, "call %sexit;", p);
	struct sh x = {.fn = fn, .at = bodystart(fn)};
	emit(&x, "call.uni %senter;", p);
	oneexit(fn, tail);
}

/* at the entry: every slot of the array 0, by a loop */
static void
zero(struct sh *x, uint n)
{
	Fn *fn = x->fn;
	const char *i = regstr(fn, newreg(fn, Tb32)), *a = regstr(fn, newreg(fn, Tb64));
	const char *q = regstr(fn, newreg(fn, Tpred));
	uint l = newlbl(fn, "$L__mpcc_shadow_zero");
	x->at = bodystart(fn);
	emit(x, "mov.u32 %s, 0;", i);
	placelbl(fn, x->at++, l);
	emit(x, "mul.wide.u32 %s, %s, 8;", a, i);
	emit(x, "add.u64 %s, %s, %s;", a, a, x->acc);
	emit(x, "st.local.f64 [%s], 0d0000000000000000;", a);
	emit(x, "add.u32 %s, %s, 1;", i, i);
	emit(x, "setp.lt.u32 %s, %s, %u;", q, i, n);
	emit(x, "@%s bra $L__mpcc_shadow_zero;", q);
}

/* the exit block's lines: one loop over the array adds each slot to its
 * .global total; a whole warp sums its lanes first (shfl.bfly, 5 steps)
 * and lane 0 adds the sum, 32 times fewer atomics; a partial warp adds
 * lane by lane */
static const char **
flush(struct sh *x, const char *p, uint n)
{
	Fn *fn = x->fn;
	Arena *A = fn->mod->arena;
	const char *m = regstr(fn, newreg(fn, Tb32)), *full = regstr(fn, newreg(fn, Tpred));
	const char *q = regstr(fn, newreg(fn, Tpred)), *i = regstr(fn, newreg(fn, Tb32));
	const char *o = regstr(fn, newreg(fn, Tb64)), *a = regstr(fn, newreg(fn, Tb64));
	const char *lo = regstr(fn, newreg(fn, Tb32)), *hi = regstr(fn, newreg(fn, Tb32));
	const char *lo2 = regstr(fn, newreg(fn, Tb32)), *hi2 = regstr(fn, newreg(fn, Tb32));
	const char *v = regstr(fn, newreg(fn, Tf64)), *t = regstr(fn, newreg(fn, Tf64));
	const char **l = arena_alloc(A, 48 * sizeof *l);
	int k = 0;
	newlbl(fn, "$L__mpcc_shadow_loop");
	newlbl(fn, "$L__mpcc_shadow_slow");
	newlbl(fn, "$L__mpcc_shadow_next");
	newlbl(fn, "$L__mpcc_shadow_done");
	l[k++] = arena_fmt(A, "activemask.b32 %s;", m);
	l[k++] = arena_fmt(A, "setp.eq.b32 %s, %s, 0xFFFFFFFF;", full, m);
	l[k++] = arena_fmt(A, "mov.u32 %s, 0;", i);
	l[k++] = "$L__mpcc_shadow_loop:";
	l[k++] = arena_fmt(A, "setp.ge.u32 %s, %s, %u;", q, i, n);
	l[k++] = arena_fmt(A, "@%s bra.uni $L__mpcc_shadow_done;", q);
	l[k++] = arena_fmt(A, "mul.wide.u32 %s, %s, 8;", o, i);
	l[k++] = arena_fmt(A, "add.u64 %s, %s, %s;", a, o, x->acc);
	l[k++] = arena_fmt(A, "ld.local.f64 %s, [%s];", v, a);
	l[k++] = arena_fmt(A, "@!%s bra $L__mpcc_shadow_slow;", full);
	for (int off = 16; off >= 1; off /= 2) {
		l[k++] = arena_fmt(A, "mov.b64 {%s, %s}, %s;", lo, hi, v);
		l[k++] = arena_fmt(A, "shfl.sync.bfly.b32 %s, %s, %d, 31, 0xFFFFFFFF;", lo2, lo, off);
		l[k++] = arena_fmt(A, "shfl.sync.bfly.b32 %s, %s, %d, 31, 0xFFFFFFFF;", hi2, hi, off);
		l[k++] = arena_fmt(A, "mov.b64 %s, {%s, %s};", t, lo2, hi2);
		l[k++] = arena_fmt(A, "add.f64 %s, %s, %s;", v, v, t);
	}
	l[k++] = arena_fmt(A, "mov.u32 %s, %%laneid;", lo);
	l[k++] = arena_fmt(A, "setp.ne.u32 %s, %s, 0;", q, lo);
	l[k++] = arena_fmt(A, "@%s bra $L__mpcc_shadow_next;", q);
	l[k++] = "$L__mpcc_shadow_slow:";
	l[k++] = arena_fmt(A, "mov.u64 %s, %stot;", a, p);
	l[k++] = arena_fmt(A, "add.u64 %s, %s, %s;", a, a, o);
	l[k++] = arena_fmt(A, "red.global.add.f64 [%s], %s;", a, v);
	l[k++] = "$L__mpcc_shadow_next:";
	l[k++] = arena_fmt(A, "add.u32 %s, %s, 1;", i, i);
	l[k++] = "bra.uni $L__mpcc_shadow_loop;";
	l[k++] = "$L__mpcc_shadow_done:";
	l[k++] = arena_fmt(A, "call %sexit;", p);
	return l;
}

static void
errors(Fn *fn, const char *p, uint max, uint n)
{
	struct sh x = {.fn = fn};
	const char *name = arena_fmt(fn->mod->arena, "%sacc", p);
	newlocal(fn, name, 8 * n, 8);
	x.acc = regstr(fn, newreg(fn, Tb64));
	for (int k = 0; k < 3; k++)
		x.sa[k] = regstr(fn, newreg(fn, Tf32));
	x.sd = regstr(fn, newreg(fn, Tf32));
	x.t = regstr(fn, newreg(fn, Tf64));
	x.u = regstr(fn, newreg(fn, Tf64));
	x.q = regstr(fn, newreg(fn, Tpred));
	/* the ops again, after the declarations moved them: same order */
	uint m, all;
	uint *at = targets(fn, max, &m, &all);
	if (m != n)
		BUG("shadow: %u ops, then %u", n, m);
	for (uint k = n; k-- > 0;) {
		uint d = fn->ins[at[k]].arg[0].idx;
		before(&x, at[k]);
		x.at++;   /* over the op itself */
		after(&x, d, k);
	}
	zero(&x, n);
	x.at = bodystart(fn);
	emit(&x, "mov.u64 %s, %s;", x.acc, name);
	emit(&x, "call.uni %senter;", p);
	oneexit(fn, flush(&x, p, n));
}

/* the statistics: what the instrumented build will report on */
enum { ST_MEASURE, ST_F64OPS, ST_SAMPLED, ST_LOOPS, ST_COUNTED, ST_WHY, ST_HASH, ST_OPS };
enum { OP_INS, OP_OP, OP_LINE };

static const struct field opkey[] = {
	[OP_INS] = {"ins", FINT, RINS, 0, NULL, 0,
	            "its ordinal among the kernel's instructions as nvcc wrote them"},
	[OP_OP] = {"op", FSTR, RNAME, 0, NULL, 0, "the instruction's opcode with its modifiers"},
	[OP_LINE] = {"line", FINT, 0, 0, NULL, 0, "its .loc line (0: none)"},
};
static const struct field statkey[] = {
	[ST_MEASURE] = {"measure", FSTR, 0, 0, NULL, 0, "time or error"},
	[ST_F64OPS] = {"f64_ops", FINT, RNOPS, 0, NULL, 0,
	               "measure=error: the kernel's f64 operations that could be shadowed"},
	[ST_SAMPLED] = {"sampled", FBOOL, 0, 0, NULL, 0,
	                "measure=error: more than max_ops: only max_ops of them shadowed"},
	[ST_LOOPS] = {"loops", FINT, 0, 0, NULL, 0,
	              "measure=time: the kernel's loops, which the mpcc-trips lines number 1, 2, ... "
	              "in the order their headers come in the PTX"},
	[ST_COUNTED] = {"counted", FBOOL, 0, 0, NULL, 0,
	                "measure=time: the loops' trips are counted (false: none is, and why says why)"},
	[ST_WHY] = {"why", FSTR, 0, 0, NULL, 0,
	            "measure=time: why no loop's trips are counted (only when counted is false)"},
	[ST_HASH] = {"ptx_hash", FSTR, 0, 0, NULL, 0,
	             "measure=time: the kernel's fnhash (8 hex digits) as the pass found it, "
	             "before instrumenting: what the counts were measured on"},
	[ST_OPS] = {"ops", FLIST, ROPS, 0, opkey, countof(opkey),
	            "measure=error: the f64 operations shadowed, as the run's lines number them"},
};
static const struct field statroot = {"shadow", FOBJ, 0, 0, statkey, countof(statkey),
                                      "the instrumented operations"};

/* tr and hash: measure=time's loops and the kernel's fnhash() */
static char *
statsjson(const Fn *fn, int measure, const uint *ins, const uint *ord, uint n, uint all,
          const struct trips *tr, uint hash)
{
	struct statw w;
	statw_begin(&w, &statroot);
	statw_str(&w, ST_MEASURE, measure == TIME ? "time" : "error");
	if (measure == ERROR) {
		statw_int(&w, ST_F64OPS, all);
		statw_bool(&w, ST_SAMPLED, n < all);
	} else {
		statw_int(&w, ST_LOOPS, tr->nloop);
		statw_bool(&w, ST_COUNTED, !tr->why);
		if (tr->why)
			statw_str(&w, ST_WHY, tr->why);
		statw_str(&w, ST_HASH, arena_fmt(fn->mod->arena, "%08x", hash));
	}
	statw_open(&w, ST_OPS);
	for (uint k = 0; k < n; k++) {
		const Ins *i = &fn->ins[ins[k]];
		statw_item(&w);
		statw_int(&w, OP_INS, ord[k]);
		statw_str(&w, OP_OP, arena_strndup(fn->mod->arena, i->name.s, i->name.n));
		statw_int(&w, OP_LINE, insline(fn, ins[k], NULL));
		statw_close(&w);
	}
	statw_close(&w);
	return statw_end(&w);
}

static int
apply(struct passctx *cx, Fn *fn, const struct params *p, struct outcome *o)
{
	int measure = p->v[MEASURE].i;
	uint n, all, max = p->v[MAX_OPS].i;
	uint *ins = targets(fn, max, &n, &all);
	if (findlbl(fn, "$L__mpcc_shadow_exit") != ~0u)
		return o->why = xstrdup("the kernel is already instrumented"), -1;
	/* the ops are numbered as nvcc wrote them (mpcc-tune matches them
	 * with fiset's sets), and the twins' f64 arithmetic would count as the
	 * kernel's: measure=error instruments nvcc's code, not a transform's */
	if (measure == ERROR && cx->changed)
		return o->why = xstrdup("measure=error instruments the kernel as nvcc made it, and "
		                        "a transform changed it"), -1;
	if (measure == ERROR && n == 0) {
		o->advised = 1;
		return o->why = xstrdup("no f64 arithmetic to shadow"), -1;
	}
	/* the exit code's activemask (PTX ISA 6.2), shfl.sync and red.add.f64
	 * (sm_60) */
	int isa = modversion(cx->m), sm = ptxsm(cx);
	if (isa < 62 || sm < 60)
		return o->why = fmt("the instrumentation needs PTX ISA 6.2 and sm_60; this PTX is "
		                    ".version %.*s for sm_%d", (int)cx->m->version.n,
		                    cx->m->version.s ? cx->m->version.s : "", sm), -1;
	/* the exit .func's addresses and its vprintf call are 64-bit */
	if (cx->m->addrsize == 32)
		return o->why = xstrdup("the instrumentation addresses memory in 64 bits; this PTX "
		                        "has .address_size 32"), -1;
	/* the hash of the kernel as it came, before the loops are read (their
	 * counts are facts about that code) and anything is added */
	uint hash = fnhash(fn);
	struct trips tr = measure == TIME ? trips_plan(fn) : (struct trips){0, NULL};
	if (measure == TIME && tr.nloop && !tr.why && !p->v[TRIPS].i)
		tr.why = "trips=false";
	uint *ord = ids(fn, ins, n);
	o->stats = statsjson(fn, measure, ins, ord, measure == ERROR ? n : 0, all, &tr, hash);
	const char *pfx = prefix(cx->m, fn);
	uint counted = tr.why ? 0 : tr.nloop;
	module_part(cx->m, pfx, symname(cx->m, fn->sym), measure, ord, n, counted);
	if (measure == TIME)
		timing(fn, pfx, counted > 0);
	else
		errors(fn, pfx, max, n);
	return 0;
}

static void
describe(FILE *out, const struct params *p)
{
	if (p->v[MEASURE].i == TIME)
		fprintf(out, "           times each launch with %%globaltimer and counts each loop's trips; "
		             "the last thread prints 'mpcc-time KERNEL LAUNCHES NS THREADS BLOCK NSMID "
		             "START END' "
		             "every launch and 'mpcc-trips KERNEL LAUNCHES LOOP HEADS ENTRIES' per loop\n");
	else
		fprintf(out, "           each f64 operation (at most %ld, evenly spread) also runs in "
		             "f32; the last thread prints 'mpcc-shadow KERNEL INS LAUNCHES ERROR' per "
		             "operation\n", p->v[MAX_OPS].i);
}

static void
explain(FILE *out, struct passctx *cx, Fn *fn, const struct params *p)
{
	uint n, all;
	(void)cx;
	if (p->v[MEASURE].i == TIME) {
		struct trips tr = trips_plan(fn);
		if (tr.nloop && !tr.why)
			fprintf(out, "           %u %s whose trips are counted\n", tr.nloop,
			        plural(tr.nloop, "loop", "loops"));
		else if (tr.nloop)
			fprintf(out, "           %u %s whose trips are not counted: %s\n", tr.nloop,
			        plural(tr.nloop, "loop", "loops"), tr.why);
		return;
	}
	targets(fn, p->v[MAX_OPS].i, &n, &all);
	if (n < all)
		fprintf(out, "           %u of its %u f64 %s to shadow\n", n, all,
		        plural(all, "operation", "operations"));
	else
		fprintf(out, "           %u f64 %s to shadow\n", n, plural(n, "operation", "operations"));
}

static void
dump(FILE *out, struct passctx *cx, Fn *fn, const struct params *p)
{
	(void)p;
	const char *name = symname(cx->m, fn->sym);
	for (uint k = 0; k < fn->nins; k++)
		if (fn->ins[k].op == Ocall) {
			fprintf(out, "shadow: %s: ", name);
			printins(out, fn, &fn->ins[k]);
			fputc('\n', out);
		}
}

static const char *const measures[] = {"error", "time", NULL};

static const struct param params[] = {
	[MEASURE] = {"measure", PENUM, 0, 0, 0, measures, NULL, "error",
	             "error: each f64 operation's relative error against its f32 twin, "
	             "summed per instruction; time: each launch's span by %globaltimer, and each "
	             "loop's trips"},
	[MAX_OPS] = {"max_ops", PINT, 0, 1, 1000000, NULL, NULL, "512",
	             "measure=error shadows at most this many f64 operations of a kernel, evenly "
	             "spread over it (about 20 instructions each: more makes ptxas slower)"},
	[TRIPS] = {"trips", PBOOL, 0, 0, 0, NULL, NULL, "true",
	           "measure=time also counts each loop's trips; each warp's sums at the exit cost "
	           "a short kernel time (one of 0.77 ms ran 0.90 ms with them on an H100): false "
	           "for kernel times alone"},
};

static const char *const sweep[] = {"", NULL};   /* the defaults: measure=error */

const struct pass shadow_pass = {
	.schema = {"shadow", "instrumented build for mpcc-tune: f64 errors against f32 twins, or kernel "
	                     "times and loop trips",
	           params, countof(params), describe},
	.stats = &statroot,
	.apply = apply,
	.explain = explain,
	.dump = dump,
	.tune = &(const struct tuning){TUNE_PROBE, .timing = "measure=time", .shadow = "measure=error"},
	.sweep = sweep,
};
