// Kernels for the half2 pass tests (tests/ptx/half2-*.ptx); the PTX next
// to it is nvcc -arch=sm_90 -ptx half2-kernels.cu.
#include <cuda_runtime.h>

// 1-D, the i < n tail, a loop that counts to a constant
extern "C" __global__ void poly(const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float v = x[i], a = 1.0f;
#pragma unroll 4
		for (int k = 0; k < 64; k++)
			a = a * v + 0.5f;
		y[i] = a;
	}
}

// no bounds check: lane 1 of the last thread may not exist (odd blocks)
extern "C" __global__ void scale(const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	y[i] = 2.0f * x[i] + 1.0f;
}

// 2-D blocks: %tid.y differs between the lanes too
extern "C" __global__ void conv2(const float *a, float *b, int nx, int ny)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	if (x > 0 && y > 0 && x < nx - 1 && y < ny - 1)
		b[y * nx + x] = 0.2f * a[(y - 1) * nx + x] + 0.5f * a[y * nx + x - 1]
		                - 0.3f * a[y * nx + x] + 0.1f * a[y * nx + x + 1]
		                + 0.7f * a[(y + 1) * nx + x];
}

// a per-thread trip count: the loop runs while either lane is in it
extern "C" __global__ void trips(const float *x, const int *cnt, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float v = x[i], s = 0;
	for (int k = 0; k < cnt[i]; k++)
		s = s * v + 1.0f;
	y[i] = s;
}

// shared memory and a barrier every thread reaches
extern "C" __global__ void shm(const float *a, float *b, int n)
{
	__shared__ float t[256];
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	t[threadIdx.x] = i < n ? a[i] : 0.0f;
	__syncthreads();
	int j = blockDim.x - 1 - threadIdx.x;
	if (i < n)
		b[i] = t[j] * 2.0f + t[threadIdx.x];
}

// atomics: each lane adds its own
extern "C" __global__ void hist(const float *x, int *bins, float *sum, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		atomicAdd(&bins[(int)(x[i] * 16.0f) & 15], 1);
		atomicAdd(sum, x[i]);
	}
}

// a branch on a kernel parameter: the same in both lanes, kept a branch
extern "C" __global__ void mode(const float *x, float *y, float *z, int m)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	float v = x[i];
	if (m > 0)
		y[i] = v * v + 3.0f;
	else
		z[i] = v * 0.5f - 1.0f;
}

// a per-thread array in local memory: each lane needs its own
extern "C" __global__ void local(const float *x, const int *k, float *y)
{
	float t[8];
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	for (int j = 0; j < 8; j++)
		t[j] = x[i] * j;
	y[i] = t[k[i] & 7];
}

// a constant f16 cannot hold
extern "C" __global__ void big(const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	y[i] = x[i] * 1.0e6f + 3.0f * x[i];
}

// what pairing refuses
extern "C" __global__ void shuffle(const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	y[i] = __shfl_down_sync(0xffffffff, x[i], 1);
}

extern "C" __global__ void vote(const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	y[i] = __any_sync(0xffffffff, x[i] > 0.5f) ? 1.0f : 0.0f;
}

extern "C" __global__ void lane(float *y)
{
	unsigned l;
	asm("mov.u32 %0, %%laneid;" : "=r"(l));
	y[blockIdx.x * blockDim.x + threadIdx.x] = (float)l;
}

extern "C" __global__ void divbar(const float *x, float *y)
{
	__shared__ float t[128];
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (threadIdx.x % 3 == 0) {
		t[threadIdx.x] = x[i];
		__syncthreads();
	}
	y[i] = t[threadIdx.x];
}

extern "C" __global__ void warp(float *y)
{
	unsigned w;
	asm("mov.u32 %0, %%warpid;" : "=r"(w));
	y[blockIdx.x * blockDim.x + threadIdx.x] = (float)w;
}

extern "C" __global__ void barcount(const float *x, float *y)
{
	__shared__ float t[64];
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	t[threadIdx.x & 63] = x[i];
	asm volatile("bar.sync 1, 64;");
	y[i] = t[(threadIdx.x + 1) & 63];
}

__device__ __noinline__ float helper(float v) { return v * v + 1.0f; }

extern "C" __global__ void calls(const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	y[i] = helper(x[i]);
}

// a value loaded only in range, used later under the same condition: the
// blend of its x2 register reads a value that no write reaches
extern "C" __global__ void maybe(const float *x, float *y, int n)
{
	__shared__ float t[256];
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	float v;
	if (i < n)
		v = x[i];
	t[threadIdx.x] = (float)threadIdx.x;
	__syncthreads();
	if (i < n)
		y[i] = v * v + t[255 - threadIdx.x];
}

// inline asm with registers declared in its own { }, run per lane
extern "C" __global__ void inlineasm(const float *x, unsigned *y, const double *d, unsigned *z)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	unsigned r, hi;
	asm("{.reg .f16 lo;\n\tcvt.rn.f16.f32 lo, %1;\n\tmov.b32 %0, {lo,lo};}" : "=r"(r) : "f"(x[i]));
	asm("{.reg .b32 %%temp;\n\tmov.b64 {%%temp, %0}, %1;}" : "=r"(hi) : "d"(d[i]));
	y[i] = r;
	z[i] = hi;
}
