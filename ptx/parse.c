/* parse.c: PTX text -> Module.
 *
 * A recursive-descent parser in chibicc's manner: one function per grammar
 * rule, the rule in a comment above it. The lexer is pulled one token at a
 * time (p->tok, with one token of lookahead in p->nxt) rather than into an
 * array, so that memory stays proportional to the IR, not to the text.
 * Each statement records its leading trivia (the text since the end of the
 * previous statement) and its own text, which is what makes printing
 * lossless (see ptx.h). Errors longjmp back to parse(), which returns NULL:
 * the parser never exits, so the fuzzer and the driver's hook can call it.
 *
 * This file reads the module: its items, each function's header, and
 * mkins() for the passes. It calls the files below it, none calling back
 * (ptx/parse.h): parse-ins.c (a body: instructions and their operands),
 * parse-decl.c (declarations: .reg, variables, parameters), and
 * parse-tok.c (tokens, numbers, errors, what a scope's names hide). */
#include "ptx/parse.h"
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>

/* sort the indices by[0..n) by key[by[i]] (distinct keys), tmp of n
 * words: a merge sort, as qsort has no argument for the keys */
static void
sortby(uint *by, uint *tmp, uint n, const uint *key)
{
	uint h = n / 2, i = 0, j = h, k = 0;

	if (n < 2)
		return;
	sortby(by, tmp, h, key);
	sortby(by + h, tmp, n - h, key);
	if (key[by[h - 1]] < key[by[h]])
		return;
	while (i < h || j < n)
		tmp[k++] = j == n || (i < h && key[by[i]] < key[by[j]]) ? by[i++] : by[j++];
	memcpy(by, tmp, n * sizeof *by);
}

/* A body grows its arrays in the parser's scratch arrays, which are then
 * copied at their exact size: doubling in an arena would leave every old
 * copy behind (half the memory on a large file). */
#define BORROW(a, n, cap) (fn->a = p->scratch.a, fn->cap = p->scratch.cap, fn->n = 0)
#define GIVEBACK(a, n, cap) do { \
		p->scratch.a = fn->a, p->scratch.cap = fn->cap; \
		fn->a = arena_alloc(p->m->arena, (fn->n + 1) * sizeof *fn->a); \
		if (fn->n) \
			memcpy(fn->a, p->scratch.a, fn->n * sizeof *fn->a); \
		fn->cap = fn->n; \
	} while (0)

static void
borrow(P *p, Fn *fn)
{
	BORROW(ins, nins, cap);
	BORROW(reg, nreg, capreg);
	BORROW(lbl, nlbl, caplbl);
	BORROW(imm, nimm, capimm);
	BORROW(mem, nmem, capmem);
	BORROW(vec, nvec, capvec);
}

static void
giveback(P *p, Fn *fn)
{
	GIVEBACK(ins, nins, cap);
	GIVEBACK(reg, nreg, capreg);
	GIVEBACK(lbl, nlbl, caplbl);
	GIVEBACK(imm, nimm, capimm);
	GIVEBACK(mem, nmem, capmem);
	GIVEBACK(vec, nvec, capvec);
}

static void
remap(Ref *r, const uint *to)
{
	if (r->kind == RReg)
		r->idx = to[r->idx];
}

/* Put the registers in the order they would have if every member of every
 * range had been made where the range is declared: passes walk registers
 * by index (declarations hoisted, liveness sets, fresh names), and their
 * output must not change with the order in which members are first used. */
