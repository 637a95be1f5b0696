/* verify-ops.c: the verifier's instructions. Each has a type its opcode
 * takes, the type suffix and the rounding or .approx modifier the ISA
 * requires and only the modifiers of that kind of type, the operand count
 * and types its shape gives (PTX ISA 9.4), and the .target and .version
 * it needs (ops.h, and the forms below). */
#include "ptx/verify.h"
#include <string.h>

/* types */

static int isbit(int t) { return t >= Tb8 && t <= Tb128; }
static int isint(int t) { return t >= Tu8 && t <= Ts64; }
static int isflt(int t) { return t >= Tf16 && t <= Ttf32; }

/* the type twice as wide (mul.wide.s32 writes an s64) */
static int
wide(int t)
{
	switch (t) {
	case Tu16: return Tu32;
	case Tu32: return Tu64;
	case Ts16: return Ts32;
	case Ts32: return Ts64;
	case Tb16: return Tb32;
	case Tb32: return Tb64;
	}
	return Tnone;
}

/* does a register of type r fit an operand of type t (PTX ISA 9.4, Table
 * 26)? relaxed: ld, st and cvt also take a wider register (Tables 27, 28) */
static int
fits(int r, int t, int relaxed)
{
	if (!r || !t)
		return 1;
	if (r == Tpred || t == Tpred)
		return r == t;
	if (tybits[r] < tybits[t])
		return 0;
	if (tybits[r] > tybits[t])
		return relaxed && (isbit(r) || (isint(r) && !isflt(t)) || (isflt(r) && isbit(t)));
	if (isflt(t) && isflt(r))
		return r == t;
	if (isflt(t) || isflt(r))
		return isbit(t) || isbit(r);
	return 1;
}

/* modifiers */

static int
frnd(const Mods *md)
{
	return modhas(md, "rn") || modhas(md, "rz") || modhas(md, "rm") || modhas(md, "rp")
	       || modhas(md, "rna") || modhas(md, "rs");
}

static int
irnd(const Mods *md)
{
	return modhas(md, "rni") || modhas(md, "rzi") || modhas(md, "rmi") || modhas(md, "rpi");
}

/* instructions */

#define NM(i) (int)(i)->name.n, (i)->name.s

static void
cvtround(V *v, uint k, const Mods *md)
{
	const Ins *i = &v->fn->ins[k];
	int d = md->t[0], a = md->t[1], f = frnd(md), n = irnd(md);
	int needf = 0, needn = 0;

	if (md->nt != 2)
		return;
	if (isflt(d) && isflt(a)) {
		if (tybits[d] < tybits[a] || d == Tf16x2 || d == Tbf16x2 || d == Ttf32)
			needf = 1;
		else if (tybits[d] > tybits[a] && (f || n))
			errat(v, k, "'%.*s' widens: it takes no rounding modifier", NM(i));
		else if (d == a && f)
			errat(v, k, "'%.*s' takes only an integer rounding modifier (.rni, .rzi, .rmi, .rpi)", NM(i));
	} else if (isflt(d))
		needf = 1;
	else if (isflt(a))
		needn = 1;
	else if (f || n)
		errat(v, k, "'%.*s' converts integers: it takes no rounding modifier", NM(i));
	if (needf && (!f || n))
		errat(v, k, "'%.*s' needs a rounding modifier (.rn, .rz, .rm, .rp)", NM(i));
	if (needn && (!n || f))
		errat(v, k, "'%.*s' needs an integer rounding modifier (.rni, .rzi, .rmi, .rpi)", NM(i));
}

/* how many of the parts are types that no register has, so not in
 * tyname[]: lanes (add.u16x2 works on .b32 registers) and the 8-, 6- and
 * 4-bit floats of cvt (cvt.rn.f16x2.e4m3x2 %r1, %rs1) */
static int
othertypes(const Mods *md)
{
	static const char *const names[] = {"u16x2", "s16x2", "f32x2", "e4m3", "e5m2", "e4m3x2",
		"e5m2x2", "e2m3x2", "e3m2x2", "e2m1x2", "e2m1x4", "ue8m0x2", "s2f6x2"};
	int n = 0;

	for (size_t j = 0; j < countof(names); j++)
		n += modhas(md, names[j]);
	return n;
}

