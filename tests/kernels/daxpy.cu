// double: f64 fma and a grid-stride loop
__global__ void daxpy(int n, double a, const double *x, double *y)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
		y[i] = a * x[i] + y[i];
}
