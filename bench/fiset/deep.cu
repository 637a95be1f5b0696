/* deep: issue 37's kernel, a set of f64 arithmetic three loops deep beside
 * 16 DRAM loads. Lowering the set pays only when the loops run many times:
 * the trips measured of a run (fiset's trips) decide it, where the model's
 * guess of 64 a loop would lower it always. TRIPS (environment, default 8)
 * is each loop's trip count. n = 2^22 by default, 256 threads a block, x
 * holds 17n doubles. Not in run.py's KERNELS: bench/calibrate.py runs it. */
#include "common.h"

extern "C" __global__ void deep(const double *x, double *y, int n, int a, int b, int c)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	double m = 0;
#pragma unroll
	for (int k = 0; k < 16; k++)
		m += x[i + k * n];
	double s = x[i];
	for (int p = 0; p < a; p++)
		for (int q = 0; q < b; q++)
			for (int r = 0; r < c; r++)
				s = s * 1.0001 + 0.5 * s * s - 0.25 * s + 0.125;
	y[i] = s + m;
}

int main(int argc, char **argv)
{
	struct args a = parse(argc, argv, 1 << 22);
	int n = (int)a.n, t = getenv("TRIPS") ? atoi(getenv("TRIPS")) : 8;
	rng_seed(a.seed);
	double *x = upload(17L * n, 0.1, 0.3), *y = output(n);
	void *kk[] = {&x, &y, &n, &t, &t, &t};
	float ms = timeit((const void *)deep, "deep", dim3((n + 255) / 256), dim3(256), 0, kk);
	finishd("deep", ms, y, n, a.out);
	return 0;
}
