// source of sfu-f64-*.ptx tests: nvcc -arch=sm_90 -ptx sfu-f64.cu
extern "C" __global__ void f64ops(double *o, const double *a)
{
	int t = threadIdx.x;
	double x = a[t], y = a[t + 1];
	o[t] = x / y + sqrt(x) + 1.0 / sqrt(y) + 1.0 / (x + y);
}
