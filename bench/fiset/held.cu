/* held: 48 values loaded and held across the arithmetic that reads them
 * (each read again at the end), so that registers decide how many warps an
 * SM holds, and lowering changes that: what liveness counts and what ptxas
 * gives differ here (tests/ptx/fiset-compiled.ptx is this kernel). bounded.cu
 * is the same under __launch_bounds__(64, 16): 64 registers a thread, the
 * rest spilled. n = 2^20 by default, 64 threads a block, x holds 48n
 * values. */
#include "common.h"

#ifndef NAME
#define NAME held
#define BOUNDS
#endif
#define N 48
#define STR_(x) #x
#define STR(x) STR_(x)

extern "C" __global__ void BOUNDS NAME(const real *x, real *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	real a[N], s = 0;
#pragma unroll
	for (int k = 0; k < N; k++)
		a[k] = x[i + k * n];
#pragma unroll
	for (int k = 0; k < N; k++)
		s = s * a[(k * 7) % N] + a[k] / ((real)1.0 + a[(k * 5 + 3) % N] * a[k]);
#pragma unroll
	for (int k = 0; k < N; k++)
		s += a[k] * a[N - 1 - k];
	y[i] = s;
}

int main(int argc, char **argv)
{
	struct args a = parse(argc, argv, 1 << 20);
	int n = (int)a.n;
	rng_seed(a.seed);
	real *x = upload((long)N * n, 0.1, 0.9), *y = output(n);
	void *kk[] = {&x, &y, &n};
	float ms = timeit((const void *)NAME, STR(NAME), dim3((n + 63) / 64), dim3(64), 0, kk);
	finishd(STR(NAME), ms, y, n, a.out);
	return 0;
}
