/* h2bench.h: what the half2 bench programs share, on top of bench.h.
 *
 * A program is "prog N SEED OUT" as in bench.h; the launch shape comes from
 * $BLOCK ("256", "32,8", "8,4,3"; each program has its default), and with
 * $CHECK set the kernel runs once, untimed (the correctness runs over many
 * launch shapes). The grid always covers the data: pairing must keep the
 * launch exactly as the host wrote it. */
#ifndef H2BENCH_H
#define H2BENCH_H

#include "../bench.h"

static dim3 blockdim(dim3 def)
{
	const char *s = getenv("BLOCK");
	unsigned v[3] = {1, 1, 1};
	if (!s || !*s)
		return def;
	if (sscanf(s, "%u,%u,%u", &v[0], &v[1], &v[2]) < 1 || !v[0] || !v[1] || !v[2]) {
		fprintf(stderr, "error: bad BLOCK '%s'\n", s);
		exit(2);
	}
	return dim3(v[0], v[1], v[2]);
}

static unsigned cdiv(long a, long b) { return (unsigned)((a + b - 1) / b); }

static float run(const void *fn, const char *name, dim3 g, dim3 b, size_t shm, void **argv)
{
	if (getenv("CHECK")) {
		launch(fn, name, g, b, shm, argv);
		CK(cudaDeviceSynchronize());
		return 0;
	}
	return timeit(fn, name, g, b, shm, argv);
}

/* copy n floats to a new device array */
static float *todev(const float *h, long n)
{
	float *d;
	CK(cudaMalloc(&d, n * sizeof *d));
	CK(cudaMemcpy(d, h, n * sizeof *d, cudaMemcpyHostToDevice));
	return d;
}

/* main() of a program whose kernel is k(const float *x, float *y, int n):
 * n elements (defn unless the command line says) of x drawn from [lo, hi),
 * y poisoned, blocks of defblock threads unless $BLOCK says, as many
 * blocks as cover n */
static int xymain(int argc, char **argv, const void *k, const char *name, long defn,
                  unsigned defblock, double lo, double hi)
{
	struct args a = parse(argc, argv, defn);
	int n = (int)a.n;
	float *h = (float *)malloc(n * sizeof *h), *dx, *dy;
	rng_seed(a.seed);
	fillf(h, n, lo, hi);
	dx = todev(h, n);
	CK(cudaMalloc(&dy, n * sizeof *dy));
	poison(dy, n * sizeof *dy);
	dim3 b = blockdim(dim3(defblock));
	long nb = (long)b.x * b.y * b.z;
	void *kargs[] = {&dx, &dy, &n};
	float ms = run(k, name, dim3(cdiv(n, nb)), b, 0, kargs);
	finish(name, ms, dy, n * sizeof *dy, a.out);
	return 0;
}

#endif
