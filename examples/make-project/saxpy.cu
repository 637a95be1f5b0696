// saxpy.cu: z = a*x + y on the GPU
#include "timer.cuh"

__global__ void saxpy(int n, float a, const float *x, const float *y, float *z)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		z[i] = a * x[i] + y[i];
}

// -1 when there is no GPU to run on; *ms: the kernel's median time
extern "C" int gpu_saxpy(int n, float a, const float *x, const float *y, float *z, float *ms)
{
	float *dx, *dy, *dz;
	if (cudaMalloc(&dx, 3 * n * sizeof(float)) != cudaSuccess)
		return -1;
	dy = dx + n;
	dz = dy + n;
	cudaMemcpy(dx, x, n * sizeof(float), cudaMemcpyHostToDevice);
	cudaMemcpy(dy, y, n * sizeof(float), cudaMemcpyHostToDevice);
	*ms = median_ms([&] { saxpy<<<(n + 255) / 256, 256>>>(n, a, dx, dy, dz); });
	cudaError_t e = cudaMemcpy(z, dz, n * sizeof(float), cudaMemcpyDeviceToHost);
	cudaFree(dx);
	return e == cudaSuccess ? 0 : -1;
}
