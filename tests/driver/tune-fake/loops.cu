// loops.cu: sets.cu's kernel multi with its three groups of f64 arithmetic
// in three loops of run-time bounds, kept rolled, beside mixed.cu's float
// kernel flt. With FAKE_TRIPS set, fake.sh prints the trip counts a timing
// build would count in multi (64, 1.5 and 0 per entry), and fiset's facts
// go to multi alone: flt has no f64 arithmetic.
__global__ void multi(int n, const double *a, const double *b, const double *c, double *x)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		double p = a[i], q = b[i], r = c[i];
#pragma unroll 1
		for (int k = 0; k < n; k++)
			p = (((((p * 1.5 + 2.0) * p + 3.0) * p + 4.0) * p + 5.0) * p + 6.0) * p + 7.0;
#pragma unroll 1
		for (int k = 0; k < n / 2; k++)
			q = (((((q * 2.5 + 1.0) * q + 5.0) * q + 6.0) * q + 7.0) * q + 8.0) * q + 9.0;
#pragma unroll 1
		for (int k = 0; k < n / 4; k++)
			r = (((((r * 3.5 + 7.0) * r + 8.0) * r + 9.0) * r + 1.0) * r + 2.0) * r + 3.0;
		x[3 * i] = p;
		x[3 * i + 1] = q;
		x[3 * i + 2] = r;
	}
}

__global__ void flt(int n, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = y[i] * 0.5f + 1.0f;
}
