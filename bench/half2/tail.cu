/* tail: odd sizes and divergence. The element count is odd, the default
 * block 100 threads, the linear id is taken over 3-D blocks (so 3-D launch
 * shapes test every component of %tid), the grid is as many 1-D blocks as
 * cover the data, and each element runs its own trip count (8 to 16):
 * the two threads of a pair leave the loop at different times. */
#include "h2bench.h"

extern "C" __global__ void tail(const float *x, float *y, int n)
{
	int t = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
	int nt = blockDim.x * blockDim.y * blockDim.z;
	int i = blockIdx.x * nt + t;
	if (i >= n)
		return;
	float v = x[i], a = 1.0f;
	int m = 8 + i % 9;
	for (int k = 0; k < m; k++)
		a = fmaf(a, v, 0.25f);
	y[i] = a;
}

int main(int argc, char **argv)
{
	return xymain(argc, argv, (const void *)tail, "tail", (1 << 24) - 37, 100, 0.1, 0.9);
}
