/* ptx.h: the PTX library: lexer, parser, IR, printer, editing, analyses.
 *
 *   lex.c parse*.c  text -> IR          table.c   opcodes, types, modifiers,
 *   print.c         IR -> text                    immediates, names
 *   edit.c          changing the IR     cfg.c     blocks, loops, def-use,
 *   verify*.c       what ptxas needs              instruction numbering
 *   dump.c          mpcc-opt -d         live.c    liveness, register pressure
 *                                       addr.c    where addresses come from
 *
 * Every analysis a pass needs is here, computed one way for all of them
 * (as QBE's live.c is for every pass of QBE).
 *
 * The IR is QBE's (doc/STYLE.md, "Data"): plain structs, arrays with counts,
 * operands as 32-bit handles (Ref) into per-function and per-module tables.
 * Everything lives in the module's arena and is dropped with mod_free().
 *
 * Lossless printing. The module keeps the source text. Every statement keeps
 * its leading trivia (whitespace and comments, `lead`) and its own text
 * (`src`) as spans of that text. The printer writes lead + src for a clean
 * statement, and lead + a canonical form built from the fields for a
 * statement that was created, edited (src.s == NULL) or that names a
 * register, label or symbol that was renamed since parsing. So
 * print(parse(x)) == x byte for byte, and an edited statement is printed
 * from the IR. mpcc-opt -p reprint forgets every src to test the canonical
 * printer (ptxas must give the same cubin).
 *
 * A function body is one array of statements (Ins) in text order. Pseudo
 * ops (Olabel, Oreg, Ovar, Oopen, Oclose, Oloc, Oraw) stand for the
 * statements that are not instructions, so a body prints in one loop and
 * editing is array insertion. Blocks (cfg.c) are index ranges of that array,
 * rebuilt by fillcfg() after an edit, like def-use (filldefuse()).
 *
 * Contract with passes (transforms/): change the IR only through edit.c, or
 * by changing fields and then calling ins_touch(); call fillcfg() and
 * filldefuse() again after edits that need them; never keep an Ins pointer
 * across an insertion (the array moves): keep indices.
 *
 * Layers: model -> ptx -> common. */
#ifndef MPCC_PTX_H
#define MPCC_PTX_H

#include <stdint.h>

#include "common/util.h"

typedef struct Str Str;
typedef struct Ref Ref;
typedef struct Ins Ins;
typedef struct Reg Reg;
typedef struct Range Range;
typedef struct Lbl Lbl;
typedef struct Sym Sym;
typedef struct Mem Mem;
typedef struct Vec Vec;
typedef struct Imm Imm;
typedef struct Param Param;
typedef struct Blk Blk;
typedef struct Use Use;
typedef struct Loop Loop;
typedef struct Fn Fn;
typedef struct Module Module;
typedef struct Names Names;
typedef struct Mods Mods;
typedef struct Cvt Cvt;
typedef struct Live Live;

/* a span of text: into the module's source, or arena memory */
struct Str {
	const char *s;
	uint n;
};

/* A set of small numbers (registers, blocks): bit i is bit i % 64 of word
 * i / 64. Sets of a kind are rows of one array, nwords(n) words a row. */
typedef uint64_t Word;
static inline uint nwords(uint n) { return (n + 63) / 64; }
static inline int bget(const Word *s, uint i) { return (int)(s[i / 64] >> (i % 64) & 1); }
static inline void bset(Word *s, uint i) { s[i / 64] |= (Word)1 << (i % 64); }
static inline void bclr(Word *s, uint i) { s[i / 64] &= ~((Word)1 << (i % 64)); }
/* d |= s over nw words; 1 if d changed */
static inline int
bor(Word *d, const Word *s, uint nw)
{
	int ch = 0;
	for (uint k = 0; k < nw; k++) {
		ch |= (d[k] | s[k]) != d[k];
		d[k] |= s[k];
	}
	return ch;
}

