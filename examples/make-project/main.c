/* main.c: runs the three kernels, checks saxpy against the CPU, and prints
 * each kernel's median time as "time KERNEL MS", then their sum as "time
 * kernels MS" (mpcc-tune's figure of merit in the README). With a directory argument
 * it also writes each kernel's output there (KERNEL.f32 or KERNEL.f64) for
 * show.py to compare with another build's. Without a GPU it says so and
 * exits 0: the build is what is being shown. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int gpu_saxpy(int n, float a, const float *x, const float *y, float *z, float *ms);
int gpu_gauss(int n, unsigned seed, float *out, float *ms);
int gpu_nbody(int n, const double *p, double *f, float *ms);

enum { N = 1 << 22, B = 8192 };

static void
save(const char *dir, const char *name, const void *v, size_t size)
{
	char path[4096];
	if (!dir)
		return;
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(v, 1, size, f) != size || fclose(f) != 0) {
		fprintf(stderr, "app: cannot write '%s'\n", path);
		exit(1);
	}
}

int
main(int argc, char **argv)
{
	static float x[N], y[N], z[N], g[N];
	static double p[4 * B], f[3 * B];
	const char *dir = argc > 1 ? argv[1] : NULL;
	float ms[3];
	for (int i = 0; i < N; i++) {
		x[i] = i * 0.001f;
		y[i] = 1.0f;
	}
	for (int i = 0; i < 4 * B; i++)
		p[i] = (i * 7919 % 1000) * 0.001 + (i % 4 == 3);
	if (gpu_saxpy(N, 2.0f, x, y, z, &ms[0]) != 0) {
		printf("no CUDA device: built, not run\n");
		return 0;
	}
	double err = 0.0, mean = 0.0;
	for (int i = 0; i < N; i++)
		err = fmax(err, fabs(z[i] - (2.0f * x[i] + 1.0f)) / fmax(1.0, fabs(z[i])));
	if (gpu_gauss(N, 42, g, &ms[1]) != 0 || gpu_nbody(B, p, f, &ms[2]) != 0)
		return 1;
	for (int i = 0; i < N; i++)
		mean += g[i] / N;
	printf("saxpy max relative error against the CPU %g\n", err);
	printf("gauss mean %.4f (0 expected)\n", mean);
	printf("nbody f[0] = (%.6g, %.6g, %.6g)\n", f[0], f[1], f[2]);
	printf("time saxpy %.4f\ntime BoxMuller %.4f\ntime bodyForce %.4f\n", ms[0], ms[1], ms[2]);
	printf("time kernels %.4f\n", ms[0] + ms[1] + ms[2]);
	save(dir, "saxpy.f32", z, sizeof z);
	save(dir, "BoxMuller.f32", g, sizeof g);
	save(dir, "bodyForce.f64", f, sizeof f);
	return err > 1e-6;
}
