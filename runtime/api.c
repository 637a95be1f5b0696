/* api.c: the wrapped entry points that are neither launches nor copies.
 * Allocations made through cudaMalloc and its kin are tracked (managed
 * memory, host memory and arrays never are) and forgotten at their free.
 * What lets something other than this process's kernels and copies reach
 * an allocation, or lets the program run kernels the runtime does not
 * see, switches store off for the rest of the process, every allocation
 * written back first: a second device, peer access, IPC and pool exports,
 * stream capture (its graph replays later, on whatever forms then are),
 * the driver API's entry points, and dlopen of a library that is not
 * CUDA's own (it may take device pointers). A graph launch and a batch of
 * copies find every allocation in the original form, and leave every
 * mirror stale. */
#include "runtime/runtime.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

extern __typeof__(cudaMalloc) __real_cudaMalloc, __wrap_cudaMalloc;
extern __typeof__(cudaMallocPitch) __real_cudaMallocPitch, __wrap_cudaMallocPitch;
extern __typeof__(cudaMalloc3D) __real_cudaMalloc3D, __wrap_cudaMalloc3D;
extern __typeof__(cudaMallocAsync) __real_cudaMallocAsync, __wrap_cudaMallocAsync,
	__real_cudaMallocAsync_ptsz, __wrap_cudaMallocAsync_ptsz;
extern __typeof__(cudaMallocFromPoolAsync) __real_cudaMallocFromPoolAsync,
	__wrap_cudaMallocFromPoolAsync, __real_cudaMallocFromPoolAsync_ptsz,
	__wrap_cudaMallocFromPoolAsync_ptsz;
extern __typeof__(cudaFree) __real_cudaFree, __wrap_cudaFree;
extern __typeof__(cudaFreeAsync) __real_cudaFreeAsync, __wrap_cudaFreeAsync,
	__real_cudaFreeAsync_ptsz, __wrap_cudaFreeAsync_ptsz;
extern __typeof__(cudaDeviceReset) __real_cudaDeviceReset, __wrap_cudaDeviceReset;
extern __typeof__(cudaGraphLaunch) __real_cudaGraphLaunch, __wrap_cudaGraphLaunch,
	__real_cudaGraphLaunch_ptsz, __wrap_cudaGraphLaunch_ptsz;
extern __typeof__(cudaMemcpyBatchAsync) __real_cudaMemcpyBatchAsync, __wrap_cudaMemcpyBatchAsync,
	__real_cudaMemcpyBatchAsync_ptsz, __wrap_cudaMemcpyBatchAsync_ptsz;
extern __typeof__(cudaMemcpy3DBatchAsync) __real_cudaMemcpy3DBatchAsync,
	__wrap_cudaMemcpy3DBatchAsync, __real_cudaMemcpy3DBatchAsync_ptsz,
	__wrap_cudaMemcpy3DBatchAsync_ptsz;
extern __typeof__(cudaSetDevice) __real_cudaSetDevice, __wrap_cudaSetDevice;
extern __typeof__(cudaInitDevice) __real_cudaInitDevice, __wrap_cudaInitDevice;
extern __typeof__(cudaSetValidDevices) __real_cudaSetValidDevices, __wrap_cudaSetValidDevices;
extern __typeof__(cudaDeviceEnablePeerAccess) __real_cudaDeviceEnablePeerAccess,
	__wrap_cudaDeviceEnablePeerAccess;
extern __typeof__(cudaMemcpyPeer) __real_cudaMemcpyPeer, __wrap_cudaMemcpyPeer;
extern __typeof__(cudaMemcpyPeerAsync) __real_cudaMemcpyPeerAsync, __wrap_cudaMemcpyPeerAsync;
extern __typeof__(cudaMemcpy3DPeer) __real_cudaMemcpy3DPeer, __wrap_cudaMemcpy3DPeer,
	__real_cudaMemcpy3DPeer_ptds, __wrap_cudaMemcpy3DPeer_ptds;
extern __typeof__(cudaMemcpy3DPeerAsync) __real_cudaMemcpy3DPeerAsync,
	__wrap_cudaMemcpy3DPeerAsync, __real_cudaMemcpy3DPeerAsync_ptsz,
	__wrap_cudaMemcpy3DPeerAsync_ptsz;
extern __typeof__(cudaIpcGetMemHandle) __real_cudaIpcGetMemHandle, __wrap_cudaIpcGetMemHandle;
extern __typeof__(cudaMemPoolExportPointer) __real_cudaMemPoolExportPointer,
	__wrap_cudaMemPoolExportPointer;
