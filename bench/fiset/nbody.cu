/* nbody: the force kernel of the paper's Listing 1.1 (mini-nbody), all f64:
 * positions in, velocities updated. N bodies, one thread each. */
#include "common.h"

extern "C" __global__ void bodyForce(const real *x, const real *y, const real *z, real *vx,
                                     real *vy, real *vz, real dt, int n)
{
	int i = blockDim.x * blockIdx.x + threadIdx.x;
	if (i < n) {
		real Fx = 0.0, Fy = 0.0, Fz = 0.0;
		for (int j = 0; j < n; j++) {
			real dx = x[j] - x[i];
			real dy = y[j] - y[i];
			real dz = z[j] - z[i];
			real distSqr = dx * dx + dy * dy + dz * dz + 1e-9;
			real invDist = rsqrt(distSqr);
			real invDist3 = invDist * invDist * invDist;
			Fx += dx * invDist3;
			Fy += dy * invDist3;
			Fz += dz * invDist3;
		}
		vx[i] = dt * Fx;
		vy[i] = dt * Fy;
		vz[i] = dt * Fz;
	}
}

int main(int argc, char **argv)
{
	struct args a = parse(argc, argv, 32768);
	int n = (int)a.n;
	rng_seed(a.seed);
	real *x = upload(n, -1, 1), *y = upload(n, -1, 1), *z = upload(n, -1, 1);
	real *v = output(3L * n), *vy = v + n, *vz = v + 2L * n, dt = 0.01;
	void *k[] = {&x, &y, &z, &v, &vy, &vz, &dt, &n};
	float ms = timeit((const void *)bodyForce, "bodyForce", dim3((n + 255) / 256), dim3(256), 0, k);
	finishd("nbody", ms, v, 3L * n, a.out);
	return 0;
}