/* the type suffix, and the rounding and .approx modifiers that have no
 * default (PTX ISA 9.7.3 and cvt; ptxas 13 rejects each one missing) */
static void
suffixes(V *v, uint k, const Mods *md)
{
	const Ins *i = &v->fn->ins[k];
	int t = md->nt ? md->t[0] : Tnone, ap = modhas(md, "approx");

	if (opinfo[i->op].ty && !md->nt && !othertypes(md)) {
		errat(v, k, "'%.*s' needs a type suffix", NM(i));
		return;
	}
	switch (i->op) {
	case Odiv:
		if (t == Tf32 && !ap && !modhas(md, "full") && !frnd(md))
			errat(v, k, "'%.*s' needs .approx, .full or a rounding modifier (.rn, .rz, .rm, .rp)", NM(i));
		if (t == Tf64 && (ap || modhas(md, "full")))
			errat(v, k, "'%.*s': an .f64 division takes a rounding modifier, not .approx or .full", NM(i));
		else if (t == Tf64 && !frnd(md))
			errat(v, k, "'%.*s' needs a rounding modifier (.rn, .rz, .rm, .rp)", NM(i));
		break;
	case Orcp:
	case Osqrt:
		if (t == Tf32 && !ap && !frnd(md))
			errat(v, k, "'%.*s' needs .approx or a rounding modifier (.rn, .rz, .rm, .rp)", NM(i));
		if (t == Tf64 && ap && (i->op == Osqrt || !modhas(md, "ftz")))
			errat(v, k, "'%.*s': of the .f64 approximations only rcp.approx.ftz.f64 exists", NM(i));
		else if (t == Tf64 && !ap && !frnd(md))
			errat(v, k, "'%.*s' needs a rounding modifier (.rn, .rz, .rm, .rp)", NM(i));
		break;
	case Orsqrt: case Osin: case Ocos: case Olg2: case Oex2: case Otanh:
		if (isflt(t) && !ap)
			errat(v, k, "'%.*s' needs .approx", NM(i));
		break;
	case Ofma:
	case Omad:
		if (isflt(t) && !frnd(md))
			errat(v, k, "'%.*s' needs a rounding modifier (.rn, .rz, .rm, .rp)", NM(i));
		break;
	case Ocvt:
		cvtround(v, k, md);
		break;
	}
}

/* The types each opcode takes (its first type suffix), as ptxas 13 takes
 * them (probed with every type on every opcode here); an opcode not
 * listed is not checked. */
#define B(t) (1u << (t))
#define INT (B(Tu16) | B(Tu32) | B(Tu64) | B(Ts16) | B(Ts32) | B(Ts64))
#define SINT (B(Ts16) | B(Ts32) | B(Ts64))
#define BITS (B(Tb16) | B(Tb32) | B(Tb64))
#define FLT (B(Tf32) | B(Tf64))
#define HALF (B(Tf16) | B(Tf16x2) | B(Tbf16) | B(Tbf16x2))
#define MEM (B(Tb8) | B(Tu8) | B(Ts8) | BITS | B(Tb128) | INT | FLT)
static const struct optype {
	ushort op;
	uint types;
} optypes[] = {
	{Oadd, INT | HALF | FLT}, {Osub, INT | HALF | FLT}, {Omul, INT | HALF | FLT},
	{Omad, INT | FLT}, {Omul24, B(Tu32) | B(Ts32)}, {Omad24, B(Tu32) | B(Ts32)},
	{Osad, INT}, {Odiv, INT | FLT}, {Orem, INT}, {Oabs, SINT | HALF | FLT},
	{Oneg, SINT | HALF | FLT}, {Omin, INT | HALF | FLT}, {Omax, INT | HALF | FLT},
	{Opopc, B(Tb32) | B(Tb64)}, {Oclz, B(Tb32) | B(Tb64)}, {Obrev, B(Tb32) | B(Tb64)},
	{Obfi, B(Tb32) | B(Tb64)}, {Obfind, B(Tu32) | B(Tu64) | B(Ts32) | B(Ts64)},
	{Obfe, B(Tu32) | B(Tu64) | B(Ts32) | B(Ts64)}, {Oand, B(Tpred) | BITS},
	{Oor, B(Tpred) | BITS}, {Oxor, B(Tpred) | BITS}, {Onot, B(Tpred) | BITS},
	{Ocnot, BITS}, {Oshl, BITS}, {Oshr, BITS | INT}, {Osetp, BITS | INT | HALF | FLT},
	{Oselp, BITS | INT | FLT}, {Omov, B(Tpred) | BITS | B(Tb128) | INT | FLT},
	{Old, MEM}, {Oldu, MEM}, {Ost, MEM}, {Orcp, FLT}, {Osqrt, FLT}, {Orsqrt, FLT},
	{Osin, B(Tf32)}, {Ocos, B(Tf32)}, {Olg2, B(Tf32)}, {Oex2, HALF | B(Tf32)},
	{Otanh, HALF | B(Tf32)}, {Ofma, HALF | FLT}, {Otestp, FLT}, {Ocopysign, FLT},
	{Oprmt, B(Tb32)}, {Olop3, B(Tb32)}, {Oaddc, INT}, {Osubc, INT},
	{Ocvta, B(Tu32) | B(Tu64)},
};

