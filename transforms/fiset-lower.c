/* fiset-lower.c: the rewrite of the chosen sets into f32.
 *
 * Each f64 register a chosen instruction reads or writes gets an f32
 * shadow, declared once after the last .reg. The plan's edits (computed on
 * the statement indices as they were) are turned into text first: casts
 * and movs to insert, exit conversions rewritten in place; then the chosen
 * instructions are rewritten in f32 (immediates folded to f32 ones), the
 * entry conversions nothing reads any more are dropped, and the new
 * statements inserted from the end of the body, so that the positions
 * still to use do not move.
 *
 * Flushing. Under -use_fast_math cicc writes the promotions into f64 as
 * cvt.ftz.f64.f32 and the way back as cvt.rn.ftz.f32.f64: an f32
 * subnormal going in is read as zero, a result that is subnormal in f32
 * comes out as zero; the f64 operations between them flush nothing (PTX
 * has no .ftz for f64). A set whose conversions flush (struct set's ftz)
 * is lowered into the f32 operations' .ftz forms: then an input is flushed
 * where the conversion flushed it and a result where the conversion
 * flushed it, which is what the same kernel with float literals makes
 * under -use_fast_math. What differs from the f64 code is only an
 * intermediate value below FLT_MIN (1.2e-38), which f64 kept and f32 now
 * flushes: an absolute error below FLT_MIN, which the build's flag asked
 * for in every other f32 operation of the kernel. A value that reaches an
 * output through moves and selects alone (no .ftz form) is flushed where it
 * enters (cvt.ftz.f32.f32, cvt.rn.ftz.f32.f64). A set whose conversions do
 * not flush (a plain build, or f64 data) is lowered without .ftz: f32
 * keeps subnormals, as the f64 code did. */
#include <stdlib.h>
#include <string.h>

#include "transforms/fiset.h"

struct lower {
	struct fs *a;
	const uchar *ch;    /* the chosen instructions (old indices) */
	uint *s32;          /* per register: its f32 shadow (lowered, or entered), ~0u */
	uchar *ftz;         /* per register: read or written by a set that flushes */
	uint shift, from;   /* declarations inserted at from: old index k >= from is k + shift */
};

/* one statement to insert: at a new index, in the plan's order */
struct ins1 {
	uint at;
	int seq;
	const char *text;
};

static uint
newidx(const struct lower *lw, uint k)
{
	return k >= lw->from ? k + lw->shift : k;
}

static const char *
guardtext(const Fn *fn, const Ins *i)
{
	if (!i->pred.kind)
		return "";
	return arena_fmt(fn->mod->arena, "@%s%s ", i->flags & INEGPRED ? "!" : "",
	                 refstr(fn, i->pred));
}

/* an f64 operand's immediate as an f32 one: "0d3FE0000000000000", "0f3F000000"
 * or "0.5" -> "0f3F000000" (lowerable() let only reals in) */
static const char *
imm32(const Fn *fn, Ref r)
{
	double v;
	if (numform(fn->imm[r.idx].text) == NINT || !numreal(fn->imm[r.idx].text, &v))
		BUG("fiset: immediate");
	float f = (float)v;
	uint32_t u;
	memcpy(&u, &f, sizeof u);
	return arena_fmt(fn->mod->arena, "0f%08X", u);
}

/* f32 operations with a .ftz form (mov, selp and copysign have none) */
static int
hasftz(const Ins *i)
{
	switch (i->op) {
	case Oadd: case Osub: case Omul: case Ofma: case Omad: case Odiv: case Osqrt: case Orcp:
	case Orsqrt: case Omin: case Omax: case Oabs: case Oneg: case Osetp: case Ocvt:
		return 1;
	}
	return 0;
}

/* i's name with every .f64 made .f32; with ftz, and where i has a .ftz
 * form, .ftz before the first type: fma.rn.f64 -> fma.rn.ftz.f32,
 * setp.lt.and.f64 -> setp.lt.and.ftz.f32, cvt.rni.f64.f64 ->
 * cvt.rni.ftz.f32.f32 */
