// shadow-trips.cu: two nested loops and a loop beside them, with run-time
// trip counts, for the tests of shadow's trip counts (measure=time).
// "#pragma unroll 1" keeps each a single loop in the PTX.
__global__ void nest(int n, int m, const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	float s = 0;
#pragma unroll 1
	for (int a = 0; a < m; a++) {
#pragma unroll 1
		for (int b = 0; b < n; b++)
			s += x[(a * n + b + i) & 1023];
	}
#pragma unroll 1
	for (int c = 0; c < n + i % 3; c++)
		s *= 0.5f;
	y[i] = s;
}
