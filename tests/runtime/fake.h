/* fake.h: a fake CUDA runtime for the tests of libmpccrt (tests/runtime).
 * It defines the entry points the runtime calls (cudaMalloc, the launches,
 * cudaLibraryLoadData...) with device memory as host memory and kernels
 * as host functions a test registers by name, run when launched (every
 * launch is synchronous). The runtime's conversion kernels are emulated
 * by their names (mpcc_narrow_f64_f32, mpcc_back_f64_f32...), after the
 * PTX that cudaLibraryLoadData gets is assembled by ptxas when FAKE_PTXAS
 * names it. A test program links as a user's does: its objects, the
 * runtime and this library, with the runtime's wrap list, so that its
 * calls reach the runtime and the runtime's __real_ calls reach this. */
#ifndef MPCC_FAKE_H
#define MPCC_FAKE_H

#define CUDA_ENABLE_DEPRECATED
#include <cuda_runtime_api.h>

/* what nvcc's registration code calls (crt/host_runtime.h, C++ there) */
void **__cudaRegisterFatBinary(void *fatCubin);
void __cudaRegisterFatBinaryEnd(void **h);
void __cudaRegisterFunction(void **h, const char *hostFun, char *deviceFun, const char *deviceName,
                            int threadLimit, uint3 *tid, uint3 *bid, dim3 *bDim, dim3 *gDim,
                            int *wSize);
cudaError_t __cudaGetKernel(cudaKernel_t *k, const void *hostFun);
cudaError_t __cudaLaunchKernel(cudaKernel_t k, dim3 g, dim3 b, void **args, size_t sh,
                               cudaStream_t s);
cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t k, dim3 g, dim3 b, void **args, size_t sh,
                                    cudaStream_t s);
/* the per-thread default stream twins the tests call by name */
extern __typeof__(cudaMemcpy) cudaMemcpy_ptds;
extern __typeof__(cudaMemcpyAsync) cudaMemcpyAsync_ptsz;
extern __typeof__(cudaMemcpy2D) cudaMemcpy2D_ptds;
extern __typeof__(cudaMemcpy2DAsync) cudaMemcpy2DAsync_ptsz;
extern __typeof__(cudaMemcpy3D) cudaMemcpy3D_ptds;
extern __typeof__(cudaMemcpy3DAsync) cudaMemcpy3DAsync_ptsz;
extern __typeof__(cudaMemcpyToSymbol) cudaMemcpyToSymbol_ptds;
extern __typeof__(cudaMemcpyToSymbolAsync) cudaMemcpyToSymbolAsync_ptsz;
extern __typeof__(cudaMemcpyFromSymbol) cudaMemcpyFromSymbol_ptds;
extern __typeof__(cudaMemcpyFromSymbolAsync) cudaMemcpyFromSymbolAsync_ptsz;
extern __typeof__(cudaMemcpyToArray) cudaMemcpyToArray_ptds;
extern __typeof__(cudaMemcpyToArrayAsync) cudaMemcpyToArrayAsync_ptsz;
extern __typeof__(cudaMemcpy2DToArray) cudaMemcpy2DToArray_ptds;
extern __typeof__(cudaMemcpy2DToArrayAsync) cudaMemcpy2DToArrayAsync_ptsz;
extern __typeof__(cudaMemcpyFromArray) cudaMemcpyFromArray_ptds;
extern __typeof__(cudaMemcpyFromArrayAsync) cudaMemcpyFromArrayAsync_ptsz;
extern __typeof__(cudaMemcpy2DFromArray) cudaMemcpy2DFromArray_ptds;
extern __typeof__(cudaMemcpy2DFromArrayAsync) cudaMemcpy2DFromArrayAsync_ptsz;
extern __typeof__(cudaMemcpyBatchAsync) cudaMemcpyBatchAsync_ptsz;
extern __typeof__(cudaMemcpy3DBatchAsync) cudaMemcpy3DBatchAsync_ptsz;
extern __typeof__(cudaGraphLaunch) cudaGraphLaunch_ptsz;
extern __typeof__(cudaMemset) cudaMemset_ptds;
extern __typeof__(cudaMemsetAsync) cudaMemsetAsync_ptsz;
extern __typeof__(cudaMemset2D) cudaMemset2D_ptds;
extern __typeof__(cudaMemset2DAsync) cudaMemset2DAsync_ptsz;
extern __typeof__(cudaMemset3D) cudaMemset3D_ptds;
extern __typeof__(cudaMemset3DAsync) cudaMemset3DAsync_ptsz;
extern __typeof__(cudaLaunchKernel) cudaLaunchKernel_ptsz;

/* a kernel's body: what the launch's arguments point to */
typedef void body_fn(void **args);
/* the kernel (or clone) of mangled name `name`: its body and the sizes of
 * its nparam parameters (cudaFuncGetParamInfo) */
void fake_kernel(const char *name, body_fn *body, int nparam, const int *sizes);
/* the attribute the clone `name` refuses (cudaFuncSetAttribute fails) */
void fake_refuse_attr(const char *name, enum cudaFuncAttribute attr);

/* what happened, in order, one line each: "sync", "launch NAME",
 * "malloc N", "free N", "memcpy"...; fake_log() is the lines so far,
 * fake_count(s) how many start with s */
const char *fake_log(void);
int fake_count(const char *prefix);
void fake_log_clear(void);

/* the fake allocation holding p: 1 and its base and size, or 0 */
int fake_alloc(const void *p, char **base, size_t *size);
int fake_allocs(void);   /* allocations live (the program's and the runtime's) */

/* a device symbol (a __device__ variable) of size bytes, and an array */
void *fake_symbol(size_t size);
cudaArray_t fake_array(size_t size);
void *fake_array_data(cudaArray_t a);

/* the host-side conversions of the emulated kernels */
float fake_f32(double x);       /* cvt.rn.f32.f64 */
unsigned short fake_bf16(double x);
unsigned short fake_f16(double x);
double fake_widen_bf16(unsigned short h);
double fake_widen_f16(unsigned short h);

#endif
