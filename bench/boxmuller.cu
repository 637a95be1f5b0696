/* boxmuller: normal variates by the Box-Muller transform (log, sqrt, sin,
 * cos), after the Mersenne-twister sample's BoxMullerGPU. Each thread starts
 * from one pair of uniforms and walks ROUNDS golden-ratio steps from it, so
 * the kernel is bound by arithmetic, not memory. The output sums |z| so that
 * relative errors are not blown up by cancellation. */
#include "bench.h"

#define ROUNDS 64

extern "C" __global__ void boxmuller(const float *u, float *out, int n, int rounds)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float u1 = u[2 * i], u2 = u[2 * i + 1], s0 = 0, s1 = 0;
	for (int k = 0; k < rounds; k++) {
		float r = sqrtf(-2.0f * logf(u1));
		float phi = 6.28318531f * u2;
		s0 += fabsf(r * cosf(phi));
		s1 += fabsf(r * sinf(phi));
		u1 += 0.618034f;
		u1 = u1 >= 1.0f ? u1 - 0.999f : u1;   /* stays in (0, 1) */
		u2 += 0.381966f;
		u2 = u2 >= 1.0f ? u2 - 1.0f : u2;
	}
	out[2 * i] = s0;
	out[2 * i + 1] = s1;
}

int main(int argc, char **argv)
{
	struct args a = parse(argc, argv, 1 << 22);
	int n = (int)a.n, rounds = ROUNDS;
	size_t bytes = 2 * (size_t)n * sizeof(float);
	float *h = (float *)malloc(bytes), *du, *dout;
	rng_seed(a.seed);
	fillf(h, 2 * (long)n, 1e-4, 0.9999);
	CK(cudaMalloc(&du, bytes));
	CK(cudaMalloc(&dout, bytes));
	CK(cudaMemcpy(du, h, bytes, cudaMemcpyHostToDevice));
	poison(dout, bytes);
	void *kargs[] = { &du, &dout, &n, &rounds };
	float ms = timeit((const void *)boxmuller, "boxmuller", dim3((n + 255) / 256), dim3(256), 0, kargs);
	finish("boxmuller", ms, dout, bytes, a.out);
	return 0;
}
