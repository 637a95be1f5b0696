// shared memory: block reduction with __syncthreads
#define N 256

__global__ void reduce(const float *in, float *out, int n)
{
	__shared__ float s[N];
	int t = threadIdx.x;
	int i = blockIdx.x * N + t;
	s[t] = i < n ? in[i] : 0.0f;
	__syncthreads();
	for (int k = N / 2; k > 0; k >>= 1) {
		if (t < k)
			s[t] += s[t + k];
		__syncthreads();
	}
	if (t == 0)
		out[blockIdx.x] = s[0];
}
