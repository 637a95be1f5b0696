/* parse-ins.c: the parser's bodies (parse.c): instructions, their
 * operands (registers, immediates, constant expressions, addresses,
 * vectors and lists), labels, .loc, and the names a body resolves once
 * it is read. */
#include "ptx/parse.h"
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* a part of a register, written after it (PTX ISA, video instructions and
 * vector elements): ".b" and 1 to 4 byte numbers 0-7 (vadd4 d.b3210,
 * a.b7654; vadd a.b2), ".h" and 1 or 2 half numbers 0-3 (vadd2 .h10), or
 * one element letter (.x .y .z .w .r .g .b .a) */
static int
selector(const char *s, size_t n)
{
	size_t k = 2;
	if (n == 2 && strchr("xyzwrgba", s[1]))
		return 1;
	if (n < 3 || (s[1] != 'b' && s[1] != 'h') || n > (s[1] == 'b' ? 6u : 4u))
		return 0;
	while (k < n && s[k] >= '0' && s[k] <= (s[1] == 'b' ? '7' : '3'))
		k++;
	return k == n;
}

/* an identifier operand with the modifiers glued to it (%tid.x); with sel,
 * a declared register may carry a selector (%r6.b3210): the register, the
 * selector into *sel */
static Ref
name(P *p, Fn *fn, Str *sel)
{
	const char *b = p->tok.s, *e;
	uint r;

	next(p);
	e = p->lastend;
	while (p->tok.kind == TDIR && p->tok.adj)
		next(p);
	if ((r = lookreg(fn, b, p->lastend - b)) != ~0u)
		return REF(RReg, r);
	if (sel && *b == '%' && selector(e, p->lastend - e) && (r = lookreg(fn, b, e - b)) != ~0u) {
		*sel = span(e, p->lastend);
		return REF(RReg, r);
	}
	if (*b == '%') {
		r = addreg(p, fn, span(b, p->lastend), Tnone, ~0u);
		fn->reg[r].flags |= RGSPECIAL;
		names_put(p->m->arena, &fn->regnames, b, p->lastend - b, r);
		return REF(RReg, r);
	}
	return REF(RSym, intern(p->m, b, p->lastend - b));
}

static Ref
addimm(P *p, Fn *fn, Str text)
{
	fn->imm = agrow(p->m->arena, fn->imm, fn->nimm, &fn->capimm, sizeof *fn->imm);
	fn->imm[fn->nimm] = (Imm){text};
	return REF(RImm, fn->nimm++);
}

static Ref
imm(P *p, Fn *fn, const char *b)
{
	checknum(p, b, p->tok);
	next(p);
	return addimm(p, fn, span(b, p->lastend));
}

/* Constant expressions. The lexer goes on from e: the tokens of an
 * expression were read by cexpr(), on the text itself */
static void
resync(P *p, const char *e)
{
	for (const char *q = p->tok.s; q < e; q++)
		p->tok.line += *q == '\n';
	p->lx.p = e;
	p->lx.line = p->tok.line;
	p->hasnxt = 0;
	p->tok = (Tok){.s = e, .line = p->tok.line};
	next(p);
}

/* does an operator of a constant expression follow the token that ends
 * at e? Lexes a copy, past the one token of lookahead */
static int
opafter(P *p, const char *e)
{
	Lexer l = p->lx;
	Tok t;

	l.p = e;
	t = lex(&l);
	if (t.kind == TIDENT && t.n == 1 && *t.s == '%')
		return 1;
	return t.kind == TPUNCT && strchr("+-*/<>=!&|^?", *t.s);
}

/* the operand is a number with its sign, no expression: the forms the
 * parser read before it knew expressions, with their own errors */
static int
plainnum(P *p)
{
	if (p->tok.kind == TNUM)
		return !opafter(p, p->tok.s + p->tok.n);
	if (ispunct_(p->tok, '-') || ispunct_(p->tok, '+'))
		return peek(p).kind == TNUM && peek(p).adj && !opafter(p, p->nxt.s + p->nxt.n);
	return 0;
}

/* can a constant expression start here? After `!` or `(` only if a
 * constant, an operator or a cast follows: `!%p1` negates a predicate, and
 * `(` with a name in it, or any `(` in a call's operands, is a list */
