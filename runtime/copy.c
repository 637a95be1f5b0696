/* copy.c: memcpy and memset of every kind, which see the original form.
 * Before the runtime's call, under the lock: what a copy reads gets its
 * original form back (a narrow allocation is written back), what it
 * writes is written back too (it may write part of it) and then holds
 * the only valid form (its mirror goes stale). A pointer into no tracked
 * allocation (host memory, a symbol, managed memory, an array) is left
 * alone; the extents of 2D and 3D copies cover every row they touch.
 * Nothing to do while no allocation has a valid mirror: the call goes
 * straight to the runtime (idle()). */
#include "runtime/runtime.h"

extern __typeof__(cudaMemcpy) __real_cudaMemcpy, __wrap_cudaMemcpy;
extern __typeof__(cudaMemcpy) __real_cudaMemcpy_ptds, __wrap_cudaMemcpy_ptds;
extern __typeof__(cudaMemcpyAsync) __real_cudaMemcpyAsync, __wrap_cudaMemcpyAsync;
extern __typeof__(cudaMemcpyAsync) __real_cudaMemcpyAsync_ptsz, __wrap_cudaMemcpyAsync_ptsz;
extern __typeof__(cudaMemcpy2D) __real_cudaMemcpy2D, __wrap_cudaMemcpy2D;
extern __typeof__(cudaMemcpy2D) __real_cudaMemcpy2D_ptds, __wrap_cudaMemcpy2D_ptds;
extern __typeof__(cudaMemcpy2DAsync) __real_cudaMemcpy2DAsync, __wrap_cudaMemcpy2DAsync;
extern __typeof__(cudaMemcpy2DAsync) __real_cudaMemcpy2DAsync_ptsz, __wrap_cudaMemcpy2DAsync_ptsz;
extern __typeof__(cudaMemcpy3D) __real_cudaMemcpy3D, __wrap_cudaMemcpy3D;
extern __typeof__(cudaMemcpy3D) __real_cudaMemcpy3D_ptds, __wrap_cudaMemcpy3D_ptds;
extern __typeof__(cudaMemcpy3DAsync) __real_cudaMemcpy3DAsync, __wrap_cudaMemcpy3DAsync;
extern __typeof__(cudaMemcpy3DAsync) __real_cudaMemcpy3DAsync_ptsz, __wrap_cudaMemcpy3DAsync_ptsz;
extern __typeof__(cudaMemcpyToSymbol) __real_cudaMemcpyToSymbol, __wrap_cudaMemcpyToSymbol;
extern __typeof__(cudaMemcpyToSymbol) __real_cudaMemcpyToSymbol_ptds, __wrap_cudaMemcpyToSymbol_ptds;
extern __typeof__(cudaMemcpyToSymbolAsync) __real_cudaMemcpyToSymbolAsync, __wrap_cudaMemcpyToSymbolAsync;
extern __typeof__(cudaMemcpyToSymbolAsync) __real_cudaMemcpyToSymbolAsync_ptsz, __wrap_cudaMemcpyToSymbolAsync_ptsz;
extern __typeof__(cudaMemcpyFromSymbol) __real_cudaMemcpyFromSymbol, __wrap_cudaMemcpyFromSymbol;
extern __typeof__(cudaMemcpyFromSymbol) __real_cudaMemcpyFromSymbol_ptds, __wrap_cudaMemcpyFromSymbol_ptds;
extern __typeof__(cudaMemcpyFromSymbolAsync) __real_cudaMemcpyFromSymbolAsync, __wrap_cudaMemcpyFromSymbolAsync;
extern __typeof__(cudaMemcpyFromSymbolAsync) __real_cudaMemcpyFromSymbolAsync_ptsz, __wrap_cudaMemcpyFromSymbolAsync_ptsz;
extern __typeof__(cudaMemcpyToArray) __real_cudaMemcpyToArray, __wrap_cudaMemcpyToArray;
extern __typeof__(cudaMemcpyToArray) __real_cudaMemcpyToArray_ptds, __wrap_cudaMemcpyToArray_ptds;
extern __typeof__(cudaMemcpyToArrayAsync) __real_cudaMemcpyToArrayAsync, __wrap_cudaMemcpyToArrayAsync;
extern __typeof__(cudaMemcpyToArrayAsync) __real_cudaMemcpyToArrayAsync_ptsz, __wrap_cudaMemcpyToArrayAsync_ptsz;
extern __typeof__(cudaMemcpy2DToArray) __real_cudaMemcpy2DToArray, __wrap_cudaMemcpy2DToArray;
extern __typeof__(cudaMemcpy2DToArray) __real_cudaMemcpy2DToArray_ptds, __wrap_cudaMemcpy2DToArray_ptds;
extern __typeof__(cudaMemcpy2DToArrayAsync) __real_cudaMemcpy2DToArrayAsync, __wrap_cudaMemcpy2DToArrayAsync;
extern __typeof__(cudaMemcpy2DToArrayAsync) __real_cudaMemcpy2DToArrayAsync_ptsz, __wrap_cudaMemcpy2DToArrayAsync_ptsz;
extern __typeof__(cudaMemcpyFromArray) __real_cudaMemcpyFromArray, __wrap_cudaMemcpyFromArray;
extern __typeof__(cudaMemcpyFromArray) __real_cudaMemcpyFromArray_ptds, __wrap_cudaMemcpyFromArray_ptds;
extern __typeof__(cudaMemcpyFromArrayAsync) __real_cudaMemcpyFromArrayAsync, __wrap_cudaMemcpyFromArrayAsync;
extern __typeof__(cudaMemcpyFromArrayAsync) __real_cudaMemcpyFromArrayAsync_ptsz, __wrap_cudaMemcpyFromArrayAsync_ptsz;
extern __typeof__(cudaMemcpy2DFromArray) __real_cudaMemcpy2DFromArray, __wrap_cudaMemcpy2DFromArray;
extern __typeof__(cudaMemcpy2DFromArray) __real_cudaMemcpy2DFromArray_ptds, __wrap_cudaMemcpy2DFromArray_ptds;
extern __typeof__(cudaMemcpy2DFromArrayAsync) __real_cudaMemcpy2DFromArrayAsync, __wrap_cudaMemcpy2DFromArrayAsync;
extern __typeof__(cudaMemcpy2DFromArrayAsync) __real_cudaMemcpy2DFromArrayAsync_ptsz, __wrap_cudaMemcpy2DFromArrayAsync_ptsz;
extern __typeof__(cudaMemset) __real_cudaMemset, __wrap_cudaMemset;
extern __typeof__(cudaMemset) __real_cudaMemset_ptds, __wrap_cudaMemset_ptds;
extern __typeof__(cudaMemsetAsync) __real_cudaMemsetAsync, __wrap_cudaMemsetAsync;
extern __typeof__(cudaMemsetAsync) __real_cudaMemsetAsync_ptsz, __wrap_cudaMemsetAsync_ptsz;
extern __typeof__(cudaMemset2D) __real_cudaMemset2D, __wrap_cudaMemset2D;
extern __typeof__(cudaMemset2D) __real_cudaMemset2D_ptds, __wrap_cudaMemset2D_ptds;
extern __typeof__(cudaMemset2DAsync) __real_cudaMemset2DAsync, __wrap_cudaMemset2DAsync;
extern __typeof__(cudaMemset2DAsync) __real_cudaMemset2DAsync_ptsz, __wrap_cudaMemset2DAsync_ptsz;
extern __typeof__(cudaMemset3D) __real_cudaMemset3D, __wrap_cudaMemset3D;
extern __typeof__(cudaMemset3D) __real_cudaMemset3D_ptds, __wrap_cudaMemset3D_ptds;
extern __typeof__(cudaMemset3DAsync) __real_cudaMemset3DAsync, __wrap_cudaMemset3DAsync;
extern __typeof__(cudaMemset3DAsync) __real_cudaMemset3DAsync_ptsz, __wrap_cudaMemset3DAsync_ptsz;

