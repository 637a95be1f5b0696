// saxpy.cu: y = a*x + y on the GPU
#include <cuda_runtime.h>

__global__ void saxpy(int n, float a, const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = a * x[i] + y[i];
}

// -1 when there is no GPU to run on
extern "C" int gpu_saxpy(int n, float a, const float *x, float *y)
{
	float *dx, *dy;
	if (cudaMalloc(&dx, n * sizeof(float)) != cudaSuccess)
		return -1;
	if (cudaMalloc(&dy, n * sizeof(float)) != cudaSuccess) {
		cudaFree(dx);
		return -1;
	}
	cudaMemcpy(dx, x, n * sizeof(float), cudaMemcpyHostToDevice);
	cudaMemcpy(dy, y, n * sizeof(float), cudaMemcpyHostToDevice);
	saxpy<<<(n + 255) / 256, 256>>>(n, a, dx, dy);
	cudaError_t e = cudaMemcpy(y, dy, n * sizeof(float), cudaMemcpyDeviceToHost);
	cudaFree(dx);
	cudaFree(dy);
	return e == cudaSuccess ? 0 : -1;
}
