/* fiset.c: FP64 -> FP32 lowering of fast imprecise sets (paper 003,
 * GPUMixer), decided per target by the machine model.
 *
 * fiset-sets.c finds the sets of f64 operations that may run in f32 and
 * what each costs in casts; the model (model/) predicts the kernel's
 * speedup for a choice of them on each target of the build; fiset-lower.c
 * rewrites the chosen sets. This file is the pass: which sets to lower
 * (sets=auto: per chain, the sets predicted to pay on every sm_NN the
 * chain builds, and f64 in float code always; or best, all, N, ids), and
 * what it reports, explains and dumps, and the warning --mpcc-warn=fp64
 * (fiset-audit.c finds f64 in float code for it).
 *
 * needs: nothing; breaks: cfg defuse loops of fn */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "transforms/fiset.h"

enum { SETS, MIN_RATIO, MAX_SETS };   /* then the facts it takes */
enum { S_AUTO, S_BEST, S_ALL };

/* ---- choosing ---- */

static int
bypred(const struct fs *a, int x, int y)
{
	double px = 1e300, py = 1e300;
	for (int j = 0; j < a->nt; j++) {
		px = a->s[x].pred[j] < px ? a->s[x].pred[j] : px;
		py = a->s[y].pred[j] < py ? a->s[y].pred[j] : py;
	}
	if (!a->nt)
		px = a->s[x].rac, py = a->s[y].rac;
	return px > py ? -1 : px < py ? 1 : x - y;
}

/* the sets in order of predicted gain (worst target), best first */
static int *
ranked(const struct fs *a)
{
	int *r = arena_alloc(a->a, (a->ns + 1) * sizeof *r);
	for (int s = 0; s < a->ns; s++)
		r[s] = s;
	for (int i = 1; i < a->ns; i++)
		for (int j = i; j > 0 && bypred(a, r[j - 1], r[j]) > 0; j--) {
			int t = r[j];
			r[j] = r[j - 1];
			r[j - 1] = t;
		}
	return r;
}

/* The model's error, measured per kernel (ncu) on public FP64 programs on
 * an H100 (bench/results/2026-11-25-h100-public.md): kernels it predicted
 * 1.00x to 1.08x faster ran 0.53x to 1.02x; those it predicted 1.10x or
 * more ran 0.99x to 1.86x. It takes the launch to fill the GPU and cannot
 * see which loads the caches serve, so a small predicted gain is no gain
 * it can promise: below TRUST the gain is the tuner's to measure. */
#define TRUST 1.10
/* With the kernel's trips and warps measured (bench/calibrate.py on seven
 * public programs, bench/results/2026-11-28-h100-facts.md), every kernel
 * predicted 1.10x or more ran 0.998x or faster, and kernels predicted
 * 1.005x to 1.07x ran 0.971x to 1.146x: the same threshold holds. What the
 * facts change is the prediction (a set deep in loops that run once: 1.59x
 * guessed, 1.00x with trips, 1.00x measured), not how far it is trusted. */
#define TRUSTFACTS 1.10

/* the gain auto's sets must clear together: measured facts leave less to
 * doubt */
static double
trust(const struct fs *a)
{
	return a->known.f[F_TRIPS].xs || a->known.f[F_WARPS].i ? TRUSTFACTS : TRUST;
}

/* Liveness misses the registers ptxas gives a kernel by a fifth or more,
 * either way, on 35 of 80 public FP64 kernels (58 counted where ptxas gives
 * 30, 72 where 48, 96 where 100: bench/results/2026-11-29-h200-regs.md),
 * and how many warps an SM holds turns on it: so the choice ch is
 * compiled, the kernel as written and a copy with ch lowered, each alone,
 * as half2 compiles its pairing (a->creg, a->cspill); the kernel's own
 * figures are asked once. 1 if ptxas said for some target */
static int
compile(struct fs *a, const uchar *ch)
{
	int any = 0;
	for (uint k = 0; k < a->n && !any; k++)
		any = ch[k];
	a->compiled = 0;
	if (!any || !a->nt || !a->km)
		return 0;
	if (!a->cch) {
		a->cch = arena_alloc(a->a, a->n + 1);
		for (int j = 0; j < a->nt; j++)
			a->creg[j][0] = ptxasregs(a->cx->m, a->fn, a->tsm[j], a->cspill[j][0]);
	}
	memcpy(a->cch, ch, a->n);
	int known = 0;
	for (int j = 0; j < a->nt; j++)
		known |= a->creg[j][0] > 0;
	if (!known)
		return 0;   /* no ptxas, or no target it compiles for: liveness */
	Module *c = modcopy(a->cx->m);
	Fn *fc = c ? findfn(c, symname(a->cx->m, a->fn->sym)) : NULL;
	if (fc && fc->nins == a->fn->nins) {
		struct passctx cc = *a->cx;
		struct fs b;
		struct plan p;
		cc.m = c;
		fs_analyze(&b, &cc, fc, a->given);
		fs_plan(&b, ch, &p);
		fs_lower(&b, ch, &p);
		fs_done(&b);
		for (int j = 0; j < a->nt; j++) {   /* a target below the PTX's .target: none */
			a->creg[j][1] = ptxasregs(c, fc, a->tsm[j], a->cspill[j][1]);
			a->compiled |= a->creg[j][0] > 0 && a->creg[j][1] > 0;
		}
	}
	if (c)
		mod_free(c);
	return a->compiled;
}