enum {
#define OP(name, jmp, ty, sm, ptx) O##name,
#include "ptx/ops.h"
#undef OP
	NOP,        /* end of the real opcodes; pseudo ops follow */
	Olabel,     /* NAME:                arg[0] = RLbl */
	Oreg,       /* .reg .f32 %f<13>;    arg[0] = RRange, arg[1] = RNum count (range)
	             *                      or args = the registers of a list */
	Ovar,       /* .local/.shared/.param/.const/.global .align 4 .b8 NAME[28] = {...};
	             *                      arg[0] = RSym name, tail = "[28] = {...}" */
	Oopen,      /* {  (a scope: call sequences, inline asm) */
	Oclose,     /* }  */
	Oloc,       /* .loc FILE LINE COL [...]:   loc[] holds the three numbers */
	Oraw,       /* any other directive, kept verbatim (.pragma, .file, .section,
	             * .version, .callprototype ...) */
	Ofn,        /* module level only: a .func/.entry; arg[0] = RFn */
	NPSEUDO
};

struct opinfo {
	const char *name;
	uchar jmp;
	uchar ty;           /* needs a type suffix */
	uchar sm, ptx;      /* least .target sm_NN and .version (x10) of the base form */
};
extern const struct opinfo opinfo[NPSEUDO];

/* the type suffix of a mnemonic or declaration (the last one: cvt.rn.f32.f64 -> Tf64) */
enum {
	Tnone, Tpred, Tb8, Tb16, Tb32, Tb64, Tb128, Tu8, Tu16, Tu32, Tu64,
	Ts8, Ts16, Ts32, Ts64, Tf16, Tf16x2, Tbf16, Tbf16x2, Tf32, Tf64, Ttf32,
	NTYPE
};
extern const char *const tyname[NTYPE];    /* "", "pred", "b8" ... */
extern const uchar tybits[NTYPE];          /* 0, 1, 8 ...: the width of a value in bits */

/* An operand. idx indexes the table its kind names. neg: written `!x`;
 * bar: written `a|b` (joined to the operand before it with '|'). */
enum {
	R0,       /* none */
	RReg,     /* fn->reg[idx] */
	RImm,     /* fn->imm[idx] */
	RSym,     /* mod->sym[idx]: a variable, function, parameter or other name */
	RLbl,     /* fn->lbl[idx] */
	RMem,     /* fn->mem[idx]: [base], [base+off], [base, {vec}] */
	RVec,     /* fn->vec[idx]: {a, b, c, d} */
	RList,    /* fn->vec[idx]: (a, b), the argument lists of call */
	RSink,    /* _ */
	RNum,     /* idx is a small non-negative number (pseudo-op operands) */
	RFn,      /* mod->fn[idx] (module items) */
	RRange,   /* fn->range[idx] (a .reg range's declaration) */
};
struct Ref {
	uint kind:4, neg:1, bar:1, idx:26;
};
#define REF(k, i) ((Ref){.kind = (k), .idx = (i)})
static inline int req(Ref a, Ref b) { return a.kind == b.kind && a.idx == b.idx; }

enum { /* Ins.flags */
	INEGPRED = 1 << 0,  /* guard is @!%p */
	IDIRTY = 1 << 1,    /* print from the fields even though src is known */
};
struct Ins {
	ushort op;      /* O* */
	uchar ty;       /* T*: type suffix of the mnemonic / declaration */
	uchar flags;    /* I* */
	ushort narg;
	Ref pred;       /* guard predicate, R0 if none */
	Ref *arg;
	Str *sel;       /* NULL, or per arg the part of its register it names, as
	                 * written after it: ".b3210" of vadd4's "%r6.b3210"
	                 * (bytes), ".h10" (halves), ".x" (an element); empty: none.
	                 * A pass that changes narg sets sel too */
	Str name;       /* mnemonic with its modifiers "ld.global.nc.u32", or the
	                 * directive up to its operands ".reg .f32", ".local .align 4 .b8" */
	Str sep;        /* between name and operands as written, " \t" when created */
	Str tail;       /* Ovar: text after the name up to ';' ("[28]", " = {1, 2}") */
	Str lead;       /* whitespace and comments before the statement */
	Str src;        /* the statement as written; NULL s (created) or IDIRTY:
	                 * print from the fields, keeping the line count of src */
	uint line;      /* line of the statement in the source, 0 if created */
	uint loc[3];    /* Oloc: file line col */
};

