/* bilateral: a bilateral smoothing filter (exp, div), after the CUDA
 * sample's bilateralFilter: each pixel is the average of its (2R+1)^2
 * neighbours weighted by a spatial and a range Gaussian. Image values are
 * in (0.1, 1); the borders clamp. */
#include "bench.h"

#define W 2048
#define R 4

extern "C" __global__ void bilateral(const float *img, float *out, int w, int h,
                                     float is2, float ir2)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
	if (x >= w)
		return;
	float c = img[y * w + x], sum = 0, wsum = 0;
	for (int dy = -R; dy <= R; dy++) {
		int yy = min(max(y + dy, 0), h - 1);
		for (int dx = -R; dx <= R; dx++) {
			int xx = min(max(x + dx, 0), w - 1);
			float v = img[yy * w + xx], d = v - c;
			float wt = expf(-(float)(dx * dx + dy * dy) * is2) * expf(-d * d * ir2);
			sum += wt * v;
			wsum += wt;
		}
	}
	out[y * w + x] = sum / wsum;
}

int main(int argc, char **argv)
{
	struct args a = parse(argc, argv, 1 << 22);
	int w = W, h = (int)((a.n + W - 1) / W);
	size_t bytes = (size_t)w * h * sizeof(float);
	float *hi = (float *)malloc(bytes), *di, *dout, is2 = 1.0f / (2 * 2.0f * 2.0f),
	      ir2 = 1.0f / (2 * 0.1f * 0.1f);
	rng_seed(a.seed);
	fillf(hi, (long)w * h, 0.1, 1.0);
	CK(cudaMalloc(&di, bytes));
	CK(cudaMalloc(&dout, bytes));
	CK(cudaMemcpy(di, hi, bytes, cudaMemcpyHostToDevice));
	poison(dout, bytes);
	void *kargs[] = { &di, &dout, &w, &h, &is2, &ir2 };
	float ms = timeit((const void *)bilateral, "bilateral", dim3((w + 127) / 128, h), dim3(128), 0, kargs);
	finish("bilateral", ms, dout, bytes, a.out);
	return 0;
}
