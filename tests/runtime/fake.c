/* fake.c: a fake CUDA runtime (fake.h says what it is for). Every entry
 * point the runtime wraps is defined here, since the runtime's __real_
 * calls land here; those the tests never reach only log their name. It is
 * one file on purpose: a call from one of its functions to another stays
 * inside the object, where the link's --wrap does not reach. */
#include "tests/runtime/fake.h"

#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct fun {             /* a registered kernel, or a library's */
	const void *hostfun;
	char *name;
	struct fun *next;
};
struct kbody {           /* what fake_kernel() registered */
	char *name;
	body_fn *body;
	int nparam, size[64];
	int refused;         /* an attribute cudaFuncSetAttribute refuses, or -1 */
	struct kbody *next;
};
struct block {           /* device memory */
	char *p;
	size_t size;
	int live;
	struct block *next;
};
struct lib {
	char *text;
};

static struct fun *funs;
static struct kbody *bodies;
static struct block *blocks;
static char *logbuf;
static size_t loglen, logcap;
static _Thread_local cudaError_t lasterr;
static _Thread_local int curdev;

static void
say(const char *f, ...)
{
	char line[256];
	va_list ap;
	va_start(ap, f);
	int n = vsnprintf(line, sizeof line, f, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof line)
		n = sizeof line - 1;
	if (loglen + n + 2 > logcap) {
		logcap = 2 * (loglen + n + 2) + 4096;
		logbuf = realloc(logbuf, logcap);
	}
	memcpy(logbuf + loglen, line, n);
	loglen += n;
	logbuf[loglen++] = '\n';
	logbuf[loglen] = 0;
}

const char *
fake_log(void)
{
	return logbuf ? logbuf : "";
}

void
fake_log_clear(void)
{
	loglen = 0;
	if (logbuf)
		logbuf[0] = 0;
}

int
fake_count(const char *prefix)
{
	int n = 0;
	size_t k = strlen(prefix);
	for (const char *s = fake_log(); *s; s = strchr(s, '\n') + 1)
		n += !strncmp(s, prefix, k);
	return n;
}

static cudaError_t
fail(cudaError_t e)
{
	if (e != cudaSuccess)
		lasterr = e;
	return e;
}

void
fake_kernel(const char *name, body_fn *body, int nparam, const int *sizes)
{
	struct kbody *b = calloc(1, sizeof *b);
	b->name = strdup(name);
	b->body = body;
	b->nparam = nparam;
	b->refused = -1;
	for (int i = 0; i < nparam && i < 64; i++)
		b->size[i] = sizes[i];
	b->next = bodies;
	bodies = b;
}

static struct kbody *
body(const char *name)
{
	for (struct kbody *b = bodies; b; b = b->next)
		if (!strcmp(b->name, name))
			return b;
	return NULL;
}

void
fake_refuse_attr(const char *name, enum cudaFuncAttribute attr)
{
	struct kbody *b = body(name);
	if (b)
		b->refused = attr;
}

/* ---- memory ---- */

int
fake_alloc(const void *p, char **base, size_t *size)
{
	for (struct block *b = blocks; b; b = b->next)
		if (b->live && (const char *)p >= b->p && (const char *)p < b->p + b->size) {
			*base = b->p;
			*size = b->size;
			return 1;
		}
	return 0;
}

int
fake_allocs(void)
{
	int n = 0;
	for (struct block *b = blocks; b; b = b->next)
		n += b->live;
	return n;
}

/* a freed block of the same size comes back first, as from a caching
 * allocator: a program's new allocation at the address of an old one */
static void *
alloc(size_t n)
{
	for (struct block *b = blocks; b; b = b->next)
		if (!b->live && b->size == n) {
			b->live = 1;
			return b->p;
		}
	struct block *b = calloc(1, sizeof *b);
	b->p = aligned_alloc(256, (n + 255) / 256 * 256);
	b->size = n;
	b->live = 1;
	b->next = blocks;
	blocks = b;
	return b->p;
}

static cudaError_t
release(void *p)
{
	for (struct block *b = blocks; b; b = b->next)
		if (b->live && b->p == p) {
			b->live = 0;
			say("free %zu", b->size);
			return cudaSuccess;
		}
	return p ? fail(cudaErrorInvalidValue) : cudaSuccess;
}

cudaError_t
cudaMalloc(void **p, size_t n)
{
	*p = alloc(n);
	say("malloc %zu", n);
	return cudaSuccess;
}

cudaError_t
cudaMallocPitch(void **p, size_t *pitch, size_t w, size_t h)
{
	*pitch = (w + 255) / 256 * 256;
	return cudaMalloc(p, *pitch * h);
}

cudaError_t
cudaMalloc3D(struct cudaPitchedPtr *p, struct cudaExtent e)
{
	size_t pitch = (e.width + 255) / 256 * 256;
	*p = (struct cudaPitchedPtr){alloc(pitch * e.height * e.depth), pitch, e.width, e.height};
	say("malloc %zu", pitch * e.height * e.depth);
	return cudaSuccess;
}