enum { /* Reg.flags */
	RGSPECIAL = 1 << 0, /* used without a .reg: %tid.x, %warpid ... */
	RGRENAMED = 1 << 1, /* name changed since parsing */
};
/* a register: printed as pfx followed by num unless num < 0 */
struct Reg {
	Str pfx;        /* "%f" for %f12 of a range; the whole name otherwise */
	int num;
	uchar ty;       /* T* of its .reg declaration */
	uchar flags;
	uint decl;      /* index of its Oreg in fn->ins, ~0u if none */
	uint range;     /* its .reg range: fn->range[range - 1]; 0 if none */
};

/* A .reg range %f<N>. Its members get a Reg when first named (member()),
 * in any order, so that memory and time follow the text, not the count
 * declared: ptxas takes %f<10000000> in a kernel of 120 bytes. */
struct Range {
	Str pfx;        /* "%f": its members' pfx */
	uint n;         /* members declared */
	uchar ty;
	uchar flags;    /* RGRENAMED, given to members made later */
	uint decl;      /* index of its Oreg in fn->ins, ~0u if none */
	uint base;      /* fn->nvreg when declared: the parser orders the members
	                 * it made by base + num, as if every member were a Reg */
};

struct Lbl {
	Str name;
	uint ins;       /* index of its Olabel in fn->ins */
	uint renamed;
};

struct Sym {
	Str name;
	uint renamed;
};

struct Mem {
	Ref base;       /* RReg or RSym */
	Ref vec;        /* R0, or RVec for [tex, {a, b}] */
	long off;
	Str offs;       /* the offset as written after '+' ("-4", "0x10"); empty: none */
};

struct Vec {
	Ref *el;
	uint n;
};

struct Imm {
	Str text;       /* as written: "0f3F800000", "-1", "0x10", "1.5" */
};

struct Param {
	Str decl;       /* ".param .u64" ... up to the name */
	Str name;
	Str tail;       /* "[16]" */
};

struct Blk {
	uint first, end;    /* statements fn->ins[first .. end) */
	uint *succ, nsucc;
	uint *pred, npred;
	uint rpo;           /* position in fn->rpo, ~0u if unreachable */
	uint loop;          /* innermost loop (index + 1 into fn->loop), 0: none */
	uint depth;         /* loop nesting depth, 0 outside loops */
};

/* def-use: for each register, the statements that define it and that use it */
struct Use {
	uint *def, ndef;    /* indices into fn->ins */
	uint *use, nuse;
};

struct Loop {
	uint head;          /* block index of the header */
	uint *blk, nblk;    /* blocks of the loop, header included */
	uint parent;        /* enclosing loop index + 1, 0: outermost */
	uint depth;         /* 1 for an outermost loop */
};

enum { /* Fn.flags */
	FENTRY = 1 << 0,    /* .entry (else .func) */
	FDECL = 1 << 1,     /* no body: ends with ';' */
	FVISIBLE = 1 << 2,
	FEXTERN = 1 << 3,
	FWEAK = 1 << 4,
	FRENAMED = 1 << 5,  /* name changed since parsing */
	FSCOPED = 1 << 6,   /* a .reg inside { }: mkinsat() looks for the scope */
};
struct Fn {
	Module *mod;
	uint flags;
	uint sym;           /* the name: mod->sym[sym] */
	Str lead;           /* trivia before the header */
	Str head;           /* header as written, up to "{" or ";" exclusive */
	uint nameoff;       /* offset of the name in head */
	Str headname;       /* the name as written in head */
	Param *ret; uint nret;
	Param *par; uint npar;
	Str perf;           /* performance directives as written (".maxntid 256, 1, 1") */
	uint line;
	Ins *ins; uint nins, cap;   /* the body, "{" and "}" excluded */
	Str open;           /* trivia before "{" and "{" itself ("\n{") */
	Str close;          /* trivia before "}" */
	Reg *reg; uint nreg, capreg;
	Range *range; uint nrange, caprange;
	uint nvreg;         /* registers as the text counts them (a range: all its
	                     * members) and as passes added them: newreg() numbers from it */
	Lbl *lbl; uint nlbl, caplbl;
	Imm *imm; uint nimm, capimm;
	Mem *mem; uint nmem, capmem;
	Vec *vec; uint nvec, capvec;
	Names *regnames;    /* name -> register (not members of ranges) */
	Names *rangenames;  /* prefix of a .reg range -> its fn->range index */
	Names *members;     /* (range, num) as 8 bytes -> the member's register */
	Names *lblnames;
	/* analyses */
	Blk *blk; uint nblk;
	uint *rpo; uint nrpo;
	uint *insblk;       /* block of each statement (fillcfg) */
	Use *use;           /* one per register (filldefuse) */
	Loop *loop; uint nloop;
};