/* ", as ptxas compiles them (R registers, then R')" where the last
 * prediction on target j came from ptxas's figures, else "" */
static const char *
compiledas(const struct fs *a, int j)
{
	if (!a->compiled || a->creg[j][0] <= 0 || a->creg[j][1] <= 0)
		return "";
	const int *s0 = a->cspill[j][0], *s1 = a->cspill[j][1];
	return arena_fmt(a->a, " as ptxas compiles them (%d registers%s, then %d%s)", a->creg[j][0],
	                 s0[1] ? arena_fmt(a->a, " and %d bytes reloaded", s0[1]) : "", a->creg[j][1],
	                 s1[1] ? arena_fmt(a->a, " and %d", s1[1]) : "");
}

/* auto keeps its sets only where, together, they are predicted at least
 * TRUST on every target; f64 in float code is lowered whatever the
 * prediction, and the gain counted is the other sets' over it. cur: the
 * predictions of ch, as ptxas compiles it where a->compiled */
static void
distrust(struct fs *a, uchar *ch, const double *cur)
{
	uchar *own = arena_alloc(a->a, a->n + 1);
	int lowered = 0;
	memcpy(own, ch, a->n);
	for (int s = 0; s < a->ns; s++)
		if (a->s[s].lower && !a->s[s].accidental) {
			fs_choose(a, own, s, 0);
			lowered++;
		}
	for (int j = 0; j < a->nt && lowered; j++) {
		double x[2];
		fs_predict(a, j, own, x);
		double gain = cur[j] / x[0];
		if (gain >= trust(a))
			continue;
		for (int s = 0; s < a->ns; s++) {
			struct set *st = &a->s[s];
			if (!st->lower || st->accidental)
				continue;
			st->lower = 0;
			fs_choose(a, ch, s, 0);
			st->why = arena_fmt(a->a, "auto's sets predicted %.3fx together on sm_%d%s: within the "
			                    "model's error (%.0f%%), left for mpcc-tune to measure",
			                    gain, a->tsm[j], compiledas(a, j), (trust(a) - 1) * 100);
		}
		return;
	}
}

/* auto: each set (best first) that makes the kernel at least 0.5% faster on
 * every target, with the sets taken before it, and then only if together
 * they clear the model's error; f64 in float code always. (A rule that took
 * sets where the model found the kernel bound by DRAM either way, for their
 * arithmetic, fired on two public kernels, which ran 0.93x and 0.97x: the
 * model's "bound by DRAM" is no promise either.) max_sets does not count
 * f64 in float code: wsm5 under -use_fast_math has 76 such sets, and with
 * 64 of them lowered its kernel ran 0.96x (the conversions between the
 * lowered and the rest), with all 76 1.003x to 1.008x (an H200,
 * bench/results/2026-11-28-h200-streams.md). */
static void
chooseauto(struct fs *a, uchar *ch, const int *rank, int max)
{
	double *cur = arena_alloc(a->a, (a->nt + 1) * sizeof *cur);
	int n = 0;
	for (int j = 0; j < a->nt; j++)
		cur[j] = 1;
	for (int i = 0; i < a->ns; i++) {
		struct set *s = &a->s[rank[i]];
		if (n == max && !s->accidental) {
			s->why = "max_sets reached";
			continue;
		}
		fs_choose(a, ch, rank[i], 1);
		double p[MAXT];
		int pays = 1, worst = 0;
		for (int j = 0; j < a->nt; j++) {
			double x[2];
			fs_predict(a, j, ch, x);
			p[j] = x[0];
			if (p[j] < cur[j] * 1.005)
				pays = 0, worst = j;
		}
		if (s->accidental)
			pays = 1;
		if (!a->nt && !s->accidental) {
			pays = 0;
			s->why = "no target known to the cost model (only f64 in float code is lowered)";
		}
		if (!pays) {
			fs_choose(a, ch, rank[i], 0);
			if (a->nt)
				s->why = arena_fmt(a->a, "predicted %.3fx on sm_%d: does not pay", s->pred[worst],
				                   a->tsm[worst]);
			continue;
		}
		s->lower = 1;
		n += !s->accidental;
		for (int j = 0; j < a->nt; j++)
			cur[j] = p[j];
	}
	if (compile(a, ch))
		for (int j = 0; j < a->nt; j++) {
			double x[2];
			fs_predict(a, j, ch, x);
			cur[j] = x[0];
		}
	distrust(a, ch, cur);
}

static void picklist(struct fs *a, const struct params *p, uchar *ch, int kind);

/* no set lowered, each saying why (NULL: as it said) */
static void
unchoose(struct fs *a, uchar *ch, const char *why)
{
	for (int s = 0; s < a->ns; s++) {
		if (a->s[s].lower) {
			a->s[s].lower = 0;
			fs_choose(a, ch, s, 0);
		}
		a->s[s].why = why ? why : a->s[s].why;
	}
}

