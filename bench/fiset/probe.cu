// probe.cu: what each f64 operation and its f32 form costs on the GPU at hand,
// for fiset's cost model (model/target.c, model/cost.c).
// Throughput: 8 independent chains a thread, IT steps, 2048 threads an SM, so
// issue rate and not latency bounds each loop (as bench/probes/rates.cu);
// the figure is PTX operations per clock per SM. The s_* kernels hold one
// operation each, for counting the SASS instructions ptxas makes of it
// (cuobjdump -sass, one kernel per line of the table in model/cost.c). The l_*
// kernels give latency: one warp, one dependent chain, clocks per operation.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#define CK(x) do { cudaError_t e = (x); if (e) { printf("CUDA %s at %d\n", cudaGetErrorString(e), __LINE__); exit(1); } } while (0)
const int IT = 1024;

#define LOOP64(NAME, BODY) \
__global__ void NAME(double *o, double a, double b) { \
  double x[8]; for (int c = 0; c < 8; c++) x[c] = 1.5 + threadIdx.x * 1e-4 + c * 0.01; \
  for (int i = 0; i < IT; i++) { \
    _Pragma("unroll") for (int c = 0; c < 8; c++) { BODY } \
  } \
  double s = 0; for (int c = 0; c < 8; c++) s += x[c]; o[blockIdx.x * blockDim.x + threadIdx.x] = s; }
#define LOOP32(NAME, BODY) \
__global__ void NAME(double *o, float a, float b) { \
  float x[8]; for (int c = 0; c < 8; c++) x[c] = 1.5f + threadIdx.x * 1e-4f + c * 0.01f; \
  for (int i = 0; i < IT; i++) { \
    _Pragma("unroll") for (int c = 0; c < 8; c++) { BODY } \
  } \
  float s = 0; for (int c = 0; c < 8; c++) s += x[c]; o[blockIdx.x * blockDim.x + threadIdx.x] = s; }

#define A64(INS) asm volatile(INS : "+d"(x[c]) : "d"(a), "d"(b));
#define A32(INS) asm volatile(INS : "+f"(x[c]) : "f"(a), "f"(b));
LOOP64(t_add64, A64("add.f64 %0, %0, %1;"))
LOOP32(t_add32, A32("add.f32 %0, %0, %1;"))
LOOP64(t_fma64, A64("fma.rn.f64 %0, %0, %1, %2;"))
LOOP32(t_fma32, A32("fma.rn.f32 %0, %0, %1, %2;"))
LOOP64(t_div64, A64("div.rn.f64 %0, %1, %0;"))
LOOP32(t_div32, A32("div.rn.f32 %0, %1, %0;"))
LOOP32(t_divfull32, A32("div.full.f32 %0, %1, %0;"))
LOOP64(t_sqrt64, A64("sqrt.rn.f64 %0, %0;"))
LOOP32(t_sqrt32, A32("sqrt.rn.f32 %0, %0;"))
LOOP32(t_sqrtapprox32, A32("sqrt.approx.f32 %0, %0;"))
LOOP64(t_rcp64, A64("rcp.rn.f64 %0, %0;"))
LOOP32(t_rcp32, A32("rcp.rn.f32 %0, %0;"))
LOOP64(t_rsqrt64, A64("rsqrt.approx.f64 %0, %0;"))
LOOP32(t_rsqrt32, A32("rsqrt.approx.f32 %0, %0;"))
LOOP64(t_min64, A64("min.f64 %0, %0, %1;"))
LOOP32(t_min32, A32("min.f32 %0, %0, %1;"))
LOOP64(t_sel64, A64("{.reg .pred p; setp.lt.f64 p, %0, %2; selp.f64 %0, %1, %0, p;}"))
LOOP32(t_sel32, A32("{.reg .pred p; setp.lt.f32 p, %0, %2; selp.f32 %0, %1, %0, p;}"))
LOOP64(t_rni64, A64("cvt.rni.f64.f64 %0, %0;"))
LOOP32(t_rni32, A32("cvt.rni.f32.f32 %0, %0;"))
// one f64->f32 and one f32->f64 conversion, with an f32 add between
LOOP64(t_cvt, A64("{.reg .f32 f; cvt.rn.f32.f64 f, %0; add.f32 f, f, 0f3F800000; cvt.f64.f32 %0, f;}"))
// the same add alone, f32 (to subtract)
LOOP64(t_nocvt, A64("add.f64 %0, %0, 0d3FF0000000000000;"))
// f64 -> f32 alone: an f64 add feeds it, an f32 add sums what it gives
__global__ void t_down(double *o, double a, double b) {
  double x[8]; float s[8];
  for (int c = 0; c < 8; c++) { x[c] = 1.5 + threadIdx.x * 1e-4 + c * 0.01; s[c] = 0; }
  for (int i = 0; i < IT; i++) {
#pragma unroll
    for (int c = 0; c < 8; c++) { float f; x[c] += a; asm volatile("cvt.rn.f32.f64 %0, %1;" : "=f"(f) : "d"(x[c])); s[c] += f; }
  }
  double t = 0; for (int c = 0; c < 8; c++) t += x[c] + s[c]; o[blockIdx.x * blockDim.x + threadIdx.x] = t; }
