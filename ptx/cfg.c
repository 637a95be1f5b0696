/* cfg.c: the analyses. Blocks are ranges of the statement array: a block
 * starts at a label, at the first statement, and after a jump. A guarded
 * bra, ret or exit falls through. Dominators come from the iterative
 * algorithm of Cooper, Harvey and Kennedy over the reverse post-order;
 * a back edge goes to a block that dominates its source, and its natural
 * loop is what reaches the source backwards without passing the header.
 * Only labels that a branch names start blocks.
 * Def-use is over registers, not values: PTX from cicc is nearly SSA, but a
 * register carried around a loop (%r54 = phi) is written at each mov that
 * feeds it, so a register may have several definitions (multidef()). */
#include "ptx/ptx.h"
#include <string.h>

static int
isjump(const Ins *i)
{
	return i->op < NOP && opinfo[i->op].jmp;
}

static uint
lblblk(const Fn *fn, uint l)
{
	uint at = fn->lbl[l].ins;
	return at == ~0u || at >= fn->nins ? ~0u : fn->insblk[at];
}

struct edges {
	uint *v, n, cap;
};

static void
edge(Module *m, struct edges *e, uint to)
{
	if (to == ~0u)
		return;
	for (uint k = 0; k < e->n; k++)
		if (e->v[k] == to)
			return;
	e->v = agrow(m->arena, e->v, e->n, &e->cap, sizeof *e->v);
	e->v[e->n++] = to;
}

/* brx.idx %r, TABLE: the labels listed by "TABLE: .branchtargets L1, L2;" */
static void
brxtargets(Fn *fn, const Ins *i, struct edges *e)
{
	uint at;

	if (i->narg < 2 || i->arg[1].kind != RLbl)
		return;
	at = fn->lbl[i->arg[1].idx].ins;
	if (at == ~0u || at + 1 >= fn->nins || fn->ins[at + 1].op != Oraw)
		return;
	Lexer lx;
	Str s = fn->ins[at + 1].src;
	lex_init(&lx, s.s, s.n);
	for (Tok t = lex(&lx); t.kind != TEOF; t = lex(&lx)) {
		uint l;
		if (t.kind == TIDENT && (l = names_get(fn->lblnames, t.s, t.n)) != ~0u)
			edge(fn->mod, e, lblblk(fn, l));
	}
}

static void
succs(Fn *fn, uint b, struct edges *e)
{
	Blk *k = &fn->blk[b];
	const Ins *t = NULL;

	for (uint j = k->end; j > k->first; j--)
		if (fn->ins[j - 1].op < NOP) {
			t = &fn->ins[j - 1];
			break;
		}
	if (t && t->op == Obra && t->narg && t->arg[t->narg - 1].kind == RLbl)
		edge(fn->mod, e, lblblk(fn, t->arg[t->narg - 1].idx));
	if (t && t->op == Obrx)
		brxtargets(fn, t, e);
	if (t && isjump(t) && !t->pred.kind)
		return;
	if (b + 1 < fn->nblk)
		edge(fn->mod, e, b + 1);
}

/* the labels that branches name: only those start blocks (not the labels
 * of -G debug info, of .callprototype or of .branchtargets themselves) */
static uchar *
targets(Fn *fn)
{
	uchar *t = arena_alloc(fn->mod->arena, fn->nlbl + 1);

	for (uint k = 0; k < fn->nins; k++) {
		const Ins *i = &fn->ins[k];
		if (i->op == Obra && i->narg && i->arg[i->narg - 1].kind == RLbl)
			t[i->arg[i->narg - 1].idx] = 1;
		if (i->op == Oraw) {
			Lexer lx;
			Tok tk;
			uint l;
			lex_init(&lx, i->src.s, i->src.n);
			if (!tokis(tk = lex(&lx), ".branchtargets"))
				continue;
			for (tk = lex(&lx); tk.kind != TEOF; tk = lex(&lx))
				if (tk.kind == TIDENT && (l = names_get(fn->lblnames, tk.s, tk.n)) != ~0u)
					t[l] = 1;
		}
	}
	return t;
}

static void
blocks(Fn *fn)
{
	Module *m = fn->mod;
	uint nb = 0, cap = 0, start = 0;
	uchar *tgt = targets(fn);

	fn->blk = NULL;
	fn->insblk = arena_alloc(m->arena, (fn->nins + 1) * sizeof *fn->insblk);
	for (uint k = 0; k <= fn->nins; k++) {
		int cut = k == fn->nins
		          || (k > start && fn->ins[k].op == Olabel && tgt[fn->ins[k].arg[0].idx])
		          || (k > start && isjump(&fn->ins[k - 1]));
		if (!cut)
			continue;
		fn->blk = agrow(m->arena, fn->blk, nb, &cap, sizeof *fn->blk);
		memset(&fn->blk[nb], 0, sizeof *fn->blk);
		fn->blk[nb].first = start;
		fn->blk[nb].end = k;
		for (uint j = start; j < k; j++)
			fn->insblk[j] = nb;
		nb++;
		start = k;
	}
	fn->nblk = nb;
}

