/* bsl: a Black-Scholes-like body without transcendentals: call and put
 * prices under ROUNDS volatilities, with log(S/X) from its atanh series,
 * exp from (1 + z/16)^16 and the cumulative normal from Abramowitz-Stegun
 * 26.2.17; sqrt(T) comes with the inputs. Divisions run per lane in f32,
 * the rest is fma-heavy polynomial work. */
#include "h2bench.h"

#define ROUNDS 8

__device__ float expp(float z)   /* e^z for z in [-8, 0] */
{
	float e = 1.0f + z * 0.0625f;
	e *= e;
	e *= e;
	e *= e;
	return e * e;
}

__device__ float cnd(float d)
{
	const float a1 = 0.31938153f, a2 = -0.356563782f, a3 = 1.781477937f,
	            a4 = -1.821255978f, a5 = 1.330274429f;
	float k = 1.0f / (1.0f + 0.2316419f * fabsf(d));
	float c = 0.39894228f * expp(fmaxf(-0.5f * d * d, -8.0f)) *
	          (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))));
	return d > 0 ? 1.0f - c : c;
}

extern "C" __global__ void bsl(const float *s, const float *x, const float *t, const float *st,
                               float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	const float r = 0.02f;
	float S = s[i], X = x[i], T = t[i], sqrtT = st[i], call = 0, put = 0;
	float u = (S - X) / (S + X), u2 = u * u;
	float lm = 2.0f * u * (1.0f + u2 * (0.33333333f + u2 * (0.2f + u2 * 0.14285714f)));
	float disc = expp(-r * T);
	for (int k = 0; k < ROUNDS; k++) {
		float v = 0.10f + 0.02f * k;
		float d1 = (lm + (r + 0.5f * v * v) * T) / (v * sqrtT);
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
	int n = (int)a.n;
	float *h = (float *)malloc(n * sizeof *h), *ds, *dx, *dt, *dst, *dout;
	rng_seed(a.seed);
	fillf(h, n, 20.0, 40.0);
	ds = todev(h, n);
	fillf(h, n, 25.0, 35.0);
	dx = todev(h, n);
	fillf(h, n, 0.5, 3.0);
	dt = todev(h, n);
	for (int i = 0; i < n; i++)
		h[i] = sqrtf(h[i]);
	dst = todev(h, n);
	CK(cudaMalloc(&dout, 2 * n * sizeof *dout));
	poison(dout, 2 * n * sizeof *dout);
	dim3 b = blockdim(dim3(256));
	long nb = (long)b.x * b.y * b.z;
	void *kargs[] = {&ds, &dx, &dt, &dst, &dout, &n};
	float ms = run((const void *)bsl, "bsl", dim3(cdiv(n, nb)), b, 0, kargs);
	finish("bsl", ms, dout, 2 * n * sizeof *dout, a.out);
	return 0;
}
