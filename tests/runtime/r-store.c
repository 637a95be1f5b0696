/* r-store.c: libmpccrt's decisions, against the fake CUDA runtime
 * (fake.h), on the program of program.h, linked as a user's program is:
 * with the runtime's wrap list. Each test runs in a child process of its
 * own (a fresh runtime: its state lives as long as the process), some
 * with MPCC_STORE* set; the fake's log says what the runtime did. */
#include "tests/runtime/program.h"
#include "tests/unit/test.h"

#include <math.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

enum { N = 64 };

/* the runtime's lock, counted: the link wraps pthread_mutex_lock too */
int __real_pthread_mutex_lock(pthread_mutex_t *m);
static int nlocks;
int
__wrap_pthread_mutex_lock(pthread_mutex_t *m)
{
	nlocks++;
	return __real_pthread_mutex_lock(m);
}

/* the test fn in a child with the environment variable env ("NAME=VALUE",
 * or NULL) set; its failure counted here */
static void
fork_test(void (*fn)(void), const char *name, const char *env)
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		if (env)
			putenv((char *)env);
		test_name = name;
		test_failed = 0;
		fn();
		exit(test_failed != 0);   /* exit: the runtime's report is written at exit */
	}
	int st;
	test_count++;
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st)) {
		test_failed++;
		fprintf(stderr, "%s: failed (status %d)\n", name, st);
	}
}
#define FORK(fn, env) fork_test(fn, #fn, env)

/* n values that are not zero and not exact in f32 */
static void
values(double *v, int n, double seed)
{
	for (int i = 0; i < n; i++)
		v[i] = seed + i / 7.0 + 1e-9 * i;
}

static double *
device(const double *v, int n)
{
	double *d;
	cudaMalloc((void **)&d, n * sizeof *d);
	cudaMemcpy(d, v, n * sizeof *d, cudaMemcpyHostToDevice);
	return d;
}

/* what the clone of scale leaves: the f32 rounding of round(v) * a */
static double
scaled(double v, double a)
{
	return fake_f32((double)fake_f32(v) * a);
}

/* every conversion kernel sits between two synchronizations */
static int
bracketed(void)
{
	const char *log = fake_log(), *p = log;
	while ((p = strstr(p, "launch mpcc_"))) {
		const char *before = p - 5, *after = strchr(p, '\n') + 1;
		if (before < log || strncmp(before, "sync\n", 5) || strncmp(after, "sync\n", 5))
			return 0;
		p = after;
	}
	return 1;
}

TEST(clone_runs_on_the_mirrors)
{
	program();
	double y0[N], x0[N], y[N];
	values(y0, N, 1.1);
	values(x0, N, -3.3);
	double *dy = device(y0, N), *dx = device(x0, N);
	int allocs = fake_allocs();
	CHECK(axpy(dy, dx, 2.5, N) == cudaSuccess);
	CHECK(fake_count("launch axpy_mpcc_store") == 1 && fake_count("launch axpy ") == 0);
	CHECK(fake_count("launch mpcc_narrow_f64_f32") == 2);
	CHECK(fake_allocs() == allocs + 2);   /* a mirror each */
	char *base;
	size_t size;
	for (int i = 0; i < 2; i++)
		CHECK(fake_alloc(seen[i], &base, &size) && base == seen[i] && size == N * sizeof(float));
	CHECK(bracketed());
	cudaMemcpy(y, dy, sizeof y, cudaMemcpyDeviceToHost);
	int same = 1;
	for (int i = 0; i < N; i++)
		same &= y[i] == fake_f32((double)fake_f32(y0[i]) + 2.5 * (double)fake_f32(x0[i]));
	CHECK(same);
	CHECK(fake_count("launch mpcc_back_f64_f32") == 1);   /* y only: x was read */
}

/* A program that leaves an error pending and never reads it (lulesh's
 * empty grids): every kernel was checked at the first launch, so the
 * kernels it launches first afterwards still run their clones, and the
 * error stays the program's */
TEST(an_error_left_pending_keeps_the_clones)
{
	program();
	double y0[N], x0[N];
	values(y0, N, 1.1);
	values(x0, N, -3.3);
	double *dy = device(y0, N), *dx = device(x0, N);
	CHECK(axpy(dy, dx, 2.5, N) == cudaSuccess);
	CHECK(cudaFree((void *)0x1234) == cudaErrorInvalidValue);   /* left pending */
	CHECK(scale(dy, 2, N) == cudaSuccess);
	CHECK(fake_count("launch scale_mpcc_store") == 1 && fake_count("launch scale ") == 0);
	CHECK(cudaPeekAtLastError() == cudaErrorInvalidValue);
}

TEST(every_launch_entry_point_runs_the_clone)
{
	program();
	double v[N];
	values(v, N, 0.5);
	double *dy = device(v, N);
	double a = 2;
	int n = N;
	void *args[] = {&dy, &a, &n};
	dim3 g = {1, 1, 1}, b = {32, 1, 1};
	cudaLaunchConfig_t cfg = {.gridDim = g, .blockDim = b};
	cudaKernel_t h;
	__cudaGetKernel(&h, &scale_h);
	CHECK(__cudaLaunchKernel_ptsz(h, g, b, args, 0, NULL) == cudaSuccess);
	CHECK(cudaLaunchKernel(&scale_h, g, b, args, 0, NULL) == cudaSuccess);
	CHECK(cudaLaunchKernel_ptsz(&scale_h, g, b, args, 0, NULL) == cudaSuccess);
	CHECK(cudaLaunchKernelExC(&cfg, &scale_h, args) == cudaSuccess);
	CHECK(cudaLaunchCooperativeKernel(&scale_h, g, b, args, 0, NULL) == cudaSuccess);
	cudaKernel_t pub;
	CHECK(cudaGetKernel(&pub, &scale_h) == cudaSuccess);
	CHECK(cudaLaunchKernel((const void *)pub, g, b, args, 0, NULL) == cudaSuccess);
	CHECK(fake_count("launch scale_mpcc_store") == 6 && fake_count("launch scale ") == 0);
	CHECK(fake_count("launch mpcc_narrow") == 1);   /* the mirror stays narrow between them */
}

