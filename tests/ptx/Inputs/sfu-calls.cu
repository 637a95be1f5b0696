// source of sfu-f64-calls.ptx: nvcc -arch=sm_90 -ptx -rdc=true sfu-calls.cu
#include <cstdio>
__device__ __noinline__ double g(double x) { return 1.0 / sqrt(x) + x / (x + 3.0); }
__device__ double dv[8];
extern "C" __global__ void k(double *o, const double *a, float *f) {
  int t = threadIdx.x;
  double s = 0;
  for (int i = 0; i < 4; i++) s += g(a[t + i]) / (a[t] + 1.0);
  if (t == 0) printf("%f\n", s);
  o[t] = s + dv[t & 7] + sqrt(a[t]);
  f[t] = expf(f[t]) / f[t+1];
}
