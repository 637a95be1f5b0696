/* hand: poly's polynomial (DEG dependent fma per element) paired by hand,
 * to calibrate what pairing can reach on the GPU with the launch kept as
 * it is (grid and block as poly's). HAND selects the layout:
 *   1  f16x2, thread g of the grid takes elements 2g and 2g+1 (one float2
 *      load and store); the upper half of the grid has nothing to do
 *   2  the same with two f32 lanes (pairing without half precision)
 *   3  f16x2, threads t < blockDim/2 of each block take the block's
 *      elements 2t and 2t+1; the other half of each block exits
 *   4  f16x2 in the layout of half2's pairing blocks: thread t of block c
 *      takes element t of blocks 2c and 2c+1 (two f32 loads) */
#include "h2bench.h"
#include <cuda_fp16.h>

#ifndef DEG
#define DEG 128
#endif
#ifndef HAND
#define HAND 1
#endif

__device__ __forceinline__ float c(int k) { return 0.5f + 0.0078125f * (k & 15); }

__device__ __forceinline__ float2 chain2(float2 v)
{
#if HAND == 2
	float a = 0.5f, b = 0.5f;
#pragma unroll
	for (int k = 0; k < DEG; k++) {
		a = fmaf(a, v.x, c(k));
		b = fmaf(b, v.y, c(k));
	}
	return make_float2(a, b);
#else
	__half2 h = __floats2half2_rn(v.x, v.y), a = __float2half2_rn(0.5f);
#pragma unroll
	for (int k = 0; k < DEG; k++)
		a = __hfma2(a, h, __float2half2_rn(c(k)));
	return __half22float2(a);
#endif
}

extern "C" __global__ void poly(const float *x, float *y, int n)
{
#if HAND == 1 || HAND == 2
	int g = blockIdx.x * blockDim.x + threadIdx.x;
	if (2 * g + 1 < n)
		((float2 *)y)[g] = chain2(((const float2 *)x)[g]);
#elif HAND == 3
	int t = threadIdx.x, base = blockIdx.x * blockDim.x;
	if (2 * t + 1 < (int)blockDim.x && base + 2 * t + 1 < n)
		((float2 *)(y + base))[t] = chain2(((const float2 *)(x + base))[t]);
#else
	int c2 = 2 * blockIdx.x;
	if (c2 + 1 < (int)gridDim.x) {
		int i0 = c2 * blockDim.x + threadIdx.x, i1 = i0 + blockDim.x;
		if (i1 < n) {
			float2 r = chain2(make_float2(x[i0], x[i1]));
			y[i0] = r.x;
			y[i1] = r.y;
		}
	}
#endif
}

int main(int argc, char **argv)
{
	struct args a = parse(argc, argv, 1 << 24);
	int n = (int)a.n;
	float *h = (float *)malloc(n * sizeof *h), *dx, *dy;
	rng_seed(a.seed);
	fillf(h, n, 0.05, 0.95);
	dx = todev(h, n);
	CK(cudaMalloc(&dy, n * sizeof *dy));
	poison(dy, n * sizeof *dy);
	dim3 b = blockdim(dim3(256));
	long nb = (long)b.x * b.y * b.z;
	void *kargs[] = {&dx, &dy, &n};
	float ms = run((const void *)poly, "poly", dim3(cdiv(n, nb)), b, 0, kargs);
	finish("poly", ms, dy, n * sizeof *dy, a.out);
	return 0;
}
