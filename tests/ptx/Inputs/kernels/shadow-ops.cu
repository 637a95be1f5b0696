// shadow-ops.cu: f64 add, mul, fma, div, sqrt and rcp with immediates, an
// early return and a loop, for the shadow pass's tests
__global__ void shops(int n, const double *x, double *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	double a = x[i], s = 0;
	for (int k = 0; k < n; k++)
		s += 1.0 / sqrt(a * a + 0.5) + a / (s + 3.0);
	y[i] = s;
}

__global__ void shf32(int n, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = y[i] * 2.0f + 1.0f;
}
