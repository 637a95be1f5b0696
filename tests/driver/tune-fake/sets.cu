// sets.cu: a kernel with three independent groups of f64 arithmetic: fiset
// finds three sets in it, and fake.sh counts the ones lowered.
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