TEST(interior_pointers_at_an_element_narrow)
{
	program();
	double v[N];
	values(v, N, 2.0);
	double *dy = device(v, N);
	char *base;
	size_t size;
	CHECK(scale(dy + 3, 2, N - 3) == cudaSuccess);
	CHECK(fake_count("launch scale_mpcc_store") == 1);
	CHECK(fake_alloc(seen[0], &base, &size) && (char *)seen[0] - base == 3 * 4);
	double a = 3, *dz = device(v, N), *p = dz + 4;
	int n = 8;
	void *args[] = {&p, &a, &n};
	CHECK(launch(&half_h, args, NULL) == cudaSuccess);   /* f64>f16: offsets by 4 */
	CHECK(fake_count("launch half_mpcc_store") == 1);
	CHECK(fake_alloc(seen[0], &base, &size) && (char *)seen[0] - base == 4 * 2 &&
	      size == N * 2);
}

TEST(a_mirror_of_another_type_goes_back_first)
{
	program();
	double v[N], w[N], a = 3;
	values(v, N, 2.0);
	double *dy = device(v, N);
	int n = N;
	void *args[] = {&dy, &a, &n};
	scale(dy, 2, N);   /* f32 mirror, written */
	fake_log_clear();
	CHECK(launch(&half_h, args, NULL) == cudaSuccess);   /* f16 mirror of the f32 result */
	CHECK(fake_count("launch mpcc_back_f64_f32") == 1 && fake_count("launch mpcc_narrow_f64_f16") == 1);
	cudaMemcpy(w, dy, sizeof w, cudaMemcpyDeviceToHost);
	int same = 1;
	for (int i = 0; i < N; i++)
		same &= w[i] == fake_widen_f16(fake_f16(fake_widen_f16(fake_f16(scaled(v[i], 2))) * 3));
	CHECK(same);
}

TEST(interior_pointers_off_an_element_run_the_original)
{
	program();
	double v[N], w[N];
	values(v, N, 2.0);
	double *dy = device(v, N);
	CHECK(scale((char *)dy + 4, 2, N - 1) == cudaSuccess);
	CHECK(fake_count("launch scale ") == 1 && fake_count("launch scale_mpcc_store") == 0);
	CHECK(fake_count("launch mpcc_") == 0);
	cudaMemcpy(w, dy, sizeof w, cudaMemcpyDeviceToHost);
	double want;   /* the original's doubles at a 4-byte offset, as the kernel wrote them */
	memcpy(&want, (char *)v + 4, 8);
	want *= 2;
	CHECK(!memcmp((char *)w + 4, &want, 8));
}

TEST(a_freed_allocation_reused_starts_anew)
{
	program();
	double v[N], u[N], w[N];
	values(v, N, 1.0);
	values(u, N, 7.0);
	double *dy = device(v, N);
	scale(dy, 2, N);
	int allocs = fake_allocs();
	fake_log_clear();
	CHECK(cudaFree(dy) == cudaSuccess);
	CHECK(fake_count("free 256") == 1 && fake_count("free 512") == 1);   /* the mirror, then it */
	CHECK(fake_count("launch mpcc_back") == 0);   /* no need: it is gone */
	CHECK(fake_allocs() == allocs - 2);
	double *dz = device(u, N);
	CHECK(dz == dy);   /* the fake hands the block back */
	fake_log_clear();
	scale(dz, 3, N);
	CHECK(fake_count("launch mpcc_narrow_f64_f32") == 1);
	cudaMemcpy(w, dz, sizeof w, cudaMemcpyDeviceToHost);
	int same = 1;
	for (int i = 0; i < N; i++)
		same &= w[i] == scaled(u[i], 3);
	CHECK(same);
}

TEST(a_kernel_without_clone_gets_back_only_its_arrays)
{
	program();
	double v[N], u[N];
	values(v, N, 1.5);
	values(u, N, -2.5);
	double *dy = device(v, N), *dw = device(u, N);
	scale(dy, 2, N);
	scale(dw, 2, N);
	fake_log_clear();
	run1(&touch_h, dy, N);   /* reads y: y back, w stays narrow */
	CHECK(fake_count("launch mpcc_back_f64_f32") == 1 && fake_count("launch touch ") == 1);
	double sum = 0;
	for (int i = 0; i < N; i++)
		sum += scaled(v[i], 2);
	CHECK(touched == sum);
	fake_log_clear();
	scale(dw, 2, N);
	scale(dy, 2, N);
	CHECK(fake_count("launch mpcc_narrow") == 0);   /* y was read only: its mirror is valid */
	run1(&zero_h, dy, N);    /* writes y: its mirror stale */
	fake_log_clear();
	scale(dy, 2, N);
	CHECK(fake_count("launch mpcc_narrow_f64_f32") == 1);
}

