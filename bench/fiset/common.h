/* common.h: what the fiset bench programs share, over ../bench.h.
 * REAL is double (the original) or float (-DREAL=float: the all-f32 build
 * of the same source, the ideal of the paper's Eq. 3, data in f32 too).
 * Inputs are drawn in double and converted; the output is written as double
 * whatever REAL is, so every variant compares with the f64 one. */
#include "../bench.h"
#ifndef REAL
#define REAL double
#endif
typedef REAL real;

static real *upload(long n, double lo, double hi)
{
	double *h = (double *)malloc(n * sizeof(double));
	real *r = (real *)malloc(n * sizeof(real)), *d;
	filld(h, n, lo, hi);
	for (long i = 0; i < n; i++)
		r[i] = (real)h[i];
	CK(cudaMalloc(&d, n * sizeof(real)));
	CK(cudaMemcpy(d, r, n * sizeof(real), cudaMemcpyHostToDevice));
	free(h);
	free(r);
	return d;
}

static real *output(long n)
{
	real *d;
	CK(cudaMalloc(&d, n * sizeof(real)));
	poison(d, n * sizeof(real));
	return d;
}

/* the device output as doubles (poison kept: a NaN stays all ones) */
static void finishd(const char *name, float ms, const real *d, long n, const char *out)
{
	real *h = (real *)malloc(n * sizeof(real));
	double *o = (double *)malloc(n * sizeof(double));
	CK(cudaMemcpy(h, d, n * sizeof(real), cudaMemcpyDeviceToHost));
	for (long i = 0; i < n; i++) {
		unsigned char p[sizeof(real)];
		memset(p, 0xFF, sizeof p);
		if (!memcmp(&h[i], p, sizeof p))
			memset(&o[i], 0xFF, sizeof o[i]);
		else
			o[i] = (double)h[i];
	}
	printf("%s time_ms=%.4f\n", name, ms);
	if (out) {
		FILE *f = fopen(out, "wb");
		if (!f || fwrite(o, sizeof(double), n, f) != (size_t)n || fclose(f)) {
			fprintf(stderr, "error: cannot write '%s'\n", out);
			exit(1);
		}
	}
	free(h);
	free(o);
}
