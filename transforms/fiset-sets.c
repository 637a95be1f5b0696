/* fiset-sets.c: the sets of f64 operations fiset may lower, the casts a
 * choice of them needs, and what the model predicts of each (doc/DESIGN.md,
 * "fiset"; paper 003, Algorithm 1 and section 4.4).
 *
 * The nodes are the f64 operations that have an f32 form of the same
 * meaning (model.h's f64class: add sub mul fma mad div sqrt rcp rsqrt min
 * max abs neg copysign, cvt.rXi.f64.f64, setp selp mov); everything else
 * that reads or writes an f64 register ends a set (loads, stores, calls,
 * params, conversions, atomics, b64 bit patterns, libdevice's bit tricks).
 * A register written in several places (a loop-carried accumulator) is one
 * "web": its writers are lowered together or not at all. Webs joined by
 * def-use through f64 registers form a set, as Algorithm 1 grows one from a
 * seed and merges the overlapping ones; a set does not cross a loop-depth
 * boundary (a value computed in a loop and used after it is a set's exit),
 * so a loop's body and what follows the loop are separate sets. An f64
 * immediate is folded to f32 unless it would change class (above FLT_MAX,
 * or below FLT_MIN and not zero): then its operation ends the set. Set ids
 * number the sets by their first instruction, so the same PTX gives the same
 * ids (with or without -lineinfo, on every chain).
 *
 * Casts. A value entering a set gets one cvt.rn.f32.f64, placed after each
 * of its definitions or before each use in the set, whichever runs less
 * often by loop depth (section 4.4: a loop-invariant load is cast once
 * before the loop, an accumulator is cast once after it). A value that
 * entered through cvt.f64.f32 needs no cast (the f32 source is used), and a
 * value that leaves through cvt.rn.f32.f64 (or a cvt to an integer) needs
 * none either: so f64 in float code folds away entirely ("accidental FP64").
 *
 * Predictions: the model's time of the kernel (model/time.c) as it stands
 * over its time with a choice lowered, per target of the build. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "transforms/fiset.h"

/* the value of an immediate that is a real: 0d or 0f bits, or a real
 * number (ptxas takes each where an f64 goes); 0 for an integer, whose
 * value depends on the operand's type */
static int
immval(const Fn *fn, Ref r, double *v)
{
	Str t = fn->imm[r.idx].text;
	int k = numform(t);
	return (k == NREAL || k == NF32 || k == NF64) && numreal(t, v);
}

/* can the f64 immediate become an f32 one of the same class? (a rounded
 * value is fine; overflow to inf or underflow to a subnormal is not). An
 * operation with a constant of 2^52 or more is never lowered, whatever its
 * class: such constants are f64's own bit tricks, as libdevice's exp and
 * pow round to an integer by adding 1.5 * 2^52 (0d4338000000000000) and
 * reading the low word, which in f32 leaves nothing (a public chemistry
 * code's rates came out 27 orders of magnitude off) */
static int
foldable(double v)
{
	double a = fabs(v);
	if (isnan(v) || isinf(v) || a == 0)
		return 1;
	return a <= FLT_MAX && (double)(float)a <= FLT_MAX && a >= FLT_MIN;
}

int
f64reg(const Fn *fn, Ref r)
{
	return r.kind == RReg && fn->reg[r.idx].ty == Tf64 && !(fn->reg[r.idx].flags & RGSPECIAL);
}

/* the first argument that is an operand (not a result) */
uint
firstsrc(const Ins *i)
{
	if (i->op == Osetp)
		return i->narg > 1 && i->arg[1].bar ? 2 : 1;
	return 1;
}

/* is operand r a finite constant of 2^52 or more, or a register that only
 * ever holds one (cicc moves libdevice's constants into registers first)?
 * Infinity is no bit trick: sfu's f64 sqrt compares with it */
static int
bittrick(const Fn *fn, Ref r)
{
	double v;
	if (r.kind == RImm)
		return immval(fn, r, &v) && isfinite(v) && fabs(v) >= 0x1p52;
	if (r.kind != RReg || !fn->use || !fn->use[r.idx].ndef)
		return 0;
	for (uint d = 0; d < fn->use[r.idx].ndef; d++) {
		const Ins *i = &fn->ins[fn->use[r.idx].def[d]];
		if (i->op != Omov || i->narg != 2 || !bittrick(fn, i->arg[1]))
			return 0;
	}
	return 1;
}