/* the bytes a pitched copy of height rows of width bytes spans */
static size_t
span(size_t pitch, size_t width, size_t height)
{
	return height ? pitch * (height - 1) + width : 0;
}

/* of a 3D copy at pos in p, extent in bytes of a row, rows, slices */
static size_t
span3(struct cudaPitchedPtr p, struct cudaPos pos, struct cudaExtent e)
{
	if (!e.width || !e.height || !e.depth)
		return 0;
	size_t rows = p.ysize ? p.ysize : e.height + pos.y;
	return ((pos.z + e.depth - 1) * rows + pos.y + e.height - 1) * p.pitch + pos.x + e.width;
}

/* the lock taken, and src[0..sn) read, dst[0..dn) written (NULL: none) */
static void
around(enum sym s, const void *dst, size_t dn, const void *src, size_t sn)
{
	rt_enter();
	if (atomic_load(&rt.off) || !rt_device())
		return;
	if (src)
		reads(src, sn, &rt.api[s]);
	if (dst)
		writes(dst, dn, &rt.api[s]);
}

static void
copy3d(enum sym s, const struct cudaMemcpy3DParms *p)
{
	const void *src = p && !p->srcArray ? p->srcPtr.ptr : NULL;
	void *dst = p && !p->dstArray ? p->dstPtr.ptr : NULL;
	around(s, dst, dst ? span3(p->dstPtr, p->dstPos, p->extent) : 0, src,
	       src ? span3(p->srcPtr, p->srcPos, p->extent) : 0);
}

