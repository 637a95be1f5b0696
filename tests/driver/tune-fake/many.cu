// many.cu: twelve independent groups of f64 arithmetic, each on its own
// input and stored on its own: fiset finds twelve sets, more than
// mpcc-tune's log names one by one.
__global__ void many(int n, const double *a, double *x)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		double p0 = a[i];
		x[i] = (p0 * 1.5 + 2.0) * p0 + 3.0;
		double p1 = a[1 * n + i];
		x[1 * n + i] = (p1 * 2.5 + 2.0) * p1 + 3.0;
		double p2 = a[2 * n + i];
		x[2 * n + i] = (p2 * 3.5 + 2.0) * p2 + 3.0;
		double p3 = a[3 * n + i];
		x[3 * n + i] = (p3 * 4.5 + 2.0) * p3 + 3.0;
		double p4 = a[4 * n + i];
		x[4 * n + i] = (p4 * 5.5 + 2.0) * p4 + 3.0;
		double p5 = a[5 * n + i];
		x[5 * n + i] = (p5 * 6.5 + 2.0) * p5 + 3.0;
		double p6 = a[6 * n + i];
		x[6 * n + i] = (p6 * 7.5 + 2.0) * p6 + 3.0;
		double p7 = a[7 * n + i];
		x[7 * n + i] = (p7 * 8.5 + 2.0) * p7 + 3.0;
		double p8 = a[8 * n + i];
		x[8 * n + i] = (p8 * 9.5 + 2.0) * p8 + 3.0;
		double p9 = a[9 * n + i];
		x[9 * n + i] = (p9 * 10.5 + 2.0) * p9 + 3.0;
		double p10 = a[10 * n + i];
		x[10 * n + i] = (p10 * 11.5 + 2.0) * p10 + 3.0;
		double p11 = a[11 * n + i];
		x[11 * n + i] = (p11 * 12.5 + 2.0) * p11 + 3.0;
	}
}