/* i is an f64 operation whose f64 operands all lower: f64 registers, or
 * immediates that fold; the others (selp's and setp's predicates, by the
 * opcode's shape) stay as they are; *why says what else it holds */
static int
lowerable(const Fn *fn, const Ins *i, const char **why)
{
	int cls = f64class(i);
	*why = NULL;
	if (cls < 0)
		return 0;
	if (cls != CSETP && !f64reg(fn, i->arg[0]))
		return 0;
	if (i->op == Odiv && !hasmod(i, "rn") && !hasmod(i, "rz") && !hasmod(i, "rm") &&
	    !hasmod(i, "rp"))
		return 0;
	for (uint k = firstsrc(i); k < i->narg; k++) {
		Ref r = i->arg[k];
		double v;
		if (argtype(i, k) != Tf64)
			continue;
		if (r.neg || r.bar)
			return 0;
		if (bittrick(fn, r))
			return *why = "an f64 constant of 2^52 or more (an f64 bit trick)", 0;
		if (r.kind == RImm) {
			if (!immval(fn, r, &v))
				return 0;
			if (!foldable(v))
				return *why = "an f64 constant out of f32 range", 0;
			continue;
		}
		if (!f64reg(fn, r))
			return 0;
	}
	return 1;
}

/* ---- the sets ---- */

static int
find(int *p, int x)
{
	while (p[x] != x)
		x = p[x] = p[p[x]];
	return x;
}

static void
unite(int *p, int a, int b)
{
	a = find(p, a), b = find(p, b);
	if (a != b)
		p[a < b ? b : a] = a < b ? a : b;   /* the root is the first instruction */
}

static double
weight(const struct fs *a, uint k)
{
	const Fn *fn = a->fn;
	return fn->insblk && fn->insblk[k] < fn->nblk ? a->freq[fn->insblk[k]] : 1;
}

/* every definition of each f64 register lowerable, else none of them:
 * a register is f32 everywhere or nowhere */
static void
pinregs(Fn *fn, int *cls)
{
	for (int changed = 1; changed;) {
		changed = 0;
		for (uint r = 0; r < fn->nreg; r++) {
			Use *u = &fn->use[r];
			int bad = 0;
			if (fn->reg[r].ty != Tf64 || !u->ndef)
				continue;
			for (uint d = 0; d < u->ndef; d++)
				bad |= cls[u->def[d]] < 0 || cls[u->def[d]] == CSETP;
			for (uint d = 0; bad && d < u->ndef; d++)
				if (cls[u->def[d]] >= 0 && cls[u->def[d]] != CSETP) {
					cls[u->def[d]] = -1;
					changed = 1;
				}
		}
	}
}

/* a register that is f32 when its writers are: every writer lowerable */
static int
lowreg(const struct fs *a, uint r)
{
	const Use *u = &a->fn->use[r];
	if (a->fn->reg[r].ty != Tf64 || !u->ndef)
		return 0;
	for (uint d = 0; d < u->ndef; d++)
		if (a->cls[u->def[d]] < 0)
			return 0;
	return 1;
}

/* the f64 registers instruction k reads, into regs (at most 8) */
int
srcregs(const Fn *fn, const Ins *i, uint *regs)
{
	int n = 0;
	if (i->pred.kind == RReg && f64reg(fn, i->pred))
		regs[n++] = i->pred.idx;
	for (uint k = 0; k < i->narg && n < 8; k++) {
		Ref r = i->arg[k];
		if (isdef(i, k))
			continue;
		if (f64reg(fn, r))
			regs[n++] = r.idx;
		else if (r.kind == RMem && f64reg(fn, fn->mem[r.idx].base))
			regs[n++] = fn->mem[r.idx].base.idx;
		else if (r.kind == RVec || r.kind == RList)
			for (uint j = 0; j < fn->vec[r.idx].n && n < 8; j++)
				if (f64reg(fn, fn->vec[r.idx].el[j]))
					regs[n++] = fn->vec[r.idx].el[j].idx;
	}
	return n;
}