static void
order(Fn *fn)
{
	Module *m = fn->mod;
	uint *stack = arena_alloc(m->arena, (fn->nblk + 1) * sizeof *stack);
	uint *next = arena_alloc(m->arena, (fn->nblk + 1) * sizeof *next);
	uchar *seen = arena_alloc(m->arena, fn->nblk + 1);
	uint *post = arena_alloc(m->arena, (fn->nblk + 1) * sizeof *post);
	uint sp = 0, np = 0;

	for (uint b = 0; b < fn->nblk; b++)
		fn->blk[b].rpo = ~0u;
	if (!fn->nblk)
		return;
	stack[sp++] = 0;
	seen[0] = 1;
	while (sp) {
		uint b = stack[sp - 1];
		if (next[b] < fn->blk[b].nsucc) {
			uint s = fn->blk[b].succ[next[b]++];
			if (!seen[s]) {
				seen[s] = 1;
				stack[sp++] = s;
			}
		} else {
			post[np++] = b;
			sp--;
		}
	}
	fn->rpo = arena_alloc(m->arena, (np + 1) * sizeof *fn->rpo);
	fn->nrpo = np;
	for (uint k = 0; k < np; k++) {
		fn->rpo[k] = post[np - 1 - k];
		fn->blk[fn->rpo[k]].rpo = k;
	}
}

void
fillcfg(Fn *fn)
{
	Module *m = fn->mod;
	struct edges *pe;

	blocks(fn);
	pe = arena_alloc(m->arena, (fn->nblk + 1) * sizeof *pe);
	for (uint b = 0; b < fn->nblk; b++) {
		struct edges e = {0};
		succs(fn, b, &e);
		fn->blk[b].succ = e.v;
		fn->blk[b].nsucc = e.n;
		for (uint k = 0; k < e.n; k++)
			edge(m, &pe[e.v[k]], b);
	}
	for (uint b = 0; b < fn->nblk; b++) {
		fn->blk[b].pred = pe[b].v;
		fn->blk[b].npred = pe[b].n;
	}
	order(fn);
	fn->loop = NULL;
	fn->nloop = 0;
}

/* immediate dominators, as rpo positions (Cooper, Harvey, Kennedy) */
static uint *
idoms(Fn *fn)
{
	uint n = fn->nrpo, *idom = arena_alloc(fn->mod->arena, (n + 1) * sizeof *idom);
	int changed = 1;

	for (uint k = 0; k < n; k++)
		idom[k] = ~0u;
	if (!n)
		return idom;
	idom[0] = 0;
	while (changed) {
		changed = 0;
		for (uint k = 1; k < n; k++) {
			Blk *b = &fn->blk[fn->rpo[k]];
			uint nd = ~0u;
			for (uint j = 0; j < b->npred; j++) {
				uint p = fn->blk[b->pred[j]].rpo;
				if (p == ~0u || idom[p] == ~0u)
					continue;
				if (nd == ~0u) {
					nd = p;
					continue;
				}
				uint x = p, y = nd;
				while (x != y) {
					while (x > y)
						x = idom[x];
					while (y > x)
						y = idom[y];
				}
				nd = x;
			}
			if (nd != idom[k]) {
				idom[k] = nd;
				changed = 1;
			}
		}
	}
	return idom;
}

static int
dominates(const uint *idom, uint a, uint b)   /* rpo positions */
{
	while (b > a)
		b = idom[b];
	return a == b;
}

/* the natural loop of the back edge src -> head, merged into loop l */
static void
natural(Fn *fn, Loop *l, uint src, uchar *in, uint *stack)
{
	Module *m = fn->mod;
	uint sp = 0, cap = l->nblk;

	if (!in[src]) {
		in[src] = 1;
		stack[sp++] = src;
		l->blk = agrow(m->arena, l->blk, l->nblk, &cap, sizeof *l->blk);
		l->blk[l->nblk++] = src;
	}
	while (sp) {
		Blk *b = &fn->blk[stack[--sp]];
		for (uint j = 0; j < b->npred; j++) {
			uint p = b->pred[j];
			if (in[p] || fn->blk[p].rpo == ~0u)
				continue;
			in[p] = 1;
			stack[sp++] = p;
			l->blk = agrow(m->arena, l->blk, l->nblk, &cap, sizeof *l->blk);
			l->blk[l->nblk++] = p;
		}
	}
}

