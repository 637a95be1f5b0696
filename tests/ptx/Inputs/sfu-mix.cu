// source of sfu-*.ptx tests: nvcc -arch=sm_90 -ptx [-use_fast_math] sfu-mix.cu
__device__ float gv[4];
__device__ __noinline__ float helper(float x) { return sinf(x) * expf(x); }
extern "C" __global__ void partition(float *o, const float *in, int n)
{
	__shared__ float tile[128];
	float loc[16];
	int t = threadIdx.x;
	tile[t & 127] = in[t];
	__syncthreads();
	for (int j = 0; j < 16; j++)
		loc[j] = in[(t + j) % n];
	o[t] = helper(tile[(t + 1) & 127]) + logf(loc[in[t] > 0 ? t & 15 : 3]) + gv[t & 3];
}
extern "C" __global__ void untouched(float *o, const float *in)
{
	o[threadIdx.x] = expf(in[threadIdx.x]);
}