// f32 -> f64 alone
__global__ void t_up(double *o, double a, double b) {
  float x[8]; double s[8];
  for (int c = 0; c < 8; c++) { x[c] = 1.5f + threadIdx.x * 1e-4f + c * 0.01f; s[c] = 0; }
  for (int i = 0; i < IT; i++) {
#pragma unroll
    for (int c = 0; c < 8; c++) { double d; x[c] += (float)a; asm volatile("cvt.f64.f32 %0, %1;" : "=d"(d) : "f"(x[c])); s[c] += d; }
  }
  double t = 0; for (int c = 0; c < 8; c++) t += x[c] + s[c]; o[blockIdx.x * blockDim.x + threadIdx.x] = t; }
// which pipe the conversions share: t_down's f64 -> f32 with an independent
// rsqrt.approx.f32 (MUFU) in each step, and with an independent f64 fma;
// a time near the sum of the parts' times means one pipe, near the larger
// of them two pipes
__global__ void t_downmufu(double *o, double a, double b) {
  double x[8]; float s[8], y[8];
  for (int c = 0; c < 8; c++) { x[c] = 1.5 + threadIdx.x * 1e-4 + c * 0.01; s[c] = 0; y[c] = 1.5f + c; }
  for (int i = 0; i < IT; i++) {
#pragma unroll
    for (int c = 0; c < 8; c++) { float f; x[c] += a; asm volatile("cvt.rn.f32.f64 %0, %1;" : "=f"(f) : "d"(x[c])); s[c] += f;
      asm volatile("rsqrt.approx.f32 %0, %0;" : "+f"(y[c])); }
  }
  double t = 0; for (int c = 0; c < 8; c++) t += x[c] + s[c] + y[c]; o[blockIdx.x * blockDim.x + threadIdx.x] = t; }
__global__ void t_downdfma(double *o, double a, double b) {
  double x[8], z[8]; float s[8];
  for (int c = 0; c < 8; c++) { x[c] = 1.5 + threadIdx.x * 1e-4 + c * 0.01; s[c] = 0; z[c] = 1.5 + c; }
  for (int i = 0; i < IT; i++) {
#pragma unroll
    for (int c = 0; c < 8; c++) { float f; x[c] += a; asm volatile("cvt.rn.f32.f64 %0, %1;" : "=f"(f) : "d"(x[c])); s[c] += f;
      asm volatile("fma.rn.f64 %0, %0, %1, %2;" : "+d"(z[c]) : "d"(0.999), "d"(1e-3)); asm volatile("fma.rn.f64 %0, %0, %1, %2;" : "+d"(z[c]) : "d"(0.999), "d"(1e-3));
      asm volatile("fma.rn.f64 %0, %0, %1, %2;" : "+d"(z[c]) : "d"(0.999), "d"(1e-3)); }
  }
  double t = 0; for (int c = 0; c < 8; c++) t += x[c] + s[c] + z[c]; o[blockIdx.x * blockDim.x + threadIdx.x] = t; }
// the three f64 fma of t_downdfma alone (with the f64 add of t_down)
__global__ void t_dfma3(double *o, double a, double b) {
  double x[8], z[8];
  for (int c = 0; c < 8; c++) { x[c] = 1.5 + threadIdx.x * 1e-4 + c * 0.01; z[c] = 1.5 + c; }
  for (int i = 0; i < IT; i++) {
#pragma unroll
    for (int c = 0; c < 8; c++) { x[c] += a;
      asm volatile("fma.rn.f64 %0, %0, %1, %2;" : "+d"(z[c]) : "d"(0.999), "d"(1e-3)); asm volatile("fma.rn.f64 %0, %0, %1, %2;" : "+d"(z[c]) : "d"(0.999), "d"(1e-3));
      asm volatile("fma.rn.f64 %0, %0, %1, %2;" : "+d"(z[c]) : "d"(0.999), "d"(1e-3)); }
  }
  double t = 0; for (int c = 0; c < 8; c++) t += x[c] + z[c]; o[blockIdx.x * blockDim.x + threadIdx.x] = t; }

