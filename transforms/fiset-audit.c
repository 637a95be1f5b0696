/* fiset-audit.c: what --mpcc-warn=fp64 asks of fiset's analysis (the
 * warning is fiset.c's): f64 arithmetic in float code, by the source line of
 * each promotion, and whether fiset with its defaults removes it.
 *
 * A kernel is float code when it loads and stores no f64 value as data:
 * what it keeps in .local (printf's arguments), a call's .param and the
 * math library's own tables (__cudart_sin_cos_coeffs) are not its data, a
 * parameter of its own is. There a float value converted to f64
 * (cvt.f64.f32) is a promotion: a double constant or a double function on
 * float values, as cicc left it after optimization. The promoted value
 * reaches instructions through f64 registers until a conversion takes it
 * out of f64; it is said where it reaches f64 arithmetic, and fiset removes
 * it when it lowers every instruction it reaches (fiset-sets.c: f64 in
 * float code is lowered whole, its conversions folded away). f64
 * arithmetic that no promotion reaches is not said: an integer converted
 * to f64 is how CUDA's own sinf reduces a large argument. */
#include <string.h>

#include "transforms/fiset.h"

/* the address r names comes from a symbol of the math library: through
 * moves, cvta and adds (mov.u64 %rd8, __cudart_sin_cos_coeffs; add.s64) */
static int
libaddr(const Fn *fn, Ref r, int depth)
{
	if (r.kind == RSym)
		return strpre(fn->mod->sym[r.idx].name, "__cudart_");
	if (r.kind != RReg || depth > 8 || !fn->use)
		return 0;
	const Use *u = &fn->use[r.idx];
	for (uint d = 0; d < u->ndef; d++) {
		const Ins *i = &fn->ins[u->def[d]];
		if (i->op != Omov && i->op != Ocvta && i->op != Oadd && i->op != Osub)
			continue;
		for (uint k = 1; k < i->narg; k++)
			if (libaddr(fn, i->arg[k], depth + 1))
				return 1;
	}
	return 0;
}

/* base names one of fn's own parameters (not a call's) */
static int
ownparam(const Fn *fn, Ref base)
{
	if (base.kind != RSym)
		return 0;
	Str s = fn->mod->sym[base.idx].name;
	for (uint p = 0; p < fn->npar; p++)
		if (fn->par[p].name.n == s.n && !memcmp(fn->par[p].name.s, s.s, s.n))
			return 1;
	return 0;
}

static void
isf64(void *arg, uint r, int def)
{
	const Fn *fn = ((const Fn **)arg)[0];
	(void)def;
	if (fn->reg[r].ty == Tf64)
		((const Fn **)arg)[1] = fn;
}

/* i moves f64 data between registers and memory, or computes on it there */
static int
f64data(const Fn *fn, const Ins *i)
{
	const Fn *x[2] = {fn, NULL};
	Ref base = {0};
	if (i->op != Old && i->op != Oldu && i->op != Ost && i->op != Oatom && i->op != Ored &&
	    i->op != Omma && i->op != Owmma && i->op != Omultimem)
		return 0;
	forregs(fn, i, isf64, x);
	if (i->ty != Tf64 && !x[1])
		return 0;
	for (uint k = 0; k < i->narg; k++)
		if (i->arg[k].kind == RMem)
			base = fn->mem[i->arg[k].idx].base;
	if (hasspace(i, "local"))
		return 0;
	if (hasspace(i, "param"))
		return ownparam(fn, base);
	return !libaddr(fn, base, 0);
}

int
fs_floatcode(Fn *fn)
{
	int arith = 0;
	for (uint k = 0; k < fn->nins && !arith; k++)
		arith = f64class(&fn->ins[k]) >= 0 && arithclass(f64class(&fn->ins[k]));
	if (!arith)
		return 0;
	filldefuse(fn);
	for (uint k = 0; k < fn->nins; k++)
		if (f64data(fn, &fn->ins[k]))
			return 0;
	return 1;
}

/* cvt.f64.T of a float type T: T, else Tnone (an integer converted to
 * f64 is the math library's as often as not) */
static int
promoted(const Fn *fn, const Ins *i)
{
	Mods md;
	if (i->op != Ocvt || i->narg != 2 || !f64reg(fn, i->arg[0]))
		return Tnone;
	modsplit(i, &md);
	if (md.nt != 2 || md.t[0] != Tf64)
		return Tnone;
	return md.t[1] == Tf32 || md.t[1] == Tf16 || md.t[1] == Tbf16 ? md.t[1] : Tnone;
}

/* a conversion out of f64 ends what a promoted value reaches */
static int
leaves(const Fn *fn, const Ins *i)
{
	return i->op == Ocvt && i->narg == 2 && !f64reg(fn, i->arg[0]);
}

struct walk {
	uint *ins;    /* per instruction: the stamp of the last walk that reached it */
	uint *reg;    /* per register: the same */
	uint *work;
	uint stamp;
};