struct Module {
	Arena *arena;
	const char *path;
	Str text;           /* the source */
	Ins *top; uint ntop, captop;   /* module items in order (Ofn, Ovar, Oraw) */
	Fn **fn; uint nfn, capfn;
	Sym *sym; uint nsym, capsym;
	Names *symnames;
	Str tailtext;       /* trivia after the last item */
	Str version, target;   /* ".version 9.0" -> "9.0"; ".target sm_80, debug" -> "sm_80, debug" */
	int addrsize;
	int nrenamed;       /* > 0: the printer checks operands for renamed names */
};

/* lex.c */
enum { TEOF, TIDENT, TDIR, TNUM, TSTR, TPUNCT };
typedef struct Tok Tok;
struct Tok {
	uchar kind;     /* T* above */
	uchar adj;      /* no whitespace before it */
	const char *s;
	uint n;
	uint line;
};
typedef struct Lexer Lexer;
struct Lexer {
	const char *p, *end, *start;
	uint line;
	const char *bad;    /* set when a character no token starts with was met */
};
void lex_init(Lexer *l, const char *s, size_t n);
Tok lex(Lexer *l);                  /* the next token, skipping trivia */
int tokis(Tok t, const char *s);    /* t's text equals s */

/* parse.c */
extern int ptx_quiet;   /* 1: parse errors are not printed (the fuzzer) */
/* Parse n bytes of PTX text (copied into the module). NULL after printing
 * "path:line:col: error: message", the line and a caret. */
Module *parse(const char *path, const char *text, size_t n);
Module *parsefile(const char *path);   /* NULL with a message if unreadable or bad */
void mod_free(Module *m);
/* parse-decl.c: the register named s, ~0u if none; a member of a range is
 * made on first use */
uint lookreg(Fn *fn, const char *s, uint n);
uint member(Fn *fn, uint g, int num);   /* member num of fn->range[g], made if new */

/* an instruction's name split at its dots: "ld.global.v2.f32" -> ld
 * global v2 f32 (part[0] is the opcode; "shared::cta" is one part) */
struct Mods {
	Str part[24];
	uint n;
	uchar t[4];     /* the types among the parts, in order */
	uint nt;
	uint vec;       /* 2, 4 or 8 for .v2, .v4, .v8; else 0 */
};

/* what a cvt does, read from its modifiers in any order: cicc writes
 * cvt.f64.f32 and cvt.rn.f32.f64, and under -use_fast_math the same casts
 * as cvt.ftz.f64.f32 and cvt.rn.ftz.f32.f64 */
struct Cvt {
	uchar dst, src;     /* the types: cvt.rn.f32.f64 converts f64 to f32 */
	char rnd;           /* 'n' 'z' 'm' 'p' (.rn .rz .rm .rp, or .rni ... with irnd); 0: none */
	uchar irnd;         /* rounds to an integral value (.rni .rzi .rmi .rpi) */
	uchar ftz, sat;     /* .ftz: f32 subnormals in or out are flushed to zero; .sat */
	uchar other;        /* a modifier besides these (.relu, .satfinite ...) */
};

/* table.c */
int tyof(Str s);                            /* T* of a type name ("f32"), Tnone if none */
/* a register may be of type t (.bf16, .bf16x2 and .tf32 are types of
 * instructions, held in .b16 and .b32 registers) */