static void
webs(struct fs *a)
{
	Fn *fn = a->fn;
	for (uint k = 0; k < a->n; k++)
		a->web[k] = k;
	for (uint r = 0; r < fn->nreg; r++)
		if (lowreg(a, r))
			for (uint d = 1; d < fn->use[r].ndef; d++)
				unite(a->web, fn->use[r].def[0], fn->use[r].def[d]);
}

/* sets: webs joined through the registers they write and read, at one loop depth */
static void
components(struct fs *a)
{
	Fn *fn = a->fn;
	int *wd = arena_alloc(a->a, (a->n + 1) * sizeof *wd);
	int *p = arena_alloc(a->a, (a->n + 1) * sizeof *p);
	for (uint k = 0; k < a->n; k++) {
		p[k] = k;
		if (a->cls[k] >= 0) {
			int w = find(a->web, k);
			wd[w] = a->depth[k] > wd[w] ? a->depth[k] : wd[w];
		}
	}
	for (uint k = 0; k < a->n; k++) {
		if (a->cls[k] < 0)
			continue;
		unite(p, k, find(a->web, k));
		uint regs[8];
		int nr = srcregs(fn, &fn->ins[k], regs);
		for (int j = 0; j < nr; j++) {
			if (!lowreg(a, regs[j]))
				continue;
			uint d = fn->use[regs[j]].def[0];
			if (wd[find(a->web, d)] == wd[find(a->web, k)])
				unite(p, k, d);
		}
	}
	/* number the sets by their first instruction */
	int *idx = arena_alloc(a->a, (a->n + 1) * sizeof *idx);
	uint cap = 0, ns = 0;
	for (uint k = 0; k < a->n; k++)
		idx[k] = -1;
	for (uint k = 0; k < a->n; k++) {
		a->set[k] = -1;
		if (a->cls[k] < 0)
			continue;
		int root = find(p, k);
		if (idx[root] < 0) {
			a->s = agrow(a->a, a->s, ns, &cap, sizeof *a->s);
			a->s[ns].first = k;
			idx[root] = ns++;
			a->ns = ns;
		}
		struct set *s = &a->s[idx[root]];
		a->set[k] = idx[root];
		s->ops += arithclass(a->cls[k]);
		s->movs += !arithclass(a->cls[k]);
		s->depth = a->depth[k] > s->depth ? a->depth[k] : s->depth;
	}
	/* a group of moves and selects alone is no set */
	int n = 0, *renum = arena_alloc(a->a, (a->ns + 1) * sizeof *renum);
	for (int j = 0; j < a->ns; j++) {
		renum[j] = a->s[j].ops ? n : -1;
		if (a->s[j].ops)
			a->s[n++] = a->s[j];
	}
	for (uint k = 0; k < a->n; k++)
		if (a->set[k] >= 0)
			a->set[k] = renum[a->set[k]];
	a->ns = n;
	for (int j = 0; j < n; j++)
		a->s[j].id = j;
}

/* ---- the casts a choice needs ---- */

static void
push(struct plan *p, struct edit e)
{
	p->e = agrow(p->a, p->e, p->n, &p->cap, sizeof *p->e);
	p->e[p->n++] = e;
	p->casts += e.kind == X_CAST;
	p->folded += e.kind == X_FOLD || e.kind == X_DEAD;
}

/* cvt.f64.f32 r, x: an entry from f32 (cvt.ftz.f64.f32 under
 * -use_fast_math: the same entry, x flushed if subnormal) */
static int
fromf32(const Fn *fn, uint k)
{
	const Ins *i = &fn->ins[k];
	Cvt c;
	return cvtof(i, &c) && c.dst == Tf64 && c.src == Tf32 && !c.rnd && !c.sat && !c.other &&
	       i->narg == 2 && i->arg[1].kind == RReg;
}

int
fs_exitf32(const Ins *i)
{
	Cvt c;
	return cvtof(i, &c) && c.dst == Tf32 && c.src == Tf64 && c.rnd && !c.irnd && !c.sat &&
	       !c.other;
}

/* a use of r that reads it as f32 just as well: cvt.rn.f32.f64 (the
 * rounding to f32 is the lowered operation's own; .ftz or not), cvt.rni.s32.f64
 * (to an integer) */