static int
exprstart(P *p)
{
	Tok t = p->tok, n;

	if (t.kind == TNUM || ispunct_(t, '-') || ispunct_(t, '+') || ispunct_(t, '~'))
		return 1;
	if (!ispunct_(t, '!') && !(ispunct_(t, '(') && !p->call))
		return 0;
	n = peek(p);
	return n.kind == TNUM || (n.kind == TPUNCT && strchr("(-+~!", *n.s))
	       || (n.kind == TDIR && ispunct_(t, '('));
}

/* a constant expression: its text as written; *v its value */
static Str
exprtext(P *p, Cval *v)
{
	const char *b = p->tok.s, *msg;
	uint n;

	if ((msg = cexpr(span(b, p->lx.end), v, &n)))
		perr(p, b + n, "%s", msg);
	resync(p, b + n);
	return span(b, b + n);
}

/* an address's constant expression, which must be an integer */
static Str
addrexpr(P *p, Cval *v)
{
	Str t = exprtext(p, v);
	if (v->ty == Tf64)
		perr(p, t.s, "an address takes an integer, not '%.*s'", t.n > 40 ? 40 : (int)t.n, t.s);
	return t;
}

static Ref operand(P *p, Fn *fn, Str *sel);

/* list = operand ("," operand)*  up to the closing character c */
static Ref
list(P *p, Fn *fn, int kind, int c)
{
	Ref buf[64], *el = buf;
	uint n = 0, cap = countof(buf);

	/* PTX nests two deep at most ([tex, {x, y}]); the bound keeps the
	 * recursion off the end of the stack on hostile input */
	if (++p->depth > 4)
		perr(p, p->lastend - 1, "operands nested too deeply");
	if (!ispunct_(p->tok, c))
		for (;;) {
			if (n == cap) {
				Ref *nel = arena_alloc(p->m->arena, 2 * cap * sizeof *nel);
				memcpy(nel, el, n * sizeof *el);
				el = nel, cap *= 2;
			}
			el[n] = operand(p, fn, NULL);
			if (consume(p, '|'))
				continue;
			n++;
			if (!consume(p, ','))
				break;
		}
	expect(p, c);
	p->depth--;
	fn->vec = agrow(p->m->arena, fn->vec, fn->nvec, &fn->capvec, sizeof *fn->vec);
	fn->vec[fn->nvec] = (Vec){args(p, el, n), n};
	return REF(kind, fn->nvec++);
}

/* an address's integer: the offset, or the whole address ([8]) */
static void
addrnum(P *p, const char *b)
{
	if (p->tok.kind != TNUM)
		perr(p, p->tok.s, "expected an offset before %s", tokdesc(p->tok));
	if (checknum(p, b, p->tok) != NINT)
		perr(p, p->tok.s, "an address takes an integer, not %s", tokdesc(p->tok));
}

/* the offset after "[base+": a number, or an integer expression (`8+4`) */
static void
offset(P *p, Mem *m)
{
	const char *b = p->tok.s;
	uint64_t u;
	Cval v;

	if (!plainnum(p) && exprstart(p)) {
		m->offs = addrexpr(p, &v);
		m->off = (long)v.u;
		return;
	}
	if (ispunct_(p->tok, '-'))
		next(p);
	addrnum(p, b);
	next(p);
	m->offs = span(b, p->lastend);
	numint(m->offs, &u);
	m->off = (long)u;
}

/* addr = (reg | name | expr) ("+" expr)? ("," vec)?
 * (an expression that is a number is read as before expressions, with
 * its own errors: "[%r+-4]", "[8]") */
static Ref
addr(P *p, Fn *fn)
{
	Mem m = {0};
	Cval v;

	if (p->tok.kind == TIDENT)
		m.base = name(p, fn, NULL);
	else if (p->tok.kind == TNUM && plainnum(p)) {
		addrnum(p, p->tok.s);
		m.base = imm(p, fn, p->tok.s);
	} else if (exprstart(p))
		m.base = addimm(p, fn, addrexpr(p, &v));
	else
		perr(p, p->tok.s, "expected an address before %s", tokdesc(p->tok));
	if (ispunct_(p->tok, '-'))
		perr(p, p->tok.s, "expected '+' before the offset: PTX writes [%%r+-4]");
	if (consume(p, '+'))
		offset(p, &m);
	if (consume(p, ',')) {
		if (!consume(p, '{'))
			perr(p, p->tok.s, "expected '{' before %s", tokdesc(p->tok));
		m.vec = list(p, fn, RVec, '}');
	}
	expect(p, ']');
	fn->mem = agrow(p->m->arena, fn->mem, fn->nmem, &fn->capmem, sizeof *fn->mem);
	fn->mem[fn->nmem] = m;
	return REF(RMem, fn->nmem++);
}

