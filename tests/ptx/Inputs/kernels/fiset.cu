// The fiset pass's test kernels (tests/ptx/fiset-*.ptx run on their PTX:
// Inputs/fiset.ptx is nvcc -arch=sm_90 -ptx, fiset-lineinfo.ptx adds
// -lineinfo, fiset-G.ptx -G). One shape of f64 code each.
extern "C" __global__ void chain(const double *a, const double *b, double *o)
{
	int i = threadIdx.x;
	double x = a[i], y = b[i];
	o[i] = (x * y + x) * y - 1.5;
}

extern "C" __global__ void diamond(const double *a, const double *b, double *o)
{
	int i = threadIdx.x;
	double x = a[i], y = b[i];
	double d = x * y;
	o[i] = (d + x) * (d - y);
}

// a loop-carried accumulator: cast once after the loop
extern "C" __global__ void accum(const double *a, double *o, double x, double y, int n)
{
	double s = 0;
	for (int k = 0; k < n; k++)
		s = s * x + y;
	o[threadIdx.x] = s + a[threadIdx.x];
}

// 3.0 folds to f32; 1e-300 would be 0 in f32: its multiply stays f64
extern "C" __global__ void consts(const double *a, double *o)
{
	int i = threadIdx.x;
	double x = a[i];
	o[i] = (x * 3.0 + 1.0) * 1e-300;
}

__device__ __noinline__ double twice(double v)
{
	return v + v * 0.5;
}

// the call ends the set: its argument and result are f64
extern "C" __global__ void calls(const double *a, double *o)
{
	int i = threadIdx.x;
	double x = a[i] * a[i] + 2.0;
	o[i] = twice(x) * x - 1.0;
}

extern "C" __global__ void nof64(const float *a, float *o)
{
	o[threadIdx.x] = a[threadIdx.x] * 2.0f + 1.0f;
}

// f64 that the programmer never meant: a double literal, a double sqrt
extern "C" __global__ void floatlit(const float *a, float *o, float k)
{
	int i = threadIdx.x;
	o[i] = a[i] + k * (a[i + 1] - 2.0 * a[i]);
}

extern "C" __global__ void floatmath(const float *a, float *o)
{
	int i = threadIdx.x;
	o[i] = sqrt(2.0 * a[i]) + 0.5;
}

// one cast a loop trip against four f64 operations: pays where f64 is
// 1/64 of f32 (sm_89), not on sm_90 where the cast costs 4 DFMAs
extern "C" __global__ void perload(const double *a, double *o, double x, double y, int n)
{
	double s = 0;
	for (int j = 0; j < n; j++) {
		double t = a[j] * x;
		t = t * t + y;
		s += t * t;
	}
	o[threadIdx.x] = s;
}
