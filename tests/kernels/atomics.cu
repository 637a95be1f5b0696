// atomics: int, float and double atomicAdd, atomicCAS, atomicMax
__global__ void histo(const int *x, int n, unsigned *bins, float *fsum, double *dsum, int *mx)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	atomicAdd(&bins[x[i] & 63], 1u);
	atomicAdd(fsum, (float)x[i]);
	atomicAdd(dsum, (double)x[i]);
	atomicMax(mx, x[i]);
	int old = *mx, seen;
	do {
		seen = old;
		old = atomicCAS(mx, seen, seen | 1);
	} while (old != seen);
}
