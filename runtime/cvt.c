/* cvt.c: the conversion kernels, and the same conversions on the host.
 * Each conversion has a module of two kernels, written here as PTX text
 * from one template and loaded with cudaLibraryLoadData the first time it
 * is needed (the driver compiles it for the GPU at hand; a module for a
 * target the GPU lacks fails to load, and then no clone narrows that
 * way): mpcc_narrow_ID(orig, mirror, n) writes mirror[i] = cvt.rn(orig[i]),
 * mpcc_back_ID(orig, mirror, n) writes orig[i] = widen(mirror[i]) where
 * mirror[i] differs bit for bit from cvt.rn(orig[i]). Both loop over the
 * elements by the grid's stride, so any grid covers any n. The host side
 * (cvt_wide, cvt_widen, cvt_ulp) is what MPCC_STORE_CHECK compares with. */
#include "runtime/runtime.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern __typeof__(cudaLaunchKernel) __real_cudaLaunchKernel;

const struct cvtinfo cvts[NCVT] = {
	[F64F32] = {"f64>f32", "f64_f32", 8, 4, 1},
	[F32BF16] = {"f32>bf16", "f32_bf16", 4, 2, 1},
	[F32F16] = {"f32>f16", "f32_f16", 4, 2, 1},
	[F64BF16] = {"f64>bf16", "f64_bf16", 8, 2, 2},
	[F64F16] = {"f64>f16", "f64_f16", 8, 2, 2},
};

/* what the template's $-words become for each conversion: the PTX
 * version and target its instructions need (cvt.rn.bf16.f64 wants sm_90
 * and PTX 7.8; .bf16 from f32, sm_80), the wide type, the narrow one in
 * cvt and as loaded and stored, and the widening of %v2 into %w2 (bf16 is
 * the upper half of an f32, exactly) */
static const struct {
	const char *version, *target, *wide, *narrow, *reg, *widen;
} words[NCVT] = {
	[F64F32] = {"7.0", "sm_75", "f64", "f32", "f32", "cvt.f64.f32 %w2, %v2;"},
	[F32BF16] = {"7.0", "sm_80", "f32", "bf16", "b16", "mov.b32 %w2, {%z, %v2};"},
	[F32F16] = {"7.0", "sm_75", "f32", "f16", "b16", "cvt.f32.f16 %w2, %v2;"},
	[F64BF16] = {"7.8", "sm_90", "f64", "bf16", "b16", "mov.b32 %t, {%z, %v2};\n\tcvt.f64.f32 %w2, %t;"},
	[F64F16] = {"7.0", "sm_75", "f64", "f16", "b16", "cvt.f64.f16 %w2, %v2;"},
};

/* $V version, $T target, $I id, $W wide type, $N narrow type, $R its
 * register and memory type, $B its bits (b32, b16), $w $n log2 of the
 * widths, $X the widening */
