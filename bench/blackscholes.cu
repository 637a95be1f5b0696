/* blackscholes: European call and put prices (exp, log, sqrt, div), after
 * the CUDA sample's BlackScholesGPU. Each option is priced under ROUNDS
 * volatilities and the prices are summed, so the kernel is bound by
 * arithmetic. Moneyness stays near 1 so that no price is tiny. */
#include "bench.h"

#define ROUNDS 32

/* cumulative normal distribution, Abramowitz-Stegun 26.2.17 */
__device__ float cnd(float d)
{
	const float a1 = 0.31938153f, a2 = -0.356563782f, a3 = 1.781477937f,
	            a4 = -1.821255978f, a5 = 1.330274429f;
	float k = 1.0f / (1.0f + 0.2316419f * fabsf(d));
	float c = 0.39894228f * expf(-0.5f * d * d) *
	          (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))));
	return d > 0 ? 1.0f - c : c;
}

extern "C" __global__ void blackscholes(const float *s, const float *x, const float *t,
                                        float *out, int n, int rounds)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	const float r = 0.02f;
	float S = s[i], X = x[i], T = t[i], call = 0, put = 0;
	float sqrtT = sqrtf(T), disc = expf(-r * T);
	for (int k = 0; k < rounds; k++) {
		float v = 0.10f + 0.01f * k;
		float d1 = (logf(S / X) + (r + 0.5f * v * v) * T) / (v * sqrtT);
		float d2 = d1 - v * sqrtT;
		float c1 = cnd(d1), c2 = cnd(d2);
		call += S * c1 - X * disc * c2;
		put += X * disc * (1.0f - c2) - S * (1.0f - c1);
	}
	out[2 * i] = call;
	out[2 * i + 1] = put;
}

int main(int argc, char **argv)
{
	struct args a = parse(argc, argv, 1 << 22);
	int n = (int)a.n, rounds = ROUNDS;
	size_t b1 = (size_t)n * sizeof(float);
	float *h = (float *)malloc(b1), *ds, *dx, *dt, *dout;
	rng_seed(a.seed);
	CK(cudaMalloc(&ds, b1));
	CK(cudaMalloc(&dx, b1));
	CK(cudaMalloc(&dt, b1));
	CK(cudaMalloc(&dout, 2 * b1));
	fillf(h, n, 20.0, 40.0);
	CK(cudaMemcpy(ds, h, b1, cudaMemcpyHostToDevice));
	fillf(h, n, 25.0, 35.0);
	CK(cudaMemcpy(dx, h, b1, cudaMemcpyHostToDevice));
	fillf(h, n, 0.5, 3.0);
	CK(cudaMemcpy(dt, h, b1, cudaMemcpyHostToDevice));
	poison(dout, 2 * b1);
	void *kargs[] = { &ds, &dx, &dt, &dout, &n, &rounds };
	float ms = timeit((const void *)blackscholes, "blackscholes", dim3((n + 255) / 256), dim3(256), 0, kargs);
	finish("blackscholes", ms, dout, 2 * b1, a.out);
	return 0;
}