// does an f64 instruction hold its scheduler's issue for two clocks (its
// pipe takes 16 lanes a clock)? an f64 fma with one, and with two,
// independent f32 fmas each step: one clock an instruction issues a step in
// 2 and 3 clocks a warp, two clocks in 3 and 4
#define MIX(NAME, F32) \
__global__ void NAME(double *o, double a, double b) { \
  double x[8]; float y[8], z[8]; \
  for (int c = 0; c < 8; c++) { x[c] = 1.5 + threadIdx.x * 1e-4 + c * 0.01; y[c] = z[c] = 1.5f + c; } \
  for (int i = 0; i < IT; i++) { \
    _Pragma("unroll") for (int c = 0; c < 8; c++) { \
      asm volatile("fma.rn.f64 %0, %0, %1, %2;" : "+d"(x[c]) : "d"(a), "d"(b)); F32 } \
  } \
  double t = 0; for (int c = 0; c < 8; c++) t += x[c] + y[c] + z[c]; o[blockIdx.x * blockDim.x + threadIdx.x] = t; }
#define F1 asm volatile("fma.rn.f32 %0, %0, %1, %1;" : "+f"(y[c]) : "f"(0.999f));
#define F2 F1 asm volatile("fma.rn.f32 %0, %0, %1, %1;" : "+f"(z[c]) : "f"(0.999f));
MIX(t_dfma_ffma, F1)
MIX(t_dfma_2ffma, F2)

// latency: one warp, one dependent chain, clocks per operation (clock64
// around the loop, unrolled by 8 so the loop's own instructions hide)
#define LAT(NAME, T, C, INS) \
__global__ void NAME(double *o, T a, T b) { \
  T x = (T)(1.5 + threadIdx.x * 1e-4); long long t0 = clock64(); \
  _Pragma("unroll 8") for (int i = 0; i < IT; i++) asm volatile(INS : "+" C(x) : C(a), C(b)); \
  long long t1 = clock64(); o[threadIdx.x] = x; if (!threadIdx.x) o[32] = (double)(t1 - t0) / IT; }
LAT(l_add64, double, "d", "add.f64 %0, %0, %1;")
LAT(l_fma64, double, "d", "fma.rn.f64 %0, %0, %1, %2;")
LAT(l_div64, double, "d", "div.rn.f64 %0, %1, %0;")
LAT(l_sqrt64, double, "d", "sqrt.rn.f64 %0, %0;")
LAT(l_rsqrt64, double, "d", "rsqrt.approx.f64 %0, %0;")
LAT(l_add32, float, "f", "add.f32 %0, %0, %1;")
LAT(l_fma32, float, "f", "fma.rn.f32 %0, %0, %1, %2;")
LAT(l_div32, float, "f", "div.rn.f32 %0, %1, %0;")
LAT(l_sqrt32, float, "f", "sqrt.rn.f32 %0, %0;")
LAT(l_rsqrt32, float, "f", "rsqrt.approx.f32 %0, %0;")
// an f64 -> f32 -> f64 round trip: two conversions
LAT(l_cvt2, double, "d", "{.reg .f32 f; cvt.rn.f32.f64 f, %0; cvt.f64.f32 %0, f;}")
LAT(l_rcp64, double, "d", "rcp.rn.f64 %0, %0;")
LAT(l_rcp32, float, "f", "rcp.rn.f32 %0, %0;")
LAT(l_min64, double, "d", "min.f64 %0, %0, %1;")
LAT(l_min32, float, "f", "min.f32 %0, %0, %1;")
LAT(l_sel64, double, "d", "{.reg .pred p; setp.lt.f64 p, %0, %1; selp.f64 %0, %1, %0, p;}")
LAT(l_sel32, float, "f", "{.reg .pred p; setp.lt.f32 p, %0, %1; selp.f32 %0, %1, %0, p;}")
LAT(l_rni64, double, "d", "cvt.rni.f64.f64 %0, %0;")
LAT(l_rni32, float, "f", "cvt.rni.f32.f32 %0, %0;")
LAT(l_ex2, float, "f", "ex2.approx.f32 %0, %0;")
LAT(l_iadd, int, "r", "add.s32 %0, %0, %1;")
LAT(l_imad, int, "r", "mad.lo.s32 %0, %0, %1, %2;")