static void
regorder(P *p, Fn *fn)
{
	Arena *a = p->m->arena;
	uint n = fn->nreg, *key, *by, *to;
	Reg *old;
	int sorted = 1;

	while (p->capord <= n)
		p->ord = agrow(a, p->ord, p->capord, &p->capord, sizeof *p->ord);
	key = p->ord;
	for (uint r = 0; r < n; r++) {
		const Reg *g = &fn->reg[r];
		if (g->range)
			key[r] = fn->range[g->range - 1].base + (uint)g->num;
		sorted &= !r || key[r] > key[r - 1];
	}
	if (sorted)
		return;
	by = arena_alloc(a, (n + 1) * sizeof *by);
	to = arena_alloc(a, (n + 1) * sizeof *to);
	old = arena_alloc(a, (n + 1) * sizeof *old);
	for (uint r = 0; r < n; r++)
		by[r] = r;
	sortby(by, to, n, key);
	memcpy(old, fn->reg, n * sizeof *old);
	for (uint k = 0; k < n; k++)
		to[by[k]] = k, fn->reg[k] = old[by[k]];
	for (uint k = 0; k < fn->nins; k++) {
		remap(&fn->ins[k].pred, to);
		for (uint j = 0; j < fn->ins[k].narg; j++)
			remap(&fn->ins[k].arg[j], to);
	}
	for (uint k = 0; k < fn->nmem; k++)
		remap(&fn->mem[k].base, to);
	for (uint k = 0; k < fn->nvec; k++)
		for (uint j = 0; j < fn->vec[k].n; j++)
			remap(&fn->vec[k].el[j], to);
	names_map(fn->regnames, to);
	names_map(fn->members, to);
}

// the head of function: linkage* (".entry" | ".func"), where linkage = ".visible" |
//   ".extern" | ".weak" (into fn->flags) | another directive (skipped)
static void
linkage(P *p, Fn *fn)
{
	for (;; next(p)) {
		if (tokis(p->tok, ".visible"))
			fn->flags |= FVISIBLE;
		else if (tokis(p->tok, ".extern"))
			fn->flags |= FEXTERN;
		else if (tokis(p->tok, ".weak"))
			fn->flags |= FWEAK;
		else if (tokis(p->tok, ".entry")) {
			fn->flags |= FENTRY;
			next(p);
			return;
		} else if (tokis(p->tok, ".func")) {
			next(p);
			return;
		} else if (p->tok.kind == TDIR)
			;
		else
			perr(p, p->tok.s, "expected '.func' or '.entry' before %s", tokdesc(p->tok));
	}
}

// function = linkage* (".entry" | ".func") ("(" params ")")? name ("(" params ")")?
//            perf* (body | ";")
static void
function(P *p)
{
	Module *m = p->m;
	Ins *it = newins(p, NULL, Ofn);
	Fn *fn = arena_alloc(m->arena, sizeof *fn);
	const char *b = p->tok.s, *pb;

	fn->mod = m;
	fn->line = p->tok.line;
	fn->lead = it->lead;
	linkage(p, fn);
	while (p->tok.kind == TDIR)   /* .noreturn, .attribute(.unified(...)) */
		if (tokis(p->tok, ".attribute"))
			attribute(p);
		else
			next(p);
	if (ispunct_(p->tok, '(') && (fn->flags & FENTRY))
		perr(p, p->tok.s, "a kernel returns nothing");
	if (ispunct_(p->tok, '('))
		fn->ret = paramlist(p, &fn->nret, PRET);
	isname(p, "a function name");
	fn->nameoff = p->tok.s - b;
	fn->headname = (Str){p->tok.s, p->tok.n};
	fn->sym = intern(m, p->tok.s, p->tok.n);
	next(p);
	if (p->tok.kind == TDIR && p->tok.adj)
		perr(p, p->tok.s, "a function name has no '.'");
	if (ispunct_(p->tok, '('))
		fn->par = paramlist(p, &fn->npar, fn->flags & FENTRY ? PENTRY : PIN);
	pb = p->tok.s;
	while (!ispunct_(p->tok, '{') && !ispunct_(p->tok, ';')) {
		if (tokis(p->tok, ".pragma")) {   /* entry-level: ends with its own ';' */
			tosemi(p);
			continue;
		}
		if (p->tok.kind == TEOF || (p->tok.kind != TDIR && p->tok.kind != TNUM
		    && p->tok.kind != TSTR && !ispunct_(p->tok, ',') && !ispunct_(p->tok, '(')
		    && !ispunct_(p->tok, ')') && p->tok.kind != TIDENT))
			perr(p, p->tok.s, "expected '{' or ';' before %s", tokdesc(p->tok));
		next(p);
	}
	fn->perf = pb < p->tok.s ? span(pb, p->lastend) : (Str){0};
	fn->head = span(b, p->lastend);
	fn->open = span(p->lastend, p->tok.s + 1);
	it->src = fn->head;
	m->fn = agrow(m->arena, m->fn, m->nfn, &m->capfn, sizeof *m->fn);
	m->fn[m->nfn] = fn;
	it->arg = arena_alloc(m->arena, sizeof(Ref));
	it->arg[0] = REF(RFn, m->nfn++);
	it->narg = 1;
	if (consume(p, ';')) {
		fn->flags |= FDECL;
		p->prevend = p->lastend;
		return;
	}
	next(p);
	p->prevend = p->lastend;
	p->fn = fn;
	borrow(p, fn);
	body(p, fn);
	regorder(p, fn);
	giveback(p, fn);
	p->fn = NULL;
}

