// dynamic shared memory (extern __shared__) and a block-wide scan
extern __shared__ float buf[];

__global__ void scan(const float *in, float *out, int n)
{
	int t = threadIdx.x;
	int i = blockIdx.x * blockDim.x + t;
	buf[t] = i < n ? in[i] : 0.0f;
	__syncthreads();
	for (int o = 1; o < blockDim.x; o <<= 1) {
		float v = t >= o ? buf[t - o] : 0.0f;
		__syncthreads();
		buf[t] += v;
		__syncthreads();
	}
	if (i < n)
		out[i] = buf[t];
}