/* a measured speed-up in words: 0 is a run the program rejected */
static const char *
mx(struct fs *a, double x)
{
	return x > 0 ? arena_fmt(a->a, "%.2fx", x) : "a run the program rejected";
}

/* auto where a run measured its candidates (fact measured, [auto, all,
 * noise]: the kernel's speed-up with auto's own choice and with sets=all,
 * 0 where the program rejected its run, and the noise of its time): all
 * where it ran faster beyond the noise and no slower than auto's choice,
 * else auto's choice where that ran faster beyond the noise, else nothing;
 * never a candidate measured slower. The model's own choice is what "auto"
 * was measured as: the same facts give the same choice */
static void
measured(struct fs *a, const struct params *p, uchar *ch)
{
	const struct fact *m = &a->known.f[F_MEASURED];
	if (m->xs && m->n != 3)
		a->decided = arena_fmt(a->a, "measured left out: it lists %d %s, not [auto, all, "
		                       "noise]: the model decides", m->n, plural(m->n, "number", "numbers"));
	if (!m->xs || m->n != 3)
		return;
	double au = m->xs[0], all = m->xs[1], noise = m->xs[2];
	if (all > 1 + noise && all >= au) {
		unchoose(a, ch, NULL);
		picklist(a, p, ch, S_ALL);
		a->decided = arena_fmt(a->a, "measured %.2fx with all sets (auto's choice %s, noise "
		                       "%.0f%%): all sets", all, mx(a, au), 100 * noise);
	} else if (au > 1 + noise)
		a->decided = arena_fmt(a->a, "measured %.2fx with auto's choice (all sets %s, noise "
		                       "%.0f%%): auto's choice", au, mx(a, all), 100 * noise);
	else {
		a->decided = arena_fmt(a->a, "measured %s with auto's choice, %s with all sets: "
		                       "neither beyond the noise (%.0f%%): no set", mx(a, au), mx(a, all),
		                       100 * noise);
		unchoose(a, ch, a->decided);
	}
}

static void
pick(struct fs *a, const struct params *p, uchar *ch)
{
	const struct value *v = &p->v[SETS];
	if (v->i == S_AUTO) {
		chooseauto(a, ch, ranked(a), p->v[MAX_SETS].i);
		measured(a, p, ch);
	} else
		picklist(a, p, ch, v->i);
	if (!a->compiled || memcmp(ch, a->cch, a->n))
		compile(a, ch);   /* the choice's prediction, as compiled */
}

/* best, all, N or ids (kind: a SETS value) */
static void
picklist(struct fs *a, const struct params *p, uchar *ch, int kind)
{
	const struct value *v = &p->v[SETS];
	int max = p->v[MAX_SETS].i, *rank = ranked(a), n = 0;
	double minr = p->v[MIN_RATIO].x;
	for (int i = 0; i < a->ns; i++) {
		struct set *s = &a->s[rank[i]];
		int want;
		if (kind == SETS_IDS) {
			want = 0;
			for (int j = 0; j < v->nids; j++)
				want |= v->ids[j] == s->id;
			s->why = "not among the ids asked for";
		} else {
			int limit = kind == S_BEST ? 1 : kind == SETS_N ? (int)v->x : a->ns;
			want = n < limit && s->rac >= minr;
			s->why = s->rac < minr ? "r_ac below min_ratio" : "not among the best asked for";
		}
		if (want && n >= max) {
			s->why = "max_sets reached";
			want = 0;
		}
		if (!want)
			continue;
		s->lower = 1;
		n++;
		fs_choose(a, ch, rank[i], 1);
	}
}

/* ---- report, explain, dump ---- */

/* the block where set s runs most often: a set at loop depth 1 may start
 * before its loop (a running sum's first value), and runs as often as the
 * loop, not as its first instruction */
static uint
setblk(const struct fs *a, int s)
{
	uint b = a->fn->insblk[a->s[s].first];
	for (uint k = a->s[s].first; k < a->n; k++)
		if (a->set[k] == s && a->freq[a->fn->insblk[k]] > a->freq[b])
			b = a->fn->insblk[k];
	return b;
}

/* how often set s runs a thread: its most often run instruction */
static double
setruns(const struct fs *a, int s)
{
	return a->freq[setblk(a, s)];
}

/* the distinct .loc lines of set s, in order, at most 8: "12,14" */
static const char *
setlines(const struct fs *a, int s)
{
	char text[8 * 11 + 1];
	uint last = 0, len = 0;
	int n = 0;
	uint seen[8];
	for (uint k = 0; k < a->n && n < 8; k++) {
		if (a->set[k] != s)
			continue;
		uint l = insline(a->fn, k, NULL);
		int dup = 0;
		for (int j = 0; j < n; j++)
			dup |= seen[j] == l;
		if (!l || dup || l == last)
			continue;
		seen[n] = l;
		len += snprintf(text + len, sizeof text - len, "%s%u", n ? "," : "", l);
		n++;
		last = l;
	}
	text[len] = 0;
	return arena_strdup(a->a, text);
}

