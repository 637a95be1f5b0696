// mixed.cu: k.cu's hot kernel beside a float kernel, which fiset refuses
// (it has no f64 to lower): a trial that sets fiset on both runs with hot's.
__global__ void hot(int n, const double *x, double *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = 1.0 / sqrt(x[i] + 2.0) + x[i] / (x[i] + 3.0);
}

__global__ void flt(int n, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = y[i] * 0.5f + 1.0f;
}
