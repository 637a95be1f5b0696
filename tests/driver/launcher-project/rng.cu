#include <cuda_runtime.h>

__global__ void BoxMuller(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i + 1 < n && i % 2 == 0) {
		float r = sqrtf(-2.0f * logf(x[i])), t = 6.2831853f * x[i + 1];
		x[i] = r * cosf(t);
		x[i + 1] = r * sinf(t);
	}
}

int run_boxmuller(int n, float *x)
{
	float *dx;
	if (cudaMalloc(&dx, n * sizeof *dx) != cudaSuccess)
		return -1;
	cudaMemcpy(dx, x, n * sizeof *dx, cudaMemcpyHostToDevice);
	BoxMuller<<<(n + 255) / 256, 256>>>(dx, n);
	cudaError_t e = cudaMemcpy(x, dx, n * sizeof *dx, cudaMemcpyDeviceToHost);
	cudaFree(dx);
	return e == cudaSuccess ? 0 : -1;
}
