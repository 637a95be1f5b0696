/* store.c: arrays kept narrow in device memory, for the kernels that read
 * them (issue 47): the precision of the data, not only of the arithmetic.
 * A memory-bound kernel moves the same f64 arrays whatever precision its
 * arithmetic runs in; keeping them as f32 halves its bytes.
 *
 * The analysis (ptx/addr.c) says, per pointer parameter, whether every
 * access through it is an element access of one floating-point type and
 * whether its address escapes, and whether the kernel may reach memory no
 * parameter points to (then the runtime could not account for it: open).
 * The pass chooses parameters (params: auto, every one the analysis
 * allows; N, the N that move the most bytes; or ids), and adds a clone of
 * the kernel that reads and writes those arrays narrow (store-clone.c),
 * leaving the kernel itself as it was. The runtime linked into the program
 * (runtime/) launches the clone when it can put those arrays in narrow form
 * and every other reader sees them as they were; it learns what each
 * kernel touches from the host object's table, whose lines this pass gives
 * (struct pass, table).
 *
 * needs: nothing; breaks: cfg defuse loops of fn (the clone is a new
 * function; fn itself is left as it was) */
#include "transforms/store.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"

extern const struct pass store_pass;

enum { PARAMS, TYPE };
enum { T_F32, T_BF16, T_F16 };
static const int narrowty[] = {Tf32, Tbf16, Tf16};

/* one kernel, analysed; in the module's arena */
struct st {
	Fn *fn;
	struct addrs *a;
	int nt;                 /* the narrow type */
	const char **why;       /* per parameter: why it is not narrowed, NULL: it is */
	double *share;          /* per parameter: % of the kernel's global bytes it moves */
	struct narrow *nw;      /* per parameter: the narrowing chosen */
	int nchosen;
};

/* does nt hold exactly the floating value of wide bits u (64: an f64)?
 * Then the constant comes back from the narrow copy bit for bit, whatever
 * the array holds (a NaN would not) */
static int
exact(uint64_t u, int wide, int nt)
{
	float f;
	if (wide == 64) {
		double d;
		memcpy(&d, &u, 8);
		f = (float)d;
		if (isnan(d) || (double)f != d)
			return 0;
	} else {
		uint32_t w = (uint32_t)u;
		memcpy(&f, &w, 4);
		if (isnan(f))
			return 0;
	}
	uint32_t b;
	memcpy(&b, &f, 4);
	float a = fabsf(f), m;
	int e;
	if (nt == Tf32 || a == 0)
		return 1;
	if (nt == Tbf16)
		return !(b & 0xffff);
	if (a > 65504)
		return 0;
	if (a < 0x1p-14f)   /* an f16 subnormal: a multiple of 2^-24 */
		return ldexpf(a, 24) == floorf(ldexpf(a, 24));
	m = frexpf(a, &e);
	return ldexpf(m, 11) == floorf(ldexpf(m, 11));
}

/* is the floating value of wide bits u a NaN? */
static int
nan_(uint64_t u, int wide)
{
	return wide == 64 ? (u >> 52 & 0x7ff) == 0x7ff && (u & 0xfffffffffffffull)
	                  : (u >> 23 & 0xff) == 0xff && (u & 0x7fffff);
}

/* A store of integer constants through q (cicc's form of a constant
 * double) that the narrow copy would not give back bit for bit: where no
 * access says the array is floating point, one nt does not hold exactly
 * (the array may hold integers); anywhere, a NaN (a marker whose bits the
 * program may test). Why not, or NULL. Where an access is of a floating
 * type, the constant is a value, which the clone rounds as it rounds
 * every value it stores */
static const char *
constants(const struct st *s, const struct ptrparam *q)
{
	const Fn *fn = s->fn;
	int typed = 0;
	for (uint j = 0; j < q->nacc; j++)
		typed |= q->acc[j].raw == q->acc[j].ty;
	for (uint j = 0; j < q->nacc; j++) {
		const struct access *x = &q->acc[j];
		if (x->raw == x->ty)
			continue;
		Ref v = fn->ins[x->ins].arg[1];
		uint n = v.kind == RVec ? fn->vec[v.idx].n : 1;
		for (uint k = 0; k < n; k++) {
			Ref r = immof(fn, v.kind == RVec ? fn->vec[v.idx].el[k] : v);
			uint64_t u = 0;
			int ok = r.kind == RImm && numint(fn->imm[r.idx].text, &u);
			if (ok && nan_(u, tybits[x->ty]))
				return arena_fmt(fn->mod->arena, "it stores %#llx, a NaN, whose bits the "
				                 "narrow copy would not keep", (unsigned long long)u);
			if (!ok || (!typed && !exact(u, tybits[x->ty], s->nt)))
				return arena_fmt(fn->mod->arena, "it stores %#llx, which %s does not hold "
				                 "exactly (the array may hold integers)",
				                 (unsigned long long)u, tyname[s->nt]);
		}
	}
	return NULL;
}

