// The electrostatic potential at each charge from every other, tile by tile
// through shared memory (an unrolled inner loop of f64 arithmetic on values
// loaded from the tile): at full occupancy the conversions of the tile's
// values cost about what lowering gains; with fewer warps an SM, the f64
// latency the warps no longer hide makes lowering pay.
extern "C" __global__ void potential(const double4_32a *q, double *phi, int n)
{
	extern __shared__ double4_32a tile[];
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	double4_32a me = q[i < n ? i : 0];
	double sum = 0;
	for (int t = 0; t < n; t += blockDim.x) {
		tile[threadIdx.x] = q[t + threadIdx.x];
		__syncthreads();
#pragma unroll 32
		for (int j = 0; j < blockDim.x; j++) {
			double dx = tile[j].x - me.x, dy = tile[j].y - me.y, dz = tile[j].z - me.z;
			double r2 = dx * dx + dy * dy + dz * dz + 1e-6;
			double s = rsqrt(r2);
			sum += tile[j].w * s * s * s * (1.0 + r2 * (0.5 + r2 * (0.25 + r2 * 0.125)));
		}
		__syncthreads();
	}
	if (i < n)
		phi[i] = sum;
}