void
fillloops(Fn *fn)
{
	Module *m = fn->mod;
	uint *idom = idoms(fn), nl = 0, cap = 0;
	uint *stack = arena_alloc(m->arena, (fn->nblk + 1) * sizeof *stack);
	uchar **in = NULL;

	fn->loop = NULL;
	for (uint k = 0; k < fn->nrpo; k++) {
		uint h = fn->rpo[k];
		Loop *l = NULL;
		for (uint j = 0; j < fn->blk[h].npred; j++) {
			uint s = fn->blk[h].pred[j], sr = fn->blk[s].rpo;
			if (sr == ~0u || !dominates(idom, k, sr))
				continue;
			if (!l) {
				uint c2 = cap;
				fn->loop = agrow(m->arena, fn->loop, nl, &cap, sizeof *fn->loop);
				in = agrow(m->arena, in, nl, &c2, sizeof *in);
				l = &fn->loop[nl];
				memset(l, 0, sizeof *l);
				l->head = h;
				in[nl] = arena_alloc(m->arena, fn->nblk + 1);
				in[nl][h] = 1;
				uint c = 0;
				l->blk = agrow(m->arena, l->blk, 0, &c, sizeof *l->blk);
				l->blk[l->nblk++] = h;
				nl++;
			}
			natural(fn, l, s, in[nl - 1], stack);
		}
	}
	fn->nloop = nl;
	/* loops are found in rpo of their headers: an enclosing loop comes
	 * first, so the parent is the last earlier loop that holds the header */
	for (uint k = 0; k < nl; k++) {
		Loop *l = &fn->loop[k];
		l->parent = 0;
		for (uint j = k; j-- > 0;)
			if (in[j][l->head]) {
				l->parent = j + 1;
				break;
			}
		l->depth = l->parent ? fn->loop[l->parent - 1].depth + 1 : 1;
	}
	for (uint k = 0; k < nl; k++) {   /* blocks of a loop in layout order */
		Loop *l = &fn->loop[k];
		for (uint a = 1; a < l->nblk; a++)
			for (uint j = a; j > 0 && l->blk[j - 1] > l->blk[j]; j--) {
				uint t = l->blk[j];
				l->blk[j] = l->blk[j - 1];
				l->blk[j - 1] = t;
			}
	}
	for (uint b = 0; b < fn->nblk; b++) {
		fn->blk[b].loop = 0;
		fn->blk[b].depth = 0;
		for (uint k = 0; k < nl; k++)
			if (in[k][b] && fn->loop[k].depth > fn->blk[b].depth) {
				fn->blk[b].loop = k + 1;
				fn->blk[b].depth = fn->loop[k].depth;
			}
	}
}

uint *
looporder(const Fn *fn)
{
	uint *o = arena_alloc(fn->mod->arena, (fn->nloop + 1) * sizeof *o);
	for (uint k = 0; k < fn->nloop; k++)
		o[k] = k;
	for (uint a = 1; a < fn->nloop; a++)
		for (uint j = a; j > 0 && fn->loop[o[j - 1]].head > fn->loop[o[j]].head; j--) {
			uint t = o[j];
			o[j] = o[j - 1];
			o[j - 1] = t;
		}
	return o;
}

/* bar.red, barrier.cta.red: a ".red" part in the name */
static int
reduces(Str s)
{
	for (uint k = 0; k + 4 <= s.n; k++)
		if (!memcmp(s.s + k, ".red", 4) && (k + 4 == s.n || s.s[k + 4] == '.'))
			return 1;
	return 0;
}

/* the registers written by i: arg 0 (and the second half of a|b), except for
 * the instructions whose first operand is read; call writes its return
 * list "(%r1), f, (...)" (a .func with .reg returns), bar.red its arg 0 */
int
isdef(const Ins *i, uint a)
{
	if (i->op >= NOP || a >= i->narg)
		return 0;
	switch (i->op) {
	case Ocall:
		return a == 0 && i->arg[0].kind == RList && i->narg > 1;
	case Obar: case Obarrier:
		return a == 0 && reduces(i->name);
	case Obra: case Obrx: case Oret: case Oexit: case Otrap:
	case Ostackrestore: case Onanosleep: case Ost: case Ored: case Osust: case Osured:
	case Oprefetch: case Oprefetchu: case Omembar: case Ofence:
	case Opmevent: case Osetmaxnreg: case Odiscard: case Oapplypriority: case Ostmatrix:
		return 0;
	}
	return a == 0 || (a == 1 && i->arg[1].bar);
}

static void
refregs(const Fn *fn, Ref r, int def, void (*f)(void *, uint, int), void *arg)
{
	switch (r.kind) {
	case RReg:
		f(arg, r.idx, def);
		break;
	case RMem:
		refregs(fn, fn->mem[r.idx].base, 0, f, arg);
		refregs(fn, fn->mem[r.idx].vec, 0, f, arg);
		break;
	case RVec:
	case RList:
		for (uint k = 0; k < fn->vec[r.idx].n; k++)
			refregs(fn, fn->vec[r.idx].el[k], def, f, arg);
		break;
	}
}