extern __typeof__(cudaMemPoolExportToShareableHandle) __real_cudaMemPoolExportToShareableHandle,
	__wrap_cudaMemPoolExportToShareableHandle;
extern __typeof__(cudaMemPoolSetAccess) __real_cudaMemPoolSetAccess, __wrap_cudaMemPoolSetAccess;
extern __typeof__(cudaGetDriverEntryPoint) __real_cudaGetDriverEntryPoint,
	__wrap_cudaGetDriverEntryPoint, __real_cudaGetDriverEntryPoint_ptsz,
	__wrap_cudaGetDriverEntryPoint_ptsz;
extern __typeof__(cudaGetDriverEntryPointByVersion) __real_cudaGetDriverEntryPointByVersion,
	__wrap_cudaGetDriverEntryPointByVersion, __real_cudaGetDriverEntryPointByVersion_ptsz,
	__wrap_cudaGetDriverEntryPointByVersion_ptsz;
extern __typeof__(cudaStreamBeginCapture) __real_cudaStreamBeginCapture,
	__wrap_cudaStreamBeginCapture, __real_cudaStreamBeginCapture_ptsz,
	__wrap_cudaStreamBeginCapture_ptsz;
extern __typeof__(cudaStreamBeginCaptureToGraph) __real_cudaStreamBeginCaptureToGraph,
	__wrap_cudaStreamBeginCaptureToGraph, __real_cudaStreamBeginCaptureToGraph_ptsz,
	__wrap_cudaStreamBeginCaptureToGraph_ptsz;
extern __typeof__(dlopen) __real_dlopen, __wrap_dlopen;

/* a new allocation, tracked */
static cudaError_t
track(cudaError_t r, void *p, size_t n)
{
	if (r != cudaSuccess || atomic_load(&rt.off))
		return r;
	rt_enter();
	if (rt_device())
		alloc_add(p, n);
	kern_readyall();   /* the first allocation: before any error of the program's */
	rt_leave();
	return r;
}

/* an allocation about to be freed, forgotten with its mirror */
static void
untrack(void *p)
{
	if (!p || atomic_load(&rt.off))
		return;
	rt_enter();
	alloc_del(p);
	rt_leave();
}

/* store off for the rest of the process, from entry point s */
static void
off(enum sym s, const char *why)
{
	if (atomic_load(&rt.off))
		return;
	rt_enter();
	store_off(why ? why : symname[s], &rt.api[s]);
	rt_leave();
}

/* every allocation in the original form and every mirror stale, the lock
 * kept for the call that follows (rt_leave()) */
static void
flush(enum sym s)
{
	rt_enter();
	if (!atomic_load(&rt.off) && rt_device()) {
		orig_all(&rt.api[s]);
		stale_all();
	}
}

/* the device the program chooses: a second one while allocations are
 * tracked on the first switches store off */
static void
device(enum sym s, int d)
{
	if (atomic_load(&rt.off))
		return;
	rt_enter();
	if (rt.dev < 0 || !rt.n) {
		rt.dev = d;
	} else if (d != rt.dev) {
		char why[96];
		snprintf(why, sizeof why, "%s(%d): a second device, after %d", symname[s], d, rt.dev);
		store_off(why, &rt.api[s]);
	}
	rt_leave();
}

cudaError_t
__wrap_cudaMalloc(void **p, size_t n)
{
	cudaError_t r = __real_cudaMalloc(p, n);
	return track(r, r == cudaSuccess ? *p : NULL, n);
}

cudaError_t
__wrap_cudaMallocPitch(void **p, size_t *pitch, size_t width, size_t height)
{
	cudaError_t r = __real_cudaMallocPitch(p, pitch, width, height);
	return track(r, r == cudaSuccess ? *p : NULL, r == cudaSuccess ? *pitch * height : 0);
}

cudaError_t
__wrap_cudaMalloc3D(struct cudaPitchedPtr *p, struct cudaExtent e)
{
	cudaError_t r = __real_cudaMalloc3D(p, e);
	return track(r, r == cudaSuccess ? p->ptr : NULL,
	             r == cudaSuccess ? p->pitch * e.height * e.depth : 0);
}

cudaError_t
__wrap_cudaMallocAsync(void **p, size_t n, cudaStream_t s)
{
	cudaError_t r = __real_cudaMallocAsync(p, n, s);
	return track(r, r == cudaSuccess ? *p : NULL, n);
}