cudaError_t
cudaMallocAsync(void **p, size_t n, cudaStream_t s)
{
	(void)s;
	return cudaMalloc(p, n);
}

cudaError_t
cudaMallocAsync_ptsz(void **p, size_t n, cudaStream_t s)
{
	return cudaMallocAsync(p, n, s);
}

cudaError_t
cudaMallocFromPoolAsync(void **p, size_t n, cudaMemPool_t pool, cudaStream_t s)
{
	(void)pool, (void)s;
	return cudaMalloc(p, n);
}

cudaError_t
cudaMallocFromPoolAsync_ptsz(void **p, size_t n, cudaMemPool_t pool, cudaStream_t s)
{
	return cudaMallocFromPoolAsync(p, n, pool, s);
}

cudaError_t
cudaMallocManaged(void **p, size_t n, unsigned int flags)
{
	(void)flags;
	return cudaMalloc(p, n);
}

cudaError_t
cudaFree(void *p)
{
	return release(p);
}

cudaError_t
cudaFreeAsync(void *p, cudaStream_t s)
{
	(void)s;
	return release(p);
}

cudaError_t
cudaFreeAsync_ptsz(void *p, cudaStream_t s)
{
	return cudaFreeAsync(p, s);
}

void *
fake_symbol(size_t size)
{
	return calloc(1, size);
}

cudaArray_t
fake_array(size_t size)
{
	return (cudaArray_t)calloc(1, size);
}

void *
fake_array_data(cudaArray_t a)
{
	return a;
}

/* ---- copies and sets: every kind is host memory here ---- */

static void
copy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t w, size_t h)
{
	for (size_t r = 0; r < h; r++)
		memmove((char *)dst + r * dpitch, (const char *)src + r * spitch, w);
}

cudaError_t
cudaMemcpy(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind)
{
	(void)kind;
	memmove(dst, src, n);
	say("memcpy %zu", n);
	return cudaSuccess;
}

cudaError_t
cudaMemcpyAsync(void *dst, const void *src, size_t n, enum cudaMemcpyKind k, cudaStream_t s)
{
	(void)s;
	return cudaMemcpy(dst, src, n, k);
}

cudaError_t
cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t w, size_t h,
             enum cudaMemcpyKind kind)
{
	(void)kind;
	copy2d(dst, dpitch, src, spitch, w, h);
	say("memcpy2d");
	return cudaSuccess;
}

cudaError_t
cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t w, size_t h,
                  enum cudaMemcpyKind kind, cudaStream_t s)
{
	(void)s;
	return cudaMemcpy2D(dst, dpitch, src, spitch, w, h, kind);
}

static char *
at3(struct cudaPitchedPtr p, struct cudaPos pos, size_t z, size_t y)
{
	size_t rows = p.ysize;
	return (char *)p.ptr + ((pos.z + z) * rows + pos.y + y) * p.pitch + pos.x;
}

cudaError_t
cudaMemcpy3D(const struct cudaMemcpy3DParms *p)
{
	if (p->srcArray || p->dstArray)
		return fail(cudaErrorInvalidValue);
	for (size_t z = 0; z < p->extent.depth; z++)
		for (size_t y = 0; y < p->extent.height; y++)
			memmove(at3(p->dstPtr, p->dstPos, z, y), at3(p->srcPtr, p->srcPos, z, y), p->extent.width);
	say("memcpy3d");
	return cudaSuccess;
}

cudaError_t
cudaMemcpy3DAsync(const struct cudaMemcpy3DParms *p, cudaStream_t s)
{
	(void)s;
	return cudaMemcpy3D(p);
}

cudaError_t
cudaMemcpyToSymbol(const void *sym, const void *src, size_t n, size_t off, enum cudaMemcpyKind k)
{
	(void)k;
	memmove((char *)sym + off, src, n);
	say("memcpy tosymbol");
	return cudaSuccess;
}

cudaError_t
cudaMemcpyToSymbolAsync(const void *sym, const void *src, size_t n, size_t off,
                        enum cudaMemcpyKind k, cudaStream_t s)
{
	(void)s;
	return cudaMemcpyToSymbol(sym, src, n, off, k);
}

cudaError_t
cudaMemcpyFromSymbol(void *dst, const void *sym, size_t n, size_t off, enum cudaMemcpyKind k)
{
	(void)k;
	memmove(dst, (const char *)sym + off, n);
	say("memcpy fromsymbol");
	return cudaSuccess;
}

cudaError_t
cudaMemcpyFromSymbolAsync(void *dst, const void *sym, size_t n, size_t off,
                          enum cudaMemcpyKind k, cudaStream_t s)
{
	(void)s;
	return cudaMemcpyFromSymbol(dst, sym, n, off, k);
}

cudaError_t
cudaMemcpyToArray(cudaArray_t dst, size_t w, size_t h, const void *src, size_t n,
                  enum cudaMemcpyKind k)
{
	(void)k, (void)h;
	memmove((char *)dst + w, src, n);
	return cudaSuccess;
}

