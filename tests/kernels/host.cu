// host code with a launch, cudaMalloc and error handling: the host side of a .cu file
#include <cstdio>
#include <cuda_runtime.h>

__global__ void iota(int *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] = i;
}

int run(int n)
{
	int *d = 0;
	if (cudaMalloc(&d, n * sizeof *d) != cudaSuccess) {
		fprintf(stderr, "no device\n");
		return 1;
	}
	iota<<<(n + 255) / 256, 256>>>(d, n);
	cudaError_t e = cudaDeviceSynchronize();
	cudaFree(d);
	return e != cudaSuccess;
}