// load latency: one thread follows a chain of indices through n longs
// (each entry the index of the next, `stride` entries on), so every load
// waits for the one before. The chain is walked `warm` times first (its
// lines then sit in L1 if they fit, else in L2), or not at all (DRAM).
__global__ void l_chase(const long *p, int warm, int steps, double *o) {
  long j = 0, s = 0;
  for (int w = 0; w < warm; w++)
    for (int i = 0; i < steps; i++) s += j = p[j];
  j = s & 0;   // 0, after the warm loads
  long long t0 = clock64();
  for (int i = 0; i < steps; i++) j = p[j];
  long long t1 = clock64();
  o[0] = j + s; o[32] = (double)(t1 - t0) / steps; }

// one operation each, for the SASS counts
#define ONE64(NAME, INS) __global__ void NAME(double *o, const double *p, const double *q) { \
  int i = threadIdx.x; double x = p[i], y = q[i], r; asm volatile(INS : "=d"(r) : "d"(x), "d"(y)); o[i] = r; }
#define ONE32(NAME, INS) __global__ void NAME(float *o, const float *p, const float *q) { \
  int i = threadIdx.x; float x = p[i], y = q[i], r; asm volatile(INS : "=f"(r) : "f"(x), "f"(y)); o[i] = r; }
ONE64(s_mov64, "mov.f64 %0, %1;")
ONE32(s_mov32, "mov.f32 %0, %1;")
ONE64(s_add64, "add.f64 %0, %1, %2;")
ONE32(s_add32, "add.f32 %0, %1, %2;")
ONE64(s_div64, "div.rn.f64 %0, %1, %2;")
ONE32(s_div32, "div.rn.f32 %0, %1, %2;")
ONE32(s_divfull32, "div.full.f32 %0, %1, %2;")
ONE64(s_sqrt64, "sqrt.rn.f64 %0, %1;")
ONE32(s_sqrt32, "sqrt.rn.f32 %0, %1;")
ONE64(s_rcp64, "rcp.rn.f64 %0, %1;")
ONE32(s_rcp32, "rcp.rn.f32 %0, %1;")
ONE64(s_rsqrt64, "rsqrt.approx.f64 %0, %1;")
ONE32(s_rsqrt32, "rsqrt.approx.f32 %0, %1;")
ONE64(s_min64, "min.f64 %0, %1, %2;")
ONE32(s_min32, "min.f32 %0, %1, %2;")
ONE64(s_sel64, "{.reg .pred p; setp.lt.f64 p, %1, %2; selp.f64 %0, %1, %2, p;}")
ONE32(s_sel32, "{.reg .pred p; setp.lt.f32 p, %1, %2; selp.f32 %0, %1, %2, p;}")
ONE64(s_rni64, "cvt.rni.f64.f64 %0, %1;")
ONE32(s_rni32, "cvt.rni.f32.f32 %0, %1;")
ONE64(s_abs64, "abs.f64 %0, %1;")
ONE64(s_cvt, "{.reg .f32 f; cvt.rn.f32.f64 f, %1; cvt.f64.f32 %0, f;}")

template <typename F> float timeit(F f) {
  cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  f(); CK(cudaDeviceSynchronize());
  std::vector<float> t;
  for (int r = 0; r < 9; r++) { CK(cudaEventRecord(a)); f(); CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b)); float ms; CK(cudaEventElapsedTime(&ms, a, b)); t.push_back(ms); }
  CK(cudaGetLastError()); std::sort(t.begin(), t.end()); return t[4];
}
int main() {
  cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, 0));
  int clk; CK(cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, 0));
  int sms = p.multiProcessorCount, th = 256, blocks = sms * 8; size_t N = (size_t)blocks * th;
  printf("device %s, %d SMs, cc %d.%d, max clock %.0f MHz\n", p.name, sms, p.major, p.minor, clk / 1e3);
  double *o; CK(cudaMalloc(&o, N * 8));
  double ops = 8.0 * IT * N;