static int
tof32(const Fn *fn, uint k, uint r)
{
	const Ins *i = &fn->ins[k];
	Cvt c;
	if (!cvtof(i, &c) || i->narg != 2 || i->arg[1].kind != RReg || i->arg[1].idx != r ||
	    i->arg[0].kind != RReg)
		return 0;
	if (fs_exitf32(i))
		return fn->reg[i->arg[0].idx].ty == Tf32;
	return c.src == Tf64 && c.irnd && !c.sat && !c.other && !c.ftz &&
	       (c.dst == Ts32 || c.dst == Tu32 || c.dst == Ts64 || c.dst == Tu64);
}

/* the entry of register r into the chosen instructions */
static void
entry(const struct fs *a, const uchar *ch, uint r, struct plan *p)
{
	const Fn *fn = a->fn;
	const Use *u = &fn->use[r];
	double wa = 0, wb = 0;
	int all32 = u->ndef > 0, outside = 0;
	for (uint d = 0; d < u->ndef; d++) {
		wa += weight(a, u->def[d]);
		all32 &= fromf32(fn, u->def[d]);
	}
	for (uint j = 0; j < u->nuse; j++) {
		if (ch[u->use[j]])
			wb += weight(a, u->use[j]);
		else
			outside = 1;
	}
	if (all32) {     /* f64 in float code: use the f32 source */
		for (uint d = 0; d < u->ndef; d++) {
			push(p, (struct edit){X_MOV, u->def[d], 1, r, 0});
			if (!outside)
				push(p, (struct edit){X_DEAD, u->def[d], 0, r, 0});
		}
		return;
	}
	if (u->ndef && wa <= wb) {
		for (uint d = 0; d < u->ndef; d++)
			push(p, (struct edit){X_CAST, u->def[d], 1, r, 0});
		return;
	}
	for (uint j = 0; j < u->nuse; j++)
		if (ch[u->use[j]])
			push(p, (struct edit){X_CAST, u->use[j], 0, r, 0});
}

/* the exit of lowered register r to the instructions outside */
static void
leave(const struct fs *a, const uchar *ch, uint r, struct plan *p)
{
	const Fn *fn = a->fn;
	const Use *u = &fn->use[r];
	double wa = 0, wb = 0;
	int need = 0;
	for (uint j = 0; j < u->nuse; j++) {
		uint k = u->use[j];
		if (ch[k])
			continue;
		if (tof32(fn, k, r)) {
			push(p, (struct edit){X_FOLD, k, 0, r, 1});
			continue;
		}
		need = 1;
		wb += weight(a, k);
	}
	if (!need)
		return;
	for (uint d = 0; d < u->ndef; d++)
		wa += weight(a, u->def[d]);
	if (wa <= wb) {
		for (uint d = 0; d < u->ndef; d++)
			push(p, (struct edit){X_CAST, u->def[d], 1, r, 1});
		return;
	}
	for (uint j = 0; j < u->nuse; j++) {
		uint k = u->use[j];
		if (!ch[k] && !tof32(fn, k, r))
			push(p, (struct edit){X_CAST, k, 0, r, 1});
	}
}

void
fs_touched(const struct fs *a, const uchar *ch, uchar *in, uchar *low)
{
	const Fn *fn = a->fn;
	for (uint k = 0; k < a->n; k++) {
		if (!ch[k])
			continue;
		uint regs[8];
		int nr = srcregs(fn, &fn->ins[k], regs);
		for (int j = 0; j < nr; j++)
			in[regs[j]] = 1;
		if (a->cls[k] != CSETP)
			low[fn->ins[k].arg[0].idx] = 1;
	}
}

void
fs_plan(const struct fs *a, const uchar *ch, struct plan *p)
{
	const Fn *fn = a->fn;
	memset(p, 0, sizeof *p);
	p->a = a->a;
	uchar *in = arena_alloc(a->a, fn->nreg + 1), *low = arena_alloc(a->a, fn->nreg + 1);
	fs_touched(a, ch, in, low);
	for (uint r = 0; r < fn->nreg; r++) {
		if (in[r] && !low[r])
			entry(a, ch, r, p);
		if (low[r])
			leave(a, ch, r, p);
	}
}

/* ---- predictions ---- */

/* the kernel with ch lowered as plan p says, for the model: the chosen
 * instructions in f32, the conversions dropped or folded cost nothing, the
 * casts added, and an f64 register held in f32 where every write or every
 * read of it is chosen */
