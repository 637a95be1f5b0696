/* saxpy: out = a x + y, two loads and a store per fma: bound by memory. */
#include "h2bench.h"

extern "C" __global__ void saxpy(int n, float a, const float *x, const float *y, float *out)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = a * x[i] + y[i];
}

int main(int argc, char **argv)
{
	struct args a = parse(argc, argv, 1 << 24);
	int n = (int)a.n;
	float k = 1.75f, *h = (float *)malloc(n * sizeof *h), *dx, *dy, *dout;
	rng_seed(a.seed);
	fillf(h, n, 0.5, 2.0);
	dx = todev(h, n);
	fillf(h, n, 0.5, 2.0);
	dy = todev(h, n);
	CK(cudaMalloc(&dout, n * sizeof *dout));
	poison(dout, n * sizeof *dout);
	dim3 b = blockdim(dim3(256));
	long nb = (long)b.x * b.y * b.z;
	void *kargs[] = {&n, &k, &dx, &dy, &dout};
	float ms = run((const void *)saxpy, "saxpy", dim3(cdiv(n, nb)), b, 0, kargs);
	finish("saxpy", ms, dout, n * sizeof *dout, a.out);
	return 0;
}
