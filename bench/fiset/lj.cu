/* lj: Lennard-Jones forces with a cutoff (CoMD's LJ force, all pairs), f64.
 * Positions in a box where about a third of the pairs are within the cutoff. */
#include "common.h"

extern "C" __global__ void ljForce(const real *x, const real *y, const real *z, real *f,
                                   int n, real rc2, real eps, real s2)
{
	int i = blockDim.x * blockIdx.x + threadIdx.x;
	if (i >= n)
		return;
	real xi = x[i], yi = y[i], zi = z[i], fx = 0, fy = 0, fz = 0, e = 0;
	for (int j = 0; j < n; j++) {
		real dx = xi - x[j], dy = yi - y[j], dz = zi - z[j];
		real r2 = dx * dx + dy * dy + dz * dz;
		if (r2 < rc2 && r2 > 0) {
			real ir2 = s2 / r2;
			real ir6 = ir2 * ir2 * ir2;
			real fr = 24.0 * eps * ir6 * (2.0 * ir6 - 1.0) / r2;
			fx += fr * dx;
			fy += fr * dy;
			fz += fr * dz;
			e += 4.0 * eps * ir6 * (ir6 - 1.0);
		}
	}
	f[i] = fx;
	f[i + n] = fy;
	f[i + 2 * n] = fz;
	f[i + 3 * n] = e;
}

int main(int argc, char **argv)
{
	struct args a = parse(argc, argv, 16384);
	int n = (int)a.n;
	rng_seed(a.seed);
	real *x = upload(n, 0, 8), *y = upload(n, 0, 8), *z = upload(n, 0, 8);
	real *f = output(4L * n), rc2 = 6.25 * 6.25, eps = 1.0, s2 = 1.0;
	void *k[] = {&x, &y, &z, &f, &n, &rc2, &eps, &s2};
	float ms = timeit((const void *)ljForce, "ljForce", dim3((n + 255) / 256), dim3(256), 0, k);
	finishd("lj", ms, f, 4L * n, a.out);
	return 0;
}
