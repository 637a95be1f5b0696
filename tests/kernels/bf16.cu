// bfloat16: cuda_bf16.h conversions and arithmetic
#include <cuda_bf16.h>

__global__ void bfaxpy(int n, float a, const __nv_bfloat16 *x, __nv_bfloat16 *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float r = a * __bfloat162float(x[i]) + __bfloat162float(y[i]);
		y[i] = __float2bfloat16(r);
	}
}
