// warp intrinsics: shuffles, ballot and vote (what half2 pairing must refuse)
__global__ void warpsum(const float *x, float *y, unsigned *mask, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	float v = i < n ? x[i] : 0.0f;
	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_down_sync(0xffffffffu, v, o);
	unsigned b = __ballot_sync(0xffffffffu, v > 0.0f);
	if (__all_sync(0xffffffffu, i < n) && (threadIdx.x & 31) == 0) {
		y[i / 32] = v;
		mask[i / 32] = b;
	}
}
