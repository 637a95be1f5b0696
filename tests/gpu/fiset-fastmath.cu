/* fiset-fastmath: float kernels that double literals and a double function
 * promote to f64, for fiset on -use_fast_math builds (issue 33, item 1).
 * g-fiset-fastmath.sh builds it with nvcc and with mpcc (fiset: {}), plain
 * and -use_fast_math, and compares what the builds write.
 *   heat   a float stencil with the literal 2.0
 *   scale  sqrt and fmax on doubles of a float
 *   flush  x * 0.5 + x * 0.5 on inputs that hold f32 subnormals, zeros and
 *          values near FLT_MIN: under -use_fast_math the f64 code flushes
 *          a subnormal input and output at its conversions, and fiset's
 *          .ftz forms must do the same; only an intermediate below FLT_MIN
 *          (x * 0.5 for |x| < 2^-125) may differ, by less than 2^-125
 * -DFLOATLIT writes the literals as floats (the source a careful programmer
 * writes). usage: fiset-fastmath N SEED OUT (OUT: the 3N floats written,
 * then flush's N inputs; raw) */
#include "../../bench/bench.h"
#include <math.h>
#include <string.h>

#ifdef FLOATLIT
#define D(x) x##f
typedef float real;
#else
#define D(x) x
typedef double real;
#endif

extern "C" __global__ void heat(const float *t, float *o, int n, float k)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < 1 || i >= n - 1)
		return;
	o[i] = t[i] + k * (t[i - 1] + t[i + 1] - D(2.0) * t[i]);
}

extern "C" __global__ void scale(const float *x, float *o, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	o[i] = sqrt((real)x[i] * D(0.5)) / (fmax((real)x[i], D(0.25)) + D(1.0));
}

extern "C" __global__ void flush(const float *x, float *o, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	o[i] = x[i] * D(0.5) + x[i] * D(0.5);
}

/* f32 values around the subnormal range: subnormals, zeros, normals near
 * FLT_MIN and ordinary ones, both signs */
static float special(void)
{
	double u = rng_unit();
	uint32_t b = (uint32_t)(rng_unit() * 4294967296.0);
	float f;
	if (u < 0.3)
		b &= 0x807FFFFF;                     /* subnormal (or zero) */
	else if (u < 0.6)
		b = (b & 0x80FFFFFF) | 0x00800000;   /* exponent 1 or 2: 2^-126, 2^-125 */
	else if (u < 0.65)
		b &= 0x80000000;                     /* +-0 */
	else
		return (float)((rng_unit() - 0.5) * 1e6);
	memcpy(&f, &b, 4);
	return f;
}

int main(int argc, char **argv)
{
	struct args a = parse(argc, argv, 1 << 20);
	int n = (int)a.n;
	size_t bytes = (size_t)n * 4;
	float *h = (float *)malloc(4 * bytes), *in, *out;
	rng_seed(a.seed);
	fillf(h, n, 0.5, 1.5);
	fillf(h + n, n, 0.0, 4.0);
	for (int i = 0; i < n; i++)
		h[3 * n + i] = h[2 * n + i] = special();
	CK(cudaMalloc(&in, 3 * bytes));
	CK(cudaMalloc(&out, 3 * bytes));
	CK(cudaMemcpy(in, h, 3 * bytes, cudaMemcpyHostToDevice));
	CK(cudaMemset(out, 0, 3 * bytes));
	int b = 256, g = (n + b - 1) / b;
	heat<<<g, b>>>(in, out, n, 0.2f);
	scale<<<g, b>>>(in + n, out + n, n);
	flush<<<g, b>>>(in + 2 * n, out + 2 * n, n);
	CK(cudaGetLastError());
	CK(cudaMemcpy(h, out, 3 * bytes, cudaMemcpyDeviceToHost));
	FILE *f = a.out ? fopen(a.out, "wb") : NULL;
	if (!f || fwrite(h, 4, 4 * (size_t)n, f) != 4 * (size_t)n || fclose(f)) {
		fprintf(stderr, "fiset-fastmath: cannot write the output\n");
		return 1;
	}
	return 0;
}
