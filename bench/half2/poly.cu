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
	return xymain(argc, argv, (const void *)poly, "poly", 1 << 24, 256, 0.05, 0.95);
}