TEST(an_unknown_kernel_gets_everything_back)
{
	program();
	double v[N], u[N], w[N];
	values(v, N, 1.5);
	values(u, N, -2.5);
	double *dy = device(v, N), *dw = device(u, N);
	scale(dy, 2, N);
	scale(dw, 2, N);
	fake_log_clear();
	run1(&lib_h, dy, N);
	CHECK(fake_count("launch mpcc_back_f64_f32") == 2 && fake_count("launch lib ") == 1);
	CHECK(bracketed());
	fake_log_clear();
	scale(dw, 2, N);   /* it might have written w: stale */
	CHECK(fake_count("launch mpcc_narrow_f64_f32") == 1);
	cudaMemcpy(w, dy, sizeof w, cudaMemcpyDeviceToHost);
	int same = 1;
	for (int i = 0; i < N; i++)
		same &= w[i] == scaled(v[i], 2) - 1;
	CHECK(same);
}

TEST(open_unknown_and_cloneless_kernels_run_the_original)
{
	program();
	double v[N];
	values(v, N, 1.5);
	double *dy = device(v, N);
	const void *ks[] = {&opened_h, &future_h, &bad_h, &missing_h};
	const char *names[] = {"opened", "future", "bad", "missing"};
	for (int k = 0; k < 4; k++) {
		scale(dy, 2, N);
		fake_log_clear();
		CHECK(run1(ks[k], dy, N) == cudaSuccess);
		char what[64];
		snprintf(what, sizeof what, "launch %s ", names[k]);
		CHECK(fake_count(what) == 1 && fake_count("launch mpcc_back") == 1);
		CHECK(fake_count("launch mpcc_narrow") == 0);
		CHECK(!strstr(fake_log(), "_mpcc_store stream"));
	}
}

TEST(two_streams_see_the_conversion_between_them)
{
	program();
	double v[N];
	values(v, N, 1.5);
	double *dy = device(v, N);
	cudaStream_t a, b;
	cudaStreamCreate(&a);
	cudaStreamCreate(&b);
	double two = 2;
	int n = N;
	void *sargs[] = {&dy, &two, &n}, *targs[] = {&dy, &n};
	fake_log_clear();
	launch(&scale_h, sargs, a);
	launch(&touch_h, targs, b);
	char want[256];
	snprintf(want, sizeof want, "launch scale_mpcc_store stream %p\nsync\nlaunch "
	         "mpcc_back_f64_f32\nsync\nlaunch touch stream %p\n", (void *)a, (void *)b);
	CHECK(strstr(fake_log(), want) != NULL);
}

TEST(aliased_arrays_run_the_original)
{
	program();
	double v[N], w[N];
	values(v, N, 1.5);
	double *dy = device(v, N), *dz = device(v, N);
	int n = N / 2;
	double *z = dy + N / 2;
	void *args[] = {&dy, &z, &n};
	CHECK(launch(&mix_h, args, NULL) == cudaSuccess);   /* y narrow, z plain, one allocation */
	CHECK(fake_count("launch mix ") == 1 && fake_count("launch mix_mpcc_store") == 0);
	cudaMemcpy(w, dy, sizeof w, cudaMemcpyDeviceToHost);
	CHECK(!memcmp(w, v + N / 2, sizeof w / 2));
	void *args2[] = {&dy, &dz, &n};
	CHECK(launch(&mix_h, args2, NULL) == cudaSuccess);   /* two allocations */
	CHECK(fake_count("launch mix_mpcc_store") == 1);
}

TEST(back_conversion_writes_only_changed_elements)
{
	program();
	/* a pool: N doubles, then other data whose bits must survive */
	enum { BYTES = N * 8 + 200 };
	unsigned char pool[BYTES], after[BYTES];
	double v[N];
	values(v, N, 3.25);
	memcpy(pool, v, sizeof v);
	for (int i = N * 8; i < BYTES; i++)
		pool[i] = (unsigned char)(i * 37 + 11);
	uint64_t snan = 0x7ff0000000000abcull, qnan = 0xfff8000000012345ull;
	memcpy(pool + N * 8, &snan, 8);
	memcpy(pool + N * 8 + 8, &qnan, 8);
	void *dp;
	cudaMalloc(&dp, BYTES);
	cudaMemcpy(dp, pool, BYTES, cudaMemcpyHostToDevice);
	CHECK(scale(dp, 2, N / 2) == cudaSuccess);   /* changes the first half only */
	CHECK(fake_count("launch scale_mpcc_store") == 1);
	cudaMemcpy(after, dp, BYTES, cudaMemcpyDeviceToHost);
	int same = 1;
	for (int i = 0; i < N / 2; i++) {
		double d;
		memcpy(&d, after + 8 * i, 8);
		same &= d == scaled(v[i], 2);
	}
	CHECK(same);
	CHECK(!memcmp(after + N / 2 * 8, pool + N / 2 * 8, BYTES - N / 2 * 8));
}

TEST(every_conversion_type_narrows_and_comes_back)
{
	program();
	struct {
		char *k;
		int wide;
	} ks[] = {{&bscale_h, 4}, {&hscale_h, 4}, {&qscale_h, 8}, {&half_h, 8}};
	for (int k = 0; k < 4; k++) {
		double v[N], back[N], a = 1.5;
		float f[N], fb[N];
		values(v, N, 0.75);
		for (int i = 0; i < N; i++)
			f[i] = (float)v[i];
		void *dy;
		int n = N;
		cudaMalloc(&dy, N * ks[k].wide);
		cudaMemcpy(dy, ks[k].wide == 8 ? (void *)v : (void *)f, N * ks[k].wide,
		           cudaMemcpyHostToDevice);
		void *args[] = {&dy, &a, &n};
		fake_log_clear();
		CHECK(launch(ks[k].k, args, NULL) == cudaSuccess);
		CHECK(fake_count("launch mpcc_narrow") == 1 && strstr(fake_log(), "_mpcc_store stream"));
		cudaMemcpy(ks[k].wide == 8 ? (void *)back : (void *)fb, dy, N * ks[k].wide,
		           cudaMemcpyDeviceToHost);
		int same = 1;
		for (int i = 0; i < N; i++) {
			double x = ks[k].wide == 8 ? v[i] : f[i], got = ks[k].wide == 8 ? back[i] : fb[i];
			int bf = k == 0 || k == 2;
			double r = bf ? fake_widen_bf16(fake_bf16(x)) : fake_widen_f16(fake_f16(x));
			double want = bf ? fake_widen_bf16(fake_bf16(r * a)) : fake_widen_f16(fake_f16(r * a));
			same &= got == want;
		}
		CHECK(same);
	}
}

