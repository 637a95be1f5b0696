// __device__ functions that cicc inlines, a __host__ __device__ one, and a static one
__host__ __device__ inline float sq(float x) { return x * x; }
static __device__ float dist(float ax, float ay, float bx, float by)
{
	return sqrtf(sq(ax - bx) + sq(ay - by));
}
__device__ float nearest(const float *px, const float *py, int m, float x, float y)
{
	float best = 1e30f;
	for (int j = 0; j < m; j++)
		best = fminf(best, dist(px[j], py[j], x, y));
	return best;
}
__global__ void closest(int n, int m, const float *px, const float *py, float *d)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		d[i] = nearest(px, py, m, px[i] + 0.5f, py[i] - 0.5f);
}
