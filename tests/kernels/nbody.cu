// n-body forces in double: the FISet paper's kernel (rsqrt, fma chains, a loop)
struct Body {
	double x, y, z, m;
};

__global__ void bodyForce(const Body *p, double3 *f, int n, double soft)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	double fx = 0.0, fy = 0.0, fz = 0.0;
	Body pi = p[i];
	for (int j = 0; j < n; j++) {
		Body pj = p[j];
		double dx = pj.x - pi.x, dy = pj.y - pi.y, dz = pj.z - pi.z;
		double d2 = dx * dx + dy * dy + dz * dz + soft;
		double inv = 1.0 / sqrt(d2);
		double s = pj.m * inv * inv * inv;
		fx += dx * s;
		fy += dy * s;
		fz += dz * s;
	}
	f[i] = make_double3(fx, fy, fz);
}
