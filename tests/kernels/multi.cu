// several kernels in one file: extern "C", a namespace, an overload set
extern "C" __global__ void fill(float *x, float v, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] = v;
}

namespace ops {
__global__ void add(float *x, const float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] += y[i];
}
__global__ void add(double *x, const double *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] += y[i];
}
}

__global__ void mixed(float *x, double *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		y[i] = (double)x[i] * 1.000001;
		x[i] = (float)(y[i] / 3.0);
	}
}