cudaError_t
__wrap_cudaMallocAsync_ptsz(void **p, size_t n, cudaStream_t s)
{
	cudaError_t r = __real_cudaMallocAsync_ptsz(p, n, s);
	return track(r, r == cudaSuccess ? *p : NULL, n);
}

cudaError_t
__wrap_cudaMallocFromPoolAsync(void **p, size_t n, cudaMemPool_t pool, cudaStream_t s)
{
	cudaError_t r = __real_cudaMallocFromPoolAsync(p, n, pool, s);
	return track(r, r == cudaSuccess ? *p : NULL, n);
}

cudaError_t
__wrap_cudaMallocFromPoolAsync_ptsz(void **p, size_t n, cudaMemPool_t pool, cudaStream_t s)
{
	cudaError_t r = __real_cudaMallocFromPoolAsync_ptsz(p, n, pool, s);
	return track(r, r == cudaSuccess ? *p : NULL, n);
}

cudaError_t
__wrap_cudaFree(void *p)
{
	untrack(p);
	return __real_cudaFree(p);
}

cudaError_t
__wrap_cudaFreeAsync(void *p, cudaStream_t s)
{
	untrack(p);
	return __real_cudaFreeAsync(p, s);
}

cudaError_t
__wrap_cudaFreeAsync_ptsz(void *p, cudaStream_t s)
{
	untrack(p);
	return __real_cudaFreeAsync_ptsz(p, s);
}

/* the device's memory goes, mirrors with it: nothing to write back where
 * it is the allocations' device */
cudaError_t
__wrap_cudaDeviceReset(void)
{
	int d;
	if (!atomic_load(&rt.off)) {
		rt_enter();
		if (cudaGetDevice(&d) == cudaSuccess && (rt.dev < 0 || d == rt.dev))
			store_reset("cudaDeviceReset");
		else
			store_off("cudaDeviceReset of another device", &rt.api[S_cudaDeviceReset]);
		rt_leave();
	}
	return __real_cudaDeviceReset();
}

cudaError_t
__wrap_cudaGraphLaunch(cudaGraphExec_t g, cudaStream_t s)
{
	if (idle())
		return __real_cudaGraphLaunch(g, s);
	flush(S_cudaGraphLaunch);
	cudaError_t r = __real_cudaGraphLaunch(g, s);
	rt_leave();
	return r;
}

cudaError_t
__wrap_cudaGraphLaunch_ptsz(cudaGraphExec_t g, cudaStream_t s)
{
	if (idle())
		return __real_cudaGraphLaunch_ptsz(g, s);
	flush(S_cudaGraphLaunch_ptsz);
	cudaError_t r = __real_cudaGraphLaunch_ptsz(g, s);
	rt_leave();
	return r;
}

cudaError_t
__wrap_cudaMemcpyBatchAsync(void *const *dsts, const void *const *srcs, const size_t *sizes,
                            size_t count, struct cudaMemcpyAttributes *attrs, size_t *attrsIdxs,
                            size_t numAttrs, cudaStream_t s)
{
	if (idle())
		return __real_cudaMemcpyBatchAsync(dsts, srcs, sizes, count, attrs, attrsIdxs, numAttrs, s);
	flush(S_cudaMemcpyBatchAsync);
	cudaError_t r =
		__real_cudaMemcpyBatchAsync(dsts, srcs, sizes, count, attrs, attrsIdxs, numAttrs, s);
	rt_leave();
	return r;
}

cudaError_t
__wrap_cudaMemcpyBatchAsync_ptsz(void *const *dsts, const void *const *srcs, const size_t *sizes,
                                 size_t count, struct cudaMemcpyAttributes *attrs,
                                 size_t *attrsIdxs, size_t numAttrs, cudaStream_t s)
{
	if (idle())
		return __real_cudaMemcpyBatchAsync_ptsz(dsts, srcs, sizes, count, attrs, attrsIdxs,
		                                        numAttrs, s);
	flush(S_cudaMemcpyBatchAsync_ptsz);
	cudaError_t r = __real_cudaMemcpyBatchAsync_ptsz(dsts, srcs, sizes, count, attrs, attrsIdxs,
	                                                 numAttrs, s);
	rt_leave();
	return r;
}

cudaError_t
__wrap_cudaMemcpy3DBatchAsync(size_t n, struct cudaMemcpy3DBatchOp *ops, unsigned long long flags,
                              cudaStream_t s)
{
	if (idle())
		return __real_cudaMemcpy3DBatchAsync(n, ops, flags, s);
	flush(S_cudaMemcpy3DBatchAsync);
	cudaError_t r = __real_cudaMemcpy3DBatchAsync(n, ops, flags, s);
	rt_leave();
	return r;
}

