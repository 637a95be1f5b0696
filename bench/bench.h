/* bench.h: what every bench program shares.
 *
 * A bench program is "prog N SEED OUT": it fills its inputs from SEED with
 * values that are never zero, poisons its output with a NaN pattern that no
 * arithmetic produces (so an element left unwritten shows), runs its kernel
 * once to check it, then times it with CUDA events (median of REPS runs
 * after at least WARM_MS of warm-up runs, so that the clocks have risen), prints "time_ms=..." and writes the output as raw
 * binary to OUT.
 *
 * The kernel is launched through launch(), which normally calls the kernel
 * nvcc compiled into the program. With BENCH_CUBIN=file in the environment it
 * loads that cubin (or PTX) with cudaLibraryLoadFromFile and launches the
 * extern "C" kernel of the same name from it instead: the runner uses this to
 * time PTX that mpcc-opt wrote without needing the mpcc driver. */
#ifndef BENCH_H
#define BENCH_H

#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WARM_MS 200.0f  /* warm up this long at least: the clocks rise from idle */
#define REPS 21

#define CK(x) ck((x), #x, __FILE__, __LINE__)
static void ck(cudaError_t e, const char *what, const char *file, int line)
{
	if (e != cudaSuccess) {
		fprintf(stderr, "%s:%d: error: %s: %s\n", file, line, what, cudaGetErrorString(e));
		exit(1);
	}
}

struct args { long n; uint64_t seed; const char *out; };

static struct args parse(int argc, char **argv, long defn)
{
	struct args a = { defn, 1, NULL };
	if (argc > 1) a.n = atol(argv[1]);
	if (argc > 2) a.seed = strtoull(argv[2], NULL, 10);
	if (argc > 3) a.out = argv[3];
	if (a.n <= 0) { fprintf(stderr, "usage: %s N SEED OUT\n", argv[0]); exit(2); }
	return a;
}

/* xorshift64*, seeded through splitmix so that seed 0 works too */
static uint64_t rng_state;
static void rng_seed(uint64_t s)
{
	s += 0x9E3779B97F4A7C15ull;
	s = (s ^ (s >> 30)) * 0xBF58476D1CE4E5B9ull;
	s = (s ^ (s >> 27)) * 0x94D049BB133111EBull;
	rng_state = (s ^ (s >> 31)) | 1;
}
static double rng_unit(void)  /* in (0, 1): never 0 */
{
	rng_state ^= rng_state >> 12; rng_state ^= rng_state << 25; rng_state ^= rng_state >> 27;
	return ((rng_state * 0x2545F4914F6CDD1Dull >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}
static void fillf(float *p, long n, double lo, double hi)
{
	for (long i = 0; i < n; i++) p[i] = (float)(lo + (hi - lo) * rng_unit());
}
static void filld(double *p, long n, double lo, double hi)
{
	for (long i = 0; i < n; i++) p[i] = lo + (hi - lo) * rng_unit();
}

/* 0xFF poison: a negative quiet NaN for f32 and f64 that no kernel writes */
static void poison(void *d, size_t bytes) { CK(cudaMemset(d, 0xFF, bytes)); }

static cudaLibrary_t cubin_library(void)
{
	static cudaLibrary_t lib;
	if (!lib)
		CK(cudaLibraryLoadFromFile(&lib, getenv("BENCH_CUBIN"), NULL, NULL, 0, NULL, NULL, 0));
	return lib;
}

static cudaKernel_t cubin_kernel(const char *name)
{
	cudaKernel_t k;
	CK(cudaLibraryGetKernel(&k, cubin_library(), name));
	return k;
}

/* fill the module variable sym (called name in the PTX) of the kernel that
 * launch() runs: the compiled-in one, or the one of $BENCH_CUBIN */
static void to_symbol(const void *sym, const char *name, const void *src, size_t bytes)
{
	if (!getenv("BENCH_CUBIN")) {
		CK(cudaMemcpyToSymbol(sym, src, bytes));
		return;
	}
	void *d;
	size_t size;
	CK(cudaLibraryGetGlobal(&d, &size, cubin_library(), name));
	if (size < bytes) {
		fprintf(stderr, "error: '%s' holds %zu bytes, not %zu\n", name, size, bytes);
		exit(1);
	}
	CK(cudaMemcpy(d, src, bytes, cudaMemcpyHostToDevice));
}

/* launch fn (compiled in) or the kernel called name from $BENCH_CUBIN */
static void launch(const void *fn, const char *name, dim3 g, dim3 b, size_t shm, void **argv)
{
	static const void *k;
	if (!k)
		k = getenv("BENCH_CUBIN") ? (const void *)cubin_kernel(name) : fn;
	CK(cudaLaunchKernel(k, g, b, argv, shm, 0));
	CK(cudaGetLastError());
}

static int cmpf(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;
	return (x > y) - (x < y);
}

/* the median of REPS timed runs after WARM_MS of warm-up runs */
static float timeit(const void *fn, const char *name, dim3 g, dim3 b, size_t shm, void **argv)
{
	float t[REPS];
	cudaEvent_t e0, e1;
	CK(cudaEventCreate(&e0));
	CK(cudaEventCreate(&e1));
	float spent = 0;
	CK(cudaEventRecord(e0, 0));
	for (int i = 0; i < 3 || spent < WARM_MS; i++) {
		launch(fn, name, g, b, shm, argv);
		CK(cudaEventRecord(e1, 0));
		CK(cudaEventSynchronize(e1));
		CK(cudaEventElapsedTime(&spent, e0, e1));
	}
	for (int i = 0; i < REPS; i++) {
		CK(cudaEventRecord(e0, 0));
		launch(fn, name, g, b, shm, argv);
		CK(cudaEventRecord(e1, 0));
		CK(cudaEventSynchronize(e1));
		CK(cudaEventElapsedTime(&t[i], e0, e1));
	}
	qsort(t, REPS, sizeof t[0], cmpf);
	return t[REPS / 2];
}

/* the poisoned output is filled by the timed runs; every run writes the same
 * values (no kernel reads its own output) */
static void finish(const char *name, float ms, const void *dout, size_t bytes, const char *out)
{
	void *h = malloc(bytes);
	CK(cudaMemcpy(h, dout, bytes, cudaMemcpyDeviceToHost));
	printf("%s time_ms=%.4f\n", name, ms);
	if (out) {
		FILE *f = fopen(out, "wb");
		if (!f || fwrite(h, 1, bytes, f) != bytes || fclose(f)) {
			fprintf(stderr, "error: cannot write '%s'\n", out);
			exit(1);
		}
	}
	free(h);
}

#endif