/* the distinct .loc lines of set s as file:line, at most 8: "cmath:418,
 * pw.cu:7". A set often spans a header and the user's file (libstdc++'s
 * pow is inlined into the caller), so bare numbers would mix two files.
 * The file is the basename of what the .file table gives; a line with no
 * .file entry is the bare number */
static const char *
setwhere(const struct fs *a, int s)
{
	struct buf b = BUF_INIT;
	uint seen[8][2], lastl = 0, lastf = 0;
	int n = 0;
	for (uint k = 0; k < a->n && n < 8; k++) {
		uint f = 0, l = a->set[k] == s ? insline(a->fn, k, &f) : 0;
		int dup = 0;
		for (int j = 0; j < n; j++)
			dup |= seen[j][0] == f && seen[j][1] == l;
		if (!l || dup || (l == lastl && f == lastf))
			continue;
		const char *path = locfile(a->fn->mod, f), *base = path ? strrchr(path, '/') : NULL;
		buf_printf(&b, "%s%s%s%u", n ? ", " : "", base ? base + 1 : path ? path : "",
		           path ? ":" : "", l);
		seen[n][0] = f, seen[n][1] = l, n++;
		lastl = l, lastf = f;
	}
	char *text = buf_take(&b), *r = arena_strdup(a->a, text);
	free(text);
	return r;
}

/* the statistics: the sets, what became of each, and the predictions */
enum { ST_F64OPS, ST_SETS, ST_LOWERED, ST_AFTER, ST_REFUSED, ST_PREDICTED, ST_SET, ST_FACTS,
       ST_LOOPS, ST_DECIDED };
enum { SET_ID, SET_OPS, SET_CASTS, SET_FOLDED, SET_RAC, SET_DEPTH, SET_FLOAT, SET_LINES, SET_INS,
       SET_PROMO, SET_PREDICTED, SET_LOWERED, SET_WHY, SET_WHERE, SET_RUNS, SET_RUNSFROM };
enum { LOOP_LINE, LOOP_DEPTH, LOOP_TRIPS, LOOP_FROM };

/* where a frequency comes from (FQ_), in the report's and explain's words */
static const char *const fqwords[] = {"entry", "measured", "counted", "guessed"};

static const struct field setkey[] = {
	[SET_ID] = {"id", FINT, RID, 0, NULL, 0, "the set's id, stable for the same PTX (sets: [ids])"},
	[SET_OPS] = {"ops", FINT, 0, 0, NULL, 0, "f64 operations in the set"},
	[SET_CASTS] = {"casts", FINT, 0, 0, NULL, 0, "conversions lowering it adds"},
	[SET_FOLDED] = {"folded", FINT, 0, 0, NULL, 0, "conversions it folds away"},
	[SET_RAC] = {"r_ac", FNUM, RRATIO, 3, NULL, 0, "ops / casts (null: no cast)"},
	[SET_DEPTH] = {"depth", FINT, 0, 0, NULL, 0, "loop depth"},
	[SET_FLOAT] = {"f64_in_float_code", FBOOL, 0, 0, NULL, 0,
	               "f64 promoted from f32 values and constants: lowering removes every conversion"},
	[SET_LINES] = {"lines", FINTS, 0, 0, NULL, 0, "its distinct .loc lines, at most 8"},
	[SET_INS] = {"ins", FINTS, RINS, 0, NULL, 0,
	             "its instructions' ordinals, as the shadow pass numbers them"},
	[SET_PROMO] = {"promotion_line", FINT, 0, 0, NULL, 0,
	               "f64 in float code: the line of the promotion (else null)"},
	[SET_PREDICTED] = {"predicted", FTARGETS, RPREDICTED, 3, NULL, 0,
	                   "the kernel's predicted speed-up with this set alone lowered, per target"},
	[SET_LOWERED] = {"lowered", FBOOL, RCHOSEN, 0, NULL, 0, "lowered in this build"},
	[SET_WHY] = {"why", FSTR, 0, 0, NULL, 0, "why not lowered (else null)"},
	/* last, and beside lines rather than instead: readers of the report
	 * know lines as numbers */
	[SET_WHERE] = {"where", FSTR, 0, 0, NULL, 0,
	               "its lines as file:line, at most 8: \"cmath:418, pw.cu:7\""},
	[SET_RUNS] = {"runs", FNUM, 0, 3, NULL, 0,
	              "how often it runs a thread (its most often run operation): the product of its "
	              "loops' trips"},
	[SET_RUNSFROM] = {"runs_from", FSTR, 0, 0, NULL, 0,
	                  "where that comes from, the weakest of its loops: measured (trips), "
	                  "counted (a constant bound), guessed (64 a loop), or entry (no loop)"},
};
static const struct field loopkey[] = {
	[LOOP_LINE] = {"line", FINT, 0, 0, NULL, 0, "the .loc line of its header (0: none)"},
	[LOOP_DEPTH] = {"depth", FINT, 0, 0, NULL, 0, "1 for an outermost loop"},
	[LOOP_TRIPS] = {"trips", FNUM, 0, 3, NULL, 0, "trips per entry the model takes"},
	[LOOP_FROM] = {"from", FSTR, 0, 0, NULL, 0, "measured, counted or guessed"},
};
static const struct field statkey[] = {
	[ST_F64OPS] = {"f64_ops", FINT, 0, 0, NULL, 0, "f64 arithmetic instructions in the kernel"},
	[ST_SETS] = {"sets", FINT, 0, 0, NULL, 0, "sets found"},
	[ST_LOWERED] = {"lowered", FINT, 0, 0, NULL, 0, "sets lowered"},
	[ST_AFTER] = {"f64_ops_after", FINT, 0, 0, NULL, 0, "f64 arithmetic instructions left"},
	[ST_REFUSED] = {"refused_constants", FINT, 0, 0, NULL, 0,
	                "f64 constants not folded: they would leave f32's range"},
	[ST_PREDICTED] = {"predicted", FTARGETS, RPREDICTED, 3, NULL, 0,
	                  "the kernel's predicted speed-up with the sets lowered, per target"},
	[ST_SET] = {"set", FLIST, RUNITS, 0, setkey, countof(setkey), "every set, lowered or not"},
	[ST_FACTS] = {"facts", FSTR, 0, 0, NULL, 0,
	              "the measured warps and trips: measured, none, or dropped: why"},
	[ST_LOOPS] = {"loops", FLIST, 0, 0, loopkey, countof(loopkey),
	              "the kernel's loops in the order trips lists them"},
	[ST_DECIDED] = {"decided", FSTR, 0, 0, NULL, 0,
	                "where the measured speed-ups of its candidates (parameter measured) decided "
	                "sets=auto: what they were and what it took (absent otherwise)"},
};
static const struct field statroot = {"fiset", FOBJ, 0, 0, statkey, countof(statkey),
                                      "the sets and what became of them"};