/* why parameter p of the analysis may not be narrowed to nt, or NULL */
static const char *
cannot(struct passctx *cx, const struct st *s, uint p)
{
	const struct ptrparam *q = &s->a->par[p];
	Arena *ar = s->fn->mod->arena;
	if (!q->nacc)
		return "not an array the kernel reads or writes";
	if (q->why)
		return q->why;
	if (q->ty != Tf64 && q->ty != Tf32)
		return "its accesses move bytes, not elements";
	if (tybits[q->ty] <= tybits[s->nt])
		return arena_fmt(ar, "already %s", tyname[q->ty]);
	const char *why = constants(s, q);
	if (why)
		return why;
	int sm = ptxsm(cx);
	for (uint j = 0; j < q->nacc; j++) {
		if (q->acc[j].atomic && q->acc[j].vec)
			return "updated by a vector atomic";
		if (q->acc[j].atomic && s->nt == Tbf16 && sm > 0 && sm < 90)
			return arena_fmt(ar, "an atomic add of bf16 needs sm_90 (the target is sm_%d)", sm);
		if (q->acc[j].atomic && s->nt == Tf16 && sm > 0 && sm < 70)
			return arena_fmt(ar, "an atomic add of f16 needs sm_70 (the target is sm_%d)", sm);
	}
	if (s->nt == Tbf16 && sm > 0 && sm < 80)
		return arena_fmt(ar, "a conversion to bf16 needs sm_80 (the target is sm_%d)", sm);
	return NULL;
}

/* how many global bytes each access through each parameter moves a
 * thread, as a share of all the kernel's, by block frequency */
static void
shares(struct st *s)
{
	Fn *fn = s->fn;
	fillcfg(fn);
	fillloops(fn);
	filldefuse(fn);
	double *freq = blockfreq(fn, NULL, 0, LOOPGUESS, NULL), all = 0;
	for (uint k = 0; k < fn->nins; k++)
		if (fn->ins[k].op < NOP && fn->insblk[k] < fn->nblk)
			all += freq[fn->insblk[k]] * dram_bytes(&fn->ins[k]);
	for (uint p = 0; p < s->a->npar; p++) {
		double b = 0;
		for (uint j = 0; j < s->a->par[p].nacc; j++) {
			uint k = s->a->par[p].acc[j].ins;
			if (fn->insblk[k] < fn->nblk)
				b += freq[fn->insblk[k]] * dram_bytes(&fn->ins[k]);
		}
		s->share[p] = all > 0 ? 100 * b / all : 0;
	}
}

static void
analyze(struct st *s, struct passctx *cx, Fn *fn, const struct params *p)
{
	Arena *ar = fn->mod->arena;
	s->fn = fn;
	s->a = filladdrs(fn);
	s->nt = narrowty[p->v[TYPE].i];
	s->why = arena_alloc(ar, (fn->npar + 1) * sizeof *s->why);
	s->share = arena_alloc(ar, (fn->npar + 1) * sizeof *s->share);
	s->nw = arena_alloc(ar, (fn->npar + 1) * sizeof *s->nw);
	memset(s->nw, 0, (fn->npar + 1) * sizeof *s->nw);
	s->nchosen = 0;
	shares(s);
	for (uint k = 0; k < fn->npar; k++)
		s->why[k] = cannot(cx, s, k);
}

/* the parameters that may, by share, most first */
static int
best(const struct st *s, int *order)
{
	int n = 0;
	for (uint k = 0; k < s->a->npar; k++)
		if (!s->why[k])
			order[n++] = (int)k;
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && s->share[order[j - 1]] < s->share[order[j]]; j--) {
			int t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	return n;
}

static void
choose(struct st *s, const struct params *p)
{
	const struct value *v = &p->v[PARAMS];
	int *order = arena_alloc(s->fn->mod->arena, (s->a->npar + 1) * sizeof *order);
	int n = best(s, order), take = v->i == SETS_N ? (int)v->x : n;
	for (int i = 0; v->i != SETS_IDS && i < n && i < take; i++)
		s->nw[order[i]] = (struct narrow){s->a->par[order[i]].ty, s->nt};
	for (int i = 0; v->i == SETS_IDS && i < v->nids; i++)
		if (v->ids[i] < (long)s->a->npar && !s->why[v->ids[i]])
			s->nw[v->ids[i]] = (struct narrow){s->a->par[v->ids[i]].ty, s->nt};
	for (uint k = 0; k < s->a->npar; k++) {
		s->nchosen += s->nw[k].ty != Tnone;
		if (!s->why[k] && !s->nw[k].ty)
			s->why[k] = "not chosen";
	}
}