static const char *
name32(const Fn *fn, const Ins *i, int ftz)
{
	char *n = arena_strndup(fn->mod->arena, i->name.s, i->name.n);
	for (char *p = n; (p = strstr(p, ".f64")); p += 4)
		memcpy(p, ".f32", 4);
	if (!ftz || !hasftz(i) || hasmod(i, "ftz"))
		return n;
	char *t = strstr(n, ".f32");
	return arena_fmt(fn->mod->arena, "%.*s.ftz%s", (int)(t - n), n, t);
}

/* text names the kernel's registers, inline asm's of a { } too: they
 * resolve at the statement replaced (mkinsat()) */
static void
replace(Fn *fn, uint at, const char *text)
{
	ins_replace(fn, at, mkinsfat(fn, at, "%s", text));
}

/* rewrite the chosen instruction at (its new index) in f32 */
static void
rewrite(struct lower *lw, uint at, int ftz)
{
	Fn *fn = lw->a->fn;
	const Ins *i = &fn->ins[at];
	struct buf b = BUF_INIT;
	buf_printf(&b, "%s%s ", guardtext(fn, i), name32(fn, i, ftz));
	for (uint j = 0; j < i->narg; j++) {
		Ref r = i->arg[j];
		if (j)
			buf_puts(&b, r.bar ? "|" : ", ");
		if (f64reg(fn, r) && lw->s32[r.idx] != ~0u)
			buf_puts(&b, regstr(fn, lw->s32[r.idx]));
		else if (r.kind == RImm && j >= firstsrc(i) && argtype(i, j) == Tf64)
			buf_puts(&b, imm32(fn, r));
		else
			buf_puts(&b, refstr(fn, r));
	}
	buf_puts(&b, ";");
	replace(fn, at, arena_strdup(lw->a->a, b.s));
	buf_release(&b);
}

static int
byat(const void *x, const void *y)
{
	const struct ins1 *a = x, *b = y;
	if (a->at != b->at)
		return a->at > b->at ? -1 : 1;
	return a->seq > b->seq ? -1 : a->seq < b->seq;
}

/* the f32 shadows of the registers the chosen instructions read and
 * write, declared together after the last .reg */
static void
shadows(struct lower *lw, const uchar *ch)
{
	struct fs *a = lw->a;
	Fn *fn = a->fn;
	uint nreg0 = fn->nreg;
	uchar *need = arena_alloc(a->a, nreg0 + 1);
	lw->s32 = arena_alloc(a->a, (nreg0 + 1) * sizeof *lw->s32);
	for (uint r = 0; r < nreg0; r++)
		lw->s32[r] = ~0u;
	fs_touched(a, ch, need, need);
	int first = 1;
	for (uint r = 0; r < nreg0; r++) {
		if (!need[r])
			continue;
		uint before = fn->nins;
		lw->s32[r] = newreg(fn, Tf32);
		/* where the declarations go: the first statement that moved */
		for (uint k = 0; first && k < fn->nins; k++)
			if (fn->ins[k].op == Oreg && fn->ins[k].narg &&
			    fn->ins[k].arg[0].kind == RReg && fn->ins[k].arg[0].idx == lw->s32[r]) {
				lw->from = k;
				first = 0;
			}
		first = 0;
		lw->shift += fn->nins - before;
	}
}

/* registers a set that flushes reads or writes (before shadows() moves
 * the statements) */
static void
flushing(struct lower *lw)
{
	struct fs *a = lw->a;
	const Fn *fn = a->fn;
	uchar *one = arena_alloc(a->a, a->n + 1);
	lw->ftz = arena_alloc(a->a, fn->nreg + 1);
	for (uint k = 0; k < a->n; k++)
		if (lw->ch[k] && a->set[k] >= 0 && a->s[a->set[k]].ftz) {
			one[k] = 1;
			fs_touched(a, one, lw->ftz, lw->ftz);
			one[k] = 0;
		}
}

