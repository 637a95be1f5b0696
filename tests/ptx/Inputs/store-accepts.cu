// store: arrays the analysis lets live narrow
extern "C" __global__ void indexed(double *y, const double *x, double a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
extern "C" __global__ void vector2(double2 *y, const double2 *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { double2 v = x[i]; y[i] = make_double2(v.y, v.x + 1.0); }
}
extern "C" __global__ void atomics(double *sum, const double *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&sum[i % 16], x[i]);
}
extern "C" __global__ void offsets(double *y, const double *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < n - 1) y[i] = x[i - 1] - 2 * x[i] + x[i + 1];
}
extern "C" __global__ void walk(double *y, const double *x, int n, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  double s = 0;
  for (const double *p = x + i; p < x + (size_t)n * m; p += n) s += *p;
  if (i < n) y[i] = s;
}
extern "C" __global__ void zero(double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 0;
}
extern "C" __global__ void floats(float4 *y, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = make_float4(x[4 * i], x[4 * i + 1], x[4 * i + 2], 1.0f);
}
extern "C" __global__ void ones(double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 1.0;
}
extern "C" __global__ void tenth(double *y, const double *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { y[2 * i] = 0.1; y[2 * i + 1] = x[i]; }
}
extern "C" __global__ void pick(double *y, const double *a, const double *b, int n, int which) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  const double *src = which ? a : b;
  if (i < n) y[i] = src[i] * 2.0;
}