// item = ".version" ... | ".target" ... | ".address_size" num | ".file" ...
//      | ".section" ... | ".pragma" ... ";" | linkage* (var | function)
static void
item(P *p)
{
	Tok t = p->tok;
	Module *m = p->m;

	if (tokis(t, ".version") || tokis(t, ".target") || tokis(t, ".address_size")) {
		Tok v = peek(p);
		Ins *i;
		uint64_t u = 0;
		raw(p, NULL, 1);
		i = &m->top[m->ntop - 1];
		if (v.line != t.line)   /* the directive alone: say so in verify() */
			v.s = i->src.s + i->src.n, v.kind = TEOF;
		if (tokis(t, ".version"))
			m->version = span(v.s, i->src.s + i->src.n);
		else if (tokis(t, ".target"))
			m->target = span(v.s, i->src.s + i->src.n);
		else if (v.kind == TNUM && numint((Str){v.s, v.n}, &u) && u < 1024)
			m->addrsize = (int)u;
		else
			m->addrsize = -1;
	} else if (tokis(t, ".file"))
		raw(p, NULL, 1);
	else if (tokis(t, ".section") || tokis(t, ".pragma") || tokis(t, ".alias"))
		raw(p, NULL, 0);
	else if (t.kind == TDIR) {
		/* linkage, then a variable or a function */
		Lexer save = p->lx;
		Tok st = p->tok, sn = p->nxt;
		int hn = p->hasnxt, isfn = 0;
		while (p->tok.kind == TDIR && (tokis(p->tok, ".visible") || tokis(p->tok, ".extern")
		       || tokis(p->tok, ".weak") || tokis(p->tok, ".common")))
			next(p);
		if (tokis(p->tok, ".func") || tokis(p->tok, ".entry"))
			isfn = 1;
		else if (!isspace_dir(p->tok))
			perr(p, p->tok.s, "unknown directive %s", tokdesc(p->tok));
		p->lx = save, p->tok = st, p->nxt = sn, p->hasnxt = hn;
		if (isfn)
			function(p);
		else
			var(p, NULL);
	} else
		perr(p, t.s, "expected a directive before %s", tokdesc(t));
}

// module = item* EOF
static Module *
parsein(Arena *a, const char *path, char *copy, size_t n)
{
	Module *m;
	P *p = arena_alloc(a, sizeof *p);
	volatile int ok = 0;

	m = arena_alloc(a, sizeof *m);
	m->arena = a;
	m->path = arena_strdup(m->arena, path);
	m->text = (Str){copy, n};
	p->m = m;
	p->path = m->path;
	lex_init(&p->lx, copy, n);
	p->prevend = copy;
	if (!setjmp(p->jb)) {
		p->tok = lex(&p->lx);
		p->lastend = copy;
		if (p->lx.bad)
			perr(p, p->lx.bad, *p->lx.bad == '"' ? "unterminated string" : "unterminated comment");
		while (p->tok.kind != TEOF)
			item(p);
		m->tailtext = span(p->prevend, copy + n);
		ok = 1;
	}
	if (!ok) {
		arena_free(m->arena);
		return NULL;
	}
	return m;
}

Module *
parse(const char *path, const char *text, size_t n)
{
	Arena *a = arena_new();
	char *copy = arena_alloc(a, n + 1);

	memcpy(copy, text, n);
	return parsein(a, path, copy, n);
}