cudaError_t
cudaMemcpyToArrayAsync(cudaArray_t dst, size_t w, size_t h, const void *src, size_t n,
                       enum cudaMemcpyKind k, cudaStream_t s)
{
	(void)s;
	return cudaMemcpyToArray(dst, w, h, src, n, k);
}

cudaError_t
cudaMemcpy2DToArray(cudaArray_t dst, size_t w, size_t h, const void *src, size_t spitch,
                    size_t width, size_t height, enum cudaMemcpyKind k)
{
	(void)k, (void)h;
	copy2d((char *)dst + w, width, src, spitch, width, height);
	return cudaSuccess;
}

cudaError_t
cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t w, size_t h, const void *src, size_t spitch,
                         size_t width, size_t height, enum cudaMemcpyKind k, cudaStream_t s)
{
	(void)s;
	return cudaMemcpy2DToArray(dst, w, h, src, spitch, width, height, k);
}

cudaError_t
cudaMemcpyFromArray(void *dst, cudaArray_const_t src, size_t w, size_t h, size_t n,
                    enum cudaMemcpyKind k)
{
	(void)k, (void)h;
	memmove(dst, (const char *)src + w, n);
	return cudaSuccess;
}

cudaError_t
cudaMemcpyFromArrayAsync(void *dst, cudaArray_const_t src, size_t w, size_t h, size_t n,
                         enum cudaMemcpyKind k, cudaStream_t s)
{
	(void)s;
	return cudaMemcpyFromArray(dst, src, w, h, n, k);
}

cudaError_t
cudaMemcpy2DFromArray(void *dst, size_t dpitch, cudaArray_const_t src, size_t w, size_t h,
                      size_t width, size_t height, enum cudaMemcpyKind k)
{
	(void)k, (void)h;
	copy2d(dst, dpitch, (const char *)src + w, width, width, height);
	return cudaSuccess;
}

cudaError_t
cudaMemcpy2DFromArrayAsync(void *dst, size_t dpitch, cudaArray_const_t src, size_t w, size_t h,
                           size_t width, size_t height, enum cudaMemcpyKind k, cudaStream_t s)
{
	(void)s;
	return cudaMemcpy2DFromArray(dst, dpitch, src, w, h, width, height, k);
}

cudaError_t
cudaMemset(void *p, int v, size_t n)
{
	memset(p, v, n);
	say("memset %zu", n);
	return cudaSuccess;
}

cudaError_t
cudaMemsetAsync(void *p, int v, size_t n, cudaStream_t s)
{
	(void)s;
	return cudaMemset(p, v, n);
}

cudaError_t
cudaMemset2D(void *p, size_t pitch, int v, size_t w, size_t h)
{
	for (size_t r = 0; r < h; r++)
		memset((char *)p + r * pitch, v, w);
	return cudaSuccess;
}

cudaError_t
cudaMemset2DAsync(void *p, size_t pitch, int v, size_t w, size_t h, cudaStream_t s)
{
	(void)s;
	return cudaMemset2D(p, pitch, v, w, h);
}

cudaError_t
cudaMemset3D(struct cudaPitchedPtr p, int v, struct cudaExtent e)
{
	for (size_t z = 0; z < e.depth; z++)
		for (size_t y = 0; y < e.height; y++)
			memset(at3(p, (struct cudaPos){0, 0, 0}, z, y), v, e.width);
	return cudaSuccess;
}

cudaError_t
cudaMemset3DAsync(struct cudaPitchedPtr p, int v, struct cudaExtent e, cudaStream_t s)
{
	(void)s;
	return cudaMemset3D(p, v, e);
}

cudaError_t
cudaMemcpyBatchAsync(void *const *dsts, const void *const *srcs, const size_t *sizes,
                     size_t count, struct cudaMemcpyAttributes *attrs, size_t *idx, size_t nattrs,
                     cudaStream_t s)
{
	(void)attrs, (void)idx, (void)nattrs, (void)s;
	for (size_t i = 0; i < count; i++)
		memmove(dsts[i], srcs[i], sizes[i]);
	say("memcpy batch");
	return cudaSuccess;
}

/* ---- kernels ---- */

static struct fun *
fun_of(const void *f)
{
	for (struct fun *x = funs; x; x = x->next)
		if (x->hostfun == f || (const void *)x == f)
			return x;
	return NULL;
}

void **
__cudaRegisterFatBinary(void *fatCubin)
{
	void **h = malloc(sizeof *h);
	*h = fatCubin;
	return h;
}

void
__cudaRegisterFatBinaryEnd(void **h)
{
	(void)h;
}

void
__cudaRegisterFunction(void **h, const char *hostFun, char *deviceFun, const char *deviceName,
                       int threadLimit, uint3 *tid, uint3 *bid, dim3 *bDim, dim3 *gDim,
                       int *wSize)
{
	(void)h, (void)deviceFun, (void)threadLimit, (void)tid, (void)bid, (void)bDim, (void)gDim;
	(void)wSize;
	struct fun *x = calloc(1, sizeof *x);
	x->hostfun = hostFun;
	x->name = strdup(deviceName);
	x->next = funs;
	funs = x;
	say("register %s", deviceName);
}

