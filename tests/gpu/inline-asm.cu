// Kernels with inline PTX, for tests/gpu/g-inline-asm.sh: each is what
// issue 38 found mpcc breaking (an immediate predicate in an f64 selp,
// registers declared in an asm block's { }), under the pass that broke on it.
// usage: inline-asm N SEED OUT: random inputs in [0.5, 2), all four
// outputs to OUT as float (sel, scoped), float (pairs, waves)
#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void sel(const float *x, double *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	double a = (double)x[i];
	double b = a + 1.0, c;
	asm("selp.f64 %0, %1, %2, 3;" : "=d"(c) : "d"(a), "d"(b));
	y[i] = c * 2.0 + a;
}

__global__ void scoped(const double *x, double *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	double s = x[i], r, q;
	asm("{\n\t.reg .f64 t<2>;\n\tmul.f64 t0, %1, %1;\n\tadd.f64 t1, t0, %1;\n\t"
	    "mul.f64 %0, t1, 0d3FE0000000000000;\n\t}" : "=d"(r) : "d"(s));
	asm("{\n\t.reg .f64 t<2>;\n\tadd.f64 t0, %1, 0d3FF0000000000000;\n\tdiv.rn.f64 t1, %1, t0;\n\t"
	    "mov.f64 %0, t1;\n\t}" : "=d"(q) : "d"(s));
	y[i] = r + s * s * q;
}

__global__ void pairs(const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float v = x[i], r;
	asm("{\n\t.reg .f32 t;\n\tmul.f32 t, %1, %1;\n\tadd.f32 %0, t, %1;\n\t}" : "=f"(r) : "f"(v));
	y[i] = r * 0.25f + v;
}

__global__ void waves(const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float v = x[i], r;
	asm("{\n\t.reg .pred p;\n\tsetp.gt.f32 p, %1, 0f3F800000;\n\tselp.f32 %0, %1, 0f3F800000, p;\n\t}"
	    : "=f"(r) : "f"(v));
	y[i] = sinf(r) * expf(-r * v) + cosf(v);
}

int main(int argc, char **argv)
{
	if (argc != 4)
		return 2;
	int n = atoi(argv[1]);
	srand(atoi(argv[2]));
	std::vector<float> xf(n), out(4 * (size_t)n);
	std::vector<double> xd(n), yd(n);
	for (int i = 0; i < n; i++) {
		xf[i] = 0.5f + 1.5f * (float)rand() / RAND_MAX;
		xd[i] = 0.5 + 1.5 * (double)rand() / RAND_MAX;
	}
	float *dxf, *dyf;
	double *dxd, *dyd;
	cudaMalloc(&dxf, n * sizeof(float));
	cudaMalloc(&dyf, n * sizeof(float));
	cudaMalloc(&dxd, n * sizeof(double));
	cudaMalloc(&dyd, n * sizeof(double));
	cudaMemcpy(dxf, xf.data(), n * sizeof(float), cudaMemcpyHostToDevice);
	cudaMemcpy(dxd, xd.data(), n * sizeof(double), cudaMemcpyHostToDevice);
	int b = 256, g = (n + b - 1) / b;
	for (int k = 0; k < 4; k++) {
		cudaMemset(dyf, 0xff, n * sizeof(float));   // NaN: an output not written shows
		cudaMemset(dyd, 0xff, n * sizeof(double));
		if (k == 0)
			sel<<<g, b>>>(dxf, dyd, n);
		if (k == 1)
			scoped<<<g, b>>>(dxd, dyd, n);
		if (k == 2)
			pairs<<<g, b>>>(dxf, dyf, n);
		if (k == 3)
			waves<<<g, b>>>(dxf, dyf, n);
		if (cudaDeviceSynchronize() != cudaSuccess)
			return 1;
		float *o = &out[(size_t)k * n];
		if (k < 2) {
			cudaMemcpy(yd.data(), dyd, n * sizeof(double), cudaMemcpyDeviceToHost);
			for (int i = 0; i < n; i++)
				o[i] = (float)yd[i];
		} else {
			cudaMemcpy(o, dyf, n * sizeof(float), cudaMemcpyDeviceToHost);
		}
	}
	FILE *f = fopen(argv[3], "wb");
	if (!f || fwrite(out.data(), sizeof(float), out.size(), f) != out.size())
		return 1;
	fclose(f);
	return 0;
}