cudaError_t
__wrap_cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)
{
	if (idle())
		return __real_cudaMemcpy(dst, src, count, kind);
	around(S_cudaMemcpy, dst, count, src, count);
	cudaError_t r = __real_cudaMemcpy(dst, src, count, kind);
	rt_leave();
	return r;
}

cudaError_t
__wrap_cudaMemcpy_ptds(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)
{
	if (idle())
		return __real_cudaMemcpy_ptds(dst, src, count, kind);
	around(S_cudaMemcpy_ptds, dst, count, src, count);
	cudaError_t r = __real_cudaMemcpy_ptds(dst, src, count, kind);
	rt_leave();
	return r;
}

cudaError_t
__wrap_cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                       cudaStream_t stream)
{
	if (idle())
		return __real_cudaMemcpyAsync(dst, src, count, kind, stream);
	around(S_cudaMemcpyAsync, dst, count, src, count);
	cudaError_t r = __real_cudaMemcpyAsync(dst, src, count, kind, stream);
	rt_leave();
	return r;
}

cudaError_t
__wrap_cudaMemcpyAsync_ptsz(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                            cudaStream_t stream)
{
	if (idle())
		return __real_cudaMemcpyAsync_ptsz(dst, src, count, kind, stream);
	around(S_cudaMemcpyAsync_ptsz, dst, count, src, count);
	cudaError_t r = __real_cudaMemcpyAsync_ptsz(dst, src, count, kind, stream);
	rt_leave();
	return r;
}

cudaError_t
__wrap_cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                    size_t height, enum cudaMemcpyKind kind)
{
	if (idle())
		return __real_cudaMemcpy2D(dst, dpitch, src, spitch, width, height, kind);
	around(S_cudaMemcpy2D, dst, span(dpitch, width, height), src, span(spitch, width, height));
	cudaError_t r = __real_cudaMemcpy2D(dst, dpitch, src, spitch, width, height, kind);
	rt_leave();
	return r;
}

cudaError_t
__wrap_cudaMemcpy2D_ptds(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                         size_t height, enum cudaMemcpyKind kind)
{
	if (idle())
		return __real_cudaMemcpy2D_ptds(dst, dpitch, src, spitch, width, height, kind);
	around(S_cudaMemcpy2D_ptds, dst, span(dpitch, width, height), src, span(spitch, width, height));
	cudaError_t r = __real_cudaMemcpy2D_ptds(dst, dpitch, src, spitch, width, height, kind);
	rt_leave();
	return r;
}

cudaError_t
__wrap_cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch,
                         size_t width, size_t height, enum cudaMemcpyKind kind, cudaStream_t stream)
{
	if (idle())
		return __real_cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, height, kind, stream);
	around(S_cudaMemcpy2DAsync, dst, span(dpitch, width, height), src, span(spitch, width, height));
	cudaError_t r = __real_cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, height, kind, stream);
	rt_leave();
	return r;
}

cudaError_t
__wrap_cudaMemcpy2DAsync_ptsz(void *dst, size_t dpitch, const void *src, size_t spitch,
                              size_t width, size_t height, enum cudaMemcpyKind kind, cudaStream_t stream)
{
	if (idle())
		return __real_cudaMemcpy2DAsync_ptsz(dst, dpitch, src, spitch, width, height, kind, stream);
	around(S_cudaMemcpy2DAsync_ptsz, dst, span(dpitch, width, height), src, span(spitch, width, height));
	cudaError_t r = __real_cudaMemcpy2DAsync_ptsz(dst, dpitch, src, spitch, width, height, kind, stream);
	rt_leave();
	return r;
}