cudaError_t
__cudaGetKernel(cudaKernel_t *k, const void *hostFun)
{
	struct fun *x = fun_of(hostFun);
	if (!x)
		return fail(cudaErrorInvalidDeviceFunction);
	*k = (cudaKernel_t)x;
	return cudaSuccess;
}

cudaError_t
cudaGetKernel(cudaKernel_t *k, const void *f)
{
	return __cudaGetKernel(k, f);
}

/* the runtime's conversion kernels, by name */
static void
emulate(const char *name, void **args)
{
	char *orig, *mirror;
	unsigned long long n;
	memcpy(&orig, args[0], sizeof orig);
	memcpy(&mirror, args[1], sizeof mirror);
	memcpy(&n, args[2], sizeof n);
	int back = !strncmp(name, "mpcc_back_", 10);
	const char *ty = name + (back ? 10 : 12);
	int wide = ty[1] == '6' ? 8 : 4, narrow = strstr(ty, "_f32") ? 4 : 2;
	int bf = strstr(ty, "bf16") != NULL;
	for (unsigned long long i = 0; i < n; i++) {
		double w;
		if (wide == 8)
			memcpy(&w, orig + 8 * i, 8);
		else {
			float f;
			memcpy(&f, orig + 4 * i, 4);
			w = f;
		}
		unsigned char r[4], *m = (unsigned char *)mirror + narrow * i;
		if (narrow == 4) {
			float f = fake_f32(w);
			memcpy(r, &f, 4);
		} else {
			unsigned short h = bf ? fake_bf16(w) : fake_f16(w);
			memcpy(r, &h, 2);
		}
		if (!back) {
			memcpy(m, r, narrow);
			continue;
		}
		if (!memcmp(m, r, narrow))
			continue;
		double v;
		if (narrow == 4) {
			float f;
			memcpy(&f, m, 4);
			v = f;
		} else {
			unsigned short h;
			memcpy(&h, m, 2);
			v = bf ? fake_widen_bf16(h) : fake_widen_f16(h);
		}
		if (wide == 8)
			memcpy(orig + 8 * i, &v, 8);
		else {
			float f = (float)v;
			memcpy(orig + 4 * i, &f, 4);
		}
	}
}

static cudaError_t
run(const void *f, void **args, cudaStream_t s)
{
	struct fun *x = fun_of(f);
	if (!x)
		return fail(cudaErrorInvalidDeviceFunction);
	if (!strncmp(x->name, "mpcc_", 5)) {
		say("launch %s", x->name);
		emulate(x->name, args);
		return cudaSuccess;
	}
	struct kbody *b = body(x->name);
	if (!b)
		return fail(cudaErrorInvalidDeviceFunction);
	say("launch %s stream %p", x->name, (void *)s);
	b->body(args);
	return cudaSuccess;
}

cudaError_t
__cudaLaunchKernel(cudaKernel_t k, dim3 g, dim3 b, void **args, size_t sh, cudaStream_t s)
{
	(void)g, (void)b, (void)sh;
	return run(k, args, s);
}

cudaError_t
__cudaLaunchKernel_ptsz(cudaKernel_t k, dim3 g, dim3 b, void **args, size_t sh, cudaStream_t s)
{
	return __cudaLaunchKernel(k, g, b, args, sh, s);
}

cudaError_t
cudaLaunchKernel(const void *f, dim3 g, dim3 b, void **args, size_t sh, cudaStream_t s)
{
	(void)g, (void)b, (void)sh;
	return run(f, args, s);
}

cudaError_t
cudaLaunchKernel_ptsz(const void *f, dim3 g, dim3 b, void **args, size_t sh, cudaStream_t s)
{
	return cudaLaunchKernel(f, g, b, args, sh, s);
}

cudaError_t
cudaLaunchKernelExC(const cudaLaunchConfig_t *c, const void *f, void **args)
{
	return run(f, args, c->stream);
}

cudaError_t
cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t *c, const void *f, void **args)
{
	return cudaLaunchKernelExC(c, f, args);
}

cudaError_t
cudaLaunchCooperativeKernel(const void *f, dim3 g, dim3 b, void **args, size_t sh, cudaStream_t s)
{
	return cudaLaunchKernel(f, g, b, args, sh, s);
}

cudaError_t
cudaLaunchCooperativeKernel_ptsz(const void *f, dim3 g, dim3 b, void **args, size_t sh,
                                 cudaStream_t s)
{
	return cudaLaunchKernel(f, g, b, args, sh, s);
}

cudaError_t
cudaFuncGetAttributes(struct cudaFuncAttributes *a, const void *f)
{
	struct fun *x = fun_of(f);
	memset(a, 0, sizeof *a);
	return x && body(x->name) ? cudaSuccess : fail(cudaErrorInvalidDeviceFunction);
}

