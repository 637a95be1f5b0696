// k.cu: the fake program's kernels, built through the real mpcc driver.
// The sfu pass rewrites the f64 divisions and square roots of 'hot' into
// their SFU forms (with -ptx no fast-math twin is needed for them), so the
// lambda of the build can be read back from the PTX by fake.sh.
__global__ void hot(int n, const double *x, double *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = 1.0 / sqrt(x[i] + 2.0) + x[i] / (x[i] + 3.0);
}

__global__ void cold(int n, double *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = y[i] / 7.0;
}