/* read straight into the arena: a large file is held once */
Module *
parsefile(const char *path)
{
	Arena *a;
	char *s;
	size_t n = 0, k;
	FILE *f = fopen(path, "rb");

	if (!f || fseek(f, 0, SEEK_END) || (long)(n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		error("cannot read '%s': %s", path, strerror(errno));
		if (f)
			fclose(f);
		return NULL;
	}
	a = arena_new();
	s = arena_alloc(a, n + 1);
	k = fread(s, 1, n, f);
	fclose(f);
	if (k != n) {
		error("cannot read '%s'", path);
		arena_free(a);
		return NULL;
	}
	return parsein(a, path, s, n);
}

void
mod_free(Module *m)
{
	if (m)
		arena_free(m->arena);
}

/* mkins: one instruction from text, for passes (see ptx.h) */
Ins *
mkins(Fn *fn, const char *text)
{
	Module *m = fn->mod;
	P *p = arena_alloc(m->arena, sizeof *p);
	size_t n = strlen(text);
	char *copy = arena_alloc(m->arena, n + 1);
	Ins *i = NULL;
	uint at = fn->nins;

	memcpy(copy, text, n);
	p->m = m;
	p->path = "<mkins>";
	lex_init(&p->lx, copy, n);
	p->prevend = copy;
	if (setjmp(p->jb)) {
		fn->nins = at;
		return NULL;
	}
	p->tok = lex(&p->lx);
	p->lastend = copy;
	if (p->lx.bad)
		perr(p, p->lx.bad, "unterminated string");
	ins(p, fn);
	if (p->tok.kind != TEOF)
		perr(p, p->tok.s, "expected the end of the instruction before %s", tokdesc(p->tok));
	i = arena_alloc(m->arena, sizeof *i);
	*i = fn->ins[at];
	fn->nins = at;
	for (uint j = 0; j < i->narg; j++) {
		Ref *r = &i->arg[j];
		uint l;
		if (r->kind == RSym && (l = names_get(fn->lblnames, m->sym[r->idx].name.s,
		                                      m->sym[r->idx].name.n)) != ~0u)
			r->kind = RLbl, r->idx = l;
	}
	i->lead = (Str){0};
	i->src = (Str){0};
	i->sep = (Str){0};   /* cicc's " \t" */
	i->line = 0;
	return i;
}

static void
declreg(P *p, Fn *fn, uint r)
{
	const Reg *g = &fn->reg[r];
	const char *s = g->num < 0 ? g->pfx.s : regstr(fn, r);

	declare(p, &fn->regnames, s, g->num < 0 ? g->pfx.n : strlen(s), r);
}

/* the names of the { } scopes open at statement at, put over the
 * function's as the parser had them there (declare() keeps what they
 * hide in p->undo): those of a scope closed before at are taken back.
 * Keys stay in the tables, so they are names the function keeps: a
 * register not of a range has its whole name in pfx (num < 0) */
static void
scopesat(P *p, Fn *fn, uint at)
{
	uint *marks = NULL, cap = 0;

	for (uint k = 0; k < at && k < fn->nins; k++) {
		const Ins *i = &fn->ins[k];
		if (i->op == Oopen) {
			marks = agrow(p->m->arena, marks, p->scope, &cap, sizeof *marks);
			marks[p->scope++] = p->nundo;
		} else if (i->op == Oclose && p->scope)
			undo(p, marks[--p->scope]);
		else if (i->op == Oreg && p->scope && i->narg && i->arg[0].kind == RRange) {
			Str pfx = fn->range[i->arg[0].idx].pfx;
			declare(p, &fn->rangenames, pfx.s, pfx.n, i->arg[0].idx);
		} else if (i->op == Oreg && p->scope)
			for (uint a = 0; a < i->narg; a++)
				if (i->arg[a].kind == RReg)
					declreg(p, fn, i->arg[a].idx);
	}
}

Ins *
mkinsat(Fn *fn, uint at, const char *text)
{
	P p = {0};
	Ins *i;

	if (!(fn->flags & FSCOPED))
		return mkins(fn, text);
	p.m = fn->mod;
	scopesat(&p, fn, at);
	i = mkins(fn, text);
	undo(&p, 0);
	return i;
}