cudaError_t
cudaFuncGetParamInfo(const void *f, size_t i, size_t *off, size_t *size)
{
	struct fun *x = fun_of(f);
	struct kbody *b = x ? body(x->name) : NULL;
	if (!b)
		return fail(cudaErrorInvalidDeviceFunction);
	if (i >= (size_t)b->nparam)
		return fail(cudaErrorInvalidValue);
	*off = 0;
	for (size_t j = 0; j < i; j++)
		*off += b->size[j];
	*size = b->size[i];
	return cudaSuccess;
}

static cudaError_t
setattr(const void *f, int attr)
{
	struct fun *x = fun_of(f);
	struct kbody *b = x ? body(x->name) : NULL;
	if (!b || (attr >= 0 && b->refused == attr))
		return fail(cudaErrorInvalidValue);
	say("attr %s %d", x->name, attr);
	return cudaSuccess;
}

cudaError_t
cudaFuncSetAttribute(const void *f, enum cudaFuncAttribute attr, int v)
{
	(void)v;
	return setattr(f, attr);
}

cudaError_t
cudaFuncSetCacheConfig(const void *f, enum cudaFuncCache c)
{
	(void)c;
	return setattr(f, -1);
}

cudaError_t
cudaFuncSetSharedMemConfig(const void *f, enum cudaSharedMemConfig c)
{
	(void)c;
	return setattr(f, -1);
}

cudaError_t
cudaKernelSetAttributeForDevice(cudaKernel_t k, enum cudaFuncAttribute attr, int v, int d)
{
	(void)v, (void)d;
	return setattr(k, attr);
}

/* ---- the runtime's conversion kernels: a library of PTX text ---- */

/* ptxas on the text, for the target it names, when FAKE_PTXAS says where
 * ptxas is: what a real cudaLibraryLoadData would refuse, refused */