static void
variant(const struct fs *a, const uchar *ch, const struct plan *p, struct variant *v)
{
	const Fn *fn = a->fn;
	uchar *gone = arena_alloc(a->a, a->n + 1), *low = arena_alloc(a->a, fn->nreg + 1);
	struct cast *c = arena_alloc(a->a, (p->n + 1) * sizeof *c);
	int nc = 0;
	for (uint j = 0; j < p->n; j++) {
		if (p->e[j].kind == X_DEAD || p->e[j].kind == X_FOLD)
			gone[p->e[j].at] = 1;   /* dropped, or a mov */
		if (p->e[j].kind == X_CAST)
			c[nc++] = (struct cast){p->e[j].at, p->e[j].after, p->e[j].reg};
	}
	for (uint r = 0; r < fn->nreg; r++) {
		const Use *u = &fn->use[r];
		int all = u->ndef > 0, in = u->nuse > 0;
		if (fn->reg[r].ty != Tf64)
			continue;
		for (uint d = 0; d < u->ndef; d++)
			all &= ch[u->def[d]];
		for (uint j = 0; j < u->nuse; j++)
			in &= ch[u->use[j]];
		low[r] = all | in;
	}
	*v = (struct variant){ch, gone, low, c, nc, 0, {0, 0}};
}

void
fs_predict(struct fs *a, int j, const uchar *ch, double x[2])
{
	struct plan p;
	struct variant v;
	double t1[2];
	fs_plan(a, ch, &p);
	variant(a, ch, &p, &v);
	if (a->compiled && a->creg[j][0] > 0 && a->creg[j][1] > 0 && !memcmp(ch, a->cch, a->n)) {
		struct variant b = {.regs = a->creg[j][0]};   /* as written, as ptxas compiles it */
		double t0[2];
		memcpy(b.spill, a->cspill[j][0], sizeof b.spill);
		v.regs = a->creg[j][1];
		memcpy(v.spill, a->cspill[j][1], sizeof v.spill);
		kmodel_time(a->km, a->t[j], &b, t0);
		kmodel_time(a->km, a->t[j], &v, t1);
		for (int k = 0; k < 2; k++)
			x[k] = t1[k] > 0 ? t0[k] / t1[k] : 1;
		return;
	}
	if (!a->base[j][0])
		kmodel_time(a->km, a->t[j], NULL, a->base[j]);
	kmodel_time(a->km, a->t[j], &v, t1);
	for (int k = 0; k < 2; k++)
		x[k] = t1[k] > 0 ? a->base[j][k] / t1[k] : 1;
}

static double
predict(struct fs *a, int j, const uchar *ch)
{
	double x[2];
	fs_predict(a, j, ch, x);
	return x[0];
}

void
fs_choose(const struct fs *a, uchar *ch, int set, int on)
{
	for (uint k = 0; k < a->n; k++)
		if (a->set[k] == set)
			ch[k] = on;
}

/* casts, folds, r_ac, accidental and predictions of each set alone */
static void
measure(struct fs *a)
{
	const Fn *fn = a->fn;
	uchar *ch = arena_alloc(a->a, a->n + 1);
	for (int s = 0; s < a->ns; s++) {
		struct set *st = &a->s[s];
		struct plan p;
		fs_choose(a, ch, s, 1);
		fs_plan(a, ch, &p);
		st->casts = p.casts;
		st->folded = p.folded;
		st->rac = p.casts ? (double)st->ops / p.casts : INFINITY;
		st->accidental = !p.casts && p.folded > 0;
		for (uint j = 0; j < p.n; j++) {
			if (p.e[j].kind == X_MOV && !st->promo)
				st->promo = insline(fn, p.e[j].at, NULL);
			if (p.e[j].kind != X_CAST && hasmod(&fn->ins[p.e[j].at], "ftz"))
				st->ftz = 1;
		}
		for (int j = 0; j < a->nt; j++)
			st->pred[j] = predict(a, j, ch);
		fs_choose(a, ch, s, 0);
	}
}