/* key k, a list of the integers in text ("12,14") */
static void
elems(struct statw *w, int k, const char *text)
{
	statw_open(w, k);
	for (char *p = (char *)text; p && *p; p += *p == ',')
		statw_elem(w, strtol(p, &p, 10));
	statw_close(w);
}

static void
setjson(struct statw *w, const struct fs *a, int s)
{
	const struct set *st = &a->s[s];
	const int v[] = {[SET_ID] = st->id, [SET_OPS] = st->ops, [SET_CASTS] = st->casts,
	                 [SET_FOLDED] = st->folded};
	statw_item(w);
	for (int k = SET_ID; k <= SET_FOLDED; k++)
		statw_int(w, k, v[k]);
	statw_num(w, SET_RAC, st->rac);
	statw_int(w, SET_DEPTH, st->depth);
	statw_bool(w, SET_FLOAT, st->accidental);
	elems(w, SET_LINES, setlines(a, s));
	statw_open(w, SET_INS);
	for (uint k = 0; k < a->n; k++)
		if (a->set[k] == s)
			statw_elem(w, a->ord[k]);
	statw_close(w);
	if (st->promo)
		statw_int(w, SET_PROMO, st->promo);
	else
		statw_null(w, SET_PROMO);
	statw_open(w, SET_PREDICTED);
	for (int j = 0; j < a->nt; j++)
		statw_target(w, a->tsm[j], st->pred[j]);
	statw_close(w);
	statw_bool(w, SET_LOWERED, st->lower);
	statw_str(w, SET_WHY, st->lower ? NULL : st->why);
	const char *where = setwhere(a, s);
	statw_str(w, SET_WHERE, *where ? where : NULL);
	statw_num(w, SET_RUNS, setruns(a, s));
	statw_str(w, SET_RUNSFROM, fqwords[a->from[setblk(a, s)]]);
	statw_close(w);
}

/* loop i (looporder()): its header's line, depth, trips and their source */
static void
loopfacts(const struct fs *a, uint i, uint *line, uint *depth, double *trips, const char **from)
{
	const Fn *fn = a->fn;
	const Loop *l = &fn->loop[a->order[i]];
	const Blk *h = &fn->blk[l->head];
	uint outer = l->parent ? fn->loop[l->parent - 1].head : ~0u;
	*line = 0;
	for (uint k = h->first; k < h->end && !*line; k++)   /* the label has none */
		*line = insline(fn, k, NULL);
	*depth = l->depth;
	double in = outer == ~0u ? 1 : a->freq[outer];
	const double *xs = a->known.f[F_TRIPS].xs;
	*trips = xs ? xs[i] : in > 0 ? a->freq[l->head] / in : 0;
	*from = fqwords[a->from[l->head]];
}

static void
loopsjson(struct statw *w, const struct fs *a)
{
	statw_open(w, ST_LOOPS);
	for (uint i = 0; i < a->fn->nloop; i++) {
		uint line, depth;
		double trips;
		const char *from;
		loopfacts(a, i, &line, &depth, &trips, &from);
		statw_item(w);
		statw_int(w, LOOP_LINE, line);
		statw_int(w, LOOP_DEPTH, depth);
		statw_num(w, LOOP_TRIPS, trips);
		statw_str(w, LOOP_FROM, from);
		statw_close(w);
	}
	statw_close(w);
}