cudaError_t
__wrap_cudaMemcpy3D(const struct cudaMemcpy3DParms *p)
{
	if (idle())
		return __real_cudaMemcpy3D(p);
	copy3d(S_cudaMemcpy3D, p);
	cudaError_t r = __real_cudaMemcpy3D(p);
	rt_leave();
	return r;
}

cudaError_t
__wrap_cudaMemcpy3D_ptds(const struct cudaMemcpy3DParms *p)
{
	if (idle())
		return __real_cudaMemcpy3D_ptds(p);
	copy3d(S_cudaMemcpy3D_ptds, p);
	cudaError_t r = __real_cudaMemcpy3D_ptds(p);
	rt_leave();
	return r;
}

cudaError_t
__wrap_cudaMemcpy3DAsync(const struct cudaMemcpy3DParms *p, cudaStream_t stream)
{
	if (idle())
		return __real_cudaMemcpy3DAsync(p, stream);
	copy3d(S_cudaMemcpy3DAsync, p);
	cudaError_t r = __real_cudaMemcpy3DAsync(p, stream);
	rt_leave();
	return r;
}

cudaError_t
__wrap_cudaMemcpy3DAsync_ptsz(const struct cudaMemcpy3DParms *p, cudaStream_t stream)
{
	if (idle())
		return __real_cudaMemcpy3DAsync_ptsz(p, stream);
	copy3d(S_cudaMemcpy3DAsync_ptsz, p);
	cudaError_t r = __real_cudaMemcpy3DAsync_ptsz(p, stream);
	rt_leave();
	return r;
}

cudaError_t
__wrap_cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count, size_t offset,
                          enum cudaMemcpyKind kind)
{
	if (idle())
		return __real_cudaMemcpyToSymbol(symbol, src, count, offset, kind);
	around(S_cudaMemcpyToSymbol, NULL, 0, src, count);
	cudaError_t r = __real_cudaMemcpyToSymbol(symbol, src, count, offset, kind);
	rt_leave();
	return r;
}

cudaError_t
__wrap_cudaMemcpyToSymbol_ptds(const void *symbol, const void *src, size_t count, size_t offset,
                               enum cudaMemcpyKind kind)
{
	if (idle())
		return __real_cudaMemcpyToSymbol_ptds(symbol, src, count, offset, kind);
	around(S_cudaMemcpyToSymbol_ptds, NULL, 0, src, count);
	cudaError_t r = __real_cudaMemcpyToSymbol_ptds(symbol, src, count, offset, kind);
	rt_leave();
	return r;
}

cudaError_t
__wrap_cudaMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count,
                               size_t offset, enum cudaMemcpyKind kind, cudaStream_t stream)
{
	if (idle())
		return __real_cudaMemcpyToSymbolAsync(symbol, src, count, offset, kind, stream);
	around(S_cudaMemcpyToSymbolAsync, NULL, 0, src, count);
	cudaError_t r = __real_cudaMemcpyToSymbolAsync(symbol, src, count, offset, kind, stream);
	rt_leave();
	return r;
}

cudaError_t
__wrap_cudaMemcpyToSymbolAsync_ptsz(const void *symbol, const void *src, size_t count,
                                    size_t offset, enum cudaMemcpyKind kind, cudaStream_t stream)
{
	if (idle())
		return __real_cudaMemcpyToSymbolAsync_ptsz(symbol, src, count, offset, kind, stream);
	around(S_cudaMemcpyToSymbolAsync_ptsz, NULL, 0, src, count);
	cudaError_t r = __real_cudaMemcpyToSymbolAsync_ptsz(symbol, src, count, offset, kind, stream);
	rt_leave();
	return r;
}

cudaError_t
__wrap_cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count, size_t offset,
                            enum cudaMemcpyKind kind)
{
	if (idle())
		return __real_cudaMemcpyFromSymbol(dst, symbol, count, offset, kind);
	around(S_cudaMemcpyFromSymbol, dst, count, NULL, 0);
	cudaError_t r = __real_cudaMemcpyFromSymbol(dst, symbol, count, offset, kind);
	rt_leave();
	return r;
}

