// __constant__ and __device__ globals with initializers
__constant__ float coef[8] = {1.0f, 0.5f, 0.25f, 0.125f, -1.0f, -0.5f, 3.0f, 7.5f};
__device__ int counter = 42;
__device__ double table[4] = {1.0, 2.0, 4.0, 8.0};

__global__ void fir(int n, const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i + 8 > n)
		return;
	float s = 0.0f;
	for (int k = 0; k < 8; k++)
		s += coef[k] * x[i + k];
	y[i] = s + (float)table[i & 3];
	if (i == 0)
		atomicAdd(&counter, 1);
}