static const char *const cmps[] = {"eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs",
	"equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"};

/* the comparison of setp and set: one, and one that the type has (eq
 * and ne for bits, lo ls hi hs for unsigned too, the unordered ones and
 * num and nan for floating point); .and, .or or .xor with a predicate
 * operand, and only then */
static void
compare(V *v, uint k, const Mods *md)
{
	const Ins *i = &v->fn->ins[k];
	int t = i->op == Oset ? (md->nt > 1 ? md->t[1] : Tnone) : md->nt ? md->t[0] : Tnone;
	int c = -1, boolop = modhas(md, "and") || modhas(md, "or") || modhas(md, "xor");
	uint n = 0;

	for (uint j = 0; j < countof(cmps); j++)
		if (modhas(md, cmps[j]))
			c = (int)j;
	if (c < 0) {
		errat(v, k, "'%.*s' needs a comparison (.eq, .ne, .lt, .le, .gt, .ge ...)", NM(i));
		return;
	}
	if (t && ((isbit(t) && c > 1) || (t >= Ts8 && t <= Ts64 && c > 5)
	          || (t >= Tu8 && t <= Tu64 && c > 9) || (isflt(t) && c >= 6 && c <= 9)))
		errat(v, k, "'%.*s': .%s does not compare .%s", NM(i), cmps[c], tyname[t]);
	if (t && (!isflt(t) || t == Tbf16 || t == Tbf16x2) && modhas(md, "ftz"))
		errat(v, k, "'%.*s': .ftz is for floating-point types other than .bf16", NM(i));
	if (i->op == Oset && md->nt > 1 && !(B(md->t[0]) & (B(Tu32) | B(Ts32) | B(Tf32) | HALF)))
		errat(v, k, "'%.*s': set writes .u32, .s32, .f32 or a half type, not .%s", NM(i),
		      tyname[md->t[0]]);
	if (i->op == Oset && md->nt < 2)
		errat(v, k, "'%.*s' needs the type of its result and of its sources", NM(i));
	for (uint a = 0; a < i->narg; a++)
		n += !i->arg[a].bar;
	if (boolop && n == 3)
		errat(v, k, "'%.*s' needs the predicate its .and, .or or .xor combines", NM(i));
	if (!boolop && n == 4)
		errat(v, k, "'%.*s': a predicate operand needs .and, .or or .xor", NM(i));
}

static int mixed(const Ins *i, const Mods *md);

