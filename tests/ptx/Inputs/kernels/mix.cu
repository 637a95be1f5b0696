// a mix: globals with initializers, __constant__, a noinline .func with a loop,
// printf (an .extern .func and a call sequence), inline asm with a { } scope
#include <cstdio>
__device__ float g[16] = {1.0f, 2.5f};
__constant__ double c[4] = {1.0, 2.0};
__device__ __noinline__ float helper(float x, int k){ float s=0; for(int i=0;i<k;i++) s+=sinf(x*i); return s; }
__global__ void __launch_bounds__(256) k1(float *a, const float *b, int n){
  __shared__ float sh[256];
  int i = blockIdx.x*blockDim.x+threadIdx.x;
  if(i<n){ sh[threadIdx.x]=b[i]; __syncthreads(); a[i]=helper(sh[threadIdx.x],n)+g[i%16]+c[i%4]; }
  if (i==0) printf("hi %d\n", n);
  float4 v = reinterpret_cast<const float4*>(b)[0];
  unsigned r; asm volatile("{ .reg .u32 t; mov.u32 t, %1; add.u32 %0, t, 1; }" : "=r"(r) : "r"(n));
  if(i==1) a[0]=v.x+v.w+r;
}
__global__ void k2(double *a, int n){ for(int i=0;i<n;i++) a[i]=sqrt(a[i])/(a[i]+1.0); }
