/* scoped: two things real kernels do that the others here do not. A value
 * is loaded only where the thread is in range and used later under the same
 * condition (undefined on the other path, as in FDTD3d's tile loads), and
 * inline asm declares registers in its own { } (as cuda_fp16.hpp and curand
 * write it): the pass must name those registers inside their scope. */
#include "h2bench.h"

extern "C" __global__ void scoped(const float *x, float *y, int n)
{
	__shared__ float t[1024];
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	float v, w;
	if (i < n) {
		v = x[i];
		w = x[n - 1 - i];
	}
	t[threadIdx.x] = (float)(threadIdx.x & 7) * 0.125f;
	__syncthreads();
	if (i < n) {
		float h;
		unsigned hi;
		asm("{.reg .f16 lo;\n\tcvt.rn.f16.f32 lo, %1;\n\tcvt.f32.f16 %0, lo;}" : "=f"(h) : "f"(v));
		asm("{.reg .b32 %%lo;\n\tmov.b64 {%%lo, %0}, %1;}" : "=r"(hi) : "d"((double)v));
		y[i] = w * w + h * t[blockDim.x - 1 - threadIdx.x] + (float)(hi >> 20 & 7) * 0.25f;
	}
}

int main(int argc, char **argv)
{
	return xymain(argc, argv, (const void *)scoped, "scoped", (1 << 24) - 37, 256, 0.1, 0.9);
}
