/* poly: an element-wise polynomial in Horner form, DEG dependent fma per
 * element (128: bound by arithmetic; 32: by memory), f32 storage. The
 * inputs stay in (0.05, 0.95) and the coefficients near 0.5, so the value
 * stays in [0.5, 12]: within f16's range, never near zero. */
#include "h2bench.h"

#ifndef DEG
#define DEG 128
#endif

extern "C" __global__ void poly(const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float v = x[i], a = 0.5f;
#pragma unroll
		for (int k = 0; k < DEG; k++)
			a = fmaf(a, v, 0.5f + 0.0078125f * (k & 15));
		y[i] = a;
	}
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
