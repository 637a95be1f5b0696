/* mriq: the Q matrix of non-Cartesian MRI reconstruction, after Parboil's
 * MRI-Q (ComputeQ_GPU): for each voxel (x, y, z), a sum over NK k-space
 * samples held in constant memory of phiMag * (cos, sin)(2 pi k . x).
 * Transcendental-bound, and the shape the issue's MRI kernel had: sinf and
 * cosf in a loop over __constant__ data, whose accurate versions keep a
 * slow path for huge arguments (Payne-Hanek, a local array: a stack frame)
 * that the fast-math kernel does not have. The output is (Qr, Qi) per
 * voxel. */
#include "bench.h"

#define NK 2048   /* 32 KiB of the 64 KiB of constant memory */

struct kvalue {
	float kx, ky, kz, phimag;
};
__constant__ struct kvalue kv[NK];

extern "C" __global__ void mriq(const float *x, const float *y, const float *z, float *q,
                                int n, int nk)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float xi = x[i], yi = y[i], zi = z[i], qr = 0, qi = 0;
	for (int k = 0; k < nk; k++) {
		float arg = 6.2831853f * (kv[k].kx * xi + kv[k].ky * yi + kv[k].kz * zi);
		qr += kv[k].phimag * cosf(arg);
		qi += kv[k].phimag * sinf(arg);
	}
	q[2 * i] = qr;
	q[2 * i + 1] = qi;
}

int main(int argc, char **argv)
{
	struct args a = parse(argc, argv, 1 << 18);
	int n = (int)a.n, nk = NK;
	size_t bytes = (size_t)n * sizeof(float);
	float *h = (float *)malloc(3 * bytes), *dx, *dout;
	static struct kvalue hk[NK];
	rng_seed(a.seed);
	fillf(h, 3 * (long)n, -0.5, 0.5);              /* voxel coordinates */
	fillf((float *)hk, 4L * NK, -32.0, 32.0);      /* k-space trajectory */
	for (int k = 0; k < NK; k++)
		hk[k].phimag = 0.5f + 0.5f * (float)rng_unit();
	CK(cudaMalloc(&dx, 3 * bytes));
	CK(cudaMalloc(&dout, 2 * bytes));
	CK(cudaMemcpy(dx, h, 3 * bytes, cudaMemcpyHostToDevice));
	to_symbol(kv, "kv", hk, sizeof hk);
	poison(dout, 2 * bytes);
	float *dy = dx + n, *dz = dy + n;
	void *kargs[] = { &dx, &dy, &dz, &dout, &n, &nk };
	float ms = timeit((const void *)mriq, "mriq", dim3((n + 255) / 256), dim3(256), 0, kargs);
	finish("mriq", ms, dout, 2 * bytes, a.out);
	return 0;
}
