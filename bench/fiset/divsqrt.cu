/* divsqrt: an f64-pipe-bound iteration with division and square roots in a
 * loop (as sfu's fp64 bench: the paper's CFD and correlation kernels). */
#include "common.h"

extern "C" __global__ void divsqrt(const real *a, const real *b, const real *c, real *out, int n,
                                   int rounds)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	real x = a[i], p = b[i], q = c[i], s = 0;
	for (int k = 0; k < rounds; k++) {
		real r = sqrt(x * x + q);
		x = (p + 0.5 * x) / (1.0 + r);
		s += 1.0 / sqrt(q + x) + 1.0 / (x + 2.0);
	}
	out[i] = s;
}

int main(int argc, char **argv)
{
	struct args a = parse(argc, argv, 1 << 22);
	int n = (int)a.n, rounds = 32;
	rng_seed(a.seed);
	real *x = upload(n, 0.1, 4.0), *p = upload(n, 0.5, 2.0), *q = upload(n, 0.1, 1.0);
	real *o = output(n);
	void *k[] = {&x, &p, &q, &o, &n, &rounds};
	float ms = timeit((const void *)divsqrt, "divsqrt", dim3((n + 255) / 256), dim3(256), 0, k);
	finishd("divsqrt", ms, o, n, a.out);
	return 0;
}