cudaError_t
__wrap_cudaMemcpyFromSymbol_ptds(void *dst, const void *symbol, size_t count, size_t offset,
                                 enum cudaMemcpyKind kind)
{
	if (idle())
		return __real_cudaMemcpyFromSymbol_ptds(dst, symbol, count, offset, kind);
	around(S_cudaMemcpyFromSymbol_ptds, dst, count, NULL, 0);
	cudaError_t r = __real_cudaMemcpyFromSymbol_ptds(dst, symbol, count, offset, kind);
	rt_leave();
	return r;
}

cudaError_t
__wrap_cudaMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t count,
                                 size_t offset, enum cudaMemcpyKind kind, cudaStream_t stream)
{
	if (idle())
		return __real_cudaMemcpyFromSymbolAsync(dst, symbol, count, offset, kind, stream);
	around(S_cudaMemcpyFromSymbolAsync, dst, count, NULL, 0);
	cudaError_t r = __real_cudaMemcpyFromSymbolAsync(dst, symbol, count, offset, kind, stream);
	rt_leave();
	return r;
}

cudaError_t
__wrap_cudaMemcpyFromSymbolAsync_ptsz(void *dst, const void *symbol, size_t count,
                                      size_t offset, enum cudaMemcpyKind kind, cudaStream_t stream)
{
	if (idle())
		return __real_cudaMemcpyFromSymbolAsync_ptsz(dst, symbol, count, offset, kind, stream);
	around(S_cudaMemcpyFromSymbolAsync_ptsz, dst, count, NULL, 0);
	cudaError_t r = __real_cudaMemcpyFromSymbolAsync_ptsz(dst, symbol, count, offset, kind, stream);
	rt_leave();
	return r;
}

cudaError_t
__wrap_cudaMemcpyToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
                         size_t count, enum cudaMemcpyKind kind)
{
	if (idle())
		return __real_cudaMemcpyToArray(dst, wOffset, hOffset, src, count, kind);
	around(S_cudaMemcpyToArray, NULL, 0, src, count);
	cudaError_t r = __real_cudaMemcpyToArray(dst, wOffset, hOffset, src, count, kind);
	rt_leave();
	return r;
}

cudaError_t
__wrap_cudaMemcpyToArray_ptds(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
                              size_t count, enum cudaMemcpyKind kind)
{
	if (idle())
		return __real_cudaMemcpyToArray_ptds(dst, wOffset, hOffset, src, count, kind);
	around(S_cudaMemcpyToArray_ptds, NULL, 0, src, count);
	cudaError_t r = __real_cudaMemcpyToArray_ptds(dst, wOffset, hOffset, src, count, kind);
	rt_leave();
	return r;
}

cudaError_t
__wrap_cudaMemcpyToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset,
                              const void *src, size_t count, enum cudaMemcpyKind kind, cudaStream_t stream)
{
	if (idle())
		return __real_cudaMemcpyToArrayAsync(dst, wOffset, hOffset, src, count, kind, stream);
	around(S_cudaMemcpyToArrayAsync, NULL, 0, src, count);
	cudaError_t r = __real_cudaMemcpyToArrayAsync(dst, wOffset, hOffset, src, count, kind, stream);
	rt_leave();
	return r;
}

cudaError_t
__wrap_cudaMemcpyToArrayAsync_ptsz(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                   const void *src, size_t count, enum cudaMemcpyKind kind, cudaStream_t stream)
{
	if (idle())
		return __real_cudaMemcpyToArrayAsync_ptsz(dst, wOffset, hOffset, src, count, kind, stream);
	around(S_cudaMemcpyToArrayAsync_ptsz, NULL, 0, src, count);
	cudaError_t r = __real_cudaMemcpyToArrayAsync_ptsz(dst, wOffset, hOffset, src, count, kind, stream);
	rt_leave();
	return r;
}

cudaError_t
__wrap_cudaMemcpy2DToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
                           size_t spitch, size_t width, size_t height, enum cudaMemcpyKind kind)
{
	if (idle())
		return __real_cudaMemcpy2DToArray(dst, wOffset, hOffset, src, spitch, width, height, kind);
	around(S_cudaMemcpy2DToArray, NULL, 0, src, span(spitch, width, height));
	cudaError_t r = __real_cudaMemcpy2DToArray(dst, wOffset, hOffset, src, spitch, width, height, kind);
	rt_leave();
	return r;
}

