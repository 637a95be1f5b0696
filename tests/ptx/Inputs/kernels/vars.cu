// variables in every state space cicc emits: __managed__ (.attribute(.managed)),
// extern dynamic __shared__, __constant__ structs, 2D arrays; vector loads,
// votes, double atomics, __ldg
struct coef { float a, b; double c[3]; };
__managed__ int counter;
__device__ float grid2[4][8];
__constant__ coef cf = {1.5f, -2.0f, {0.1, 0.2, 0.3}};
extern __shared__ float dyn[];

__global__ void vars(const float2 *__restrict__ in, double *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	float2 v = __ldg(&in[i % n]);
	dyn[threadIdx.x] = v.x * cf.a + v.y * cf.b;
	__syncthreads();
	unsigned m = __ballot_sync(0xffffffff, dyn[threadIdx.x] > 0);
	if (__all_sync(0xffffffff, i < n))
		atomicAdd(&out[0], cf.c[i % 3] * dyn[(threadIdx.x + 1) % blockDim.x]);
	if ((threadIdx.x & 31) == 0)
		atomicAdd(&counter, __popc(m));
	grid2[i & 3][i & 7] = (float)m;
}