/* ---- every copy and set sees the original form ---- */

static double *dev_y, *dev_z;
static double host_v[N], host_e[N];

/* y narrow, its truth host_e: what the next reader must see */
static void
narrow_y(void)
{
	values(host_v, N, 1.25);
	cudaMemcpy(dev_y, host_v, sizeof host_v, cudaMemcpyHostToDevice);
	scale(dev_y, 2, N);
	for (int i = 0; i < N; i++)
		host_e[i] = scaled(host_v[i], 2);
	fake_log_clear();
}

/* the reading copies: each copies all of y to out (host or device); those
 * whose copies the fake leaves undone are read from y itself (the fake's
 * device memory is the host's) */
static int
reader(int i, double *out, const char **name)
{
	size_t n = N * 8;
	static void *sym;
	static cudaArray_t arr;
	struct cudaMemcpy3DParms p = {0};
	struct cudaMemcpy3DBatchOp op = {0};
	p.srcPtr = (struct cudaPitchedPtr){dev_y, n, n, 1};
	p.dstPtr = (struct cudaPitchedPtr){out, n, n, 1};
	p.extent = (struct cudaExtent){n, 1, 1};
	void *d[] = {out};
	const void *s[] = {dev_y};
	size_t sz[] = {n};
	const enum cudaMemcpyKind D2H = cudaMemcpyDeviceToHost, D2D = cudaMemcpyDeviceToDevice;
	if (!sym)
		sym = fake_symbol(n), arr = fake_array(n);
	const char *names[] = {
		"cudaMemcpy", "cudaMemcpy_ptds", "cudaMemcpyAsync", "cudaMemcpyAsync_ptsz",
		"cudaMemcpy device to device", "cudaMemcpy2D", "cudaMemcpy2D_ptds", "cudaMemcpy2DAsync",
		"cudaMemcpy2DAsync_ptsz", "cudaMemcpy3D", "cudaMemcpy3D_ptds", "cudaMemcpy3DAsync",
		"cudaMemcpy3DAsync_ptsz", "cudaMemcpyToSymbol", "cudaMemcpyToSymbol_ptds",
		"cudaMemcpyToSymbolAsync", "cudaMemcpyToSymbolAsync_ptsz", "cudaMemcpyToArray",
		"cudaMemcpyToArray_ptds", "cudaMemcpyToArrayAsync", "cudaMemcpyToArrayAsync_ptsz",
		"cudaMemcpy2DToArray", "cudaMemcpy2DToArray_ptds", "cudaMemcpy2DToArrayAsync",
		"cudaMemcpy2DToArrayAsync_ptsz", "cudaMemcpyBatchAsync", "cudaMemcpyBatchAsync_ptsz",
		"cudaMemcpy3DBatchAsync", "cudaMemcpy3DBatchAsync_ptsz", "cudaGraphLaunch",
		"cudaGraphLaunch_ptsz",
	};
	if (i >= (int)(sizeof names / sizeof *names))
		return 0;
	*name = names[i];
	switch (i) {
	case 0: cudaMemcpy(out, dev_y, n, D2H); break;
	case 1: cudaMemcpy_ptds(out, dev_y, n, cudaMemcpyDefault); break;
	case 2: cudaMemcpyAsync(out, dev_y, n, D2H, NULL); break;
	case 3: cudaMemcpyAsync_ptsz(out, dev_y, n, D2H, NULL); break;
	case 4: cudaMemcpy(dev_z, dev_y, n, D2D); memcpy(out, dev_z, n); break;
	case 5: cudaMemcpy2D(out, 64, dev_y, 64, 64, n / 64, D2H); break;
	case 6: cudaMemcpy2D_ptds(out, 64, dev_y, 64, 64, n / 64, D2H); break;
	case 7: cudaMemcpy2DAsync(out, 64, dev_y, 64, 64, n / 64, D2H, NULL); break;
	case 8: cudaMemcpy2DAsync_ptsz(out, 64, dev_y, 64, 64, n / 64, D2H, NULL); break;
	case 9: cudaMemcpy3D(&p); break;
	case 10: cudaMemcpy3D_ptds(&p); break;
	case 11: cudaMemcpy3DAsync(&p, NULL); break;
	case 12: cudaMemcpy3DAsync_ptsz(&p, NULL); break;
	case 13: cudaMemcpyToSymbol(sym, dev_y, n, 0, D2D); memcpy(out, sym, n); break;
	case 14: cudaMemcpyToSymbol_ptds(sym, dev_y, n, 0, D2D); memcpy(out, sym, n); break;
	case 15: cudaMemcpyToSymbolAsync(sym, dev_y, n, 0, D2D, NULL); memcpy(out, sym, n); break;
	case 16: cudaMemcpyToSymbolAsync_ptsz(sym, dev_y, n, 0, D2D, NULL); memcpy(out, sym, n); break;
	case 17: cudaMemcpyToArray(arr, 0, 0, dev_y, n, D2D); break;
	case 18: cudaMemcpyToArray_ptds(arr, 0, 0, dev_y, n, D2D); break;
	case 19: cudaMemcpyToArrayAsync(arr, 0, 0, dev_y, n, D2D, NULL); break;
	case 20: cudaMemcpyToArrayAsync_ptsz(arr, 0, 0, dev_y, n, D2D, NULL); break;
	case 21: cudaMemcpy2DToArray(arr, 0, 0, dev_y, 64, 64, n / 64, D2D); break;
	case 22: cudaMemcpy2DToArray_ptds(arr, 0, 0, dev_y, 64, 64, n / 64, D2D); break;
	case 23: cudaMemcpy2DToArrayAsync(arr, 0, 0, dev_y, 64, 64, n / 64, D2D, NULL); break;
	case 24: cudaMemcpy2DToArrayAsync_ptsz(arr, 0, 0, dev_y, 64, 64, n / 64, D2D, NULL); break;
	case 25: cudaMemcpyBatchAsync(d, s, sz, 1, NULL, NULL, 0, NULL); break;
	case 26: cudaMemcpyBatchAsync_ptsz(d, s, sz, 1, NULL, NULL, 0, NULL); break;
	case 27: cudaMemcpy3DBatchAsync(1, &op, 0, NULL); memcpy(out, dev_y, n); break;
	case 28: cudaMemcpy3DBatchAsync_ptsz(1, &op, 0, NULL); memcpy(out, dev_y, n); break;
	case 29: cudaGraphLaunch(NULL, NULL); memcpy(out, dev_y, n); break;
	case 30: cudaGraphLaunch_ptsz(NULL, NULL); memcpy(out, dev_y, n); break;
	}
	if (i >= 17 && i <= 24)
		memcpy(out, fake_array_data(arr), n);
	return 1;
}