/* the opcode takes the type; its modifiers are for that kind of type */
static void
types(V *v, uint k, const Mods *md)
{
	const Ins *i = &v->fn->ins[k];
	int t = md->nt ? md->t[0] : Tnone, arith = 0;

	if (i->op == Osetp || i->op == Oset)
		compare(v, k, md);
	if (!t || (md->nt > 1 && i->op != Oset && i->op != Ocvt && !mixed(i, md)))
		return;   /* a second type: operands() says it */
	for (size_t j = 0; j < countof(optypes); j++)
		if (optypes[j].op == i->op && !(optypes[j].types & B(t))) {
			errat(v, k, "'%.*s': %s takes no .%s", NM(i), opinfo[i->op].name, tyname[t]);
			return;
		}
	switch (i->op) {
	case Oadd: case Osub: case Omul: case Omad: case Odiv: case Orem: case Omin: case Omax:
	case Oabs: case Oneg:
		arith = 1;
	}
	if (arith && isint(t) && (frnd(md) || modhas(md, "ftz") || modhas(md, "approx")
	                          || modhas(md, "full")))
		errat(v, k, "'%.*s': its rounding and .ftz, .approx, .full are for floating-point types",
		      NM(i));
	if ((i->op == Omul || i->op == Omad) && isint(t)
	    && !modhas(md, "lo") && !modhas(md, "hi") && !modhas(md, "wide"))
		errat(v, k, "'%.*s' needs .lo, .hi or .wide", NM(i));
	if ((i->op == Omul || i->op == Omad) && !isint(t)
	    && (modhas(md, "lo") || modhas(md, "hi") || modhas(md, "wide")))
		errat(v, k, "'%.*s': .lo, .hi and .wide are for integer types", NM(i));
	if ((i->op == Omul || i->op == Omad) && modhas(md, "wide") && tybits[t] > 32)
		errat(v, k, "'%.*s': .wide is for 16- and 32-bit integers", NM(i));
	if ((t == Tbf16 || t == Tbf16x2) && i->op != Oex2 && i->op != Osetp && modhas(md, "ftz"))
		errat(v, k, "'%.*s': .bf16 takes no .ftz", NM(i));
	if (i->op == Oex2 && (t == Tf16 || t == Tf16x2) && modhas(md, "ftz"))
		errat(v, k, "'%.*s': ex2 of .f16 takes no .ftz", NM(i));
	if (i->op == Oex2 && (t == Tbf16 || t == Tbf16x2) && !modhas(md, "ftz"))
		errat(v, k, "'%.*s': ex2 of .bf16 needs .ftz", NM(i));
	if (i->op == Ocvta && v->m->addrsize > 0 && tybits[t] != v->m->addrsize)
		errat(v, k, "'%.*s': an address is .u%d here (.address_size)", NM(i), v->m->addrsize);
	if (i->op == Ocvt && md->nt + othertypes(md) != 2)
		errat(v, k, "'%.*s' needs the type of its result and of its source", NM(i));
	if ((i->op == Oadd || i->op == Osub) && isint(t) && t != Ts32 && modhas(md, "sat"))
		errat(v, k, "'%.*s': .sat on an integer is for .s32 only", NM(i));
	if ((i->op == Oabs || i->op == Oneg || i->op == Omin || i->op == Omax) && frnd(md))
		errat(v, k, "'%.*s' takes no rounding modifier", NM(i));
}
#undef B

/* forms that need more than their opcode's base form (ops.h): a type or a
 * modifier among the parts of the name, from the "Target ISA Notes" */
