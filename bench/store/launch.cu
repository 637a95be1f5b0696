// launch.cu: empty-kernel launch throughput, for the store runtime's idle
// cost (issue 47: at most 1%). launch N ROUNDS: ROUNDS times, N launches
// of an empty kernel and one synchronization; prints the launches per
// second of the fastest round. The program holds an allocation (tracked,
// never narrow) and a kernel with a clone it never launches, so that a
// build with the runtime has a table to look launches up in.
#include <chrono>
#include <cstdio>
#include <cstdlib>

extern "C" __global__ void empty(void) {}

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

int
main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: launch N ROUNDS\n");
		return 2;
	}
	int n = atoi(argv[1]), rounds = atoi(argv[2]);
	double *y, best = 0;
	if (cudaMalloc(&y, 1 << 20) != cudaSuccess)
		return 1;
	for (int i = 0; i < 1000; i++)
		empty<<<1, 1>>>();
	cudaDeviceSynchronize();
	for (int r = 0; r < rounds; r++) {
		auto t0 = std::chrono::steady_clock::now();
		for (int i = 0; i < n; i++)
			empty<<<1, 1>>>();
		cudaDeviceSynchronize();
		double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
		best = n / s > best ? n / s : best;
	}
	if (cudaGetLastError() != cudaSuccess)
		return 1;
	printf("%.0f\n", best);
	return 0;
}
