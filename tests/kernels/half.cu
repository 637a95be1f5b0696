// half: __half and __half2 arithmetic from cuda_fp16.h, f32 storage converted
#include <cuda_fp16.h>

__global__ void hscale(int n, __half a, const __half *x, __half *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = __hadd(__hmul(a, x[i]), y[i]);
}

__global__ void h2fma(int n, const __half2 *x, const __half2 *y, __half2 *z)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		z[i] = __hfma2(x[i], y[i], z[i]);
}

__global__ void f2h(int n, const float *x, __half *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = __float2half_rn(x[i] * 0.5f);
}
