// flat.cu: a kernel with twelve independent groups of f64 arithmetic, so
// twelve sets for fiset, whose lowering the fake program does not see: its
// time is the same under every setting (the stopping rule's case).
#define G(j) x[12 * i + j] = ((a[12 * i + j] * (1.5 + j) + 2.0) * a[12 * i + j] + 3.0) * a[12 * i + j];
__global__ void flat(int n, const double *a, double *x)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		G(0) G(1) G(2) G(3) G(4) G(5) G(6) G(7) G(8) G(9) G(10) G(11)
	}
}
