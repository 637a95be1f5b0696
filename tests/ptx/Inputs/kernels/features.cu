// less common device code: assert (__assertfail), device malloc/free,
// surfaces (sust/suld), tensor cores (wmma -> mma.sync), cooperative
// groups tiles, __nanosleep, inline asm with a label and a predicate,
// half2 and bf16 math, 128-bit integers, __trap
#include <cassert>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <mma.h>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
using namespace nvcuda;

__global__ void asserts(int *a, int n)
{
	int i = threadIdx.x;
	assert(i < n);
	int *p = (int *)malloc(sizeof(int) * 4);
	if (p) {
		p[0] = a[i];
		a[i] = p[0] + 1;
		free(p);
	}
	if (a[i] < 0)
		__trap();
}

__global__ void surf(cudaSurfaceObject_t s, int w)
{
	float v;
	surf2Dread(&v, s, (threadIdx.x % w) * 4, 0);
	surf2Dwrite(v * 2, s, (threadIdx.x % w) * 4, 1);
}

__global__ void tc(const half *a, const half *b, float *c)
{
	wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
	wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
	wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
	wmma::fill_fragment(fc, 0.0f);
	wmma::load_matrix_sync(fa, a, 16);
	wmma::load_matrix_sync(fb, b, 16);
	wmma::mma_sync(fc, fa, fb, fc);
	wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
}

__global__ void tiles(int *out)
{
	cg::thread_block blk = cg::this_thread_block();
	cg::thread_block_tile<8> t = cg::tiled_partition<8>(blk);
	int v = t.shfl_down(threadIdx.x, 1) + t.thread_rank();
	blk.sync();
	__nanosleep(100);
	unsigned r;
	asm volatile("{\n\t.reg .pred p;\n\tsetp.eq.u32 p, %1, 0;\n\t@p bra SKIP%=;\n\tadd.u32 %0, %1, 1;\n"
	             "SKIP%=:\n\t}" : "=r"(r) : "r"(v));
	out[threadIdx.x] = v + r;
}

__global__ void lowp(__half2 *h, __nv_bfloat162 *b, unsigned __int128 *q)
{
	int i = threadIdx.x;
	h[i] = __hfma2(h[i], h[i], __float2half2_rn(1.0f));
	b[i] = __hmul2(b[i], b[i]);
	q[i] = q[i] * q[i] + 7;
}