/* ---- what it says ---- */

enum { ST_CLONE, ST_OPEN, ST_NARROWED, ST_PARAM, ST_REFUSED };
enum { P_ID, P_TYPE, P_WRITTEN, P_SHARE, P_NARROW, P_NARROWED, P_WHY, P_INS };
enum { R_ID, R_TYPE, R_WHY };

static const struct field paramkey[] = {
	[P_ID] = {"id", FINT, RID, 0, NULL, 0, "the parameter's position (params: [ids])"},
	[P_TYPE] = {"type", FSTR, 0, 0, NULL, 0, "its accesses' element type (null: none, or mixed)"},
	[P_WRITTEN] = {"written", FBOOL, 0, 0, NULL, 0, "the kernel writes its array"},
	[P_SHARE] = {"share", FNUM, RRATIO, 1, NULL, 0,
	             "% of the kernel's global-memory bytes it moves, by block frequency"},
	[P_NARROW] = {"narrow", FSTR, 0, 0, NULL, 0, "the type its array is kept in (null: as it is)"},
	[P_NARROWED] = {"narrowed", FBOOL, RCHOSEN, 0, NULL, 0, "kept narrow by this build's clone"},
	[P_WHY] = {"why", FSTR, 0, 0, NULL, 0, "why not (else null)"},
	[P_INS] = {"ins", FINTS, RINS, 0, NULL, 0, "its accesses' instruction ordinals"},
};
static const struct field refusedkey[] = {
	[R_ID] = {"id", FINT, 0, 0, NULL, 0, "the parameter's position"},
	[R_TYPE] = {"type", FSTR, 0, 0, NULL, 0, "its accesses' element type (null: mixed)"},
	[R_WHY] = {"why", FSTR, 0, 0, NULL, 0, "why its array keeps its form"},
};
static const struct field statkey[] = {
	[ST_CLONE] = {"clone", FSTR, 0, 0, NULL, 0, "the clone's name (null: none)"},
	[ST_OPEN] = {"open", FSTR, 0, 0, NULL, 0,
	             "why the kernel may reach memory that no parameter points to (null: it cannot)"},
	[ST_NARROWED] = {"narrowed", FINT, 0, 0, NULL, 0, "arrays the clone keeps narrow"},
	[ST_PARAM] = {"param", FLIST, RUNITS, 0, paramkey, countof(paramkey),
	              "every parameter whose array the clone may keep narrow"},
	[ST_REFUSED] = {"refused", FLIST, 0, 0, refusedkey, countof(refusedkey),
	                "the other parameters the kernel addresses memory through"},
};
static const struct field statroot = {"store", FOBJ, 0, 0, statkey, countof(statkey),
                                      "the arrays and what became of them"};

/* may parameter p be narrowed (whether chosen or not)? */
static int
candidate(const struct st *s, uint p)
{
	return s->a->par[p].nacc && !s->a->open && (!s->why[p] || s->nw[p].ty ||
	                                           !strcmp(s->why[p], "not chosen"));
}

static void
param(struct statw *w, const struct st *s, uint p, const char *clone, const uint *ord)
{
	const struct ptrparam *q = &s->a->par[p];
	int narrow = clone && s->nw[p].ty;
	statw_item(w);
	statw_int(w, P_ID, p);
	statw_str(w, P_TYPE, tyname[q->ty]);
	statw_bool(w, P_WRITTEN, q->write);
	statw_num(w, P_SHARE, s->share[p]);
	statw_str(w, P_NARROW, narrow ? tyname[s->nw[p].nt] : NULL);
	statw_bool(w, P_NARROWED, narrow);
	statw_str(w, P_WHY, narrow ? NULL : s->why[p] ? s->why[p] : "no clone");
	statw_open(w, P_INS);
	for (uint j = 0; j < q->nacc; j++)
		statw_elem(w, ord[q->acc[j].ins]);
	statw_close(w);
	statw_close(w);
}