static const char ptx[] =
	".version $V\n"
	".target $T\n"
	".address_size 64\n"
	"\n"
	".visible .entry mpcc_narrow_$I(.param .u64 o, .param .u64 m, .param .u64 n)\n"
	"{\n"
	"\t.reg .pred %p<2>;\n"
	"\t.reg .b32 %r<5>;\n"
	"\t.reg .b64 %rd<11>;\n"
	"\t.reg .$W %w1;\n"
	"\t.reg .$R %v1;\n"
	"$L"
	"L_loop:\n"
	"\tsetp.ge.u64 %p1, %rd4, %rd3;\n"
	"\t@%p1 bra L_done;\n"
	"\tshl.b64 %rd7, %rd4, $w;\n"
	"\tadd.u64 %rd8, %rd1, %rd7;\n"
	"\tld.global.$W %w1, [%rd8];\n"
	"\tcvt.rn.$N.$W %v1, %w1;\n"
	"\tshl.b64 %rd9, %rd4, $n;\n"
	"\tadd.u64 %rd10, %rd2, %rd9;\n"
	"\tst.global.$R [%rd10], %v1;\n"
	"\tadd.u64 %rd4, %rd4, %rd6;\n"
	"\tbra L_loop;\n"
	"L_done:\n"
	"\tret;\n"
	"}\n"
	"\n"
	".visible .entry mpcc_back_$I(.param .u64 o, .param .u64 m, .param .u64 n)\n"
	"{\n"
	"\t.reg .pred %p<3>;\n"
	"\t.reg .b32 %r<5>;\n"
	"\t.reg .b64 %rd<11>;\n"
	"\t.reg .$W %w<3>;\n"
	"\t.reg .$R %v<3>;\n"
	"\t.reg .$B %b<3>;\n"
	"\t.reg .b16 %z;\n"
	"\t.reg .f32 %t;\n"
	"\tmov.b16 %z, 0;\n"
	"$L"
	"L_loop:\n"
	"\tsetp.ge.u64 %p1, %rd4, %rd3;\n"
	"\t@%p1 bra L_done;\n"
	"\tshl.b64 %rd7, %rd4, $w;\n"
	"\tadd.u64 %rd8, %rd1, %rd7;\n"
	"\tshl.b64 %rd9, %rd4, $n;\n"
	"\tadd.u64 %rd10, %rd2, %rd9;\n"
	"\tld.global.$W %w1, [%rd8];\n"
	"\tcvt.rn.$N.$W %v1, %w1;\n"
	"\tld.global.$R %v2, [%rd10];\n"
	"\tmov.$B %b1, %v1;\n"
	"\tmov.$B %b2, %v2;\n"
	"\tsetp.eq.$B %p2, %b1, %b2;\n"
	"\t@%p2 bra L_next;\n"
	"\t$X\n"
	"\tst.global.$W [%rd8], %w2;\n"
	"L_next:\n"
	"\tadd.u64 %rd4, %rd4, %rd6;\n"
	"\tbra L_loop;\n"
	"L_done:\n"
	"\tret;\n"
	"}\n";

/* $L: the parameters, global addresses, i and the stride */
static const char prologue[] =
	"\tld.param.u64 %rd1, [o];\n"
	"\tld.param.u64 %rd2, [m];\n"
	"\tld.param.u64 %rd3, [n];\n"
	"\tcvta.to.global.u64 %rd1, %rd1;\n"
	"\tcvta.to.global.u64 %rd2, %rd2;\n"
	"\tmov.u32 %r1, %ctaid.x;\n"
	"\tmov.u32 %r2, %ntid.x;\n"
	"\tmov.u32 %r3, %tid.x;\n"
	"\tmov.u32 %r4, %nctaid.x;\n"
	"\tmul.wide.u32 %rd4, %r1, %r2;\n"
	"\tcvt.u64.u32 %rd5, %r3;\n"
	"\tadd.u64 %rd4, %rd4, %rd5;\n"
	"\tmul.wide.u32 %rd6, %r4, %r2;\n";

static const char *
word(int c, char w)
{
	static const char *const shift[] = {"", "0", "1", "", "2", "", "", "", "3"};
	switch (w) {
	case 'V': return words[c].version;
	case 'T': return words[c].target;
	case 'I': return cvts[c].id;
	case 'W': return words[c].wide;
	case 'N': return words[c].narrow;
	case 'R': return words[c].reg;
	case 'B': return cvts[c].narrow == 4 ? "b32" : "b16";
	case 'w': return shift[cvts[c].wide];
	case 'n': return shift[cvts[c].narrow];
	case 'X': return words[c].widen;
	case 'L': return prologue;
	default: return NULL;
	}
}

char *
cvt_ptx(int c)
{
	size_t cap = 2 * sizeof ptx + 4 * sizeof prologue, n = 0;
	char *out = malloc(cap);
	if (!out)
		return NULL;
	for (const char *p = ptx; *p; p++) {
		const char *w = *p == '$' ? word(c, p[1]) : NULL;
		size_t k = w ? strlen(w) : 1;
		if (n + k + 1 > cap)
			break;   /* cannot happen: cap is over the template with every word */
		memcpy(out + n, w ? w : p, k);
		n += k;
		p += w != NULL;
	}
	out[n] = 0;
	return out;
}

int
pending(void)
{
	return cudaPeekAtLastError() != cudaSuccess;
}

void
quiet(cudaError_t r, int pend)
{
	if (r != cudaSuccess && !pend)
		cudaGetLastError();
}

