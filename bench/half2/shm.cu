/* shm: shared memory and a barrier. Each block stages its slice of x and
 * one halo element on each side in shared memory (the halo by the first
 * and the last thread: a branch that differs between the two threads of a
 * pair), waits at __syncthreads, then smooths three neighbours and runs a
 * short fma chain on them. Blocks up to 1024 threads. */
#include "h2bench.h"

extern "C" __global__ void shm(const float *x, float *y, int n)
{
	__shared__ float t[1024 + 2];
	int i = blockIdx.x * blockDim.x + threadIdx.x, l = threadIdx.x + 1;
	t[l] = i < n ? x[i] : 1.0f;
	if (threadIdx.x == 0)
		t[0] = i > 0 && i - 1 < n ? x[i - 1] : 1.0f;
	if (threadIdx.x == blockDim.x - 1)
		t[l + 1] = i + 1 < n ? x[i + 1] : 1.0f;
	__syncthreads();
	if (i < n) {
		float p = t[l - 1], q = t[l], r = t[l + 1];
		float s = 0.25f * p + 0.5f * q + 0.25f * r;
#pragma unroll
		for (int k = 0; k < 16; k++)
			s = fmaf(s, q, 0.125f);
		y[i] = s;
	}
}

int main(int argc, char **argv)
{
	return xymain(argc, argv, (const void *)shm, "shm", 1 << 24, 256, 0.1, 0.9);
}