cudaError_t
__wrap_cudaMemcpy3DBatchAsync_ptsz(size_t n, struct cudaMemcpy3DBatchOp *ops,
                                   unsigned long long flags, cudaStream_t s)
{
	if (idle())
		return __real_cudaMemcpy3DBatchAsync_ptsz(n, ops, flags, s);
	flush(S_cudaMemcpy3DBatchAsync_ptsz);
	cudaError_t r = __real_cudaMemcpy3DBatchAsync_ptsz(n, ops, flags, s);
	rt_leave();
	return r;
}

cudaError_t
__wrap_cudaSetDevice(int d)
{
	device(S_cudaSetDevice, d);
	return __real_cudaSetDevice(d);
}

cudaError_t
__wrap_cudaInitDevice(int d, unsigned int deviceFlags, unsigned int flags)
{
	device(S_cudaInitDevice, d);
	return __real_cudaInitDevice(d, deviceFlags, flags);
}

cudaError_t
__wrap_cudaSetValidDevices(int *devs, int n)
{
	off(S_cudaSetValidDevices, NULL);
	return __real_cudaSetValidDevices(devs, n);
}

cudaError_t
__wrap_cudaDeviceEnablePeerAccess(int peer, unsigned int flags)
{
	off(S_cudaDeviceEnablePeerAccess, "peer access (cudaDeviceEnablePeerAccess)");
	return __real_cudaDeviceEnablePeerAccess(peer, flags);
}

cudaError_t
__wrap_cudaMemcpyPeer(void *dst, int dd, const void *src, int sd, size_t n)
{
	off(S_cudaMemcpyPeer, "a copy between devices (cudaMemcpyPeer)");
	return __real_cudaMemcpyPeer(dst, dd, src, sd, n);
}

cudaError_t
__wrap_cudaMemcpyPeerAsync(void *dst, int dd, const void *src, int sd, size_t n, cudaStream_t s)
{
	off(S_cudaMemcpyPeerAsync, "a copy between devices (cudaMemcpyPeerAsync)");
	return __real_cudaMemcpyPeerAsync(dst, dd, src, sd, n, s);
}

cudaError_t
__wrap_cudaMemcpy3DPeer(const struct cudaMemcpy3DPeerParms *p)
{
	off(S_cudaMemcpy3DPeer, "a copy between devices (cudaMemcpy3DPeer)");
	return __real_cudaMemcpy3DPeer(p);
}

cudaError_t
__wrap_cudaMemcpy3DPeer_ptds(const struct cudaMemcpy3DPeerParms *p)
{
	off(S_cudaMemcpy3DPeer_ptds, "a copy between devices (cudaMemcpy3DPeer)");
	return __real_cudaMemcpy3DPeer_ptds(p);
}

cudaError_t
__wrap_cudaMemcpy3DPeerAsync(const struct cudaMemcpy3DPeerParms *p, cudaStream_t s)
{
	off(S_cudaMemcpy3DPeerAsync, "a copy between devices (cudaMemcpy3DPeerAsync)");
	return __real_cudaMemcpy3DPeerAsync(p, s);
}

cudaError_t
__wrap_cudaMemcpy3DPeerAsync_ptsz(const struct cudaMemcpy3DPeerParms *p, cudaStream_t s)
{
	off(S_cudaMemcpy3DPeerAsync_ptsz, "a copy between devices (cudaMemcpy3DPeerAsync)");
	return __real_cudaMemcpy3DPeerAsync_ptsz(p, s);
}

cudaError_t
__wrap_cudaIpcGetMemHandle(cudaIpcMemHandle_t *h, void *p)
{
	off(S_cudaIpcGetMemHandle, "memory shared with another process (cudaIpcGetMemHandle)");
	return __real_cudaIpcGetMemHandle(h, p);
}

cudaError_t
__wrap_cudaMemPoolExportPointer(struct cudaMemPoolPtrExportData *d, void *p)
{
	off(S_cudaMemPoolExportPointer, "memory shared with another process (cudaMemPoolExportPointer)");
	return __real_cudaMemPoolExportPointer(d, p);
}

cudaError_t
__wrap_cudaMemPoolExportToShareableHandle(void *h, cudaMemPool_t pool,
                                          enum cudaMemAllocationHandleType type, unsigned int flags)
{
	off(S_cudaMemPoolExportToShareableHandle,
	    "memory shared with another process (cudaMemPoolExportToShareableHandle)");
	return __real_cudaMemPoolExportToShareableHandle(h, pool, type, flags);
}