static char *
stats(struct fs *a, const uchar *ch, int nlow, int after)
{
	const int v[] = {[ST_F64OPS] = a->nf64, [ST_SETS] = a->ns, [ST_LOWERED] = nlow,
	                 [ST_AFTER] = after, [ST_REFUSED] = a->refused};
	struct statw w;
	statw_begin(&w, &statroot);
	for (int k = ST_F64OPS; k <= ST_REFUSED; k++)
		statw_int(&w, k, v[k]);
	statw_open(&w, ST_PREDICTED);
	for (int j = 0; j < a->nt; j++) {
		double x[2] = {1, 1};
		if (nlow)
			fs_predict(a, j, ch, x);
		statw_target(&w, a->tsm[j], x[0]);
	}
	statw_close(&w);
	statw_open(&w, ST_SET);
	for (int s = 0; s < a->ns; s++)
		setjson(&w, a, s);
	statw_close(&w);
	statw_str(&w, ST_FACTS, a->facts);
	loopsjson(&w, a);
	if (a->decided)
		statw_str(&w, ST_DECIDED, a->decided);
	return statw_end(&w);
}

/* the measured facts, and each loop in the order trips lists them */
static void
loopwords(FILE *out, const struct fs *a)
{
	fprintf(out, "           measured facts: %s", a->facts);
	if (a->known.f[F_WARPS].i)
		fprintf(out, " (warps %ld)", a->known.f[F_WARPS].i);
	fprintf(out, "\n");
	for (uint i = 0; i < a->fn->nloop; i++) {
		uint line, depth;
		double trips;
		const char *from;
		loopfacts(a, i, &line, &depth, &trips, &from);
		fprintf(out, "           loop %u: ", i + 1);
		if (line)
			fprintf(out, "line %u, ", line);
		fprintf(out, "depth %u, %.4g %s per entry (%s)\n", depth, trips,
		        plural((long)(trips + 0.5), "trip", "trips"), from);
	}
}

static void
setwords(FILE *out, const struct fs *a, int s)
{
	const struct set *st = &a->s[s];
	const char *lines = setwhere(a, s);
	fprintf(out, "           set %d: %d %s, %d %s", st->id, st->ops, plural(st->ops, "op", "ops"),
	        st->casts, plural(st->casts, "cast", "casts"));
	if (st->casts)
		fprintf(out, " (r_ac %.2f)", st->rac);
	if (st->folded)
		fprintf(out, ", %d %s folded", st->folded,
		        plural(st->folded, "conversion", "conversions"));
	fprintf(out, ", loop depth %d", st->depth);
	if (st->depth)
		fprintf(out, " (runs %.4gx a thread, %s)", setruns(a, s), fqwords[a->from[setblk(a, s)]]);
	if (*lines)
		fprintf(out, ", lines %s", lines);
	if (st->accidental) {
		fprintf(out, "; f64 in float code");
		if (st->promo)
			fprintf(out, " (promoted at line %u)", st->promo);
	}
	fprintf(out, "\n           ");
	for (int j = 0; j < a->nt; j++)
		fprintf(out, "%spredicted %.3fx on sm_%d", j ? ", " : "", st->pred[j], a->tsm[j]);
	if (!a->nt)
		fprintf(out, "no prediction (no target known to the cost model)");
	if (st->lower)
		fprintf(out, "; lowered\n");
	else
		fprintf(out, "; left in f64: %s\n", st->why);
}

/* the dump: what the tuner reads (see mpcc-opt(1), "-d fiset") */
static void
dumptext(struct buf *b, const struct fs *a, const char *kname)
{
	const Fn *fn = a->fn;
	buf_printf(b, "fiset\t%s\tsets=%d\tf64_ops=%d\ttargets=", kname, a->ns, a->nf64);
	for (int j = 0; j < a->nt; j++)
		buf_printf(b, "%ssm_%d", j ? "," : "", a->tsm[j]);
	buf_puts(b, "\n");
	for (int s = 0; s < a->ns; s++) {
		const struct set *st = &a->s[s];
		const char *lines = setlines(a, s);
		buf_printf(b, "set\t%s\t%d\tops=%d\tcasts=%d\tfolded=%d\tr_ac=", kname, st->id, st->ops,
		           st->casts, st->folded);
		if (st->casts)
			buf_printf(b, "%.3f", st->rac);
		else
			buf_puts(b, "inf");
		buf_printf(b, "\tdepth=%d\tfloat_code=%d\tlines=%s\tlowered=%d", st->depth,
		           st->accidental, *lines ? lines : "-", st->lower);
		for (int j = 0; j < a->nt; j++)
			buf_printf(b, "\tsm_%d=%.3f", a->tsm[j], st->pred[j]);
		buf_puts(b, "\n");
		for (uint k = 0; k < a->n; k++) {
			if (a->set[k] != s)
				continue;
			buf_printf(b, "op\t%s\t%d\t%u\t%u\t%s\n", kname, st->id, a->ord[k],
			           insline(fn, k, NULL), instext(fn, &fn->ins[k]));
		}
	}
}

/* what apply saw, for mpcc-opt -d fiset (which runs after apply changed
 * fn); in the module's arena */
static struct {
	const Fn *fn;
	const char *text;
} last;

static void
remember(const struct fs *a, const char *kname)
{
	struct buf b = BUF_INIT;
	dumptext(&b, a, kname);
	last.fn = a->fn;
	last.text = arena_strdup(a->fn->mod->arena, b.n ? b.s : "");
	buf_release(&b);
}