int
cvt_parse(const char *s, size_t n)
{
	for (int c = 0; c < NCVT; c++)
		if (strlen(cvts[c].name) == n && !memcmp(cvts[c].name, s, n))
			return c;
	return -1;
}

/* the two kernels of c, loaded once: 0, or -1 when the module does not
 * load here (tried once) */
static int
load(int c, cudaKernel_t *k)
{
	static int tried[NCVT];
	static cudaKernel_t kern[NCVT][2];
	if (!tried[c]) {
		tried[c] = 1;
		int pend = pending();
		char *text = cvt_ptx(c);
		char name[2][32];
		snprintf(name[0], sizeof name[0], "mpcc_narrow_%s", cvts[c].id);
		snprintf(name[1], sizeof name[1], "mpcc_back_%s", cvts[c].id);
		cudaLibrary_t lib;
		cudaError_t r = text ? cudaLibraryLoadData(&lib, text, NULL, NULL, 0, NULL, NULL, 0)
		                     : cudaErrorMemoryAllocation;
		for (int i = 0; i < 2 && r == cudaSuccess; i++)
			r = cudaLibraryGetKernel(&kern[c][i], lib, name[i]);
		free(text);
		quiet(r, pend);
		if (r != cudaSuccess)
			kern[c][0] = kern[c][1] = NULL;
	}
	k[0] = kern[c][0];
	k[1] = kern[c][1];
	return k[0] ? 0 : -1;
}

int
cvt_load(int c)
{
	cudaKernel_t k[2];
	return load(c, k);
}

cudaError_t
cvt_run(int c, int back, void *orig, void *mirror, size_t n)
{
	cudaKernel_t k[2];
	if (load(c, k) < 0)
		return cudaErrorInvalidKernelImage;
	unsigned long long un = n;
	void *args[] = {&orig, &mirror, &un};
	size_t blocks = (n + 255) / 256;
	dim3 grid = {blocks < 65535 ? (unsigned)blocks : 65535, 1, 1}, block = {256, 1, 1};
	return __real_cudaLaunchKernel((const void *)k[back], grid, block, args, 0, NULL);
}

/* half precision's bits as a double: sign, 5 exponent bits, 10 of mantissa */
static double
f16(uint16_t h)
{
	int e = h >> 10 & 31, m = h & 1023;
	double v = e == 31 ? (m ? NAN : INFINITY) : e ? ldexp(1024 + m, e - 25) : ldexp(m, -24);
	return h >> 15 ? -v : v;
}

double
cvt_widen(int c, const void *narrow, size_t i)
{
	if (cvts[c].narrow == 4) {
		float f;
		memcpy(&f, (const char *)narrow + 4 * i, 4);
		return f;
	}
	uint16_t h;
	memcpy(&h, (const char *)narrow + 2 * i, 2);
	if (c == F32F16 || c == F64F16)
		return f16(h);
	uint32_t bits = (uint32_t)h << 16;   /* bf16: the upper half of an f32 */
	float f;
	memcpy(&f, &bits, 4);
	return f;
}

double
cvt_wide(int c, const void *wide, size_t i)
{
	if (cvts[c].wide == 8) {
		double d;
		memcpy(&d, (const char *)wide + 8 * i, 8);
		return d;
	}
	float f;
	memcpy(&f, (const char *)wide + 4 * i, 4);
	return f;
}

void
cvt_put(int c, void *wide, size_t i, double v)
{
	if (cvts[c].wide == 8) {
		memcpy((char *)wide + 8 * i, &v, 8);
	} else {
		float f = (float)v;   /* v is a widened narrow value: exact */
		memcpy((char *)wide + 4 * i, &f, 4);
	}
}

double
cvt_ulp(int c, double v)
{
	/* the significand's bits and the least normal exponent of each narrow type */
	int p = cvts[c].narrow == 4 ? 24 : c == F32F16 || c == F64F16 ? 11 : 8;
	int emin = c == F32F16 || c == F64F16 ? -14 : -126;
	int e;
	frexp(v, &e);   /* v = m * 2^e, 0.5 <= |m| < 1: its unit is 2^(e - 1) */
	if (!isfinite(v) || v == 0 || e - 1 < emin)
		e = emin + 1;
	return ldexp(1, e - 1 - (p - 1));
}
