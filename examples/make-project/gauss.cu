// gauss.cu: Box-Muller normal samples, transcendental-heavy (sqrt, log, sincos)
#include "timer.cuh"

__global__ void BoxMuller(float *out, int n, unsigned seed)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (2 * i + 1 >= n)
		return;
	unsigned s = seed ^ (2654435761u * (unsigned)(i + 1));
	s = s * 1664525u + 1013904223u;
	float u1 = (s >> 8) * (1.0f / 16777216.0f) + 1e-7f;
	s = s * 1664525u + 1013904223u;
	float u2 = (s >> 8) * (1.0f / 16777216.0f);
	float r = sqrtf(-2.0f * logf(u1));
	float sn, cs;
	sincosf(6.2831853f * u2, &sn, &cs);
	out[2 * i] = r * cs;
	out[2 * i + 1] = r * sn;
}

extern "C" int gpu_gauss(int n, unsigned seed, float *out, float *ms)
{
	float *d;
	if (cudaMalloc(&d, n * sizeof(float)) != cudaSuccess)
		return -1;
	*ms = median_ms([&] { BoxMuller<<<(n / 2 + 255) / 256, 256>>>(d, n, seed); });
	cudaError_t e = cudaMemcpy(out, d, n * sizeof(float), cudaMemcpyDeviceToHost);
	cudaFree(d);
	return e == cudaSuccess ? 0 : -1;
}