static const struct form {
	ushort op;
	const char *part;
	uchar sm, ptx;
} forms[] = {
	{Oadd, "f16", 53, 42}, {Oadd, "f16x2", 53, 42}, {Osub, "f16", 53, 42},
	{Osub, "f16x2", 53, 42}, {Omul, "f16", 53, 42}, {Omul, "f16x2", 53, 42},
	{Ofma, "f16", 53, 42}, {Ofma, "f16x2", 53, 42}, {Oneg, "f16", 53, 60},
	{Oneg, "f16x2", 53, 60}, {Oabs, "f16", 53, 65}, {Oabs, "f16x2", 53, 65},
	{Osetp, "f16", 53, 42}, {Osetp, "f16x2", 53, 42}, {Oset, "f16", 53, 42},
	{Oset, "f16x2", 53, 42},
	{Oadd, "bf16", 90, 78}, {Oadd, "bf16x2", 90, 78}, {Osub, "bf16", 90, 78},
	{Osub, "bf16x2", 90, 78}, {Omul, "bf16", 90, 78}, {Omul, "bf16x2", 90, 78},
	{Ofma, "bf16", 80, 70}, {Ofma, "bf16x2", 80, 70}, {Ofma, "relu", 80, 70},
	{Oneg, "bf16", 80, 70}, {Oneg, "bf16x2", 80, 70}, {Oabs, "bf16", 80, 70},
	{Oabs, "bf16x2", 80, 70}, {Osetp, "bf16", 90, 78}, {Osetp, "bf16x2", 90, 78},
	{Oset, "bf16", 90, 78}, {Oset, "bf16x2", 90, 78},
	{Omin, "f16", 80, 70}, {Omin, "f16x2", 80, 70}, {Omin, "bf16", 80, 70},
	{Omin, "bf16x2", 80, 70}, {Omax, "f16", 80, 70}, {Omax, "f16x2", 80, 70},
	{Omax, "bf16", 80, 70}, {Omax, "bf16x2", 80, 70}, {Omin, "NaN", 80, 70},
	{Omax, "NaN", 80, 70}, {Omin, "xorsign", 86, 72}, {Omax, "xorsign", 86, 72},
	{Oex2, "f16", 75, 70}, {Oex2, "f16x2", 75, 70}, {Oex2, "bf16", 90, 78},
	{Oex2, "bf16x2", 90, 78}, {Otanh, "bf16", 90, 78}, {Otanh, "bf16x2", 90, 78},
	{Oadd, "f32x2", 100, 86}, {Osub, "f32x2", 100, 86}, {Omul, "f32x2", 100, 86},
	{Ofma, "f32x2", 100, 86}, {Oadd, "u16x2", 90, 80}, {Oadd, "s16x2", 90, 80},
	{Ocvt, "f16x2", 80, 70}, {Ocvt, "bf16", 80, 70}, {Ocvt, "bf16x2", 80, 70},
	{Ocvt, "tf32", 80, 70}, {Ocvt, "relu", 80, 70},
	{Oatom, "f64", 60, 50}, {Ored, "f64", 60, 50}, {Oatom, "f16x2", 60, 62},
	{Ored, "f16x2", 60, 62}, {Oatom, "f16", 70, 63}, {Ored, "f16", 70, 63},
	{Oatom, "bf16", 90, 78}, {Oatom, "bf16x2", 90, 78}, {Ored, "bf16", 90, 78},
	{Ored, "bf16x2", 90, 78},
	{Old, "b128", 70, 83}, {Ost, "b128", 70, 83}, {Omov, "b128", 70, 83},
	{Ocp, "bulk", 90, 80}, {Oshfl, "sync", 30, 60}, {Ovote, "sync", 30, 60},
	{Obar, "warp", 30, 60}, {Ofence, "proxy", 70, 75}, {Omembar, "proxy", 60, 75},
};

/* add/sub/fma.f32.f16 (and .bf16): an f32 result of f16 inputs (PTX ISA
 * 8.6, sm_100); the only second type an arithmetic shape takes */
static int
mixed(const Ins *i, const Mods *md)
{
	return (i->op == Oadd || i->op == Osub || i->op == Ofma) && md->nt == 2 &&
	       md->t[0] == Tf32 && (md->t[1] == Tf16 || md->t[1] == Tbf16);
}

static void
needs(V *v, uint k, const Mods *md)
{
	const Ins *i = &v->fn->ins[k];
	int sm = opinfo[i->op].sm, ptx = opinfo[i->op].ptx;

	for (size_t f = 0; f < countof(forms); f++)
		if (forms[f].op == i->op && modhas(md, forms[f].part)) {
			sm = sm > forms[f].sm ? sm : forms[f].sm;
			ptx = ptx > forms[f].ptx ? ptx : forms[f].ptx;
		}
	if (mixed(i, md))
		sm = sm > 100 ? sm : 100, ptx = ptx > 86 ? ptx : 86;
	if (v->sm && sm > v->sm)
		errat(v, k, "'%.*s' requires sm_%d or higher (.target is sm_%d)", NM(i), sm, v->sm);
	if (v->ptx && ptx > v->ptx)
		errat(v, k, "'%.*s' requires PTX ISA %d.%d or later (.version is %d.%d)", NM(i),
		      ptx / 10, ptx % 10, v->ptx / 10, v->ptx % 10);
	if ((i->op == Osetmaxnreg || i->op == Owgmma) && v->sm && v->arch != 'a' && v->arch != 'f')
		errat(v, k, "'%.*s' requires an architecture-specific target such as sm_%da "
		      "(.target is sm_%d)", NM(i), v->sm, v->sm);
}

/* An instruction's operands, one letter each (STYLE: a table as a switch):
 *   d the first type suffix   e the second   W twice the first (mul.wide)
 *   u .u32   p .pred   a an address [..]   x anything
 * Letters after '|' are optional. The second half of "a|b" is a .pred. */
