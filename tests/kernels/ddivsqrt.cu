// double div, sqrt and rcp: the f64 forms the SFU fast path rewrites
__global__ void ddivsqrt(int n, const double *x, const double *y, double *z)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		double a = x[i], b = y[i];
		z[i] = a / b + sqrt(a * a + b * b) + 1.0 / (a + 2.0) + rsqrt(b * b + 1.0);
	}
}
