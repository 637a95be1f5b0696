/* flux: a CFD-like flux kernel (Rodinia cfd's compute_flux, in 2-D on a
 * grid): per cell, pressure and speed of sound from the conserved state,
 * then the Rusanov flux over its four faces. f64, no loop. */
#include "common.h"

#define GAMMA 1.4

__device__ static void prim(const real *q, int c, int m, real *rho, real *u, real *v, real *p)
{
	*rho = q[c];
	*u = q[c + m] / *rho;
	*v = q[c + 2 * m] / *rho;
	*p = (GAMMA - 1.0) * (q[c + 3 * m] - 0.5 * *rho * (*u * *u + *v * *v));
}

extern "C" __global__ void flux(const real *q, real *out, int nx, int ny)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y;
	int m = nx * ny;
	int c = j * nx + i;
	if (i >= nx)
		return;
	if (i < 1 || i >= nx - 1 || j < 1 || j >= ny - 1) {
		out[c] = out[c + m] = out[c + 2 * m] = out[c + 3 * m] = 0;
		return;
	}
	real rho, u, v, p;
	prim(q, c, m, &rho, &u, &v, &p);
	real a = sqrt(GAMMA * p / rho) + sqrt(u * u + v * v);
	real r0 = 0, r1 = 0, r2 = 0, r3 = 0;
	const int nb[4] = {c - 1, c + 1, c - nx, c + nx};
	for (int k = 0; k < 4; k++) {
		real rn, un, vn, pn;
		prim(q, nb[k], m, &rn, &un, &vn, &pn);
		real an = sqrt(GAMMA * pn / rn) + sqrt(un * un + vn * vn);
		real s = 0.5 * (a > an ? a : an);
		real w = k < 2 ? (k == 0 ? -1.0 : 1.0) : 0.0, h = k >= 2 ? (k == 2 ? -1.0 : 1.0) : 0.0;
		real fn = w * (un * rn + u * rho) + h * (vn * rn + v * rho);
		r0 += 0.5 * fn - s * (q[nb[k]] - rho);
		r1 += 0.5 * (w * (rn * un * un + pn + rho * u * u + p) + h * (rn * un * vn + rho * u * v)) -
		      s * (q[nb[k] + m] - q[c + m]);
		r2 += 0.5 * (w * (rn * un * vn + rho * u * v) + h * (rn * vn * vn + pn + rho * v * v + p)) -
		      s * (q[nb[k] + 2 * m] - q[c + 2 * m]);
		r3 += 0.5 * (w * (un * (q[nb[k] + 3 * m] + pn) + u * (q[c + 3 * m] + p)) +
		             h * (vn * (q[nb[k] + 3 * m] + pn) + v * (q[c + 3 * m] + p))) -
		      s * (q[nb[k] + 3 * m] - q[c + 3 * m]);
	}
	out[c] = r0;
	out[c + m] = r1;
	out[c + 2 * m] = r2;
	out[c + 3 * m] = r3;
}

int main(int argc, char **argv)
{
	struct args a = parse(argc, argv, 1 << 22);
	int nx = 2048, ny = (int)(a.n / nx), m = nx * ny;
	rng_seed(a.seed);
	/* rho, rho u, rho v, E: rho and E positive, momentum small, so p > 0 */
	real *q;
	CK(cudaMalloc(&q, 4L * m * sizeof(real)));
	const double lo[4] = {1.0, -0.3, -0.3, 2.0}, hi[4] = {2.0, 0.3, 0.3, 3.0};
	for (int k = 0; k < 4; k++) {
		real *p = upload(m, lo[k], hi[k]);
		CK(cudaMemcpy(q + (long)k * m, p, m * sizeof(real), cudaMemcpyDeviceToDevice));
		CK(cudaFree(p));
	}
	real *o = output(4L * m);
	void *k[] = {&q, &o, &nx, &ny};
	float ms = timeit((const void *)flux, "flux", dim3((nx + 127) / 128, ny), dim3(128), 0, k);
	finishd("flux", ms, o, 4L * m, a.out);
	return 0;
}