TEST(every_copy_reads_the_original)
{
	program();
	double v[N];
	values(v, N, 9);
	dev_y = device(v, N);
	dev_z = device(v, N);
	const char *name = "?";
	for (int i = 0;; i++) {
		double out[N];
		narrow_y();
		memset(out, 0, sizeof out);
		if (!reader(i, out, &name))
			break;
		if (fake_count("launch mpcc_back_f64_f32") != 1 || memcmp(out, host_e, sizeof out))
			fprintf(stderr, "%s: not the original form\n", name), test_failed++;
	}
}

/* the writing copies and sets: each writes half of y (its first
 * half) from host_w, or sets it to bytes 0 */
static double host_w[N];

static int
writer(int i, const char **name, int *zero)
{
	size_t n = N * 4;   /* half */
	static void *sym;
	static cudaArray_t arr;
	struct cudaMemcpy3DParms p = {0};
	p.srcPtr = (struct cudaPitchedPtr){host_w, n, n, 1};
	p.dstPtr = (struct cudaPitchedPtr){dev_y, n, n, 1};
	p.extent = (struct cudaExtent){n, 1, 1};
	struct cudaPitchedPtr pp = {dev_y, n, n, 1};
	struct cudaExtent e = {n, 1, 1};
	const enum cudaMemcpyKind H2D = cudaMemcpyHostToDevice, D2D = cudaMemcpyDeviceToDevice;
	if (!sym)
		sym = fake_symbol(n), arr = fake_array(n);
	memcpy(sym, host_w, n);
	memcpy(fake_array_data(arr), host_w, n);
	const char *names[] = {
		"cudaMemcpy", "cudaMemcpy_ptds", "cudaMemcpyAsync", "cudaMemcpyAsync_ptsz",
		"cudaMemcpy2D", "cudaMemcpy2D_ptds", "cudaMemcpy2DAsync", "cudaMemcpy2DAsync_ptsz",
		"cudaMemcpy3D", "cudaMemcpy3D_ptds", "cudaMemcpy3DAsync", "cudaMemcpy3DAsync_ptsz",
		"cudaMemcpyFromSymbol", "cudaMemcpyFromSymbol_ptds", "cudaMemcpyFromSymbolAsync",
		"cudaMemcpyFromSymbolAsync_ptsz", "cudaMemcpyFromArray", "cudaMemcpyFromArray_ptds",
		"cudaMemcpyFromArrayAsync", "cudaMemcpyFromArrayAsync_ptsz", "cudaMemcpy2DFromArray",
		"cudaMemcpy2DFromArray_ptds", "cudaMemcpy2DFromArrayAsync",
		"cudaMemcpy2DFromArrayAsync_ptsz",
		/* the sets, from here on */
		"cudaMemset", "cudaMemset_ptds", "cudaMemsetAsync", "cudaMemsetAsync_ptsz", "cudaMemset2D",
		"cudaMemset2D_ptds", "cudaMemset2DAsync", "cudaMemset2DAsync_ptsz", "cudaMemset3D",
		"cudaMemset3D_ptds", "cudaMemset3DAsync", "cudaMemset3DAsync_ptsz",
	};
	if (i >= (int)(sizeof names / sizeof *names))
		return 0;
	*name = names[i];
	*zero = i >= 24;
	switch (i) {
	case 0: cudaMemcpy(dev_y, host_w, n, H2D); break;
	case 1: cudaMemcpy_ptds(dev_y, host_w, n, H2D); break;
	case 2: cudaMemcpyAsync(dev_y, host_w, n, H2D, NULL); break;
	case 3: cudaMemcpyAsync_ptsz(dev_y, host_w, n, H2D, NULL); break;
	case 4: cudaMemcpy2D(dev_y, 64, host_w, 64, 64, n / 64, H2D); break;
	case 5: cudaMemcpy2D_ptds(dev_y, 64, host_w, 64, 64, n / 64, H2D); break;
	case 6: cudaMemcpy2DAsync(dev_y, 64, host_w, 64, 64, n / 64, H2D, NULL); break;
	case 7: cudaMemcpy2DAsync_ptsz(dev_y, 64, host_w, 64, 64, n / 64, H2D, NULL); break;
	case 8: cudaMemcpy3D(&p); break;
	case 9: cudaMemcpy3D_ptds(&p); break;
	case 10: cudaMemcpy3DAsync(&p, NULL); break;
	case 11: cudaMemcpy3DAsync_ptsz(&p, NULL); break;
	case 12: cudaMemcpyFromSymbol(dev_y, sym, n, 0, D2D); break;
	case 13: cudaMemcpyFromSymbol_ptds(dev_y, sym, n, 0, D2D); break;
	case 14: cudaMemcpyFromSymbolAsync(dev_y, sym, n, 0, D2D, NULL); break;
	case 15: cudaMemcpyFromSymbolAsync_ptsz(dev_y, sym, n, 0, D2D, NULL); break;
	case 16: cudaMemcpyFromArray(dev_y, arr, 0, 0, n, D2D); break;
	case 17: cudaMemcpyFromArray_ptds(dev_y, arr, 0, 0, n, D2D); break;
	case 18: cudaMemcpyFromArrayAsync(dev_y, arr, 0, 0, n, D2D, NULL); break;
	case 19: cudaMemcpyFromArrayAsync_ptsz(dev_y, arr, 0, 0, n, D2D, NULL); break;
	case 20: cudaMemcpy2DFromArray(dev_y, 64, arr, 0, 0, 64, n / 64, D2D); break;
	case 21: cudaMemcpy2DFromArray_ptds(dev_y, 64, arr, 0, 0, 64, n / 64, D2D); break;
	case 22: cudaMemcpy2DFromArrayAsync(dev_y, 64, arr, 0, 0, 64, n / 64, D2D, NULL); break;
	case 23: cudaMemcpy2DFromArrayAsync_ptsz(dev_y, 64, arr, 0, 0, 64, n / 64, D2D, NULL); break;
	case 24: cudaMemset(dev_y, 0, n); break;
	case 25: cudaMemset_ptds(dev_y, 0, n); break;
	case 26: cudaMemsetAsync(dev_y, 0, n, NULL); break;
	case 27: cudaMemsetAsync_ptsz(dev_y, 0, n, NULL); break;
	case 28: cudaMemset2D(dev_y, 64, 0, 64, n / 64); break;
	case 29: cudaMemset2D_ptds(dev_y, 64, 0, 64, n / 64); break;
	case 30: cudaMemset2DAsync(dev_y, 64, 0, 64, n / 64, NULL); break;
	case 31: cudaMemset2DAsync_ptsz(dev_y, 64, 0, 64, n / 64, NULL); break;
	case 32: cudaMemset3D(pp, 0, e); break;
	case 33: cudaMemset3D_ptds(pp, 0, e); break;
	case 34: cudaMemset3DAsync(pp, 0, e, NULL); break;
	case 35: cudaMemset3DAsync_ptsz(pp, 0, e, NULL); break;
	}
	return 1;
}

