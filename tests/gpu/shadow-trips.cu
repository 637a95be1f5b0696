// Kernels whose loops run a number of times the test knows, for
// tests/gpu/g-shadow-trips.sh (shadow's trip counts, measure=time).
// usage: shadow-trips COUNT N M LAUNCHES SPIN OUT
// trips: thread i < COUNT runs the outer loop M times and the inner one N
// times a trip of the outer; if i % 4 == 0 it also runs a third loop
// i % 7 + 1 times, which the other threads never enter. Threads past COUNT
// (the grid is of 80-thread blocks: a block's third warp is half full)
// return at once. It runs LAUNCHES times on the same input. spin: one warp
// whose 32 threads each run one loop SPIN times (past 2^32 / 32, the sum of
// one warp's counts needs more than 32 bits). Both outputs go to OUT as
// float; their sums to stdout. "#pragma unroll 1" keeps each loop one loop
// of the PTX, its header run once a trip.
#include <cstdio>
#include <cstdlib>
#include <vector>

extern "C" __global__ void trips(int count, int n, int m, const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= count)
		return;
	float s = 0;
#pragma unroll 1
	for (int a = 0; a < m; a++) {
#pragma unroll 1
		for (int b = 0; b < n; b++)
			s += x[(a * n + b + i) & 1023];
	}
	if (i % 4 == 0) {
#pragma unroll 1
		for (int c = 0; c < i % 7 + 1; c++)
			s = s * 0.5f + x[c];
	}
	y[i] = s;
}

extern "C" __global__ void spin(int n, float *y)
{
	float s = threadIdx.x;
#pragma unroll 1
	for (int b = 0; b < n; b++)
		s = s * 0.999999f + 1.0f;
	y[threadIdx.x] = s;
}

int main(int argc, char **argv)
{
	if (argc != 7) {
		fprintf(stderr, "usage: shadow-trips COUNT N M LAUNCHES SPIN OUT\n");
		return 2;
	}
	int count = atoi(argv[1]), n = atoi(argv[2]), m = atoi(argv[3]);
	int launches = atoi(argv[4]), spins = atoi(argv[5]);
	std::vector<float> x(1024), y(count + 32);
	for (int k = 0; k < 1024; k++)
		x[k] = (float)((k * 37) % 101) / 101.0f;
	float *dx, *dy;
	cudaMalloc(&dx, 1024 * sizeof(float));
	cudaMalloc(&dy, (count + 32) * sizeof(float));
	cudaMemcpy(dx, x.data(), 1024 * sizeof(float), cudaMemcpyHostToDevice);
	int b = 80, g = (count + b - 1) / b;
	for (int l = 0; l < launches; l++) {
		trips<<<g, b>>>(count, n, m, dx, dy);
		if (cudaDeviceSynchronize() != cudaSuccess)
			return 1;
	}
	spin<<<1, 32>>>(spins, dy + count);
	if (cudaDeviceSynchronize() != cudaSuccess)
		return 1;
	cudaMemcpy(y.data(), dy, (count + 32) * sizeof(float), cudaMemcpyDeviceToHost);
	double st = 0, ss = 0;
	for (int i = 0; i < count; i++)
		st += y[i];
	for (int i = 0; i < 32; i++)
		ss += y[count + i];
	printf("trips sum %.9g\nspin sum %.9g\n", st, ss);
	FILE *f = fopen(argv[6], "wb");
	if (!f || fwrite(y.data(), sizeof(float), y.size(), f) != y.size() || fclose(f))
		return 1;
	return 0;
}