static const char *
shape(const Ins *i, const Mods *md)
{
	int w = modhas(md, "wide");

	if (mixed(i, md))
		return i->op == Ofma ? "deed" : "ded";
	switch (i->op) {
	case Oadd: case Osub: case Oand: case Oor: case Oxor: case Odiv: case Orem:
	case Ocopysign: case Omul24: case Oaddc: case Osubc:
		return "ddd";
	case Omul:
		return w ? "Wdd" : "ddd";
	case Omad:
		return w ? "WddW" : "dddd";
	case Omad24: case Omadc: case Osad: case Ofma: case Oprmt:
		return "dddd";
	case Olop3:
		return "ddddx|p";
	case Omin: case Omax:
		return "ddd|d";
	case Oabs: case Oneg: case Onot: case Ocnot: case Orcp: case Osqrt: case Orsqrt:
	case Osin: case Ocos: case Olg2: case Oex2: case Otanh: case Obrev: case Omov:
	case Ocvta: case Oalloca:
		return "dd";
	case Opopc: case Oclz: case Obfind: case Ogetctarank:
		return "ud";
	case Otestp:
		return "pd";
	case Oshl: case Oshr: case Oszext: case Omapa: case Oredux:
		return "ddu";
	case Oshf: case Ofns:
		return "dddu";
	case Obfe:
		return "dduu";
	case Obfi:
		return "ddduu";
	case Obmsk:
		return "duu";
	case Osetp:
		return "pdd|p";
	case Oset:
		return "dee|p";
	case Oselp:
		return "dddp";
	case Oslct:
		return "ddde";
	case Ocvt:
		return md->nt == 2 ? "de|e" : NULL;
	case Old: case Oldu:
		return "da";
	case Ost:
		return "ad";
	case Oatom:
		return md->vec ? NULL : "dad|d";
	case Ored:
		return md->vec ? NULL : "ad";
	case Oshfl:
		return "dduu|u";
	case Ovote:
		return "dp|u";
	case Omatch:
		return "ud|u";
	case Oactivemask: case Ostacksave: case Ostackrestore:
		return "d";
	case Onanosleep: case Obrx:
		return "u|x";
	case Oisspacep:
		return "px";
	case Oelect:
		return "uu";
	case Odp4a: case Odp2a:
		return "uuuu";
	}
	return NULL;
}

static int
relaxed(const Ins *i)
{
	return i->op == Old || i->op == Oldu || i->op == Ost || i->op == Ocvt;
}

/* the type an operand letter asks for */
static int
want(char c, const Mods *md)
{
	switch (c) {
	case 'd': return md->nt ? md->t[0] : Tnone;
	case 'e': return md->nt > 1 ? md->t[1] : Tnone;
	case 'W': return md->nt ? wide(md->t[0]) : Tnone;
	case 'u': return Tu32;
	case 'p': return Tpred;
	}
	return Tnone;
}

/* the same shape() the verifier checks against, for the passes: a pass
 * that changes an instruction's type must know which operands carry it */
int
argtype(const Ins *i, uint a)
{
	Mods md;
	const char *sh;
	uint pos = 0;

	if (a >= i->narg)
		return Tnone;
	if (i->arg[a].bar)
		return Tpred;   /* the second half of "a|b" */
	modsplit(i, &md);
	if (!(sh = shape(i, &md)))
		return Tnone;
	for (uint k = 0; k < a; k++)
		pos += !i->arg[k].bar;
	for (; *sh; sh++)
		if (*sh != '|' && !pos--)
			return want(*sh, &md);
	return Tnone;
}

static void
regfits(V *v, uint k, uint pos, uint r, int t, int rel)
{
	const Ins *i = &v->fn->ins[k];
	int rt = regty(v->fn, r);
	Str s;

	if (rt < 0 || fits(rt, t, rel))
		return;
	s = regspan(v, r);
	if (!pos)
		errat(v, k, "'%.*s' guard: '%.*s' is .%s, not .pred", NM(i), (int)s.n, s.s,
		      rt ? tyname[rt] : "(untyped)");
	else
		errat(v, k, "'%.*s' operand %u: '%.*s' is .%s, not .%s", NM(i), pos, (int)s.n, s.s,
		      rt ? tyname[rt] : "(untyped)", tyname[t]);
}

/* can an immediate of form k (immform()) stand for an operand of type
 * t? As ptxas 13 reads them: an integer for an integer, bit or predicate
 * operand; a real or 0d bits for .f32, .f64 and .b64; 0f bits for .f32,
 * .f64 and .b32; no immediate at all for .f16, .bf16, their pairs, .tf32 */
