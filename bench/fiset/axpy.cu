/* axpy: y = a x + y in f64, memory-bound: lowering cannot pay. */
#include "common.h"

extern "C" __global__ void axpy(const real *x, const real *y, real *out, real a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = a * x[i] + y[i];
}

int main(int argc, char **argv)
{
	struct args a = parse(argc, argv, 1 << 24);
	int n = (int)a.n;
	rng_seed(a.seed);
	real *x = upload(n, -1, 1), *y = upload(n, -1, 1), *o = output(n), s = 1.75;
	void *k[] = {&x, &y, &o, &s, &n};
	float ms = timeit((const void *)axpy, "axpy", dim3((n + 255) / 256), dim3(256), 0, k);
	finishd("axpy", ms, o, n, a.out);
	return 0;
}