// operand = "!"? (name sel? | ("-" | "+")? num | expr | "_" | "[" addr "]" | "{" list "}" | "(" list ")")
static Ref
operand(P *p, Fn *fn, Str *sel)
{
	int neg = !exprstart(p) && consume(p, '!');
	Cval v;
	Ref r;

	if (p->tok.kind == TIDENT && tokis(p->tok, "_") && !peek(p).adj)
		next(p), r = REF(RSink, 0);
	else if (p->tok.kind == TIDENT)
		r = name(p, fn, sel);
	else if (plainnum(p) && p->tok.kind == TNUM)
		r = imm(p, fn, p->tok.s);
	else if (plainnum(p)) {
		const char *b = p->tok.s;
		next(p);
		r = imm(p, fn, b);
	} else if (exprstart(p))
		r = addimm(p, fn, exprtext(p, &v));
	else if (consume(p, '['))
		r = addr(p, fn);
	else if (consume(p, '{'))
		r = list(p, fn, RVec, '}');
	else if (consume(p, '('))
		r = list(p, fn, RList, ')');
	else
		perr(p, p->tok.s, "expected an operand before %s", tokdesc(p->tok));
	r.neg = neg;
	return r;
}

// ins = ("@" "!"? reg)? opcode dir* (operand (("," | "|") operand)*)? ";"
void
ins(P *p, Fn *fn)
{
	Ins *i = newins(p, fn, 0);
	uint at = i - fn->ins, n = 0;
	Ref buf[16], *a = buf, pred = {0};
	Str sbuf[16], *sl = sbuf;
	int anysel = 0;
	uint cap = countof(buf);
	int op, flags = 0, ty = 0;
	Str nm, sep = {0};

	if (consume(p, '@')) {
		if (consume(p, '!'))
			flags |= INEGPRED;
		Tok pt = p->tok;
		if (pt.kind == TIDENT)
			pred = name(p, fn, NULL);
		if (pred.kind != RReg)
			perr(p, pt.s, "expected a predicate before %s", tokdesc(pt));
	}
	if (p->tok.kind != TIDENT)
		perr(p, p->tok.s, "expected an instruction before %s", tokdesc(p->tok));
	if ((op = opcode(p->tok.s, p->tok.n)) < 0)
		perr(p, p->tok.s, "unknown instruction %s", tokdesc(p->tok));
	nm.s = p->tok.s;
	next(p);
	while (p->tok.kind == TDIR && p->tok.adj) {
		int t = typeof_(p->tok.s + 1, p->tok.n - 1);
		if (t)
			ty = t;
		next(p);
	}
	nm.n = p->lastend - nm.s;
	p->call = op == Ocall;
	if (!ispunct_(p->tok, ';')) {
		sep = span(p->lastend, p->tok.s);
		for (;;) {
			if (n == cap) {
				Ref *na = arena_alloc(p->m->arena, 2 * cap * sizeof *na);
				Str *ns = arena_alloc(p->m->arena, 2 * cap * sizeof *ns);
				memcpy(na, a, n * sizeof *a);
				memcpy(ns, sl, n * sizeof *sl);
				a = na, sl = ns, cap *= 2;
			}
			sl[n] = (Str){0};
			a[n] = operand(p, fn, &sl[n]);
			anysel |= sl[n].s != NULL;
			if (consume(p, '|')) {
				n++;
				if (n == cap)
					perr(p, p->tok.s, "too many operands");
				sl[n] = (Str){0};
				a[n] = operand(p, fn, NULL);
				a[n].bar = 1;
			}
			n++;
			if (!consume(p, ','))
				break;
		}
	}
	if (!ispunct_(p->tok, ';'))
		perr(p, p->tok.s, "expected ';' before %s", tokdesc(p->tok));
	next(p);
	if (n > 0xffff)
		perr(p, nm.s, "too many operands");
	i = &fn->ins[at];
	i->op = op;
	i->ty = ty;
	i->flags = flags;
	i->pred = pred;
	i->name = nm;
	i->sep = sep;
	i->arg = args(p, a, n);
	i->narg = n;
	i->sel = NULL;
	if (anysel) {
		i->sel = arena_alloc(p->m->arena, n * sizeof *i->sel);
		memcpy(i->sel, sl, n * sizeof *sl);
	}
	endstmt(p, i);
}