cudaError_t
__wrap_cudaMemcpy2DToArray_ptds(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
                                size_t spitch, size_t width, size_t height, enum cudaMemcpyKind kind)
{
	if (idle())
		return __real_cudaMemcpy2DToArray_ptds(dst, wOffset, hOffset, src, spitch, width, height, kind);
	around(S_cudaMemcpy2DToArray_ptds, NULL, 0, src, span(spitch, width, height));
	cudaError_t r = __real_cudaMemcpy2DToArray_ptds(dst, wOffset, hOffset, src, spitch, width, height, kind);
	rt_leave();
	return r;
}

cudaError_t
__wrap_cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                const void *src, size_t spitch, size_t width, size_t height,
                                enum cudaMemcpyKind kind, cudaStream_t stream)
{
	if (idle())
		return __real_cudaMemcpy2DToArrayAsync(dst, wOffset, hOffset, src, spitch, width, height, kind, stream);
	around(S_cudaMemcpy2DToArrayAsync, NULL, 0, src, span(spitch, width, height));
	cudaError_t r = __real_cudaMemcpy2DToArrayAsync(dst, wOffset, hOffset, src, spitch, width, height, kind, stream);
	rt_leave();
	return r;
}

cudaError_t
__wrap_cudaMemcpy2DToArrayAsync_ptsz(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                     const void *src, size_t spitch, size_t width, size_t height,
                                     enum cudaMemcpyKind kind, cudaStream_t stream)
{
	if (idle())
		return __real_cudaMemcpy2DToArrayAsync_ptsz(dst, wOffset, hOffset, src, spitch, width, height, kind, stream);
	around(S_cudaMemcpy2DToArrayAsync_ptsz, NULL, 0, src, span(spitch, width, height));
	cudaError_t r = __real_cudaMemcpy2DToArrayAsync_ptsz(dst, wOffset, hOffset, src, spitch, width, height, kind, stream);
	rt_leave();
	return r;
}

cudaError_t
__wrap_cudaMemcpyFromArray(void *dst, cudaArray_const_t src, size_t wOffset, size_t hOffset,
                           size_t count, enum cudaMemcpyKind kind)
{
	if (idle())
		return __real_cudaMemcpyFromArray(dst, src, wOffset, hOffset, count, kind);
	around(S_cudaMemcpyFromArray, dst, count, NULL, 0);
	cudaError_t r = __real_cudaMemcpyFromArray(dst, src, wOffset, hOffset, count, kind);
	rt_leave();
	return r;
}

cudaError_t
__wrap_cudaMemcpyFromArray_ptds(void *dst, cudaArray_const_t src, size_t wOffset, size_t hOffset,
                                size_t count, enum cudaMemcpyKind kind)
{
	if (idle())
		return __real_cudaMemcpyFromArray_ptds(dst, src, wOffset, hOffset, count, kind);
	around(S_cudaMemcpyFromArray_ptds, dst, count, NULL, 0);
	cudaError_t r = __real_cudaMemcpyFromArray_ptds(dst, src, wOffset, hOffset, count, kind);
	rt_leave();
	return r;
}

cudaError_t
__wrap_cudaMemcpyFromArrayAsync(void *dst, cudaArray_const_t src, size_t wOffset,
                                size_t hOffset, size_t count, enum cudaMemcpyKind kind, cudaStream_t stream)
{
	if (idle())
		return __real_cudaMemcpyFromArrayAsync(dst, src, wOffset, hOffset, count, kind, stream);
	around(S_cudaMemcpyFromArrayAsync, dst, count, NULL, 0);
	cudaError_t r = __real_cudaMemcpyFromArrayAsync(dst, src, wOffset, hOffset, count, kind, stream);
	rt_leave();
	return r;
}

cudaError_t
__wrap_cudaMemcpyFromArrayAsync_ptsz(void *dst, cudaArray_const_t src, size_t wOffset,
                                     size_t hOffset, size_t count, enum cudaMemcpyKind kind, cudaStream_t stream)
{
	if (idle())
		return __real_cudaMemcpyFromArrayAsync_ptsz(dst, src, wOffset, hOffset, count, kind, stream);
	around(S_cudaMemcpyFromArrayAsync_ptsz, dst, count, NULL, 0);
	cudaError_t r = __real_cudaMemcpyFromArrayAsync_ptsz(dst, src, wOffset, hOffset, count, kind, stream);
	rt_leave();
	return r;
}

