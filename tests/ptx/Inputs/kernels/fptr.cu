// indirect calls (call with a .callprototype), a switch (jump table or
// branches), shuffles, atomics, half precision and a texture object
#include <cuda_fp16.h>
typedef float (*op_t)(float);
__device__ __noinline__ float twice(float x) { return 2 * x; }
__device__ __noinline__ float sq(float x) { return x * x; }
__device__ op_t ops[2] = {twice, sq};

__global__ void indirect(float *a, int k, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		a[i] = ops[k & 1](a[i]);
}

__global__ void sw(int *a, int n)
{
	int i = threadIdx.x;
	switch (a[i] & 7) {
	case 0: a[i] = 5; break;
	case 1: a[i] = n * 3; break;
	case 2: a[i] = n - 7; break;
	case 3: a[i] = n ^ 11; break;
	case 4: a[i] = n / 5; break;
	case 5: a[i] = 1; break;
	default: a[i] = -1;
	}
}

__global__ void warp(float *a, unsigned *cnt, __half *h)
{
	float v = a[threadIdx.x];
	for (int o = 16; o; o >>= 1)
		v += __shfl_down_sync(0xffffffff, v, o);
	if ((threadIdx.x & 31) == 0)
		atomicAdd(cnt, (unsigned)v);
	h[threadIdx.x] = __hadd(h[threadIdx.x], __float2half(v));
}

__global__ void texk(cudaTextureObject_t t, float *o)
{
	o[threadIdx.x] = tex2D<float>(t, threadIdx.x + 0.5f, 0.5f);
}