int regtype(int t);
void modsplit(const Ins *i, Mods *md);
int modhas(const Mods *md, const char *m);  /* a part after the opcode is m */
/* a part after the opcode is the state space sp, or sp qualified
 * ("shared" in ld.shared::cta.f32) */
int modspace(const Mods *md, const char *sp);
int modtype(const Mods *md, int ty);        /* ty is among the type parts */
int hasmod(const Ins *i, const char *m);    /* modhas() of i's name */
int hasspace(const Ins *i, const char *sp); /* modspace() of i's name */
int cvtof(const Ins *i, Cvt *c);             /* 1 if i is a cvt of two types, else 0 */
int streq(Str s, const char *t);            /* s is t */
/* what a number is as ptxas reads it (PTX ISA 4.5), after an optional
 * sign: NF32 0fXXXXXXXX and NF64 0dXXXXXXXXXXXXXXXX (the bits), NREAL a
 * decimal real (1.5, 1., .5, 1e3, 1.5E-3), NINT an integer (12, 0x1F,
 * 0b101, 017 octal: a leading 0, as in C) with an optional U; NBAD if none */
enum { NBAD, NINT, NREAL, NF32, NF64 };
int numform(Str t);
/* an NINT's value (two's complement when negative); 0 if t is no NINT or
 * needs more than 64 bits */
int numint(Str t, uint64_t *u);
/* the value of an NREAL, NF32 or NF64; 0 if t is none, or a real beyond
 * the normal range of .f64 (ptxas: "Constant overflow") */
int numreal(Str t, double *v);
/* the value of an immediate as written: 'f' for 0fXXXXXXXX (f32 bits),
 * 'd' for 0dXXXXXXXXXXXXXXXX (f64 bits), 'n' for a real or an integer or
 * a constant expression of either ("1 << 5", "0.5 * 3.0"); 0 if t is none
 * of these */
int immnum(Str t, double *v);
/* numform() of a number; of a constant expression, NINT or NREAL by the
 * type of its value; NBAD if t is neither */
int immform(Str t);
/* the f32 value of an immediate as an .f32 operand reads it: 0f bits, a
 * number, or 0d bits rounded (ptxas takes an f64 constant there); 0 if it
 * is none of these */
int immf32(Str t, float *f);
int strpre(Str s, const char *t);           /* s starts with t */
Fn *findfn(Module *m, const char *name);   /* the definition, else a declaration */
/* the numbers of fn's performance directive d (".maxntid" in ".maxntid 64,
 * 1, 1": 3 of them), at most 3 into v; 0 where fn has none */
int perfdir(const Fn *fn, const char *d, uint v[3]);
char *symstr(const Module *m, uint sym);    /* a symbol's name, malloc'd */
const char *symname(const Module *m, uint sym);   /* the same, in the module's arena */
int opcode(const char *s, size_t n);   /* O*, or -1 */
/* the module's ".target sm_90a, debug": 90 (and 'a' in *arch if arch is
 * not NULL; 0 without a letter); 0 if it names no sm_NN */
int modtarget(const Module *m, char *arch);
/* the module's ".version 8.7": 87; 0 if it has none of the form M.m */
int modversion(const Module *m);
uint intern(Module *m, const char *s, size_t n);      /* mod->sym index, created if new */
/* for the library's own files */
uint names_get(const Names *t, const char *s, uint n);   /* ~0u if absent */
void names_put(Arena *a, Names **t, const char *s, uint n, uint v);
void names_map(Names *t, const uint *to);   /* each value v (but ~0u) becomes to[v] */
void *agrow(Arena *a, void *p, uint n, uint *cap, size_t size);  /* room for p[n] */

/* expr.c */
/* the value of a constant expression: ty Ts64 or Tu64 (u), or Tf64 (d) */
typedef struct Cval Cval;
struct Cval {
	uchar ty;
	uint64_t u;
	double d;
};
/* Read the constant expression at the start of t (PTX ISA, "Constant
 * Expressions"), as far as it goes: NULL, its value in *v and its length
 * in *len (to the end of its last token); or a message ("expected ')'
 * before ';'") with *len the offset of the problem in t. */
const char *cexpr(Str t, Cval *v, uint *len);

