/* main.c: runs the three kernels and checks them against the CPU.
 * Without a GPU it says so and exits 0: the build is what is being shown. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int gpu_saxpy(int n, float a, const float *x, float *y);
int gpu_gauss(int n, unsigned seed, float *out);
int gpu_nbody(int n, const double *p, double *f);

enum { N = 1 << 16, B = 1024 };

int
main(void)
{
	static float x[N], y[N], g[N];
	static double p[4 * B], f[3 * B];
	for (int i = 0; i < N; i++) {
		x[i] = i * 0.001f;
		y[i] = 1.0f;
	}
	for (int i = 0; i < 4 * B; i++)
		p[i] = (i * 7919 % 1000) * 0.001 + (i % 4 == 3);
	if (gpu_saxpy(N, 2.0f, x, y) != 0) {
		printf("no CUDA device: built, not run\n");
		return 0;
	}
	double err = 0.0, mean = 0.0;
	for (int i = 0; i < N; i++)
		err = fmax(err, fabs(y[i] - (2.0f * x[i] + 1.0f)));
	if (gpu_gauss(N, 42, g) != 0 || gpu_nbody(B, p, f) != 0)
		return 1;
	for (int i = 0; i < N; i++)
		mean += g[i] / N;
	printf("saxpy max error %g\n", err);
	printf("gauss mean %.3f\n", mean);
	printf("nbody f[0] = (%.6g, %.6g, %.6g)\n", f[0], f[1], f[2]);
	return err > 1e-5;
}
