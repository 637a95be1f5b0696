// Kernels on which half2's advice says no, each for its own reason.
__global__ void scaleeps(float *x, float eps, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] = x[i] / (x[i] * x[i] + eps);
}

__global__ void rowdot(const float *a, const float *b, float *c, int m, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float s = 0;
	for (int j = 0; j < m; j++)
		s += a[i * m + j] * b[j];
	c[i] = s;
}

__global__ void serial(float *x, int n)
{
	float s = 0;
	for (int i = 0; i < n; i++)
		s += x[i];
	x[0] = s;
}

__global__ void chain(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float v = x[i];
#pragma unroll
	for (int k = 0; k < 512; k++)
		v = v * 0.999f + 0.25f;
	x[i] = v;
}
