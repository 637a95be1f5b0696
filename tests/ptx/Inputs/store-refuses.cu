// store: arrays the analysis keeps as they are, each for its reason
#include <cstdio>
extern "C" __global__ void escapes(double *y, double **out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 1.5;
  if (i == 0) out[0] = y;
}
extern "C" __global__ void compared(double *y, const double *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = y == x ? 0.0 : x[i];
}
extern "C" __global__ void aligned(double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = ((unsigned long long)y & 15) ? 1.0 : 2.0;
}
extern "C" __global__ void widths(double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = ((float *)y)[i] + 1.0;
}
extern "C" __global__ void ints(long long *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = y[i] * 3;
}
extern "C" __global__ void loaded(double **rows, double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = rows[i][0];
}
__device__ double *global_ptr;
extern "C" __global__ void unknown(double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = global_ptr[i];
}
__device__ __noinline__ double peek(const double *p, int i) { return p[i]; }
extern "C" __global__ void calls(double *y, const double *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = peek(x, i);
}
extern "C" __global__ void cas(double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicExch((unsigned long long *)&y[i], 1ull);
}
extern "C" __global__ void printed(double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0;
  if (i == 0) printf("%p\n", y);
}
extern "C" __global__ void integers(long long *z, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) z[i] = 7;
}
extern "C" __global__ void tenths(double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 0.1;
}
extern "C" __global__ void marked(double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { y[2 * i] = __longlong_as_double(0x7ff8000000000001ll); y[2 * i + 1] *= 2.0; }
}
