// asynchronous copies, cache-hint loads and stores, and cuda::barrier (whose
// mbarrier instructions carry qualified modifiers such as .shared::cta)
#include <cuda_pipeline.h>
#include <cooperative_groups.h>
#include <cuda/barrier>
namespace cg = cooperative_groups;
__global__ void hints(float *a, const float *b, int n)
{
	__shared__ float s[256];
	__pipeline_memcpy_async(&s[threadIdx.x], &b[threadIdx.x], sizeof(float));
	__pipeline_commit();
	__pipeline_wait_prior(0);
	float v = __ldcs(&b[threadIdx.x]) + __ldlu(&b[threadIdx.x + 1]) + __ldcg(&b[2]) + s[threadIdx.x];
	__stcs(&a[threadIdx.x], v);
	__stwt(&a[threadIdx.x + 1], v);
}
__global__ void bar(int *o)
{
	__shared__ cuda::barrier<cuda::thread_scope_block> b;
	if (threadIdx.x == 0) init(&b, blockDim.x);
	__syncthreads();
	b.arrive_and_wait();
	o[threadIdx.x] = 1;
}
