// double math functions: sin, exp, log, pow, with calls into libdevice
__global__ void dmath(int n, const double *x, double *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		double v = x[i];
		y[i] = sin(v) * exp(-v * v) + log1p(fabs(v)) + pow(fabs(v), 1.5) + cbrt(v);
	}
}
