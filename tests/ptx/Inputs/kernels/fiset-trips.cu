// A set three loops deep beside 16 DRAM loads (issue 37): lowering it pays
// only when the loops run many times. n = 2^22, 256 threads a block, x
// holds 17n doubles. On an H100, fiset's set lowered ran 1.001x, 1.000x,
// 1.005x and 1.409x at a = b = c = 1, 2, 4 and 8.
__global__ void deep(const double *x, double *y, int n, int a, int b, int c)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	double m = 0;
#pragma unroll
	for (int k = 0; k < 16; k++)
		m += x[i + k * n];
	double s = x[i];
	for (int p = 0; p < a; p++)
		for (int q = 0; q < b; q++)
			for (int r = 0; r < c; r++)
				s = s * 1.0001 + 0.5 * s * s - 0.25 * s + 0.125;
	y[i] = s + m;
}