/* print.c */
/* Print the module; returns 0, or -1 if the output could not be written. */
int print(FILE *f, const Module *m);
char *printstr(const Module *m, size_t *len);   /* malloc'd */
void printins(FILE *f, const Fn *fn, const Ins *i);   /* canonical form, no lead */
void printref(FILE *f, const Fn *fn, Ref r);
char *regname(const Fn *fn, uint r, char *buf, size_t n);  /* "%f12" into buf */
/* a register's name, an operand as PTX text: in the module's arena */
const char *regstr(const Fn *fn, uint r);
const char *refstr(const Fn *fn, Ref r);
const char *instext(const Fn *fn, const Ins *i);   /* printins() into the arena */
/* FNV-1a of the function's instructions in canonical form (no .loc,
 * declarations or labels): what "the kernel's PTX changed" means to facts
 * measured on it (fiset's ptx parameter) */
uint fnhash(const Fn *fn);
void reprint(Module *m);    /* forget the source text: print everything from the IR */
/* the text of module item m->top[k] without its lead (in m's arena), e.g.
 * to adddecl() a declaration of one module into another */
const char *itemtext(const Module *m, uint k, size_t *len);   /* len: its length, or NULL */
Module *modcopy(const Module *m);   /* parse(print(m)): NULL if that fails */

/* edit.c */
/* Strings passed in are copied into the module's arena. */
Str str(Module *m, const char *s);
/* a fresh register %mpcc_<ty>_<n>, its .reg declared at bodystart(): in
 * scope in the whole body, even where a pass has put more .reg further
 * down (sfu's fast body follows the accurate one) */
uint newreg(Fn *fn, int ty);
/* the same, declared at statement at (top level: outside any { }): for code
 * inserted at bodystart(), which a .reg after a directive or a label among
 * the declarations would otherwise follow */
uint newregat(Fn *fn, int ty, uint at);
uint newlbl(Fn *fn, const char *name);   /* a label not yet placed; NULL name: fresh */
/* a body-level ".local .align ALIGN .b8 NAME[BYTES];" declared at
 * bodystart(): a per-thread array; returns its symbol (mod->sym index) */
uint newlocal(Fn *fn, const char *name, uint bytes, uint align);
uint findreg(const Fn *fn, const char *name);        /* ~0u if none */
uint findlbl(const Fn *fn, const char *name);        /* ~0u if none */
/* an instruction from text, e.g. "mov.u32 %r1, %warpid;" or "@%p1 bra $L1;",
 * resolved against fn (its registers, labels, the module's names); create
 * a label with newlbl() before naming it (it may be placed later). Not yet
 * inserted: pass it to ins_insert(). NULL with a message on a syntax error. */
Ins *mkins(Fn *fn, const char *text);
/* mkins() of an instruction to be inserted at statement at: its names
 * resolve as ptxas reads them there, in the { } scopes around at. Once
 * the parser has passed a '}', the registers declared inside (inline
 * asm's "{ .reg .f64 data<2>; ...}") leave the function's names, and a
 * name two sibling scopes declare names one of them at most: a pass that
 * writes such a register into text must say where the text goes */
Ins *mkinsat(Fn *fn, uint at, const char *text);
/* mkins() of printf-formatted text that the caller made: a syntax error is
 * a bug of the caller's (BUG) */
Ins *mkinsf(Fn *fn, const char *f, ...) __attribute__((format(printf, 2, 3)));
Ins *vmkinsf(Fn *fn, const char *f, va_list ap);
/* mkinsf() resolved at statement at (mkinsat()) */
Ins *mkinsfat(Fn *fn, uint at, const char *f, ...) __attribute__((format(printf, 3, 4)));
/* insert at position `at` (0 = first statement of the body; fn->nins = at
 * the end); a copy of *i is stored, the address is returned */
Ins *ins_insert(Fn *fn, uint at, const Ins *i);
/* put i in place of statement at, keeping its lead and line count (e.g.
 * div.rn.f64 -> an rcp.approx sequence's first instruction) */
