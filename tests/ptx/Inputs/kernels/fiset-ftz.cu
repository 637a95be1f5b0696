// Float kernels that double literals and a double function promote to f64,
// for fiset under -use_fast_math: cicc then writes the promotions as
// cvt.ftz.f64.f32 and the way back as cvt.rn.ftz.f32.f64.
// nvcc -arch=sm_90 -ptx [-use_fast_math] fiset-ftz.cu
extern "C" __global__ void heat(const float *t, float *o, int n, float k)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < 1 || i >= n - 1)
		return;
	o[i] = t[i] + k * (t[i - 1] + t[i + 1] - 2.0 * t[i]);
}

extern "C" __global__ void scale(const float *x, float *o, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	o[i] = sqrt(x[i] * 0.5) / (fmax((double)x[i], 0.25) + 1.0);
}