#define T64(K, A, B) {#K, timeit([&] { K<<<blocks, th>>>(o, A, B); })}
  struct { const char *name; float ms; } r[] = {
    T64(t_add64, 1e-9, 0.0), T64(t_add32, 1e-9f, 0.0f), T64(t_fma64, 0.999, 1e-3), T64(t_fma32, 0.999f, 1e-3f),
    T64(t_div64, 1.7, 0.0), T64(t_div32, 1.7f, 0.0f), T64(t_divfull32, 1.7f, 0.0f),
    T64(t_sqrt64, 0.0, 0.0), T64(t_sqrt32, 0.0f, 0.0f), T64(t_sqrtapprox32, 0.0f, 0.0f),
    T64(t_rcp64, 0.0, 0.0), T64(t_rcp32, 0.0f, 0.0f), T64(t_rsqrt64, 0.0, 0.0), T64(t_rsqrt32, 0.0f, 0.0f),
    T64(t_min64, 2.0, 0.0), T64(t_min32, 2.0f, 0.0f), T64(t_sel64, 1.25, 1.0), T64(t_sel32, 1.25f, 1.0f),
    T64(t_rni64, 0.0, 0.0), T64(t_rni32, 0.0f, 0.0f), T64(t_cvt, 0.0, 0.0), T64(t_nocvt, 0.0, 0.0), T64(t_down, 1e-9, 0.0), T64(t_up, 1e-9, 0.0),
    T64(t_downmufu, 1e-9, 0.0), T64(t_downdfma, 1e-9, 0.0), T64(t_dfma3, 1e-9, 0.0),
    T64(t_dfma_ffma, 0.999, 1e-3), T64(t_dfma_2ffma, 0.999, 1e-3),
  };
  for (auto &e : r)
    printf("%-16s %8.3f ms  %7.2f ops/clk/SM\n", e.name, e.ms, ops / (e.ms * 1e-3) / (clk * 1e3) / sms);
  double *h = (double *)malloc(33 * 8);
#define L(K, A, B) { K<<<1, 32>>>(o, A, B); CK(cudaDeviceSynchronize()); K<<<1, 32>>>(o, A, B); \
    CK(cudaMemcpy(h, o, 33 * 8, cudaMemcpyDeviceToHost)); printf("%-16s %8.1f clk/op (one warp, one chain)\n", #K, h[32]); }
  L(l_add64, 1e-9, 0.0) L(l_fma64, 0.999, 1e-3) L(l_div64, 1.7, 0.0) L(l_sqrt64, 0.0, 0.0) L(l_rsqrt64, 0.0, 0.0)
  L(l_add32, 1e-9f, 0.0f) L(l_fma32, 0.999f, 1e-3f) L(l_div32, 1.7f, 0.0f) L(l_sqrt32, 0.0f, 0.0f) L(l_rsqrt32, 0.0f, 0.0f)
  L(l_cvt2, 0.0, 0.0)
  L(l_rcp64, 0.0, 0.0) L(l_rcp32, 0.0f, 0.0f) L(l_min64, 2.0, 0.0) L(l_min32, 2.0f, 0.0f)
  L(l_sel64, 1.25, 1.0) L(l_sel32, 1.25f, 1.0f) L(l_rni64, 0.0, 0.0) L(l_rni32, 0.0f, 0.0f)
  L(l_ex2, 0.0f, 0.0f) L(l_iadd, 3, 1) L(l_imad, 3, 1)
  struct { const char *name; size_t bytes, stride; int warm; } ch[] = {
    {"l_chase_l1 (16 KB)", 16 << 10, 17, 2}, {"l_chase_l2 (8 MB)", 8 << 20, 4099, 2},
    {"l_chase_dram (256 MB)", 256 << 20, 2053, 0},
  };
  for (auto &c : ch) {
    size_t n = c.bytes / 8;
    std::vector<long> v(n);
    for (size_t i = 0; i < n; i++) v[i] = (long)((i + c.stride) % n);
    long *d; CK(cudaMalloc(&d, c.bytes)); CK(cudaMemcpy(d, v.data(), c.bytes, cudaMemcpyHostToDevice));
    l_chase<<<1, 1>>>(d, c.warm, 4096, o); CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(h, o, 33 * 8, cudaMemcpyDeviceToHost));
    printf("%-20s %6.1f clk/load (one thread, dependent loads)\n", c.name, h[32]);
    CK(cudaFree(d));
  }
  free(h);
  printf("DONE\n");
  return 0;
}