/* an id asked for that the kernel has no set of: say so in the reason */
static void
warn_ids(struct fs *a, long id)
{
	for (int s = 0; s < a->ns; s++)
		if (!a->s[s].lower)
			a->s[s].why = arena_fmt(a->a, "not among the ids asked for (no set with id %ld: "
			                        "the kernel has %d %s)", id, a->ns,
			                        plural(a->ns, "set", "sets"));
}

/* the sets p asks for into ch, and how many; why none, into o */
static int
choice(struct fs *a, const struct params *p, uchar *ch, struct outcome *o)
{
	int nlow = 0;
	o->advised = 1;   /* but for ids asked for, or no cost model to ask */
	if (a->nf64 == 0)
		o->why = xstrdup("no f64 arithmetic");
	else if (a->ns == 0)
		o->why = xstrdup("no set of f64 operations with an f32 form (every f64 value "
		                 "comes from or goes to a load, store, call or bit pattern)");
	else {
		pick(a, p, ch);
		for (int s = 0; s < a->ns; s++)
			nlow += a->s[s].lower;
		for (int j = 0; p->v[SETS].i == SETS_IDS && j < p->v[SETS].nids; j++)
			if (p->v[SETS].ids[j] >= a->ns)
				warn_ids(a, p->v[SETS].ids[j]);
		if (!nlow) {
			int best = ranked(a)[0];
			o->why = fmt("no set chosen: set %d (the best) %s", a->s[best].id, a->s[best].why);
			o->advised = p->v[SETS].i != SETS_IDS && (p->v[SETS].i != S_AUTO || a->nt);
		}
	}
	return nlow;
}

static int
apply(struct passctx *cx, Fn *fn, const struct params *p, struct outcome *o)
{
	struct fs a;
	struct facts f;
	params_facts(p, &f);
	fs_analyze(&a, cx, fn, &f);
	if (!strncmp(a.facts, "dropped", 7))
		note("%s: kernel '%s'%s%s: fiset dropped its measured warps and trips%s, %s; the model "
		     "guesses them (mpcc-tune --measure measures them again)", cx->src, demangled(fn),
		     cx->arch ? " for " : "", cx->arch ? cx->arch : "",
		     f.f[F_MEASURED].xs ? " and its candidates' measured speed-ups" : "", a.facts + 9);
	const char *kname = symname(cx->m, fn->sym);
	uchar *ch = arena_alloc(a.a, a.n + 1);
	int nlow = choice(&a, p, ch, o), after = a.nf64;
	for (uint k = 0; k < a.n; k++)
		after -= ch[k] && arithclass(a.cls[k]);
	if (nlow || a.ns)
		o->stats = stats(&a, ch, nlow, after);
	remember(&a, kname);
	if (nlow) {
		struct plan pl;
		fs_plan(&a, ch, &pl);
		fs_lower(&a, ch, &pl);
	}
	fs_done(&a);
	return nlow ? 0 : -1;
}

/* f64_ops_after counts the kernel as it ships: a pass after fiset may run
 * what fiset left more than once (half2: once per lane) */
static void
recount(Fn *fn, struct outcome *o)
{
	int n = 0;
	if (!o->stats)
		return;
	for (uint k = 0; k < fn->nins; k++)
		n += f64class(&fn->ins[k]) >= 0 && arithclass(f64class(&fn->ins[k]));
	char v[16], *s;
	snprintf(v, sizeof v, "%d", n);
	s = jset(o->stats, statkey[ST_AFTER].name, v);
	free(o->stats);
	o->stats = s;
}

static void
explain(FILE *out, struct passctx *cx, Fn *fn, const struct params *p)
{
	struct fs a;
	struct facts f;
	params_facts(p, &f);
	fs_analyze(&a, cx, fn, &f);
	uchar *ch = arena_alloc(a.a, a.n + 1);
	if (!a.nf64)
		fprintf(out, "           no f64 arithmetic\n");
	else if (!a.ns)
		fprintf(out, "           %d f64 %s, no set with an f32 form\n", a.nf64,
		        plural(a.nf64, "operation", "operations"));
	else {
		pick(&a, p, ch);
		fprintf(out, "           %d f64 %s in %d %s; cost model for %s\n", a.nf64,
		        plural(a.nf64, "operation", "operations"), a.ns, plural(a.ns, "set", "sets"),
		        a.nt ? a.tnames : "no known target");
		loopwords(out, &a);
		if (a.decided)
			fprintf(out, "           sets=auto decided by the run: %s\n", a.decided);
		for (int s = 0; s < a.ns; s++)
			setwords(out, &a, s);
	}
	fs_done(&a);
}

static void
dump(FILE *out, struct passctx *cx, Fn *fn, const struct params *p)
{
	(void)cx, (void)p;
	if (last.fn == fn && last.text)
		fputs(last.text, out);
	last.text = NULL;
	last.fn = NULL;
}

/* ---- the warning ---- */

extern const struct pass fiset_pass;

