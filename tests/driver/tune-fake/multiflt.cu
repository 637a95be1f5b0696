// multiflt.cu: sets.cu's multi beside mixed.cu's float kernel flt: once
// fiset is kept on multi, a trial of fiset on flt as well builds what the
// kept trial built (flt refuses it), so it has nothing new to run.
__global__ void multi(int n, const double *a, const double *b, const double *c, double *x)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		double p = a[i], q = b[i], r = c[i];
		x[3 * i] = ((p * 1.5 + 2.0) * p + 3.0) * p + 4.0;
		x[3 * i + 1] = ((q * 2.5 + 1.0) * q + 5.0) * q + 6.0;
		x[3 * i + 2] = ((r * 3.5 + 7.0) * r + 8.0) * r + 9.0;
	}
}

__global__ void flt(int n, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = y[i] * 0.5f + 1.0f;
}
