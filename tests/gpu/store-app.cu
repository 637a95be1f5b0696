// store-app.cu: a program of many kernels for the store transform's GPU
// test (tests/gpu/g-store.sh): arrays from cudaMalloc and from a caching
// pool (one allocation, sub-allocated: doubles and ints side by side),
// two streams ordered by events, kernels the store rule narrows, one it
// cannot (an int index gather), one from another translation unit built
// without mpcc (unknown to the runtime), atomics, a zeroing kernel, and
// every kind of copy and set between them. It prints a checksum of each
// array and writes every array to OUT, which the test compares between
// builds: ints bit for bit, doubles within what f32 storage allows.
//   store-app N ITERS SEED OUT
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
	fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void axpy(double *y, const double *x, double a, int n) {
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) y[i] = a * x[i] + y[i];
}
__global__ void smooth(double *out, const double *in, int n) {
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i > 0 && i < n - 1) out[i] = 0.25 * in[i - 1] + 0.5 * in[i] + 0.25 * in[i + 1];
	else if (i == 0 || i == n - 1) out[i] = in[i];
}
__global__ void gather(double *out, const double *in, const int *idx, int n) {
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) out[i] = in[idx[i]] * 1.5;
}
__global__ void sum(double *s, const double *x, int n) {
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) atomicAdd(&s[i & 63], x[i] * 1e-3);
}
__global__ void zero(double *y, int n) {
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) y[i] = 0;
}
__global__ void vec2(double2 *y, const double2 *x, int n) {
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) { double2 v = x[i]; y[i] = make_double2(v.x - v.y, v.x + v.y * 0.5); }
}
__global__ void bump(int *k, int n) {
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) k[i] = (k[i] * 7 + 3) % n;
}
void scale_elsewhere(double *y, double a, int n, cudaStream_t s);   // store-other.cu

// a caching pool: one allocation, carved in order, 256-byte aligned
struct pool {
	char *base;
	size_t used, size;
	void *take(size_t bytes) {
		void *p = base + used;
		used += (bytes + 255) & ~(size_t)255;
		if (used > size) { fprintf(stderr, "pool full\n"); exit(1); }
		return p;
	}
};

static double
rnd(unsigned *s)
{
	*s = *s * 1664525u + 1013904223u;
	return ((*s >> 8) & 0xffff) / 65536.0 + 0.25;
}

int
main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1 << 20, iters = argc > 2 ? atoi(argv[2]) : 20;
	unsigned seed = argc > 3 ? atoi(argv[3]) : 1;
	const char *out = argc > 4 ? argv[4] : "store-app.out";
	int b = 256, g = (n + b - 1) / b;
	std::vector<double> hx(n), hy(n), hp(n);
	std::vector<int> hk(n);
	for (int i = 0; i < n; i++) {
		hx[i] = rnd(&seed), hy[i] = rnd(&seed), hp[i] = rnd(&seed);
		hk[i] = (int)(rnd(&seed) * n) % n;
	}
	double *x, *y, *s;
	CK(cudaMalloc(&x, n * sizeof(double)));
	CK(cudaMalloc(&y, n * sizeof(double)));
	CK(cudaMalloc(&s, 64 * sizeof(double)));
	pool pl = {nullptr, 0, (size_t)n * 40 + 4096};
	CK(cudaMalloc(&pl.base, pl.size));
	double *pa = (double *)pl.take(n * 8), *pb = (double *)pl.take(n * 8);
	int *pk = (int *)pl.take(n * 4);
	double *pc = (double *)pl.take(n * 8);
	cudaStream_t s1, s2;
	cudaEvent_t e1, e2;
	CK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
	CK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
	CK(cudaEventCreate(&e1));
	CK(cudaEventCreate(&e2));
	CK(cudaMemcpy(x, hx.data(), n * 8, cudaMemcpyHostToDevice));
	CK(cudaMemcpy(y, hy.data(), n * 8, cudaMemcpyHostToDevice));
	CK(cudaMemcpyAsync(pa, hp.data(), n * 8, cudaMemcpyHostToDevice, s1));
	CK(cudaMemcpy(pk, hk.data(), n * 4, cudaMemcpyHostToDevice));
	CK(cudaMemset(s, 0, 64 * 8));
	CK(cudaMemcpyAsync(pb, x, n * 8, cudaMemcpyDeviceToDevice, s1));
	CK(cudaStreamSynchronize(s1));
	double mid = 0;
	for (int it = 0; it < iters; it++) {
		axpy<<<g, b, 0, s1>>>(y, x, 0.5, n);
		smooth<<<g, b, 0, s1>>>(pc, pa, n);
		CK(cudaEventRecord(e1, s1));
		CK(cudaStreamWaitEvent(s2, e1, 0));
		smooth<<<g, b, 0, s2>>>(pa, pc, n);
		vec2<<<g / 2, b, 0, s2>>>((double2 *)x, (const double2 *)y, n / 2);
		sum<<<g, b, 0, s2>>>(s, pa, n);
		CK(cudaEventRecord(e2, s2));
		CK(cudaStreamWaitEvent(s1, e2, 0));
		gather<<<g, b, 0, s1>>>(pb, pa, pk, n);
		bump<<<g, b, 0, s1>>>(pk, n);
		scale_elsewhere(y, 0.999, n, s1);
		if (it == iters / 2) {   // the host looks in the middle
			double h;
			CK(cudaMemcpyAsync(&h, y + n / 3, 8, cudaMemcpyDeviceToHost, s1));
			CK(cudaStreamSynchronize(s1));
			mid = h;
			CK(cudaMemsetAsync(pb + n / 2, 0, 16 * 8, s1));   // a piece of a pool array
		}
		if (it == iters - 3)
			zero<<<g, b, 0, s1>>>(x, n / 4);
	}
	CK(cudaDeviceSynchronize());
	CK(cudaGetLastError());
	std::vector<double> ra(n), rb(n), rc(n), rs(64);
	CK(cudaMemcpy(hx.data(), x, n * 8, cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(hy.data(), y, n * 8, cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(ra.data(), pa, n * 8, cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(rb.data(), pb, n * 8, cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(rc.data(), pc, n * 8, cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(hk.data(), pk, n * 4, cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(rs.data(), s, 64 * 8, cudaMemcpyDeviceToHost));
	FILE *f = fopen(out, "wb");
	if (!f) { perror(out); return 1; }
	const std::vector<double> *all[] = {&hx, &hy, &ra, &rb, &rc};
	const char *names[] = {"x", "y", "pa", "pb", "pc"};
	for (int a = 0; a < 5; a++) {
		double c = 0;
		for (double v : *all[a]) c += v;
		printf("%s %.17g\n", names[a], c);
		fwrite(all[a]->data(), 8, n, f);
	}
	long long kc = 0;
	for (int v : hk) kc += v;
	double sc = 0;
	for (double v : rs) sc += v;
	printf("k %lld\ns %.17g\nmid %.17g\n", kc, sc, mid);
	fwrite(hk.data(), 4, n, f);
	fwrite(rs.data(), 8, 64, f);
	fclose(f);
	return 0;
}
