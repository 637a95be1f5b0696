// loops: nested, unrolled, with a data-dependent trip count and a break
__global__ void loops(int n, int m, const float *a, float *b)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float acc = 0.0f;
	for (int j = 0; j < m; j++) {
#pragma unroll 4
		for (int k = 0; k < 16; k++)
			acc += a[(i + j * k) % n] * (float)k;
		if (acc > 1e6f)
			break;
	}
	int k = 0;
	while (acc > 1.0f && k++ < 100)
		acc *= 0.5f;
	b[i] = acc;
}