static int
immfits(int k, int t)
{
	switch (t) {
	case Tf32: case Tf64:
		return k != NINT;
	case Tf16: case Tf16x2: case Tbf16: case Tbf16x2: case Ttf32:
		return 0;
	case Tb32:
		return k == NINT || k == NF32;
	case Tb64:
		return k == NINT || k == NREAL || k == NF64;
	}
	return k == NINT;
}

static void
immediate(V *v, uint k, uint pos, Ref r, int t)
{
	const Ins *i = &v->fn->ins[k];
	Str s = v->fn->imm[r.idx].text;

	if (t && !immfits(immform(s), t))
		errat(v, k, "'%.*s' operand %u: '%.*s' is no .%s constant", NM(i), pos, (int)s.n, s.s,
		      tyname[t]);
}

/* mov.b64 %rd, {%r1, %r2}: 2 or 4 parts that add up to the type */
static void
pack(V *v, uint k, uint pos, const Vec *x, const Mods *md)
{
	const Ins *i = &v->fn->ins[k];
	int t = md->nt ? md->t[0] : Tnone;

	if (x->n != 2 && x->n != 4) {
		errat(v, k, "'%.*s' operand %u: a vector of %u %s (2 or 4)", NM(i), pos, x->n,
		      plural(x->n, "part", "parts"));
		return;
	}
	for (uint e = 0; e < x->n; e++) {
		int rt;
		if (x->el[e].kind != RReg || (rt = regty(v->fn, x->el[e].idx)) <= 0 || !t)
			continue;
		if (tybits[rt] * x->n != tybits[t]) {
			Str s = regspan(v, x->el[e].idx);
			errat(v, k, "'%.*s' operand %u: '%.*s' is .%s; %u parts of .%s take %u bits each",
			      NM(i), pos, (int)s.n, s.s, tyname[rt], x->n, tyname[t], tybits[t] / x->n);
			return;
		}
	}
}

/* ld.v4 {a, b, c, d}: as many registers as .vN says, each fitting t */
static void
vector(V *v, uint k, uint pos, const Vec *x, const Mods *md, int t)
{
	const Ins *i = &v->fn->ins[k];

	if (x->n != md->vec) {
		errat(v, k, "'%.*s' operand %u: a vector of %u, not %u", NM(i), pos, x->n, md->vec);
		return;
	}
	for (uint e = 0; e < x->n; e++)
		if (x->el[e].kind == RReg)
			regfits(v, k, pos, x->el[e].idx, t, relaxed(i));
		else if (x->el[e].kind == RImm && isflt(t))   /* ptxas takes 1.5 for .u32 here */
			immediate(v, k, pos, x->el[e], t);
}

/* the sink _ (read as a name where a character follows it: "_|%p") */
static int
issink(const V *v, Ref r)
{
	return r.kind == RSink || (r.kind == RSym && streq(v->m->sym[r.idx].name, "_"));
}

/* a result goes to a register, or to the sink _ */
static void
result(V *v, uint k, uint pos, Ref r)
{
	const Ins *i = &v->fn->ins[k];

	if (r.kind == RVec) {
		for (uint e = 0; e < v->fn->vec[r.idx].n; e++)
			result(v, k, pos, v->fn->vec[r.idx].el[e]);
		return;
	}
	if (r.kind != RReg && !issink(v, r))
		errat(v, k, "'%.*s' operand %u: a result goes to a register, not '%s'", NM(i), pos,
		      refstr(v->fn, r));
}

static void
address(V *v, uint k, uint pos, Ref r, const Mods *md)
{
	const Ins *i = &v->fn->ins[k];
	Ref b;
	int rt;

	if (r.kind != RMem) {
		errat(v, k, "'%.*s' operand %u must be an address", NM(i), pos);
		return;
	}
	b = v->fn->mem[r.idx].base;
	if (b.kind == RImm && !modspace(md, "local"))
		errat(v, k, "'%.*s' operand %u: an address of a number is for .local only", NM(i), pos);
	if (b.kind == RReg && (rt = regty(v->fn, b.idx)) > 0
	    && (rt == Tpred || isflt(rt) || (tybits[rt] != 32 && tybits[rt] != 64))) {
		Str s = regspan(v, b.idx);
		errat(v, k, "'%.*s' operand %u: the address register '%.*s' is .%s", NM(i), pos,
		      (int)s.n, s.s, tyname[rt]);
	}
}

