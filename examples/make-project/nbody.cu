// nbody.cu: all-pairs forces in double precision
#include "timer.cuh"

__global__ void bodyForce(const double *p, double *f, int n, double soft)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	double fx = 0.0, fy = 0.0, fz = 0.0;
	for (int j = 0; j < n; j++) {
		double dx = p[4 * j] - p[4 * i], dy = p[4 * j + 1] - p[4 * i + 1];
		double dz = p[4 * j + 2] - p[4 * i + 2];
		double inv = 1.0 / sqrt(dx * dx + dy * dy + dz * dz + soft);
		double s = p[4 * j + 3] * inv * inv * inv;
		fx += dx * s;
		fy += dy * s;
		fz += dz * s;
	}
	f[3 * i] = fx;
	f[3 * i + 1] = fy;
	f[3 * i + 2] = fz;
}

extern "C" int gpu_nbody(int n, const double *p, double *f, float *ms)
{
	double *dp, *df;
	if (cudaMalloc(&dp, 4 * n * sizeof(double)) != cudaSuccess)
		return -1;
	if (cudaMalloc(&df, 3 * n * sizeof(double)) != cudaSuccess) {
		cudaFree(dp);
		return -1;
	}
	cudaMemcpy(dp, p, 4 * n * sizeof(double), cudaMemcpyHostToDevice);
	*ms = median_ms([&] { bodyForce<<<(n + 127) / 128, 128>>>(dp, df, n, 1e-9); });
	cudaError_t e = cudaMemcpy(f, df, 3 * n * sizeof(double), cudaMemcpyDeviceToHost);
	cudaFree(dp);
	cudaFree(df);
	return e == cudaSuccess ? 0 : -1;
}