/* the rule the warning suggests: fiset: {} for this kernel alone, one
 * line, as a policy's rules list takes it. A rule for "*" would also
 * lower the kernels that are f64 on purpose. The kernel by its short
 * name, or by its mangled one when the short name has a glob's
 * characters in it (the mangled name never has) */
static const char *
suggested(const struct fs *a, const Fn *fn)
{
	char *s = kernel_shortname(demangled(fn)), *m = symstr(fn->mod, fn->sym);
	const char *name = strpbrk(s, "*?[]\\\"") ? m : s;
	const char *r = arena_fmt(a->a, "{kernels: [\"%s\"], %s: {}}", name, fiset_pass.schema.name);
	free(s);
	free(m);
	return r;
}

/* --mpcc-warn=fp64: f64 arithmetic in a kernel that loads and stores f32,
 * by the line of each promotion, and what fiset: {} (sets=auto, the
 * targets of the chain) does to it */
static int
audit(struct passctx *cx, Fn *fn, struct finding **out)
{
	struct fs a;
	struct params p;
	if (!fs_floatcode(fn))   /* then a.nf64 > 0 */
		return 0;
	fs_analyze(&a, cx, fn, NULL);
	uchar *ch = arena_alloc(a.a, a.n + 1);
	params_default(&fiset_pass.schema, &p);
	pick(&a, &p, ch);
	int n = fs_promotions(&a, ch, demangled(fn), suggested(&a, fn), out);
	fs_done(&a);
	return n;
}

static const struct warning warning = {
	"fp64",
	"f64 arithmetic in kernels that load and store f32 (a double constant or function), "
	"by source line, and whether fiset: {} removes it",
	audit,
};

static void
describe(FILE *out, const struct params *p)
{
	static const char *const which[] = {
		"the sets of f64 operations that the cost model predicts to pay on each target",
		"the set of f64 operations that the cost model ranks best",
		"every set of f64 operations",
	};
	const struct value *v = &p->v[SETS];
	fprintf(out, "           lowers to f32 ");
	if (v->i >= 0)
		fprintf(out, "%s\n", which[v->i]);
	else if (v->i == SETS_N)
		fprintf(out, "the %ld best %s of f64 operations\n", (long)v->x,
		        plural((long)v->x, "set", "sets"));
	else
		for (int i = 0; i < v->nids; i++)
			fprintf(out, "%s%ld%s", i ? ", " : "the sets of f64 operations with ids ", v->ids[i],
			        i == v->nids - 1 ? "\n" : "");
}

static const char *const sets[] = {"auto", "best", "all", NULL};

static const struct param params[] = {
	[SETS] = {"sets", PSETS, 0, 1, 1e6, sets, NULL, "auto",
	          "which sets to lower: auto (those the cost model says pay on each target), "
	          "best, all, the N best, or a list of set ids"},
	[MIN_RATIO] = {"min_ratio", PNUM, 0, 0, 1e9, NULL, NULL, "1.5",
	               "the arithmetic-to-cast ratio r_ac a set must reach for best, all and N "
	               "(Algorithm 1); auto decides by the cost model"},
	[MAX_SETS] = {"max_sets", PINT, 0, 1, 1000, NULL, NULL, "64",
	              "at most this many sets are lowered in one kernel (auto: besides f64 in "
	              "float code, which it always lowers)"},
	{"warps", PINT, PFACT, 0, 64, NULL, NULL, "0",
	 "the warps an SM holds at once in the kernel's launches, for the cost model "
	 "(0: as many as its registers allow: the launch fills the GPU); mpcc-tune "
	 "measures it"},
	{"trips", PNUMS, PFACT, 0, 1e12, NULL, NULL, "[]",
	 "each loop's mean trips per entry, as a run measured them, in the order the "
	 "loops' headers come in the kernel's PTX (--mpcc-explain lists them; "
	 "mpcc-tune --measure writes them); []: trip counts are counted or guessed"},
	{"measured", PNUMS, PFACT, 0, 1e6, NULL, NULL, "[]",
	 "the kernel's speed-ups a run measured with sets=auto's own choice and with sets=all "
	 "(0: the program rejected its run), and the noise of its time: [auto, all, noise] "
	 "(mpcc-tune --measure writes it); "
	 "auto then takes the faster beyond the noise and never one measured slower; []: "
	 "the model decides"},
	{"ptx", PSTR, PFACT, 0, 0, NULL, NULL, "",
	 "the hash of the kernel's PTX that warps, trips and measured were measured on: where "
	 "the kernel's PTX is not that, they are dropped with a note (mpcc-tune --measure "
	 "writes it)"},
};

static const char *const sweep[] = {"sets=all", "sets=auto", NULL};

const struct pass fiset_pass = {
	.schema = {"fiset", "FP64 -> FP32 lowering of the groups of f64 operations that pay",
	           params, countof(params), describe},
	.stats = &statroot,
	.apply = apply,
	.recount = recount,
	.explain = explain,
	.dump = dump,
	.tune = &(const struct tuning){TUNE_TRANSFORM, .knob = "sets", .strongest = "sets=all",
	                               .fallback = "sets=all,min_ratio=0.001",
	                               .guess = 1.2, .axis = "sets lowered"},
	.sweep = sweep,
	.warn = &warning,
};