static int
assembles(const char *text)
{
	const char *ptxas = getenv("FAKE_PTXAS"), *t = strstr(text, ".target sm_");
	if (!ptxas || !*ptxas)
		return 1;
	const char *tmp = getenv("TMPDIR");
	char path[4096], cmd[8192];
	snprintf(path, sizeof path, "%s/fake-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	int fd = mkstemp(path);
	if (fd < 0 || !t)
		return 0;
	size_t n = strlen(text);
	int ok = write(fd, text, n) == (ssize_t)n;
	close(fd);
	snprintf(cmd, sizeof cmd, "'%s' -arch=sm_%.2s -o /dev/null %s", ptxas, t + 11, path);
	ok = ok && system(cmd) == 0;
	unlink(path);
	return ok;
}

cudaError_t
cudaLibraryLoadData(cudaLibrary_t *lib, const void *code, enum cudaJitOption *o, void **ov,
                    unsigned int no, enum cudaLibraryOption *lo, void **lov, unsigned int nlo)
{
	(void)o, (void)ov, (void)no, (void)lo, (void)lov, (void)nlo;
	say("library load");
	if (!assembles(code))
		return fail(cudaErrorInvalidPtx);
	struct lib *l = calloc(1, sizeof *l);
	l->text = strdup(code);
	*lib = (cudaLibrary_t)l;
	return cudaSuccess;
}

cudaError_t
cudaLibraryGetKernel(cudaKernel_t *k, cudaLibrary_t lib, const char *name)
{
	struct lib *l = (struct lib *)lib;
	char entry[128];
	snprintf(entry, sizeof entry, ".entry %s(", name);
	if (!strstr(l->text, entry))
		return fail(cudaErrorSymbolNotFound);
	struct fun *x = calloc(1, sizeof *x);
	x->name = strdup(name);
	x->hostfun = x;
	x->next = funs;
	funs = x;
	*k = (cudaKernel_t)x;
	return cudaSuccess;
}

/* ---- devices, errors, streams ---- */

cudaError_t
cudaDeviceSynchronize(void)
{
	say("sync");
	return cudaSuccess;
}

cudaError_t
cudaGetDevice(int *d)
{
	*d = curdev;
	return cudaSuccess;
}

cudaError_t
cudaSetDevice(int d)
{
	curdev = d;
	say("device %d", d);
	return cudaSuccess;
}

cudaError_t
cudaInitDevice(int d, unsigned int f, unsigned int g)
{
	(void)f, (void)g;
	return cudaSetDevice(d);
}

cudaError_t
cudaGetLastError(void)
{
	cudaError_t e = lasterr;
	lasterr = cudaSuccess;
	return e;
}

cudaError_t
cudaPeekAtLastError(void)
{
	return lasterr;
}

const char *
cudaGetErrorString(cudaError_t e)
{
	static char s[32];
	snprintf(s, sizeof s, "fake error %d", (int)e);
	return s;
}

cudaError_t
cudaStreamCreate(cudaStream_t *s)
{
	static char streams[16];
	static int n;
	*s = (cudaStream_t)&streams[++n % 16];
	return cudaSuccess;
}

cudaError_t
cudaGetDriverEntryPoint(const char *sym, void **fn, unsigned long long flags,
                        enum cudaDriverEntryPointQueryResult *st)
{
	(void)sym, (void)flags, (void)st;
	*fn = NULL;
	return cudaSuccess;
}

cudaError_t
cudaGetDriverEntryPoint_ptsz(const char *sym, void **fn, unsigned long long flags,
                             enum cudaDriverEntryPointQueryResult *st)
{
	return cudaGetDriverEntryPoint(sym, fn, flags, st);
}

cudaError_t
cudaGetDriverEntryPointByVersion(const char *sym, void **fn, unsigned int v,
                                 unsigned long long flags, enum cudaDriverEntryPointQueryResult *st)
{
	(void)v;
	return cudaGetDriverEntryPoint(sym, fn, flags, st);
}

cudaError_t
cudaGetDriverEntryPointByVersion_ptsz(const char *sym, void **fn, unsigned int v,
                                      unsigned long long flags,
                                      enum cudaDriverEntryPointQueryResult *st)
{
	(void)v;
	return cudaGetDriverEntryPoint(sym, fn, flags, st);
}

/* ---- the host side of the emulated conversions ---- */

/* x rounded to nearest even with p significant bits, no exponent below
 * emin (subnormals), infinity past max */
static double
roundsig(double x, int p, int emin, double max)
{
	if (x == 0 || !isfinite(x))
		return x;
	int e;
	frexp(x, &e);
	int q = (e - 1 < emin ? emin : e - 1) - (p - 1);
	double r = ldexp(nearbyint(ldexp(x, -q)), q);
	return fabs(r) > max ? copysign(INFINITY, x) : r;
}

float
fake_f32(double x)
{
	return isnan(x) ? (float)x : (float)roundsig(x, 24, -126, 0x1.fffffep127);
}

unsigned short
fake_bf16(double x)
{
	if (isnan(x))
		return signbit(x) ? 0xffc0 : 0x7fc0;
	float f = (float)roundsig(x, 8, -126, 0x1.fep127);
	uint32_t b;
	memcpy(&b, &f, 4);
	return b >> 16;
}

unsigned short
fake_f16(double x)
{
	if (isnan(x))
		return signbit(x) ? 0xfe00 : 0x7e00;
	_Float16 h = (_Float16)(float)roundsig(x, 11, -14, 65504);   /* exact */
	unsigned short b;
	memcpy(&b, &h, 2);
	return b;
}

double
fake_widen_bf16(unsigned short h)
{
	uint32_t b = (uint32_t)h << 16;
	float f;
	memcpy(&f, &b, 4);
	return f;
}

double
fake_widen_f16(unsigned short h)
{
	_Float16 f;
	memcpy(&f, &h, 2);
	return f;
}

static void
fake_said(const char *name)
{
	say("%s", name);
}

/* ---- the per-thread twins, which are their originals here, and entry
 * points the tests only see called (each logs its name). Calls inside
 * this file are not wrapped (ld wraps undefined references only): the
 * fake never calls back into the runtime ---- */

cudaError_t
cudaMemcpy_ptds(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)
{
	return cudaMemcpy(dst, src, count, kind);
}

cudaError_t
cudaMemcpyAsync_ptsz(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                     cudaStream_t stream)
{
	return cudaMemcpyAsync(dst, src, count, kind, stream);
}

cudaError_t
cudaMemcpy2D_ptds(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                  size_t height, enum cudaMemcpyKind kind)
{
	return cudaMemcpy2D(dst, dpitch, src, spitch, width, height, kind);
}

cudaError_t
cudaMemcpy2DAsync_ptsz(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                       size_t height, enum cudaMemcpyKind kind, cudaStream_t stream)
{
	return cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, height, kind, stream);
}

cudaError_t
cudaMemcpy3D_ptds(const struct cudaMemcpy3DParms *p)
{
	return cudaMemcpy3D(p);
}

cudaError_t
cudaMemcpy3DAsync_ptsz(const struct cudaMemcpy3DParms *p, cudaStream_t stream)
{
	return cudaMemcpy3DAsync(p, stream);
}

cudaError_t
cudaMemcpyToSymbol_ptds(const void *symbol, const void *src, size_t count, size_t offset,
                        enum cudaMemcpyKind kind)
{
	return cudaMemcpyToSymbol(symbol, src, count, offset, kind);
}

cudaError_t
cudaMemcpyToSymbolAsync_ptsz(const void *symbol, const void *src, size_t count, size_t offset,
                             enum cudaMemcpyKind kind, cudaStream_t stream)
{
	return cudaMemcpyToSymbolAsync(symbol, src, count, offset, kind, stream);
}

cudaError_t
cudaMemcpyFromSymbol_ptds(void *dst, const void *symbol, size_t count, size_t offset,
                          enum cudaMemcpyKind kind)
{
	return cudaMemcpyFromSymbol(dst, symbol, count, offset, kind);
}