static char *
stats(const struct st *s, const char *clone)
{
	struct statw w;
	uint *ord = ordinals(s->fn);
	statw_begin(&w, &statroot);
	statw_str(&w, ST_CLONE, clone);
	statw_str(&w, ST_OPEN, s->a->open);
	statw_int(&w, ST_NARROWED, clone ? s->nchosen : 0);
	statw_open(&w, ST_PARAM);
	for (uint p = 0; p < s->a->npar; p++)
		if (candidate(s, p))
			param(&w, s, p, clone, ord);
	statw_close(&w);
	statw_open(&w, ST_REFUSED);
	for (uint p = 0; p < s->a->npar; p++) {
		if (!s->a->par[p].nacc || candidate(s, p))
			continue;
		statw_item(&w);
		statw_int(&w, R_ID, p);
		statw_str(&w, R_TYPE, s->a->par[p].ty ? tyname[s->a->par[p].ty] : NULL);
		statw_str(&w, R_WHY, s->a->open ? "the kernel may reach memory no parameter points to"
		                                : s->why[p]);
		statw_close(&w);
	}
	statw_close(&w);
	return statw_end(&w);
}

/* The kernel's line of the host object's table, which the runtime reads
 * (runtime/runtime.h reads the same words): "1 MANGLED CLONE OPEN NPARAMS P..."
 * with CLONE "-" for none, OPEN c (every global access through a
 * parameter) or o, and per parameter - (no array), r (read), w (written),
 * and for one the clone keeps narrow r:f64>f32 (w:...). malloc'd */
static char *
line(const struct st *s, const char *mangled, const char *clone)
{
	struct buf b = BUF_INIT;
	buf_printf(&b, "1 %s %s %c %u", mangled, clone ? clone : "-", s->a->open ? 'o' : 'c',
	           s->a->npar);
	for (uint p = 0; p < s->a->npar; p++) {
		const struct ptrparam *q = &s->a->par[p];
		buf_printf(&b, " %s", !q->nacc || !(q->read || q->write) ? "-" : q->write ? "w" : "r");
		if (clone && s->nw[p].ty)
			buf_printf(&b, ":%s>%s", tyname[s->nw[p].ty], tyname[s->nw[p].nt]);
	}
	return buf_take(&b);
}

/* why no array was narrowed: the parameters' reasons */
static char *
reasons(const struct st *s)
{
	struct buf b = BUF_INIT;
	if (s->a->open)
		return fmt("the kernel may reach memory that no parameter points to: %s", s->a->open);
	for (uint p = 0; p < s->a->npar; p++)
		if (s->a->par[p].nacc)
			buf_printf(&b, "%sparameter %u: %s", b.n ? "; " : "", p, s->why[p]);
	if (!b.n)
		buf_printf(&b, "the kernel addresses no memory through its parameters");
	return buf_take(&b);
}

/* mpcc-opt -d store: the table's line of the kernel the pass ran on last */
static struct {
	const Fn *fn;
	const char *line;
} last;

static void
remember(const Fn *fn, const char *line)
{
	last.fn = fn;
	last.line = arena_strdup(fn->mod->arena, line);
}

static int
apply(struct passctx *cx, Fn *fn, const struct params *p, struct outcome *o)
{
	struct st s;
	const char *why = NULL;
	analyze(&s, cx, fn, p);
	if (!s.a->open)
		choose(&s, p);
	char *mangled = symstr(fn->mod, fn->sym), *cname = fmt("%s%s", mangled, CLONESUFFIX);
	int ok = s.nchosen && store_clone(fn, s.nw, cname, &why) != NULL;
	o->stats = stats(&s, ok ? cname : NULL);
	o->table = line(&s, mangled, ok ? cname : NULL);
	remember(fn, o->table);
	if (!ok) {
		o->why = why ? xstrdup(why) : reasons(&s);
		o->advised = !why && p->v[PARAMS].i != SETS_IDS;
		free(o->table);
		o->table = NULL;
	}
	free(mangled);
	free(cname);
	return ok ? 0 : -1;
}

/* the line of a kernel the pass left as it was: what it touches */
static char *
table(struct passctx *cx, Fn *fn)
{
	struct st s;
	struct params p;
	params_default(&store_pass.schema, &p);
	analyze(&s, cx, fn, &p);
	char *mangled = symstr(fn->mod, fn->sym), *l = line(&s, mangled, NULL);
	free(mangled);
	return l;
}

static void
dump(FILE *out, struct passctx *cx, Fn *fn, const struct params *p)
{
	(void)cx, (void)p;
	if (last.fn == fn)
		fprintf(out, "%s\n", last.line);
	last.fn = NULL;
}