Ins *ins_replace(Fn *fn, uint at, const Ins *i);
void ins_remove(Fn *fn, uint at);
uint bodystart(const Fn *fn);    /* first statement after the leading .reg/.local/... */
void ins_touch(Ins *i);                  /* fields changed: print from the IR */
void placelbl(Fn *fn, uint at, uint lbl);   /* insert "LBL:" at position at */
/* a register of a .reg range renames the whole range: %r<9> -> %q<9>
 * with pfx "%q" (num is kept); other registers take pfx as their name */
void reg_rename(Fn *fn, uint r, const char *pfx);
void lbl_rename(Fn *fn, uint l, const char *name);
void sym_rename(Module *m, uint sym, const char *name);
/* rename a .func/.entry and every reference to it in the module */
void fn_rename(Fn *fn, const char *name);
/* Copy the body of src (which may belong to another module) into dst at
 * position at. Registers, labels and body-level variables (.local, .param
 * inside { }) of the copy are renamed by appending suffix to their names
 * (%r12 -> %r_fast12 with suffix "_fast": the prefix of a range gets the
 * suffix so that .reg ranges stay ranges); their declarations are copied
 * too. Body-level .shared variables keep their names, so that warps running
 * either copy share them, and their declaration is copied only if dst has
 * none of that name. Names of src's parameters are mapped to dst's
 * parameters by position (same signature); other names (globals,
 * functions) are interned in dst's module unchanged. Returns the number of
 * statements inserted. */
uint clonebody(Fn *dst, uint at, const Fn *src, const char *suffix);
/* Copy a whole function (of another module, or the same) into m under
 * name, placed before the first function of m that is not a declaration
 * (so that definitions precede their use as in cicc output). Registers and
 * labels keep their names (they are function scoped). */
Fn *addfn(Module *m, const Fn *src, const char *name);
/* Add a module-level declaration (e.g. ".extern .func (...) vprintf(...);"
 * or ".global .align 4 .b8 x[4];") unless one with the same name exists.
 * The text is parsed. Returns 1 if added, 0 if present, -1 on bad text. */
int adddecl(Module *m, const char *text);
int adddecln(Module *m, const char *text, size_t n);   /* text of n bytes (itemtext's) */

/* cfg.c */
/* blocks: a block starts at a label that a branch names, or after a jump; fills blk, succ, pred,
 * rpo, insblk. needs nothing; breaks nothing */
void fillcfg(Fn *fn);
/* def-use of registers; needs nothing (works on statements) */
void filldefuse(Fn *fn);
/* natural loops from back edges (an edge to a block that dominates its
 * source); loop, depth of every block. needs cfg */
void fillloops(Fn *fn);
/* the loops of fn in the order their headers come in the text: the order
 * of measured trip counts (fiset's trips, shadow's mpcc-trips lines);
 * order[i] indexes fn->loop. needs loops; in the module's arena */
uint *looporder(const Fn *fn);
/* the .loc line of statement i (the nearest .loc before it), 0 if none;
 * *file receives the file number if file is not NULL */
uint insline(const Fn *fn, uint i, uint *file);
/* where the function of that .loc was inlined (its inlined_at: the call
 * site), 0 if it was not; *file receives the file number */
uint inlinedat(const Fn *fn, uint i, uint *file);
/* the path that the module's ".file N" names, as written; NULL if none
 * (in the module's arena) */
const char *locfile(const Module *m, uint file);
/* is register r defined more than once (e.g. loop-carried)? needs defuse */
int multidef(const Fn *fn, uint r);
/* operands: which args of i are defined (written) by it */
int isdef(const Ins *i, uint argi);
/* every register operand of i, special registers included: f(arg, r, def)
 * for the guard, each register, the base of each address and each element
 * of a vector (an address's registers are read) */
void forregs(const Fn *fn, const Ins *i, void (*f)(void *arg, uint r, int def), void *arg);
/* each statement's ordinal among the instructions (labels, declarations
 * and .loc not counted, so -lineinfo does not change it): the numbering of
 * instructions that mpcc-tune, fiset's report and the shadow pass share;
 * in the module's arena */
uint *ordinals(const Fn *fn);

