/* heat: a float heat-diffusion stencil whose double literals promote the
 * update to f64 (f64 that the programmer never meant). -DFLOATLIT writes
 * the same literals as floats: the source a careful programmer would write.
 * Data are float in every build (REAL is not used). */
#define REAL float
#include "common.h"

#ifdef FLOATLIT
#define TWO 2.0f
#else
#define TWO 2.0
#endif

extern "C" __global__ void heat(const float *in, float *out, int nx, int ny, float k)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
	int c = j * nx + i;
	if (i >= nx || j >= ny)
		return;
	if (i < 1 || j < 1 || i >= nx - 1 || j >= ny - 1) {
		out[c] = in[c];
		return;
	}
	out[c] = in[c] + k * (in[c - 1] + in[c + 1] - TWO * in[c]) +
	         k * (in[c - nx] + in[c + nx] - TWO * in[c]);
}

int main(int argc, char **argv)
{
	struct args a = parse(argc, argv, 1 << 24);
	int nx = 4096, ny = (int)(a.n / nx);
	long n = (long)nx * ny;
	float *h = (float *)malloc(n * 4), *in, *out, k = 0.2f;
	rng_seed(a.seed);
	fillf(h, n, 0.5, 1.5);
	CK(cudaMalloc(&in, n * 4));
	CK(cudaMalloc(&out, n * 4));
	CK(cudaMemcpy(in, h, n * 4, cudaMemcpyHostToDevice));
	poison(out, n * 4);
	void *kk[] = {&in, &out, &nx, &ny, &k};
	float ms = timeit((const void *)heat, "heat", dim3(nx / 32, ny / 8), dim3(32, 8), 0, kk);
	finishd("heat", ms, out, n, a.out);
	return 0;
}