static void
explain(FILE *out, struct passctx *cx, Fn *fn, const struct params *p)
{
	struct st s;
	analyze(&s, cx, fn, p);
	if (s.a->open) {
		fprintf(out, "           the kernel may reach memory that no parameter points to: %s\n",
		        s.a->open);
		return;
	}
	choose(&s, p);
	for (uint k = 0; k < fn->npar; k++) {
		const struct ptrparam *q = &s.a->par[k];
		if (!q->nacc)
			continue;
		fprintf(out, "           parameter %u: %s array, %s, %.0f%% of its global bytes: ", k,
		        q->ty ? tyname[q->ty] : "untyped", q->write ? "read and written" : "read",
		        s.share[k]);
		if (s.nw[k].ty)
			fprintf(out, "kept as %s\n", tyname[s.nw[k].nt]);
		else
			fprintf(out, "left as it is: %s\n", s.why[k]);
	}
}

static void
describe(FILE *out, const struct params *p)
{
	const struct value *v = &p->v[PARAMS];
	fprintf(out, "           keeps as %s ", narrowty[p->v[TYPE].i] == Tf32 ? "f32" :
	        tyname[narrowty[p->v[TYPE].i]]);
	if (v->i >= 0)
		fprintf(out, "the arrays of every parameter it may, wider than that\n");
	else if (v->i == SETS_N)
		fprintf(out, "the arrays of the %ld %s that move the most bytes\n", (long)v->x,
		        plural((long)v->x, "parameter", "parameters"));
	else
		for (int i = 0; i < v->nids; i++)
			fprintf(out, "%s%ld%s", i ? ", " : "the arrays of parameters ", v->ids[i],
			        i == v->nids - 1 ? "\n" : "");
}

/* struct tuning's flipped: from the runtime's report (runtime/report.c),
 * summed over the runs it holds, each narrowed parameter of kernel that its
 * launches converted to the narrow form more than once a run and at over
 * half of them: the array goes back to its original form between them */
static int
flipped(const char *report, const char *kernel, long *drop, int max)
{
	enum { MAXP = 256 };
	unsigned long narrow[MAXP] = {0}, launches = 0, runs = 0;
	int n = 0, narrowed[MAXP] = {0};
	for (const char *l = report; *l; l += strcspn(l, "\n"), l += *l == '\n') {
		char *line = xstrndup(l, strcspn(l, "\n")), *k = jget(line, "kernel");
		char *par = k && !strcmp(k, kernel) ? jget(line, "param") : NULL;
		char *ln = k && !strcmp(k, kernel) ? jget(line, "launches") : NULL;
		char *c = ln ? jget(ln, "clone") : NULL, *ty = par ? jget(line, "type") : NULL;
		char *tn = par ? jget(line, "to_narrow") : NULL;
		long i = par && isdigit((unsigned char)*par) ? atol(par) : -1;   /* not "other" */
		if (c)
			launches += strtoul(c, NULL, 10), runs++;
		if (tn && ty && strcmp(ty, "plain") && i >= 0 && i < MAXP)
			narrow[i] += strtoul(tn, NULL, 10), narrowed[i] = 1;
		free(line), free(k), free(par), free(ln), free(c), free(ty), free(tn);
	}
	for (int i = 0; i < MAXP && n < max; i++)
		if (narrowed[i] && narrow[i] > runs && 2 * narrow[i] > launches)
			drop[n++] = i;
	return n;
}

static const char *const pwords[] = {"auto", NULL};
static const char *const types[] = {"f32", "bf16", "f16", NULL};

static const struct param params[] = {
	[PARAMS] = {"params", PSETS, 0, 1, 1000, pwords, NULL, "auto",
	            "which pointer parameters' arrays to keep narrow: auto (every one the analysis "
	            "allows), the N that move the most bytes, or a list of positions"},
	[TYPE] = {"type", PENUM, 0, 0, 0, types, NULL, "f32",
	          "the type the arrays are kept in; arrays of a wider type are narrowed (f64 to "
	          "f32, bf16 or f16; f32 to bf16 or f16)"},
};

static const char *const sweep[] = {"params=auto", "type=f16", "type=bf16", NULL};

const struct pass store_pass = {
	.schema = {"store", "arrays kept narrow in device memory by a clone the runtime launches",
	           params, countof(params), describe},
	.stats = &statroot,
	.apply = apply,
	.explain = explain,
	.dump = dump,
	.table = table,
	.tune = &(const struct tuning){TUNE_TRANSFORM, .knob = "params", .strongest = "params=auto",
	                               .fallback = "params=auto,type=bf16", .joint = 1,
	                               .runreport = "MPCC_STORE_REPORT", .flipped = flipped,
	                               .guess = 1.2, .axis = "arrays kept narrow"},
	.sweep = sweep,
};