/* live.c */
enum { LGUARDED = 1 << 0 };   /* a guarded write does not kill (the value may live on) */
/* the registers live into and out of each block (special registers never):
 * nw words a row, a row per block */
struct Live {
	uint nw;
	int flags;      /* LGUARDED */
	Word *in, *out;
};
/* live registers by the usual backward dataflow; in the module's arena.
 * needs cfg */
Live *filllive(const Fn *fn, int flags);
/* live = the registers live before instruction i, from those live after it */
void liveback(const Fn *fn, const Ins *i, Word *live, int flags);
/* register pressure: the most units live at once, a register weighing
 * unit[r] (e.g. its 32-bit registers: regunits()) */
int pressure(const Fn *fn, const Live *l, const uchar *unit);
/* the 32-bit registers r takes: 0 for predicates and special registers */
int regunits(const Fn *fn, uint r);

/* addr.c: where each address of a function comes from (store's
 * question: may the array a pointer parameter points to live in another
 * form?). needs nothing; in the module's arena */
struct access {
	uint ins;           /* the statement (fn->ins index) */
	uchar ty;           /* its element type (ld.global.v2.f64: Tf64), Tnone: it moves bytes */
	uchar raw;          /* the mnemonic's type: ty, or for a store of integer constants
	                     * (cicc stores 0.0 as st.global.u64 [a], 0) their type, ty
	                     * then the floating type of their width: the constants are
	                     * its bits (immof()), whatever the array holds */
	uchar vec;          /* 2, 4, 8 for a vector, else 0 */
	uchar read, write, atomic;
	uchar global;       /* its address was cvta'd to the global space (else generic) */
};
struct ptrparam {       /* a parameter of the function, as an address */
	struct access *acc; /* every access through it, in text order */
	uint nacc, cap;
	uchar ty;           /* the element type its accesses share (Tnone: none) */
	uchar read, write;
	const char *why;    /* why its array may not live in another form (it escapes,
	                     * mixed types...); NULL: it may, if ty is f64 or f32 */
};
struct addrs {
	struct ptrparam *par;   /* per parameter */
	uint npar;
	const char *open;       /* why the function may reach global memory that no
	                         * parameter points to (NULL: it cannot), at statement openat */
	uint openat;
	uint *org;              /* per register: its origin (addrparam() reads it) */
};
struct addrs *filladdrs(Fn *fn);
/* the immediate that value operand v is: itself, or what register v
 * holds when its one definition is an unguarded mov of an immediate
 * (cicc writes mov.u64 %rd5, 0; st.global.u64 [%rd4], %rd5 for 0.0); R0
 * if neither */
Ref immof(const Fn *fn, Ref v);
/* the parameter whose array register r is an address into, or -1; *global
 * (may be NULL): cvta'd to the global space, else generic */
int addrparam(const struct addrs *a, uint r, int *global);

/* verify.c */
/* Check what ptxas and the passes rely on (as LLVM's verifier does after
 * every pass, and before the first: a pass's contract starts from PTX that
 * verifies): the module's .version and .target; registers declared once,
 * with a type that fits each use, and defined before they are used;
 * labels, callees and symbols resolve; operand counts, vector sizes,
 * predicates and immediates; the types and modifiers of each opcode and
 * the .target/.version each instruction needs. Prints "path:line: error: ..."
 * and the statement for each problem to err (NULL: silent) and returns
 * their number. Runs fillcfg() on every function. */
int verify(Module *m, FILE *err);
/* the same, and the problems of each function m->fn[k] into nerr[k] (the
 * rest, the total less their sum, are the module's own) */
int verifyeach(Module *m, FILE *err, uint *nerr);
/* verify-ops.c: the type argument a of i takes by its opcode's shape
 * (PTX ISA 9.4): selp.f64's fourth is .pred, shl.b64's third .u32, setp's
 * results .pred; Tnone where the shape is unknown or takes anything */
int argtype(const Ins *i, uint a);

/* dump.c: the readable dumps that mpcc-opt -d prints and the tests check */
void dumpcfg(FILE *f, Fn *fn);
void dumpdefuse(FILE *f, Fn *fn);
void dumpir(FILE *f, Fn *fn);

#endif
