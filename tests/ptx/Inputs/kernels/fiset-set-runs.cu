// fiset-set-runs.cu: a running sum in f64, whose set starts before the
// loop (the sum's first value, a move) and runs in it: the set runs as
// often as its loop, not as often as its first instruction
// (tests/ptx/fiset-set-runs.ptx)
__global__ void acc(const double *x, double *y, int n)
{
	double s = 0.5;
	for (int i = 0; i < n; i++)
		s = s * x[i] + 1.5;
	y[threadIdx.x] = s;
}
