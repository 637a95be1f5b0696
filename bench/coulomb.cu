/* coulomb: the electrostatic potential at N points from NATOM charges
 * (1/sqrt), after Parboil's cp and the n-body sample. Atoms are staged
 * through shared memory in tiles; all charges are positive so the sums do
 * not cancel. Written as 1.0f/sqrtf(r2): accurate, that is sqrt.rn and a
 * correctly rounded reciprocal; with fast math, one rsqrt.approx. */
#include "bench.h"

#define NATOM 4096
#define TILE 256

extern "C" __global__ void coulomb(const float4 *pt, const float4 *atom, float *out, int n, int natom)
{
	__shared__ float4 tile[TILE];
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	float4 p = pt[i < n ? i : n - 1];
	float e = 0;
	for (int base = 0; base < natom; base += TILE) {
		__syncthreads();
		tile[threadIdx.x] = atom[base + threadIdx.x];
		__syncthreads();
		for (int j = 0; j < TILE; j++) {
			float dx = p.x - tile[j].x, dy = p.y - tile[j].y, dz = p.z - tile[j].z;
			float r2 = dx * dx + dy * dy + dz * dz + 0.01f;
			e += tile[j].w * (1.0f / sqrtf(r2));
		}
	}
	if (i < n)
		out[i] = e;
}

int main(int argc, char **argv)
{
	struct args a = parse(argc, argv, 1 << 18);
	int n = (int)a.n, natom = NATOM;
	float *hp = (float *)malloc((size_t)n * 16), *ha = (float *)malloc(NATOM * 16), *dout;
	float4 *dp, *da;
	rng_seed(a.seed);
	fillf(hp, 4 * (long)n, 0.0, 10.0);
	fillf(ha, 4 * NATOM, 0.0, 10.0);
	for (int j = 0; j < NATOM; j++)
		ha[4 * j + 3] = 0.1f + 0.9f * ha[4 * j + 3] / 10.0f;   /* charges in (0.1, 1) */
	CK(cudaMalloc(&dp, (size_t)n * 16));
	CK(cudaMalloc(&da, NATOM * 16));
	CK(cudaMalloc(&dout, (size_t)n * 4));
	CK(cudaMemcpy(dp, hp, (size_t)n * 16, cudaMemcpyHostToDevice));
	CK(cudaMemcpy(da, ha, NATOM * 16, cudaMemcpyHostToDevice));
	poison(dout, (size_t)n * 4);
	void *kargs[] = { &dp, &da, &dout, &n, &natom };
	float ms = timeit((const void *)coulomb, "coulomb", dim3((n + TILE - 1) / TILE), dim3(TILE), 0, kargs);
	finish("coulomb", ms, dout, (size_t)n * 4, a.out);
	return 0;
}