static void
label(P *p, Fn *fn)
{
	Ins *i = newins(p, fn, Olabel);
	uint l = names_get(fn->lblnames, p->tok.s, p->tok.n);

	isname(p, "a label");
	if (l != ~0u && fn->lbl[l].ins != ~0u)
		perr(p, p->tok.s, "duplicate label %s", tokdesc(p->tok));
	if (l == ~0u) {
		fn->lbl = agrow(p->m->arena, fn->lbl, fn->nlbl, &fn->caplbl, sizeof *fn->lbl);
		l = fn->nlbl++;
		names_put(p->m->arena, &fn->lblnames, p->tok.s, p->tok.n, l);
	}
	fn->lbl[l] = (Lbl){{p->tok.s, p->tok.n}, i - fn->ins, 0};
	i->arg = arena_alloc(p->m->arena, sizeof(Ref));
	i->arg[0] = REF(RLbl, l);
	i->narg = 1;
	next(p);
	expect(p, ':');
	endstmt(p, i);
}

static void
loc(P *p, Fn *fn)
{
	Ins *i = newins(p, fn, Oloc);
	uint line = p->tok.line, k = 0;

	next(p);
	while (p->tok.kind != TEOF && p->tok.line == line) {
		if (p->tok.kind == TNUM && k < 3 && p->tok.adj == 0)
			i->loc[k++] = (uint)strtoul(p->tok.s, NULL, 0);
		else
			k = 3;
		next(p);
	}
	endstmt(p, i);
}

/* labels named by bra and call are resolved once the body is read */
static void
resolve(P *p, Fn *fn)
{
	for (uint k = 0; k < fn->nins; k++) {
		Ins *i = &fn->ins[k];
		if (i->op >= NOP)
			continue;
		for (uint j = 0; j < i->narg; j++) {
			Ref *r = &i->arg[j];
			uint l;
			if (r->kind != RSym)
				continue;
			l = names_get(fn->lblnames, p->m->sym[r->idx].name.s, p->m->sym[r->idx].name.n);
			if (l != ~0u && fn->lbl[l].ins != ~0u)
				r->kind = RLbl, r->idx = l;
			else if (i->op == Obra)
				perr(p, i->src.s, "undefined label '%.*s'",
				      (int)p->m->sym[r->idx].name.n, p->m->sym[r->idx].name.s);
		}
	}
}

// body = "{" stmt* "}"
// stmt = "{" | "}" | label | ".reg" ... | var | ".loc" ... | directive ... | ins
void
body(P *p, Fn *fn)
{
	uint depth = 0, *marks = NULL, capmarks = 0;

	for (;;) {
		Tok t = p->tok;
		if (t.kind == TEOF)
			perr(p, t.s, "expected '}' before end of file");
		if (ispunct_(t, '{')) {
			Ins *i = newins(p, fn, Oopen);
			next(p);
			endstmt(p, i);
			marks = agrow(p->m->arena, marks, depth, &capmarks, sizeof *marks);
			marks[depth++] = p->nundo;
			p->scope = depth;
		} else if (ispunct_(t, '}')) {
			if (depth == 0)
				break;
			undo(p, marks[--depth]);
			p->scope = depth;
			Ins *i = newins(p, fn, Oclose);
			next(p);
			endstmt(p, i);
		} else if (t.kind == TIDENT || ispunct_(t, '@')) {
			if (t.kind == TIDENT && ispunct_(peek(p), ':'))
				label(p, fn);
			else
				ins(p, fn);
		}
		else if (tokis(t, ".reg"))
			reg(p, fn);
		else if (isspace_dir(t))
			var(p, fn);
		else if (tokis(t, ".loc"))
			loc(p, fn);
		else if (tokis(t, ".file") || tokis(t, ".version") || tokis(t, ".target"))
			raw(p, fn, 1);
		else if (t.kind == TDIR)
			raw(p, fn, 0);
		else
			ins(p, fn);
	}
	fn->close = span(p->prevend, p->tok.s);
	next(p);
	p->prevend = p->lastend;
	resolve(p, fn);
}