/* operand pos of statement k, of letter c; def: a result */
static void
operand(V *v, uint k, uint pos, char c, Ref r, const Mods *md, int def)
{
	const Ins *i = &v->fn->ins[k];
	int t = want(c, md), data = (i->op == Old || i->op == Oldu) ? pos == 1 : i->op == Ost && pos == 2;

	if (c == 'a') {
		address(v, k, pos, r, md);
		return;
	}
	if (def)
		result(v, k, pos, r);
	else if (issink(v, r))
		errat(v, k, "'%.*s' operand %u: '_' takes a result, it has no value", NM(i), pos);
	if (r.kind == RImm && !def)
		immediate(v, k, pos, r, t);
	if (r.kind == RVec && i->op == Omov) {
		pack(v, k, pos, &v->fn->vec[r.idx], md);
		return;
	}
	if (r.kind == RVec && data && md->vec) {
		vector(v, k, pos, &v->fn->vec[r.idx], md, t);
		return;
	}
	if (r.kind == RVec && c != 'x') {
		errat(v, k, "'%.*s' operand %u: a vector where a single value goes", NM(i), pos);
		return;
	}
	if (data && md->vec)
		errat(v, k, "'%.*s' operand %u: needs a vector of %u", NM(i), pos, md->vec);
	else if (r.kind == RReg && t)
		regfits(v, k, pos, r.idx, t, relaxed(i) && c != 'u');
}

static uint
nplain(const Ins *i)
{
	uint n = 0;

	for (uint a = 0; a < i->narg; a++)
		n += !i->arg[a].bar;
	return n;
}

/* the guard, the count of operands and each one's type */
static void
operands(V *v, uint k, const Mods *md)
{
	const Ins *i = &v->fn->ins[k];
	const char *sh = shape(i, md);
	char letters[16];
	uint need, most, n = nplain(i), pos = 0, j = 0;

	if (i->pred.kind == RReg)
		regfits(v, k, 0, i->pred.idx, Tpred, 0);
	if (!sh)
		return;
	/* the passes read the last type, the shapes the first: one only */
	if (md->nt > 1 && !strchr(sh, 'e') && strpbrk(sh, "dW")) {
		errat(v, k, "'%.*s' takes one type suffix, not %u", NM(i), md->nt);
		return;
	}
	need = strcspn(sh, "|");
	for (const char *c = sh; *c && j + 1 < sizeof letters; c++)
		if (*c != '|')
			letters[j++] = *c;
	most = j;
	if (n < need || n > most) {
		if (need == most)
			errat(v, k, "'%.*s' takes %u operands, not %u", NM(i), need, n);
		else
			errat(v, k, "'%.*s' takes %u to %u operands, not %u", NM(i), need, most, n);
		return;
	}
	for (uint a = 0; a < i->narg; a++) {
		Ref r = i->arg[a];
		if (r.bar) {
			if (r.kind == RReg)
				regfits(v, k, pos, r.idx, Tpred, 0);
			else if (isdef(i, a))
				result(v, k, pos, r);
			continue;
		}
		operand(v, k, pos + 1, letters[pos], r, md, isdef(i, a));
		pos++;
	}
}

/* a special register is read only */
static void
writes(V *v, uint k)
{
	const Ins *i = &v->fn->ins[k];

	for (uint a = 0; a < i->narg; a++) {
		const Reg *g;
		if (!isdef(i, a) || i->arg[a].kind != RReg)
			continue;
		g = &v->fn->reg[i->arg[a].idx];
		if ((g->flags & RGSPECIAL) && sregty(g->pfx) >= 0)
			errat(v, k, "'%.*s' writes the special register '%.*s'", NM(i), (int)g->pfx.n,
			      g->pfx.s);
	}
}

void
instructions(V *v)
{
	Fn *fn = v->fn;

	for (uint k = 0; k < fn->nins; k++) {
		Mods md;
		if (fn->ins[k].op >= NOP)
			continue;
		modsplit(&fn->ins[k], &md);
		suffixes(v, k, &md);
		types(v, k, &md);
		needs(v, k, &md);
		operands(v, k, &md);
		writes(v, k);
	}
}
