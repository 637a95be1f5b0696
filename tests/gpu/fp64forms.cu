/* fp64forms: accuracy of the FP64 forms the sfu pass writes (paper 004,
 * Table 2) against the correctly rounded operations. The kernel computes
 * a/b, 1/a, sqrt(|a|) and 1/sqrt(|b|) in double; built plainly it gives the
 * exact IEEE results; run from a cubin that mpcc-opt -p sfu:lambda=64
 * rewrote (BENCH_CUBIN=...), it gives the approximations. The host computes
 * the exact values (its double arithmetic is correctly rounded too) and
 * prints the mean and max relative error of each form, then checks the
 * special values the pass promises: sqrt(+0) = +0, sqrt(+inf) = +inf.
 * usage: fp64forms N SEED MAXERR   (exit 1 if a max error exceeds MAXERR) */
#include "../../bench/bench.h"
#include <math.h>

extern "C" __global__ void fp64forms(const double *a, const double *b, double *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	double x = a[i], y = b[i], s = fabs(x);
	out[i] = x / y;
	out[n + i] = 1.0 / x;
	out[2 * n + i] = sqrt(s);
	out[3 * n + i] = 1.0 / sqrt(fabs(y));   /* not s: its sqrt has another use */
}

int main(int argc, char **argv)
{
	struct args a = parse(argc, argv, 1 << 20);
	double maxerr = argc > 3 ? atof(argv[3]) : 1e-4;
	int n = (int)a.n + 3, bad = 0;
	size_t bytes = (size_t)n * sizeof(double);
	double *ha = (double *)malloc(bytes), *hb = (double *)malloc(bytes), *ho = (double *)malloc(4 * bytes);
	double *da, *db, *dout;
	const char *form[] = {"a/b", "1/a", "sqrt(a)", "1/sqrt(a)"};
	rng_seed(a.seed);
	for (int i = 0; i < n; i++) {   /* log-uniform magnitudes 2^-500..2^500, both signs */
		ha[i] = ldexp(1.0 + rng_unit(), (int)(rng_unit() * 1000) - 500) * (rng_unit() < 0.5 ? -1 : 1);
		hb[i] = ldexp(1.0 + rng_unit(), (int)(rng_unit() * 1000) - 500) * (rng_unit() < 0.5 ? -1 : 1);
	}
	ha[n - 3] = 0.0, ha[n - 2] = -0.0, ha[n - 1] = INFINITY;   /* sqrt's special values */
	CK(cudaMalloc(&da, bytes));
	CK(cudaMalloc(&db, bytes));
	CK(cudaMalloc(&dout, 4 * bytes));
	CK(cudaMemcpy(da, ha, bytes, cudaMemcpyHostToDevice));
	CK(cudaMemcpy(db, hb, bytes, cudaMemcpyHostToDevice));
	poison(dout, 4 * bytes);
	void *kargs[] = { &da, &db, &dout, &n };
	launch((const void *)fp64forms, "fp64forms", dim3((n + 255) / 256), dim3(256), 0, kargs);
	CK(cudaDeviceSynchronize());
	CK(cudaMemcpy(ho, dout, 4 * bytes, cudaMemcpyDeviceToHost));
	for (int f = 0; f < 4; f++) {
		double tot = 0, mx = 0;
		for (int i = 0; i < n - 3; i++) {
			double x = ha[i], y = hb[i], s = fabs(x);
			double exact = f == 0 ? x / y : f == 1 ? 1.0 / x : f == 2 ? sqrt(s) : 1.0 / sqrt(fabs(y));
			double e = fabs(ho[f * n + i] - exact) / fabs(exact);
			if (e != e)
				e = INFINITY;
			tot += e;
			mx = e > mx ? e : mx;
		}
		printf("form %-10s mean_rel=%.3e max_rel=%.3e %s\n", form[f], tot / (n - 3), mx,
		       mx <= maxerr ? "ok" : "TOO LARGE");
		bad |= !(mx <= maxerr);
	}
	/* sqrt(+0) = +0 and sqrt(+inf) = +inf bit for bit (the kernel takes
	 * |a|, so -0 arrives as +0) */
	for (int i = n - 3; i < n; i++) {
		double want = sqrt(fabs(ha[i])), got = ho[2 * n + i];
		if (memcmp(&want, &got, 8)) {
			printf("sqrt(%g) = %g, want %g\n", ha[i], got, want);
			bad = 1;
		}
	}
	printf("fp64forms: %s\n", bad ? "FAIL" : "ok");
	return bad;
}