cudaError_t
__wrap_cudaMemcpy2DFromArray(void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset,
                             size_t hOffset, size_t width, size_t height, enum cudaMemcpyKind kind)
{
	if (idle())
		return __real_cudaMemcpy2DFromArray(dst, dpitch, src, wOffset, hOffset, width, height, kind);
	around(S_cudaMemcpy2DFromArray, dst, span(dpitch, width, height), NULL, 0);
	cudaError_t r = __real_cudaMemcpy2DFromArray(dst, dpitch, src, wOffset, hOffset, width, height, kind);
	rt_leave();
	return r;
}

cudaError_t
__wrap_cudaMemcpy2DFromArray_ptds(void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset,
                                  size_t hOffset, size_t width, size_t height, enum cudaMemcpyKind kind)
{
	if (idle())
		return __real_cudaMemcpy2DFromArray_ptds(dst, dpitch, src, wOffset, hOffset, width, height, kind);
	around(S_cudaMemcpy2DFromArray_ptds, dst, span(dpitch, width, height), NULL, 0);
	cudaError_t r = __real_cudaMemcpy2DFromArray_ptds(dst, dpitch, src, wOffset, hOffset, width, height, kind);
	rt_leave();
	return r;
}

cudaError_t
__wrap_cudaMemcpy2DFromArrayAsync(void *dst, size_t dpitch, cudaArray_const_t src,
                                  size_t wOffset, size_t hOffset, size_t width, size_t height,
                                  enum cudaMemcpyKind kind, cudaStream_t stream)
{
	if (idle())
		return __real_cudaMemcpy2DFromArrayAsync(dst, dpitch, src, wOffset, hOffset, width, height, kind, stream);
	around(S_cudaMemcpy2DFromArrayAsync, dst, span(dpitch, width, height), NULL, 0);
	cudaError_t r = __real_cudaMemcpy2DFromArrayAsync(dst, dpitch, src, wOffset, hOffset, width, height, kind, stream);
	rt_leave();
	return r;
}

cudaError_t
__wrap_cudaMemcpy2DFromArrayAsync_ptsz(void *dst, size_t dpitch, cudaArray_const_t src,
                                       size_t wOffset, size_t hOffset, size_t width, size_t height,
                                       enum cudaMemcpyKind kind, cudaStream_t stream)
{
	if (idle())
		return __real_cudaMemcpy2DFromArrayAsync_ptsz(dst, dpitch, src, wOffset, hOffset, width, height, kind, stream);
	around(S_cudaMemcpy2DFromArrayAsync_ptsz, dst, span(dpitch, width, height), NULL, 0);
	cudaError_t r = __real_cudaMemcpy2DFromArrayAsync_ptsz(dst, dpitch, src, wOffset, hOffset, width, height, kind, stream);
	rt_leave();
	return r;
}

cudaError_t
__wrap_cudaMemset(void *devPtr, int value, size_t count)
{
	if (idle())
		return __real_cudaMemset(devPtr, value, count);
	around(S_cudaMemset, devPtr, count, NULL, 0);
	cudaError_t r = __real_cudaMemset(devPtr, value, count);
	rt_leave();
	return r;
}

cudaError_t
__wrap_cudaMemset_ptds(void *devPtr, int value, size_t count)
{
	if (idle())
		return __real_cudaMemset_ptds(devPtr, value, count);
	around(S_cudaMemset_ptds, devPtr, count, NULL, 0);
	cudaError_t r = __real_cudaMemset_ptds(devPtr, value, count);
	rt_leave();
	return r;
}

cudaError_t
__wrap_cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream)
{
	if (idle())
		return __real_cudaMemsetAsync(devPtr, value, count, stream);
	around(S_cudaMemsetAsync, devPtr, count, NULL, 0);
	cudaError_t r = __real_cudaMemsetAsync(devPtr, value, count, stream);
	rt_leave();
	return r;
}

