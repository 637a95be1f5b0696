/* conv2d: PolyBench-GPU's 2DCONV, a 3x3 stencil on an NI x NJ grid with
 * 2-D blocks; the border copies the input so that every output is
 * written. N is the number of elements (NI = NJ = sqrt(N)). */
#include "h2bench.h"

extern "C" __global__ void conv2d(const float *A, float *B, int ni, int nj)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;
	const float c11 = +0.2f, c21 = +0.5f, c31 = -0.8f;
	const float c12 = -0.3f, c22 = +0.6f, c32 = -0.9f;
	const float c13 = +0.4f, c23 = +0.7f, c33 = +0.10f;
	if (i < ni - 1 && j < nj - 1 && i > 0 && j > 0)
		B[i * nj + j] = c11 * A[(i - 1) * nj + (j - 1)] + c12 * A[i * nj + (j - 1)]
		                + c13 * A[(i + 1) * nj + (j - 1)] + c21 * A[(i - 1) * nj + j]
		                + c22 * A[i * nj + j] + c23 * A[(i + 1) * nj + j]
		                + c31 * A[(i - 1) * nj + (j + 1)] + c32 * A[i * nj + (j + 1)]
		                + c33 * A[(i + 1) * nj + (j + 1)];
	else if (i < ni && j < nj)
		B[i * nj + j] = A[i * nj + j];
}

int main(int argc, char **argv)
{
	struct args a = parse(argc, argv, 1 << 24);
	int ni = 1;
	while ((long)(ni + 1) * (ni + 1) <= a.n)
		ni++;
	int nj = ni;
	long n = (long)ni * nj;
	float *h = (float *)malloc(n * sizeof *h), *dA, *dB;
	rng_seed(a.seed);
	fillf(h, n, 1.0, 2.0);
	dA = todev(h, n);
	CK(cudaMalloc(&dB, n * sizeof *dB));
	poison(dB, n * sizeof *dB);
	dim3 b = blockdim(dim3(32, 8));
	void *kargs[] = {&dA, &dB, &ni, &nj};
	float ms = run((const void *)conv2d, "conv2d", dim3(cdiv(nj, b.x), cdiv(ni, b.y)), b, 0, kargs);
	finish("conv2d", ms, dB, n * sizeof *dB, a.out);
	return 0;
}