/* mark what the value of f64 register r reaches, with stamp w->stamp */
static void
reach(const struct fs *a, struct walk *w, uint r)
{
	const Fn *fn = a->fn;
	uint n = 0;
	w->work[n++] = r;
	w->reg[r] = w->stamp;
	while (n) {
		const Use *u = &fn->use[w->work[--n]];
		for (uint j = 0; j < u->nuse; j++) {
			uint x = u->use[j];
			const Ins *i = &fn->ins[x];
			if (w->ins[x] == w->stamp || leaves(fn, i))
				continue;
			w->ins[x] = w->stamp;
			for (uint k = 0; k < i->narg; k++)
				if (isdef(i, k) && f64reg(fn, i->arg[k]) && w->reg[i->arg[k].idx] != w->stamp) {
					w->reg[i->arg[k].idx] = w->stamp;
					w->work[n++] = i->arg[k].idx;
				}
		}
	}
}

/* why instruction x, reached and not chosen, stays f64 */
static const char *
whykept(const struct fs *a, uint x)
{
	const Ins *i = &a->fn->ins[x];
	const struct set *s = a->set[x] >= 0 ? &a->s[a->set[x]] : NULL;
	if (s)
		return arena_fmt(a->a, "set %d stays f64: %s", s->id, s->why ? s->why : "not chosen");
	if (a->nolow[x])
		return a->nolow[x];
	return arena_fmt(a->a, "it reaches %.*s, which fiset does not lower", (int)i->name.n,
	                 i->name.s);
}

/* what the promotions of a line come to */
struct line {
	uint file, line, cfile, cline;
	int n, fixed;     /* promotions, and those that the choice removes */
	uint types;       /* bit T*: the types promoted */
	const char *why;  /* the first reason something stays f64 */
};

static struct line *
lineof(const struct fs *a, struct line **l, uint *nl, uint *cap, uint k)
{
	uint file, line = insline(a->fn, k, &file), cfile, cline = inlinedat(a->fn, k, &cfile);
	for (uint j = 0; j < *nl; j++)
		if ((*l)[j].file == file && (*l)[j].line == line && (*l)[j].cfile == cfile &&
		    (*l)[j].cline == cline)
			return &(*l)[j];
	*l = agrow(a->a, *l, *nl, cap, sizeof **l);
	(*l)[*nl] = (struct line){file, line, cfile, cline, 0, 0, 0, NULL};
	return &(*l)[(*nl)++];
}

/* why something the last walk of w reached is not chosen; NULL: all is */
static const char *
kept(const struct fs *a, const struct walk *w, const uchar *ch)
{
	for (uint x = 0; x < a->n; x++)
		if (w->ins[x] == w->stamp && !ch[x])
			return whykept(a, x);
	return NULL;
}

/* the promotions of the kernel that reach f64 arithmetic, by line */
static struct line *
lines(const struct fs *a, const uchar *ch, uint *nl)
{
	const Fn *fn = a->fn;
	struct walk w = {arena_alloc(a->a, (a->n + 1) * sizeof(uint)),
	                 arena_alloc(a->a, (fn->nreg + 1) * sizeof(uint)),
	                 arena_alloc(a->a, (fn->nreg + 1) * sizeof(uint)), 0};
	struct line *l = NULL;
	uint cap = 0;
	*nl = 0;
	for (uint k = 0; k < a->n; k++) {
		int ty = promoted(fn, &fn->ins[k]);
		if (!ty)
			continue;
		w.stamp = k + 1;
		reach(a, &w, fn->ins[k].arg[0].idx);
		int arith = 0;
		for (uint x = 0; x < a->n; x++)
			arith |= w.ins[x] == w.stamp && f64class(&fn->ins[x]) >= 0 &&
			         arithclass(f64class(&fn->ins[x]));
		if (!arith)
			continue;   /* printf's argument, a store: no arithmetic */
		struct line *ln = lineof(a, &l, nl, &cap, k);
		const char *why = kept(a, &w, ch);
		ln->n++;
		ln->fixed += !why;
		ln->types |= 1u << ty;
		ln->why = ln->why ? ln->why : why;
	}
	return l;
}

/* "f32", "f32/f16" */
static const char *
typenames(const struct fs *a, uint types)
{
	const char *s = "";
	for (int t = 0; t < NTYPE; t++)
		if (types & 1u << t)
			s = arena_fmt(a->a, "%s%s%s", s, *s ? "/" : "", tyname[t]);
	return s;
}

static struct finding
finding(const struct fs *a, const struct line *l, const char *kernel, const char *rule)
{
	Arena *m = a->fn->mod->arena;
	const char *fix;
	if (l->fixed == l->n)
		fix = arena_fmt(m, "%s removes it", rule);
	else
		fix = arena_fmt(m, "%s %s it: %s", rule, l->fixed ? "removes only part of" : "does not remove",
		                l->why);
	return (struct finding){l->file, l->line, l->cfile, l->cline,
	                        arena_fmt(m, "f64 arithmetic in float kernel '%s' on %d %s value%s "
	                                     "promoted to f64", kernel, l->n, typenames(a, l->types),
	                                  l->n == 1 ? "" : "s"), fix};
}

int
fs_promotions(const struct fs *a, const uchar *ch, const char *kernel, const char *rule,
              struct finding **out)
{
	uint nl;
	struct line *l = lines(a, ch, &nl);
	*out = arena_alloc(a->fn->mod->arena, (nl + 1) * sizeof **out);
	for (uint j = 0; j < nl; j++)
		(*out)[j] = finding(a, &l[j], kernel, rule);
	return nl;
}
