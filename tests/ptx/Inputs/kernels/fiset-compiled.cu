// fiset-compiled.ptx: 48 f64 values loaded and held across the arithmetic
// that uses them (each read again at the end), so that registers decide
// how many warps an SM holds; bounded is the same kernel under launch
// bounds that leave it 64 registers a thread.
#define N 48

__device__ double body(const double *x, int i, int n)
{
	double a[N], s = 0;
#pragma unroll
	for (int k = 0; k < N; k++)
		a[k] = x[i + k * n];
#pragma unroll
	for (int k = 0; k < N; k++)
		s = s * a[(k * 7) % N] + a[k] / (1.0 + a[(k * 5 + 3) % N] * a[k]);
#pragma unroll
	for (int k = 0; k < N; k++)
		s += a[k] * a[N - 1 - k];
	return s;
}

extern "C" __global__ void __launch_bounds__(64, 16) bounded(const double *x, double *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = body(x, i, n);
}

extern "C" __global__ void held(const double *x, double *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = body(x, i, n);
}
