// big.cu: a kernel with more f64 operations than the shadow build
// instruments (max_ops, 512): 1024, in a set of one, a chain of 1022 and
// another set of one
#define R1 p = p * 1.0000001 + 0.5;
#define R2 R1 R1
#define R4 R2 R2
#define R8 R4 R4
#define R16 R8 R8
#define R32 R16 R16
#define R64 R32 R32
#define R128 R64 R64
#define R256 R128 R128
#define R512 R256 R256
__global__ void big(int n, const double *a, double *x)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		double p = a[i];
		x[i + 2 * n] = a[i + 2 * n] * 2.0;
		R512 R256 R128 R64 R32 R16 R8 R4 R2
		x[i] = p;
		x[i + n] = a[i + n] * 3.0;
	}
}
