// Box-Muller: the SFU paper's transcendental-heavy kernel (log, sqrt, sincos)
__global__ void BoxMuller(float *out, const unsigned *seed, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n / 2)
		return;
	unsigned s = seed[i];
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