TEST(every_copy_and_set_writes_the_original)
{
	program();
	double v[N];
	values(v, N, 9);
	values(host_w, N, -40);
	dev_y = device(v, N);
	const char *name = "?";
	for (int i = 0;; i++) {
		int zero;
		narrow_y();
		if (!writer(i, &name, &zero))
			break;
		/* written back first (half of y is still the clone's), then stale */
		int ok = fake_count("launch mpcc_back_f64_f32") == 1;
		fake_log_clear();
		scale(dev_y, 2, N);
		ok &= fake_count("launch mpcc_narrow_f64_f32") == 1;
		double out[N];
		cudaMemcpy(out, dev_y, sizeof out, cudaMemcpyDeviceToHost);
		for (int e = 0; e < N; e++)
			ok &= out[e] == scaled(e < N / 2 ? (zero ? 0 : host_w[e]) : host_e[e], 2);
		if (!ok)
			fprintf(stderr, "%s: the original form not written\n", name), test_failed++;
	}
}

/* a set or a copy over all of a narrow array needs nothing written back
 * (a program that clears its array each step), one over part of it does */
TEST(a_write_of_all_of_an_array_writes_nothing_back)
{
	program();
	double v[N], out[N];
	values(v, N, 9);
	dev_y = device(v, N);
	narrow_y();
	cudaMemset(dev_y, 0, N * sizeof(double));
	CHECK(fake_count("launch mpcc_back_f64_f32") == 0);
	cudaMemcpy(out, dev_y, sizeof out, cudaMemcpyDeviceToHost);
	int zero = 1;
	for (int e = 0; e < N; e++)
		zero &= out[e] == 0;
	CHECK(zero);
	narrow_y();
	cudaMemcpy(dev_y, v, sizeof v, cudaMemcpyHostToDevice);
	CHECK(fake_count("launch mpcc_back_f64_f32") == 0);
	narrow_y();
	cudaMemset(dev_y, 0, N * sizeof(double) - 8);
	CHECK(fake_count("launch mpcc_back_f64_f32") == 1);
}

TEST(idle_path_takes_no_lock)
{
	program();
	double v[N], out[N];
	values(v, N, 1);
	double *dy = device(v, N), *dz = device(v, N);
	run1(&touch_h, dy, N);   /* each launch site's first __cudaGetKernel */
	run1(&lib_h, dz, N);
	nlocks = 0;
	for (int i = 0; i < 100; i++) {
		run1(&touch_h, dy, N);
		run1(&lib_h, dz, N);
		cudaMemcpy(out, dy, sizeof out, cudaMemcpyDeviceToHost);
		cudaMemset(dz, 0, 8);
	}
	CHECK(nlocks == 0);
	scale(dy, 2, N);   /* a clone: the lock */
	CHECK(nlocks > 0);
	int after = nlocks;
	run1(&touch_h, dz, N);   /* something is narrow now: no idle path */
	CHECK(nlocks > after);
}

