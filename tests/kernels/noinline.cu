// a kernel calling a __noinline__ device function: a .func with params and a return value
__device__ __noinline__ float poly(float x, float a, float b)
{
	return (a * x + b) * x / (1.0f + x * x);
}
__device__ __noinline__ double dpoly(double x)
{
	return sqrt(x * x + 1.0) / (x + 3.0);
}
__global__ void usepoly(int n, float *x, double *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		x[i] = poly(x[i], 2.0f, 3.0f) + poly(x[i] + 1.0f, 0.5f, -1.0f);
		y[i] = dpoly(y[i]);
	}
}