cudaError_t
__wrap_cudaMemsetAsync_ptsz(void *devPtr, int value, size_t count, cudaStream_t stream)
{
	if (idle())
		return __real_cudaMemsetAsync_ptsz(devPtr, value, count, stream);
	around(S_cudaMemsetAsync_ptsz, devPtr, count, NULL, 0);
	cudaError_t r = __real_cudaMemsetAsync_ptsz(devPtr, value, count, stream);
	rt_leave();
	return r;
}

cudaError_t
__wrap_cudaMemset2D(void *devPtr, size_t pitch, int value, size_t width, size_t height)
{
	if (idle())
		return __real_cudaMemset2D(devPtr, pitch, value, width, height);
	around(S_cudaMemset2D, devPtr, span(pitch, width, height), NULL, 0);
	cudaError_t r = __real_cudaMemset2D(devPtr, pitch, value, width, height);
	rt_leave();
	return r;
}

cudaError_t
__wrap_cudaMemset2D_ptds(void *devPtr, size_t pitch, int value, size_t width, size_t height)
{
	if (idle())
		return __real_cudaMemset2D_ptds(devPtr, pitch, value, width, height);
	around(S_cudaMemset2D_ptds, devPtr, span(pitch, width, height), NULL, 0);
	cudaError_t r = __real_cudaMemset2D_ptds(devPtr, pitch, value, width, height);
	rt_leave();
	return r;
}

cudaError_t
__wrap_cudaMemset2DAsync(void *devPtr, size_t pitch, int value, size_t width,
                         size_t height, cudaStream_t stream)
{
	if (idle())
		return __real_cudaMemset2DAsync(devPtr, pitch, value, width, height, stream);
	around(S_cudaMemset2DAsync, devPtr, span(pitch, width, height), NULL, 0);
	cudaError_t r = __real_cudaMemset2DAsync(devPtr, pitch, value, width, height, stream);
	rt_leave();
	return r;
}

cudaError_t
__wrap_cudaMemset2DAsync_ptsz(void *devPtr, size_t pitch, int value, size_t width,
                              size_t height, cudaStream_t stream)
{
	if (idle())
		return __real_cudaMemset2DAsync_ptsz(devPtr, pitch, value, width, height, stream);
	around(S_cudaMemset2DAsync_ptsz, devPtr, span(pitch, width, height), NULL, 0);
	cudaError_t r = __real_cudaMemset2DAsync_ptsz(devPtr, pitch, value, width, height, stream);
	rt_leave();
	return r;
}

cudaError_t
__wrap_cudaMemset3D(struct cudaPitchedPtr p, int value, struct cudaExtent extent)
{
	if (idle())
		return __real_cudaMemset3D(p, value, extent);
	around(S_cudaMemset3D, p.ptr, span3(p, (struct cudaPos){0, 0, 0}, extent), NULL, 0);
	cudaError_t r = __real_cudaMemset3D(p, value, extent);
	rt_leave();
	return r;
}

cudaError_t
__wrap_cudaMemset3D_ptds(struct cudaPitchedPtr p, int value, struct cudaExtent extent)
{
	if (idle())
		return __real_cudaMemset3D_ptds(p, value, extent);
	around(S_cudaMemset3D_ptds, p.ptr, span3(p, (struct cudaPos){0, 0, 0}, extent), NULL, 0);
	cudaError_t r = __real_cudaMemset3D_ptds(p, value, extent);
	rt_leave();
	return r;
}

cudaError_t
__wrap_cudaMemset3DAsync(struct cudaPitchedPtr p, int value, struct cudaExtent extent,
                         cudaStream_t stream)
{
	if (idle())
		return __real_cudaMemset3DAsync(p, value, extent, stream);
	around(S_cudaMemset3DAsync, p.ptr, span3(p, (struct cudaPos){0, 0, 0}, extent), NULL, 0);
	cudaError_t r = __real_cudaMemset3DAsync(p, value, extent, stream);
	rt_leave();
	return r;
}

cudaError_t
__wrap_cudaMemset3DAsync_ptsz(struct cudaPitchedPtr p, int value, struct cudaExtent extent,
                              cudaStream_t stream)
{
	if (idle())
		return __real_cudaMemset3DAsync_ptsz(p, value, extent, stream);
	around(S_cudaMemset3DAsync_ptsz, p.ptr, span3(p, (struct cudaPos){0, 0, 0}, extent), NULL, 0);
	cudaError_t r = __real_cudaMemset3DAsync_ptsz(p, value, extent, stream);
	rt_leave();
	return r;
}
