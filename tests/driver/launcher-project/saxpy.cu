#include <cuda_runtime.h>
extern __device__ float scale(float);  // scale.cu: needs separable compilation

__global__ void saxpy(int n, float a, const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = scale(a) * x[i] + y[i];
}

int run_saxpy(int n, float a, const float *x, float *y)
{
	float *dx, *dy;
	if (cudaMalloc(&dx, n * sizeof *dx) != cudaSuccess)
		return -1;
	cudaMalloc(&dy, n * sizeof *dy);
	cudaMemcpy(dx, x, n * sizeof *dx, cudaMemcpyHostToDevice);
	cudaMemcpy(dy, y, n * sizeof *dy, cudaMemcpyHostToDevice);
	saxpy<<<(n + 255) / 256, 256>>>(n, a, dx, dy);
	cudaError_t e = cudaMemcpy(y, dy, n * sizeof *dy, cudaMemcpyDeviceToHost);
	cudaFree(dx);
	cudaFree(dy);
	return e == cudaSuccess ? 0 : -1;
}