cudaError_t
cudaMemcpyFromSymbolAsync_ptsz(void *dst, const void *symbol, size_t count, size_t offset,
                               enum cudaMemcpyKind kind, cudaStream_t stream)
{
	return cudaMemcpyFromSymbolAsync(dst, symbol, count, offset, kind, stream);
}

cudaError_t
cudaMemcpyToArray_ptds(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
                       size_t count, enum cudaMemcpyKind kind)
{
	return cudaMemcpyToArray(dst, wOffset, hOffset, src, count, kind);
}

cudaError_t
cudaMemcpyToArrayAsync_ptsz(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
                            size_t count, enum cudaMemcpyKind kind, cudaStream_t stream)
{
	return cudaMemcpyToArrayAsync(dst, wOffset, hOffset, src, count, kind, stream);
}

cudaError_t
cudaMemcpy2DToArray_ptds(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
                         size_t spitch, size_t width, size_t height, enum cudaMemcpyKind kind)
{
	return cudaMemcpy2DToArray(dst, wOffset, hOffset, src, spitch, width, height, kind);
}

cudaError_t
cudaMemcpy2DToArrayAsync_ptsz(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
                              size_t spitch, size_t width, size_t height, enum cudaMemcpyKind kind,
                              cudaStream_t stream)
{
	return cudaMemcpy2DToArrayAsync(dst, wOffset, hOffset, src, spitch, width, height, kind, stream);
}

cudaError_t
cudaMemcpyFromArray_ptds(void *dst, cudaArray_const_t src, size_t wOffset, size_t hOffset,
                         size_t count, enum cudaMemcpyKind kind)
{
	return cudaMemcpyFromArray(dst, src, wOffset, hOffset, count, kind);
}

cudaError_t
cudaMemcpyFromArrayAsync_ptsz(void *dst, cudaArray_const_t src, size_t wOffset, size_t hOffset,
                              size_t count, enum cudaMemcpyKind kind, cudaStream_t stream)
{
	return cudaMemcpyFromArrayAsync(dst, src, wOffset, hOffset, count, kind, stream);
}

cudaError_t
cudaMemcpy2DFromArray_ptds(void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset,
                           size_t hOffset, size_t width, size_t height, enum cudaMemcpyKind kind)
{
	return cudaMemcpy2DFromArray(dst, dpitch, src, wOffset, hOffset, width, height, kind);
}

cudaError_t
cudaMemcpy2DFromArrayAsync_ptsz(void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset,
                                size_t hOffset, size_t width, size_t height,
                                enum cudaMemcpyKind kind, cudaStream_t stream)
{
	return cudaMemcpy2DFromArrayAsync(dst, dpitch, src, wOffset, hOffset, width, height, kind, stream);
}

cudaError_t
cudaMemset_ptds(void *devPtr, int value, size_t count)
{
	return cudaMemset(devPtr, value, count);
}

cudaError_t
cudaMemsetAsync_ptsz(void *devPtr, int value, size_t count, cudaStream_t stream)
{
	return cudaMemsetAsync(devPtr, value, count, stream);
}

cudaError_t
cudaMemset2D_ptds(void *devPtr, size_t pitch, int value, size_t width, size_t height)
{
	return cudaMemset2D(devPtr, pitch, value, width, height);
}

cudaError_t
cudaMemset2DAsync_ptsz(void *devPtr, size_t pitch, int value, size_t width, size_t height,
                       cudaStream_t stream)
{
	return cudaMemset2DAsync(devPtr, pitch, value, width, height, stream);
}

cudaError_t
cudaMemset3D_ptds(struct cudaPitchedPtr p, int value, struct cudaExtent extent)
{
	return cudaMemset3D(p, value, extent);
}

cudaError_t
cudaMemset3DAsync_ptsz(struct cudaPitchedPtr p, int value, struct cudaExtent extent,
                       cudaStream_t stream)
{
	return cudaMemset3DAsync(p, value, extent, stream);
}

cudaError_t
cudaMemcpyBatchAsync_ptsz(void *const *dsts, const void *const *srcs, const size_t *sizes,
                          size_t count, struct cudaMemcpyAttributes *attrs, size_t *idx,
                          size_t nattrs, cudaStream_t stream)
{
	return cudaMemcpyBatchAsync(dsts, srcs, sizes, count, attrs, idx, nattrs, stream);
}

cudaError_t
cudaSetValidDevices(int *d, int n)
{
	(void)d, (void)n;
	fake_said("cudaSetValidDevices");
	return cudaSuccess;
}

cudaError_t
cudaDeviceEnablePeerAccess(int peer, unsigned int flags)
{
	(void)peer, (void)flags;
	fake_said("cudaDeviceEnablePeerAccess");
	return cudaSuccess;
}

cudaError_t
cudaMemcpyPeer(void *dst, int dd, const void *src, int sd, size_t n)
{
	(void)dd, (void)sd;
	memmove(dst, src, n);
	fake_said("cudaMemcpyPeer");
	return cudaSuccess;
}

