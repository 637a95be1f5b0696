// Box-Muller: uniform pairs to normal pairs. Transcendental-heavy, the kind
// of kernel the sfu transform speeds up.
#include "boxmuller.h"

__global__ void BoxMuller(float *u, int n)
{
	int i = 2 * (blockIdx.x * blockDim.x + threadIdx.x);
	if (i + 1 >= n)
		return;
	float r = sqrtf(-2.0f * logf(u[i])), t = 6.2831853f * u[i + 1];
	u[i] = r * cosf(t);
	u[i + 1] = r * sinf(t);
}

__global__ void BoxMullerReference(float *u, int n)
{
	int i = 2 * (blockIdx.x * blockDim.x + threadIdx.x);
	if (i + 1 >= n)
		return;
	float r = sqrtf(-2.0f * logf(u[i])), t = 6.2831853f * u[i + 1];
	u[i] = r * cosf(t);
	u[i + 1] = r * sinf(t);
}

void boxmuller(float *u, int n, int reference)
{
	int threads = 256, blocks = (n / 2 + threads - 1) / threads;
	if (reference)
		BoxMullerReference<<<blocks, threads>>>(u, n);
	else
		BoxMuller<<<blocks, threads>>>(u, n);
}
