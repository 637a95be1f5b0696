// lowratio.cu: a kernel named as flat.cu's (timed, 20 ms, no setting makes
// it faster) whose one set has an r_ac of 0.5 (one multiply, a cast in and
// a cast out): fiset's sets=all, at min_ratio 1.5, leaves it alone.
__global__ void flat(int n, const double *a, double *x)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] = a[i] * 1.5;
}