TEST(store_off_runs_originals_only)
{
	program();
	double v[N];
	values(v, N, 1);
	double *dy = device(v, N);
	nlocks = 0;
	scale(dy, 2, N);
	CHECK(fake_count("launch scale ") == 1 && fake_count("launch scale_mpcc_store") == 0);
	CHECK(fake_count("register scale_mpcc_store") == 0 && fake_count("launch mpcc_") == 0);
	CHECK(nlocks == 0);
}

/* what starts store off, each after y went narrow */
static void
trigger(int i, const char **name)
{
	void *fn;
	switch (i) {
	case 0: *name = "cudaSetDevice"; cudaSetDevice(1); break;
	case 1: *name = "cudaDeviceEnablePeerAccess"; cudaDeviceEnablePeerAccess(1, 0); break;
	case 2: *name = "cudaMemcpyPeer"; cudaMemcpyPeer(dev_z, 0, dev_z, 0, 8); break;
	case 3: *name = "cudaStreamBeginCapture";
		cudaStreamBeginCapture(NULL, cudaStreamCaptureModeGlobal); break;
	case 4: *name = "cudaGetDriverEntryPoint"; cudaGetDriverEntryPoint("cuMemcpy", &fn, 0, NULL); break;
	case 5: *name = "cudaIpcGetMemHandle"; cudaIpcGetMemHandle(NULL, dev_y); break;
	case 6: *name = "dlopen"; dlopen("libm.so.6", 2); break;
	default: *name = NULL;
	}
}

static int trigger_i;
static void
off_after(void)
{
	program();
	double v[N], out[N];
	values(v, N, 1);
	dev_y = device(v, N);
	dev_z = device(v, N);
	narrow_y();
	const char *name;
	trigger(trigger_i, &name);
	CHECK(fake_count("launch mpcc_back_f64_f32") == 1);
	fake_log_clear();
	scale(dev_y, 2, N);
	CHECK(fake_count("launch scale ") == 1 && fake_count("launch mpcc_") == 0);
	cudaMemcpy(out, dev_y, sizeof out, cudaMemcpyDeviceToHost);
	int same = 1;
	for (int i = 0; i < N; i++)
		same &= out[i] == host_e[i] * 2;
	CHECK(same);
	if (test_failed)
		fprintf(stderr, "after %s\n", name);
}

TEST(a_device_chosen_before_any_allocation_keeps_store_on)
{
	program();
	cudaSetDevice(1);
	double v[N];
	values(v, N, 1);
	double *dy = device(v, N);
	scale(dy, 2, N);
	CHECK(fake_count("launch scale_mpcc_store") == 1);
}

TEST(dlopen_of_cudas_own_keeps_store_on)
{
	program();
	double v[N];
	values(v, N, 1);
	double *dy = device(v, N);
	scale(dy, 2, N);
	void *h = dlopen("libcuda.so.1", 2);   /* what cudart opens */
	(void)h;
	scale(dy, 2, N);
	CHECK(fake_count("launch scale_mpcc_store") == 2 && fake_count("launch mpcc_back") == 0);
}

TEST(graph_launch_finds_the_original)
{
	program();
	double v[N];
	values(v, N, 1);
	dev_y = device(v, N);
	narrow_y();
	cudaGraphLaunch(NULL, NULL);
	CHECK(fake_count("launch mpcc_back_f64_f32") == 1);
	fake_log_clear();
	scale(dev_y, 2, N);   /* the graph may have written it: narrowed anew */
	CHECK(fake_count("launch mpcc_narrow_f64_f32") == 1 && fake_count("launch scale_mpcc") == 1);
}

TEST(attributes_reach_the_clone)
{
	program();
	double v[N];
	values(v, N, 1);
	double *dy = device(v, N);
	CHECK(cudaFuncSetAttribute(&scale_h, cudaFuncAttributeMaxDynamicSharedMemorySize, 1024) ==
	      cudaSuccess);
	CHECK(fake_count("attr scale_mpcc_store") == 1);
	fake_refuse_attr("axpy_mpcc_store", cudaFuncAttributeMaxDynamicSharedMemorySize);
	CHECK(cudaFuncSetAttribute(&axpy_h, cudaFuncAttributeMaxDynamicSharedMemorySize, 1024) ==
	      cudaSuccess);
	CHECK(cudaGetLastError() == cudaSuccess);   /* the clone's refusal is not the program's */
	double *dx = device(v, N);
	axpy(dy, dx, 2, N);
	CHECK(fake_count("launch axpy_mpcc_store") == 0 && fake_count("launch axpy ") == 1);
	scale(dy, 2, N);
	CHECK(fake_count("launch scale_mpcc_store") == 1);
}

TEST(another_units_kernel_of_the_same_name_has_its_own_entry)
{
	program();
	double v[N];
	values(v, N, 1);
	double *dy = device(v, N), *dx = device(v, N);
	double a = 2;
	int n = N;
	void *args[] = {&dy, &dx, &a, &n};
	CHECK(launch(&axpyb_h, args, NULL) == cudaSuccess);
	CHECK(fake_count("launch axpy ") == 1 && fake_count("launch axpy_mpcc_store") == 0);
}

/* the report, written at exit */
static char report[4096];