/* does a chosen instruction pass register r on without flushing it (a
 * mov, selp or copysign)? */
static int
passeson(const struct lower *lw, uint r)
{
	const Fn *fn = lw->a->fn;
	for (uint j = 0; j < fn->use[r].nuse; j++) {
		uint k = fn->use[r].use[j];
		if (lw->ch[k] && !hasftz(&fn->ins[newidx(lw, k)]))
			return 1;
	}
	return 0;
}

/* edit e of the plan as text to insert (into add), or done in place: the
 * f32 shadow sh of its register, dead[] the entries to drop */
static void
edit1(struct lower *lw, const struct edit *e, int seq, struct ins1 *add, int *nadd, uchar *dead)
{
	Fn *fn = lw->a->fn;
	Arena *A = lw->a->a;
	uint at = newidx(lw, e->at);
	const Ins *i = &fn->ins[at];
	const char *sh = regstr(fn, lw->s32[e->reg]), *r = regstr(fn, e->reg), *g, *nm;
	switch (e->kind) {
	case X_CAST:
		g = e->after ? guardtext(fn, i) : "";
		add[(*nadd)++] = (struct ins1){at + e->after, seq,
		                               e->dir ? arena_fmt(A, "%scvt.f64.f32 %s, %s;", g, r, sh)
		                                      : arena_fmt(A, "%scvt.rn%s.f32.f64 %s, %s;", g,
		                                                  lw->ftz[e->reg] ? ".ftz" : "", sh, r)};
		break;
	case X_MOV:
		nm = lw->ftz[e->reg] && passeson(lw, e->reg) ? "cvt.ftz.f32.f32" : "mov.f32";
		add[(*nadd)++] = (struct ins1){at + 1, seq, arena_fmt(A, "%s%s %s, %s;",
		                               guardtext(fn, i), nm, sh, refstr(fn, i->arg[1]))};
		break;
	case X_DEAD:
		dead[e->at] = 1;
		break;
	case X_FOLD:
		if (fn->reg[i->arg[0].idx].ty == Tf32 && fs_exitf32(i))
			nm = "mov.f32";   /* flushed already where the set flushes */
		else
			nm = name32(fn, i, 0);
		replace(fn, at, arena_fmt(A, "%s%s %s, %s;", guardtext(fn, i), nm,
		                          refstr(fn, i->arg[0]), sh));
		break;
	}
}

void
fs_lower(struct fs *a, const uchar *ch, const struct plan *p)
{
	Fn *fn = a->fn;
	struct lower lw = {a, ch, NULL, NULL, 0, 0};
	flushing(&lw);
	shadows(&lw, ch);
	/* casts, movs and folds, computed on the old indices before rewriting */
	struct ins1 *add = arena_alloc(a->a, (p->n + 1) * sizeof *add);
	int nadd = 0;
	uchar *dead = arena_alloc(a->a, a->n + 1);
	for (uint j = 0; j < p->n; j++)
		edit1(&lw, &p->e[j], (int)j, add, &nadd, dead);
	for (uint k = 0; k < a->n; k++)
		if (ch[k])
			rewrite(&lw, newidx(&lw, k), a->s[a->set[k]].ftz);
	/* insert from the end, so that the positions still to use do not move;
	 * the dropped entries first, from the end too */
	for (uint k = a->n; k-- > 0;)
		if (dead[k]) {
			uint at = newidx(&lw, k);
			ins_remove(fn, at);
			for (int j = 0; j < nadd; j++)
				if (add[j].at > at)
					add[j].at--;
		}
	qsort(add, nadd, sizeof *add, byat);
	for (int j = 0; j < nadd; j++)
		ins_insert(fn, add[j].at, mkinsfat(fn, add[j].at, "%s", add[j].text));
}
