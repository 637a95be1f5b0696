/* fp64: a double-precision iteration with division, square root, reciprocal
 * and reciprocal square root, after the paper's CFD and correlation kernels.
 * nvcc's fast math leaves all of it alone; mpcc's sfu pass rewrites it into
 * rcp.approx.ftz.f64 and rsqrt.approx.f64. Every value stays positive. */
#include "bench.h"

#define ROUNDS 32

extern "C" __global__ void fp64(const double *a, const double *b, const double *c,
                                double *out, int n, int rounds)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	double x = a[i], p = b[i], q = c[i], s = 0;
	for (int k = 0; k < rounds; k++) {
		double r = sqrt(x * x + q);
		x = (p + 0.5 * x) / (1.0 + r);
		s += 1.0 / sqrt(q + x) + 1.0 / (x + 2.0);
	}
	out[i] = s;
}

int main(int argc, char **argv)
{
	struct args a = parse(argc, argv, 1 << 22);
	int n = (int)a.n, rounds = ROUNDS;
	size_t bytes = (size_t)n * sizeof(double);
	double *h = (double *)malloc(bytes), *da, *db, *dc, *dout;
	rng_seed(a.seed);
	CK(cudaMalloc(&da, bytes));
	CK(cudaMalloc(&db, bytes));
	CK(cudaMalloc(&dc, bytes));
	CK(cudaMalloc(&dout, bytes));
	filld(h, n, 0.1, 4.0);
	CK(cudaMemcpy(da, h, bytes, cudaMemcpyHostToDevice));
	filld(h, n, 0.5, 2.0);
	CK(cudaMemcpy(db, h, bytes, cudaMemcpyHostToDevice));
	filld(h, n, 0.1, 1.0);
	CK(cudaMemcpy(dc, h, bytes, cudaMemcpyHostToDevice));
	poison(dout, bytes);
	void *kargs[] = { &da, &db, &dc, &dout, &n, &rounds };
	float ms = timeit((const void *)fp64, "fp64", dim3((n + 255) / 256), dim3(256), 0, kargs);
	finish("fp64", ms, dout, bytes, a.out);
	return 0;
}