void
forregs(const Fn *fn, const Ins *i, void (*f)(void *arg, uint r, int def), void *arg)
{
	if (i->pred.kind == RReg)
		f(arg, i->pred.idx, 0);
	for (uint a = 0; a < i->narg; a++)
		refregs(fn, i->arg[a], isdef(i, a), f, arg);
}

struct du {
	Fn *fn;
	int pass;      /* 0: count, 1: fill */
	uint *nd, *nu;
	uint at;
};

static void
note_(void *arg, uint r, int def)
{
	struct du *d = arg;
	Use *u = &d->fn->use[r];

	if (d->fn->reg[r].flags & RGSPECIAL)
		return;
	if (d->pass == 0) {
		(def ? d->nd : d->nu)[r]++;
		return;
	}
	if (def)
		u->def[u->ndef++] = d->at;
	else if (!u->nuse || u->use[u->nuse - 1] != d->at)
		u->use[u->nuse++] = d->at;
}

void
filldefuse(Fn *fn)
{
	Module *m = fn->mod;
	struct du d = {fn, 0, NULL, NULL, 0};

	fn->use = arena_alloc(m->arena, (fn->nreg + 1) * sizeof *fn->use);
	d.nd = arena_alloc(m->arena, (fn->nreg + 1) * sizeof *d.nd);
	d.nu = arena_alloc(m->arena, (fn->nreg + 1) * sizeof *d.nu);
	for (d.pass = 0; d.pass < 2; d.pass++) {
		if (d.pass == 1)
			for (uint r = 0; r < fn->nreg; r++) {
				fn->use[r].def = arena_alloc(m->arena, (d.nd[r] + 1) * sizeof(uint));
				fn->use[r].use = arena_alloc(m->arena, (d.nu[r] + 1) * sizeof(uint));
			}
		for (d.at = 0; d.at < fn->nins; d.at++)
			if (fn->ins[d.at].op < NOP)
				forregs(fn, &fn->ins[d.at], note_, &d);
	}
}

uint *
ordinals(const Fn *fn)
{
	uint *ord = arena_alloc(fn->mod->arena, (fn->nins + 1) * sizeof *ord), n = 0;

	for (uint k = 0; k < fn->nins; k++) {
		ord[k] = n;
		n += fn->ins[k].op < NOP;
	}
	ord[fn->nins] = n;
	return ord;
}

int
multidef(const Fn *fn, uint r)
{
	return fn->use && fn->use[r].ndef > 1;
}

uint
insline(const Fn *fn, uint i, uint *file)
{
	for (uint k = i < fn->nins ? i + 1 : 0; k-- > 0;)
		if (fn->ins[k].op == Oloc) {
			if (file)
				*file = fn->ins[k].loc[0];
			return fn->ins[k].loc[1];
		}
	if (file)
		*file = 0;
	return 0;
}

/* .loc F L C, function_name $L__info_string0, inlined_at F2 L2 C2 */
uint
inlinedat(const Fn *fn, uint i, uint *file)
{
	*file = 0;
	for (uint k = i < fn->nins ? i + 1 : 0; k-- > 0;) {
		const Ins *l = &fn->ins[k];
		if (l->op != Oloc)
			continue;
		const char *p = l->src.s, *end = p + l->src.n;
		uint n[2] = {0, 0};
		for (; p && p + 10 <= end && memcmp(p, "inlined_at", 10); p++)
			;
		if (!p || p + 10 > end)
			return 0;
		p += 10;
		for (int j = 0; j < 2; j++) {
			while (p < end && (*p == ' ' || *p == '\t'))
				p++;
			for (; p < end && *p >= '0' && *p <= '9'; p++)
				n[j] = 10 * n[j] + (uint)(*p - '0');
		}
		*file = n[0];
		return n[1];
	}
	return 0;
}

/* .file N "PATH"[, mtime, size] */
const char *
locfile(const Module *m, uint file)
{
	for (uint k = 0; k < m->ntop; k++) {
		const Ins *i = &m->top[k];
		if (i->op != Oraw || !i->src.s || !strpre(i->src, ".file"))
			continue;
		const char *p = i->src.s + 5, *end = i->src.s + i->src.n, *q;
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		uint n = 0;
		for (; p < end && *p >= '0' && *p <= '9'; p++)
			n = 10 * n + (uint)(*p - '0');
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (n != file || p == end || *p != '"')
			continue;
		for (q = ++p; q < end && *q != '"'; q += 1 + (*q == '\\'))
			;
		return q < end ? arena_strndup(m->arena, p, q - p) : NULL;
	}
	return NULL;
}