static void
targets(struct fs *a, const struct passctx *cx)
{
	struct buf b = BUF_INIT;
	for (int j = 0; j < cx->nsm && a->nt < MAXT; j++) {
		const struct target *t = target(cx->sm[j]);
		int dup = 0;
		for (int i = 0; i < a->nt; i++)
			dup |= a->tsm[i] == cx->sm[j];
		if (!t || dup)
			continue;
		a->t[a->nt] = t;
		a->tsm[a->nt++] = cx->sm[j];
	}
	if (!a->nt && cx->nsm == 0) {
		int sm = archnum(cx->arch);
		if (sm > 0 && target(sm)) {
			a->t[0] = target(sm);
			a->tsm[a->nt++] = sm;
		}
	}
	for (int j = 0; j < a->nt; j++)
		buf_printf(&b, "%ssm_%d", j ? ", " : "", a->tsm[j]);
	a->tnames = arena_strdup(a->a, b.n ? b.s : "");
	buf_release(&b);
}

/* the facts f, or why they cannot be used on fn (in a's arena): measured
 * on other PTX (a source edit, another -gencode target's code), or on
 * another count of loops */
static const char *
stale(const struct fs *a, struct passctx *cx, const Fn *fn, const struct facts *f)
{
	char now[16];
	snprintf(now, sizeof now, "%08x", cx->hashed == fn ? cx->hash : fnhash(fn));
	const struct fact *ptx = &f->f[F_PTX], *trips = &f->f[F_TRIPS];
	if (ptx->s && strcmp(ptx->s, now))
		return arena_fmt(a->a, "measured on other PTX (ptx %s; this kernel's is %s)", ptx->s,
		                 now);
	if (trips->xs && (uint)trips->n != fn->nloop)
		return arena_fmt(a->a, "trips lists %d %s and the kernel has %u", trips->n,
		                 plural(trips->n, "loop", "loops"), fn->nloop);
	return NULL;
}

/* the measured facts the model takes (a->facts: "measured" or "none",
 * else why they were dropped: then warps and trips are guessed) */
static void
takefacts(struct fs *a, struct passctx *cx, Fn *fn, const struct facts *f)
{
	int have = f && (f->f[F_TRIPS].xs || f->f[F_WARPS].i > 0 || f->f[F_MEASURED].xs);
	const char *why = have ? stale(a, cx, fn, f) : NULL;
	if (have && !why)
		a->known = *f;
	const struct fact *trips = &a->known.f[F_TRIPS];
	a->facts = !have ? "none" : why ? arena_fmt(a->a, "dropped: %s", why) : "measured";
	a->from = arena_alloc(a->a, fn->nblk + 1);
	a->order = looporder(fn);
	a->freq = blockfreq(fn, trips->xs, trips->xs ? trips->n : 0, LOOPGUESS, a->from);
}

void
fs_analyze(struct fs *a, struct passctx *cx, Fn *fn, const struct facts *f)
{
	memset(a, 0, sizeof *a);
	a->a = arena_new();
	a->fn = fn;
	a->n = fn->nins;
	fillcfg(fn);
	fillloops(fn);
	filldefuse(fn);
	a->cls = arena_alloc(a->a, (a->n + 1) * sizeof *a->cls);
	a->set = arena_alloc(a->a, (a->n + 1) * sizeof *a->set);
	a->depth = arena_alloc(a->a, (a->n + 1) * sizeof *a->depth);
	a->web = arena_alloc(a->a, (a->n + 1) * sizeof *a->web);
	a->nolow = arena_alloc(a->a, (a->n + 1) * sizeof *a->nolow);
	a->ord = ordinals(fn);
	a->cx = cx;
	a->given = f;
	takefacts(a, cx, fn, f);
	for (uint k = 0; k < a->n; k++) {
		const Ins *i = &fn->ins[k];
		const char *why;
		a->depth[k] = fn->blk && fn->insblk ? (int)fn->blk[fn->insblk[k]].depth : 0;
		a->cls[k] = lowerable(fn, i, &why) ? f64class(i) : -1;
		a->nolow[k] = why;
		a->refused += why != NULL;
		a->nf64 += f64class(i) >= 0 && arithclass(f64class(i));
	}
	pinregs(fn, a->cls);
	webs(a);
	components(a);
	if (a->ns)      /* what the model needs */
		a->km = kmodel(fn, &a->known, a->freq);
	targets(a, cx);
	measure(a);
}

void
fs_done(struct fs *a)
{
	arena_free(a->a);
	a->a = NULL;
}