cudaError_t
__wrap_cudaMemPoolSetAccess(cudaMemPool_t pool, const struct cudaMemAccessDesc *d, size_t n)
{
	off(S_cudaMemPoolSetAccess, "a pool another device reaches (cudaMemPoolSetAccess)");
	return __real_cudaMemPoolSetAccess(pool, d, n);
}

cudaError_t
__wrap_cudaGetDriverEntryPoint(const char *sym, void **fn, unsigned long long flags,
                               enum cudaDriverEntryPointQueryResult *st)
{
	off(S_cudaGetDriverEntryPoint, "the driver API (cudaGetDriverEntryPoint)");
	return __real_cudaGetDriverEntryPoint(sym, fn, flags, st);
}

cudaError_t
__wrap_cudaGetDriverEntryPoint_ptsz(const char *sym, void **fn, unsigned long long flags,
                                    enum cudaDriverEntryPointQueryResult *st)
{
	off(S_cudaGetDriverEntryPoint_ptsz, "the driver API (cudaGetDriverEntryPoint)");
	return __real_cudaGetDriverEntryPoint_ptsz(sym, fn, flags, st);
}

cudaError_t
__wrap_cudaGetDriverEntryPointByVersion(const char *sym, void **fn, unsigned int version,
                                        unsigned long long flags,
                                        enum cudaDriverEntryPointQueryResult *st)
{
	off(S_cudaGetDriverEntryPointByVersion, "the driver API (cudaGetDriverEntryPointByVersion)");
	return __real_cudaGetDriverEntryPointByVersion(sym, fn, version, flags, st);
}

cudaError_t
__wrap_cudaGetDriverEntryPointByVersion_ptsz(const char *sym, void **fn, unsigned int version,
                                             unsigned long long flags,
                                             enum cudaDriverEntryPointQueryResult *st)
{
	off(S_cudaGetDriverEntryPointByVersion_ptsz,
	    "the driver API (cudaGetDriverEntryPointByVersion)");
	return __real_cudaGetDriverEntryPointByVersion_ptsz(sym, fn, version, flags, st);
}

cudaError_t
__wrap_cudaStreamBeginCapture(cudaStream_t s, enum cudaStreamCaptureMode mode)
{
	off(S_cudaStreamBeginCapture, "stream capture (cudaStreamBeginCapture)");
	return __real_cudaStreamBeginCapture(s, mode);
}

cudaError_t
__wrap_cudaStreamBeginCapture_ptsz(cudaStream_t s, enum cudaStreamCaptureMode mode)
{
	off(S_cudaStreamBeginCapture_ptsz, "stream capture (cudaStreamBeginCapture)");
	return __real_cudaStreamBeginCapture_ptsz(s, mode);
}

cudaError_t
__wrap_cudaStreamBeginCaptureToGraph(cudaStream_t s, cudaGraph_t g, const cudaGraphNode_t *deps,
                                     const cudaGraphEdgeData *data, size_t n,
                                     enum cudaStreamCaptureMode mode)
{
	off(S_cudaStreamBeginCaptureToGraph, "stream capture (cudaStreamBeginCaptureToGraph)");
	return __real_cudaStreamBeginCaptureToGraph(s, g, deps, data, n, mode);
}

cudaError_t
__wrap_cudaStreamBeginCaptureToGraph_ptsz(cudaStream_t s, cudaGraph_t g,
                                          const cudaGraphNode_t *deps,
                                          const cudaGraphEdgeData *data, size_t n,
                                          enum cudaStreamCaptureMode mode)
{
	off(S_cudaStreamBeginCaptureToGraph_ptsz, "stream capture (cudaStreamBeginCaptureToGraph)");
	return __real_cudaStreamBeginCaptureToGraph_ptsz(s, g, deps, data, n, mode);
}

/* what the CUDA runtime itself opens (the driver and its parts) */
static int
cudas(const char *file)
{
	const char *b = strrchr(file, '/');
	b = b ? b + 1 : file;
	return !strncmp(b, "libcuda.so", 10) || !strncmp(b, "libnvidia-", 10) ||
	       !strncmp(b, "libcudadebugger.so", 18);
}

void *
__wrap_dlopen(const char *file, int mode)
{
	if (file && !rt_inside() && !cudas(file) && !atomic_load(&rt.off)) {
		char why[200];
		snprintf(why, sizeof why, "a library opened at run time (dlopen '%s')", file);
		off(S_dlopen, why);
	}
	return __real_dlopen(file, mode);
}