cudaError_t
cudaMemcpyPeerAsync(void *dst, int dd, const void *src, int sd, size_t n, cudaStream_t s)
{
	(void)dd, (void)sd, (void)s;
	memmove(dst, src, n);
	fake_said("cudaMemcpyPeerAsync");
	return cudaSuccess;
}

cudaError_t
cudaMemcpy3DPeer(const struct cudaMemcpy3DPeerParms *p)
{
	(void)p;
	fake_said("cudaMemcpy3DPeer");
	return cudaSuccess;
}

cudaError_t
cudaMemcpy3DPeer_ptds(const struct cudaMemcpy3DPeerParms *p)
{
	(void)p;
	fake_said("cudaMemcpy3DPeer_ptds");
	return cudaSuccess;
}

cudaError_t
cudaMemcpy3DPeerAsync(const struct cudaMemcpy3DPeerParms *p, cudaStream_t s)
{
	(void)p, (void)s;
	fake_said("cudaMemcpy3DPeerAsync");
	return cudaSuccess;
}

cudaError_t
cudaMemcpy3DPeerAsync_ptsz(const struct cudaMemcpy3DPeerParms *p, cudaStream_t s)
{
	(void)p, (void)s;
	fake_said("cudaMemcpy3DPeerAsync_ptsz");
	return cudaSuccess;
}

cudaError_t
cudaIpcGetMemHandle(cudaIpcMemHandle_t *h, void *p)
{
	(void)h, (void)p;
	fake_said("cudaIpcGetMemHandle");
	return cudaSuccess;
}

cudaError_t
cudaMemPoolExportPointer(struct cudaMemPoolPtrExportData *d, void *p)
{
	(void)d, (void)p;
	fake_said("cudaMemPoolExportPointer");
	return cudaSuccess;
}

cudaError_t
cudaMemPoolExportToShareableHandle(void *h, cudaMemPool_t pool, enum cudaMemAllocationHandleType t,
                                   unsigned int f)
{
	(void)h, (void)pool, (void)t, (void)f;
	fake_said("cudaMemPoolExportToShareableHandle");
	return cudaSuccess;
}

cudaError_t
cudaMemPoolSetAccess(cudaMemPool_t pool, const struct cudaMemAccessDesc *d, size_t n)
{
	(void)pool, (void)d, (void)n;
	fake_said("cudaMemPoolSetAccess");
	return cudaSuccess;
}

cudaError_t
cudaStreamBeginCapture(cudaStream_t s, enum cudaStreamCaptureMode m)
{
	(void)s, (void)m;
	fake_said("cudaStreamBeginCapture");
	return cudaSuccess;
}

cudaError_t
cudaStreamBeginCapture_ptsz(cudaStream_t s, enum cudaStreamCaptureMode m)
{
	(void)s, (void)m;
	fake_said("cudaStreamBeginCapture_ptsz");
	return cudaSuccess;
}

cudaError_t
cudaStreamBeginCaptureToGraph(cudaStream_t s, cudaGraph_t g, const cudaGraphNode_t *d,
                              const cudaGraphEdgeData *e, size_t n, enum cudaStreamCaptureMode m)
{
	(void)s, (void)g, (void)d, (void)e, (void)n, (void)m;
	fake_said("cudaStreamBeginCaptureToGraph");
	return cudaSuccess;
}

cudaError_t
cudaStreamBeginCaptureToGraph_ptsz(cudaStream_t s, cudaGraph_t g, const cudaGraphNode_t *d,
                                   const cudaGraphEdgeData *e, size_t n,
                                   enum cudaStreamCaptureMode m)
{
	(void)s, (void)g, (void)d, (void)e, (void)n, (void)m;
	fake_said("cudaStreamBeginCaptureToGraph_ptsz");
	return cudaSuccess;
}

cudaError_t
cudaGraphLaunch(cudaGraphExec_t g, cudaStream_t s)
{
	(void)g, (void)s;
	fake_said("cudaGraphLaunch");
	return cudaSuccess;
}

cudaError_t
cudaGraphLaunch_ptsz(cudaGraphExec_t g, cudaStream_t s)
{
	(void)g, (void)s;
	fake_said("cudaGraphLaunch_ptsz");
	return cudaSuccess;
}

cudaError_t
cudaMemcpy3DBatchAsync(size_t n, struct cudaMemcpy3DBatchOp *ops, unsigned long long f,
                       cudaStream_t s)
{
	(void)n, (void)ops, (void)f, (void)s;
	fake_said("cudaMemcpy3DBatchAsync");
	return cudaSuccess;
}

cudaError_t
cudaMemcpy3DBatchAsync_ptsz(size_t n, struct cudaMemcpy3DBatchOp *ops, unsigned long long f,
                            cudaStream_t s)
{
	(void)n, (void)ops, (void)f, (void)s;
	fake_said("cudaMemcpy3DBatchAsync_ptsz");
	return cudaSuccess;
}

cudaError_t
cudaDeviceReset(void)
{
	fake_said("cudaDeviceReset");
	return cudaSuccess;
}
