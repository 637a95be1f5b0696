// store-runtime.cu: a program for tests/gpu/g-store-runtime.sh, with the
// clones a store rule would make written by hand (extern "C" names, so
// that the table can name them): axpy and scale on double arrays, and
// axpy_mpcc_store and scale_mpcc_store, the same computation with the
// arrays as float (loads convert up, arithmetic in double, stores round
// to nearest). sum reads an array and has no clone; bump has no table
// entry at all (an unknown kernel); ghost's entry names a clone the
// fatbinary does not have. The script appends the table to this file's
// host code, as mpcc's driver appends it to the stub.
//
// store-runtime N ITERS SEED OUT: random inputs (never zero), then H2D;
// ITERS launches of axpy on stream 1, sum on stream 2 every 8th (after an
// event), a memset of part of y, an interior pointer (scale on y + 1000),
// an unknown kernel, free and realloc of x, ghost, D2H; y, the sums and
// x2 written to OUT as doubles.
#include <cstdio>
#include <cstdlib>
#include <vector>

extern "C" __global__ void axpy(double *y, const double *x, double a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] += a * x[i];
}

extern "C" __global__ void axpy_mpcc_store(float *y, const float *x, double a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = (float)((double)y[i] + a * (double)x[i]);
}

extern "C" __global__ void scale(double *y, double a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] *= a;
}

extern "C" __global__ void scale_mpcc_store(float *y, double a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = (float)((double)y[i] * a);
}

// out[b] = the sum of block b's elements
extern "C" __global__ void sum(const double *x, double *out, int n)
{
	__shared__ double s[256];
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	s[threadIdx.x] = i < n ? x[i] : 0;
	__syncthreads();
	for (int k = blockDim.x / 2; k > 0; k /= 2) {
		if (threadIdx.x < k)
			s[threadIdx.x] += s[threadIdx.x + k];
		__syncthreads();
	}
	if (threadIdx.x == 0)
		out[blockIdx.x] = s[0];
}

extern "C" __global__ void bump(double *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] += 0.5;
}

extern "C" __global__ void ghost(double *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] -= 0.25;
}

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
	fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(1); } } while (0)

static double
uniform(unsigned *s)
{
	*s = *s * 1664525u + 1013904223u;
	return 0.25 + (*s >> 8) / 16777216.0;   // in [0.25, 1.25): never zero
}

int
main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: store-runtime N ITERS SEED OUT\n");
		return 2;
	}
	int n = atoi(argv[1]), iters = atoi(argv[2]), nb = (n + 255) / 256;
	unsigned seed = atoi(argv[3]);
	std::vector<double> y(n), x(n), sums(nb * (iters / 8 + 1), 0);
	for (int i = 0; i < n; i++)
		y[i] = uniform(&seed), x[i] = uniform(&seed) - 0.75;
	double *dy, *dx, *dsum;
	size_t bytes = n * sizeof(double);
	CK(cudaMalloc(&dy, bytes));
	CK(cudaMalloc(&dx, bytes));
	CK(cudaMalloc(&dsum, sums.size() * sizeof(double)));
	CK(cudaMemcpy(dy, y.data(), bytes, cudaMemcpyHostToDevice));
	CK(cudaMemcpy(dx, x.data(), bytes, cudaMemcpyHostToDevice));
	cudaStream_t s1, s2;
	cudaEvent_t ev;
	CK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
	CK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
	CK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
	for (int it = 0, k = 0; it < iters; it++) {
		axpy<<<nb, 256, 0, s1>>>(dy, dx, 0.375, n);
		if (it % 8 == 7) {   // a kernel without a clone reads y, on the other stream
			CK(cudaEventRecord(ev, s1));
			CK(cudaStreamWaitEvent(s2, ev, 0));
			sum<<<nb, 256, 0, s2>>>(dy, dsum + nb * k++, n);
			CK(cudaEventRecord(ev, s2));
			CK(cudaStreamWaitEvent(s1, ev, 0));
		}
	}
	CK(cudaStreamSynchronize(s1));
	CK(cudaMemset(dy + 10, 0, 80 * sizeof(double)));   // part of y, set while it is narrow
	scale<<<nb, 256>>>(dy + 1000, 1.5, n - 1000);        // an interior pointer
	bump<<<nb, 256>>>(dy, n);                            // an unknown kernel
	axpy<<<nb, 256>>>(dy, dx, -0.5, n);
	CK(cudaFree(dx));                                    // free and realloc
	std::vector<double> x2(n);
	for (int i = 0; i < n; i++)
		x2[i] = uniform(&seed);
	CK(cudaMalloc(&dx, bytes));
	CK(cudaMemcpy(dx, x2.data(), bytes, cudaMemcpyHostToDevice));
	axpy<<<nb, 256>>>(dy, dx, 0.125, n);
	scale<<<nb, 256>>>(dx, 2.0, n);
	ghost<<<nb, 256>>>(dy, n);
	CK(cudaGetLastError());
	CK(cudaMemcpy(y.data(), dy, bytes, cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(x2.data(), dx, bytes, cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(sums.data(), dsum, sums.size() * sizeof(double), cudaMemcpyDeviceToHost));
	FILE *f = fopen(argv[4], "wb");
	if (!f || fwrite(y.data(), 8, n, f) != (size_t)n || fwrite(sums.data(), 8, sums.size(), f) != sums.size() ||
	    fwrite(x2.data(), 8, n, f) != (size_t)n || fclose(f))
		return 1;
	printf("ok %d %d\n", n, iters);
	return 0;
}