static void
report_scenario(void)
{
	program();
	double v[N], out[N];
	values(v, N, 1);
	double *dy = device(v, N), *dx = device(v, N);
	axpy(dy, dx, 2, N);
	scale((char *)dy + 4, 2, 8);
	cudaMemcpy(out, dy, sizeof out, cudaMemcpyDeviceToHost);
	run1(&lib_h, dy, N);
}

static char *
slurp(const char *path)
{
	static char buf[16384];
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
	buf[n] = 0;
	if (f)
		fclose(f);
	return buf;
}

TEST(report_says_what_was_converted_and_why)
{
	const char *r = slurp(report + strlen("MPCC_STORE_REPORT="));
	CHECK(strstr(r, "{\"kernel\":\"axpy\",\"clone\":\"axpy_mpcc_store\",\"launches\":"
	                "{\"clone\":1,\"original\":0},\"why_original\":{}}\n"));
	CHECK(strstr(r, "{\"kernel\":\"axpy\",\"param\":0,\"type\":\"f64>f32\",\"to_narrow\":1,"
	                "\"to_narrow_bytes\":512,\"back\":0,\"back_bytes\":0}\n"));
	CHECK(strstr(r, "{\"kernel\":\"axpy\",\"param\":1,\"type\":\"f64>f32\",\"to_narrow\":1,"));
	CHECK(strstr(r, "{\"kernel\":\"scale\",\"clone\":\"scale_mpcc_store\",\"launches\":"
	                "{\"clone\":0,\"original\":1},\"why_original\":{\"interior\":1}}\n"));
	CHECK(strstr(r, "{\"kernel\":\"scale\",\"param\":0,\"type\":\"f64>f32\",\"to_narrow\":0,"
	                "\"to_narrow_bytes\":0,\"back\":1,\"back_bytes\":512}\n"));
	CHECK(strstr(r, "{\"kernel\":\"lib\",\"clone\":null,\"known\":false,\"launches\":"
	                "{\"clone\":0,\"original\":1}"));
	CHECK(!strstr(r, "\"api\""));   /* the copy found y written back already */
	if (test_failed)
		fputs(r, stderr);
}

/* MPCC_STORE_CHECK: stderr to a file, read back */
static char check_err[4096];

static void
check_scenario(void)
{
	FILE *e = freopen(check_err, "w", stderr);
	(void)e;
	program();
	double v[N], out[N];
	values(v, N, 1);
	double *dy = device(v, N);
	double a = 2;
	int n = N;
	void *args[] = {&dy, &a, &n};
	scale(dy, 2, N);
	launch(&wrong_h, args, NULL);
	cudaMemcpy(out, dy, sizeof out, cudaMemcpyDeviceToHost);
	int same = 1;   /* the program goes on with the clone's values */
	for (int i = 0; i < N; i++)
		same &= out[i] == fake_f32(scaled(v[i], 2) * 2 + 1);
	fclose(stderr);
	if (!same)
		_exit(3);
}

TEST(check_mode_finds_a_wrong_clone)
{
	const char *err = slurp(check_err);
	CHECK(strstr(err, "mpcc: store check: wrong: parameter 0 (f64>f32): 64 of 64 elements differ "
	                  "beyond one rounding"));
	CHECK(!strstr(err, "store check: scale"));
}

int
main(void)
{
	char *r = test_tmp("r-store-report.XXXXXX"), *e = test_tmp("r-store-check.XXXXXX");
	int fr = mkstemp(r), fe = mkstemp(e);
	close(fr);
	close(fe);
	snprintf(report, sizeof report, "MPCC_STORE_REPORT=%s", r);
	snprintf(check_err, sizeof check_err, "%s", e);
	FORK(clone_runs_on_the_mirrors, NULL);
	FORK(an_error_left_pending_keeps_the_clones, NULL);
	FORK(a_write_of_all_of_an_array_writes_nothing_back, NULL);
	FORK(every_launch_entry_point_runs_the_clone, NULL);
	FORK(interior_pointers_at_an_element_narrow, NULL);
	FORK(a_mirror_of_another_type_goes_back_first, NULL);
	FORK(interior_pointers_off_an_element_run_the_original, NULL);
	FORK(a_freed_allocation_reused_starts_anew, NULL);
	FORK(a_kernel_without_clone_gets_back_only_its_arrays, NULL);
	FORK(an_unknown_kernel_gets_everything_back, NULL);
	FORK(open_unknown_and_cloneless_kernels_run_the_original, NULL);
	FORK(two_streams_see_the_conversion_between_them, NULL);
	FORK(aliased_arrays_run_the_original, NULL);
	FORK(back_conversion_writes_only_changed_elements, NULL);
	FORK(every_conversion_type_narrows_and_comes_back, NULL);
	FORK(every_copy_reads_the_original, NULL);
	FORK(every_copy_and_set_writes_the_original, NULL);
	FORK(idle_path_takes_no_lock, NULL);
	FORK(store_off_runs_originals_only, "MPCC_STORE=off");
	for (trigger_i = 0; trigger_i < 7; trigger_i++)
		fork_test(off_after, "store_goes_off_after_a_trigger", NULL);
	FORK(a_device_chosen_before_any_allocation_keeps_store_on, NULL);
	FORK(dlopen_of_cudas_own_keeps_store_on, NULL);
	FORK(graph_launch_finds_the_original, NULL);
	FORK(attributes_reach_the_clone, NULL);
	FORK(another_units_kernel_of_the_same_name_has_its_own_entry, NULL);
	fork_test(report_scenario, "report_scenario", report);
	RUN(report_says_what_was_converted_and_why);
	fork_test(check_scenario, "check_scenario", "MPCC_STORE_CHECK=1");
	RUN(check_mode_finds_a_wrong_clone);
	unlink(r);
	unlink(e);
	free(r);
	free(e);
	return DONE();
}
