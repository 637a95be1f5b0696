/* kern.c: the kernels the program registers, what the store table says
 * of each, their clones, and the attributes set on them.
 * Each translation unit registers its fatbinary (__cudaRegisterFatBinary,
 * with the address its table entries name) and then each kernel by its
 * host function and mangled name (__cudaRegisterFunction); a kernel whose
 * entry names a clone that narrows gets the clone registered under the
 * same handle, with &k->anchor as its host function. Launches name a
 * kernel by its host function or by the cudaKernel_t that __cudaGetKernel
 * and cudaGetKernel hand out: both are keys of one open-addressing table
 * that readers probe without the lock (slots are published key last, with
 * release; a full table is copied into one twice its size, and the old
 * one is kept for readers still in it). */
#include "runtime/runtime.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void **__real___cudaRegisterFatBinary(void *fatCubin);
void __real___cudaRegisterFunction(void **h, const char *hostFun, char *deviceFun,
                                   const char *deviceName, int threadLimit, uint3 *tid,
                                   uint3 *bid, dim3 *bDim, dim3 *gDim, int *wSize);
cudaError_t __real___cudaGetKernel(cudaKernel_t *k, const void *hostFun);
extern __typeof__(cudaGetKernel) __real_cudaGetKernel;
extern __typeof__(cudaFuncSetAttribute) __real_cudaFuncSetAttribute;
extern __typeof__(cudaFuncSetCacheConfig) __real_cudaFuncSetCacheConfig;
extern __typeof__(cudaFuncSetSharedMemConfig) __real_cudaFuncSetSharedMemConfig;
extern __typeof__(cudaKernelSetAttributeForDevice) __real_cudaKernelSetAttributeForDevice;

/* the table the compiler writes (runtime.h); absent when no object has one */
struct entry {
	const void *fatbin;
	const char *spec;
};
extern const struct entry __start_mpcc_store[] __attribute__((weak));
extern const struct entry __stop_mpcc_store[] __attribute__((weak));

struct slot {
	_Atomic(const void *) key;
	_Atomic(struct kern *) k;
};
struct table {
	size_t cap, n;
	struct table *old;   /* the one it replaced, kept for readers */
	struct slot s[];
};
static _Atomic(struct table *) tab;
static struct kern **kernlast = &rt.kerns;
static struct module {   /* a fatbin handle and the address it was registered from */
	void **h;
	const void *fatbin;
} *mods;
static int nmods, capmods;

static size_t
hash(const void *p)
{
	return (size_t)(((uintptr_t)p >> 3) * 0x9e3779b97f4a7c15ull >> 17);
}

struct kern *
kern_find(const void *key)
{
	struct table *t = atomic_load_explicit(&tab, memory_order_acquire);
	if (!t || !key)
		return NULL;
	for (size_t m = t->cap - 1, i = hash(key) & m;; i = (i + 1) & m) {
		const void *x = atomic_load_explicit(&t->s[i].key, memory_order_acquire);
		if (x == key)
			return atomic_load_explicit(&t->s[i].k, memory_order_relaxed);
		if (!x)
			return NULL;
	}
}

static void
slot_put(struct table *t, const void *key, struct kern *k)
{
	size_t m = t->cap - 1, i = hash(key) & m;
	for (const void *x; (x = atomic_load_explicit(&t->s[i].key, memory_order_relaxed)); i = (i + 1) & m)
		if (x == key) {
			atomic_store_explicit(&t->s[i].k, k, memory_order_relaxed);
			return;
		}
	atomic_store_explicit(&t->s[i].k, k, memory_order_relaxed);
	atomic_store_explicit(&t->s[i].key, key, memory_order_release);
	t->n++;
}

/* under the lock */
static void
kern_put(const void *key, struct kern *k)
{
	struct table *t = atomic_load_explicit(&tab, memory_order_relaxed);
	if (!key)
		return;
	if (!t || 2 * (t->n + 1) > t->cap) {
		size_t cap = t ? 2 * t->cap : 256;
		struct table *nt = calloc(1, sizeof *nt + cap * sizeof nt->s[0]);
		if (!nt)
			return;   /* not found later: launched as unknown */
		nt->cap = cap;
		nt->old = t;
		for (size_t i = 0; t && i < t->cap; i++)
			if (atomic_load_explicit(&t->s[i].key, memory_order_relaxed))
				slot_put(nt, t->s[i].key, t->s[i].k);
		atomic_store_explicit(&tab, nt, memory_order_release);
		t = nt;
	}
	slot_put(t, key, k);
}

/* the next space-separated word of *s, into w[0..n) */
static int
next(const char **s, const char **w, size_t *n)
{
	while (**s == ' ')
		(*s)++;
	*w = *s;
	*n = strcspn(*s, " ");
	*s += *n;
	return *n > 0;
}

static int
is(const char *w, size_t n, const char *s)
{
	return strlen(s) == n && !memcmp(w, s, n);
}

/* one parameter's mark: "-", "r", "w", "r:f64>f32"...; -1 if not one */
static int
mark(const char *w, size_t n, struct param *p)
{
	p->use = w[0];
	p->cvt = -1;
	if (n == 1)
		return strchr("-rw", w[0]) ? 0 : -1;
	if (n < 3 || w[1] != ':' || (w[0] != 'r' && w[0] != 'w'))
		return -1;
	return (p->cvt = cvt_parse(w + 2, n - 2)) < 0 ? -1 : 0;
}

/* spec into k when it is version 1 and names `name`: 1; 0 when it is of
 * another version or names another kernel; -1 when it does not parse */
static int
spec(struct kern *k, const char *s, const char *name)
{
	const char *w;
	size_t n;
	if (!next(&s, &w, &n) || !is(w, n, "1"))
		return 0;
	if (!next(&s, &w, &n))
		return -1;
	if (!is(w, n, name))
		return 0;
	const char *clone;
	size_t nclone;
	char *end;
	if (!next(&s, &clone, &nclone) || !next(&s, &w, &n) || !(is(w, n, "c") || is(w, n, "o")))
		return -1;
	k->open = w[0] == 'o';
	if (!next(&s, &w, &n))
		return -1;
	long np = strtol(w, &end, 10);
	if (end != w + n || np < 0 || np > 4096 || !(k->param = calloc(np + 1, sizeof *k->param)))
		return -1;
	k->nparam = (int)np;
	for (int i = 0; i < k->nparam; i++)
		if (!next(&s, &w, &n) || mark(w, n, &k->param[i]) < 0)
			return -1;
	if (next(&s, &w, &n))
		return -1;
	if (!is(clone, nclone, "-") && !(k->clone = strndup(clone, nclone)))
		return -1;
	return 1;
}

static void
unknown(struct kern *k)
{
	free(k->param);
	free(k->clone);
	k->param = NULL;
	k->clone = NULL;
	k->nparam = k->known = k->open = 0;
}

/* what the table says of the kernel `name` of fatbin: k->known 1 when one
 * entry (or several, the same) describes it; one that does not parse, or
 * two that differ, leave it unknown */
static void
lookup(struct kern *k, const void *fatbin, const char *name)
{
	const char *first = NULL;
	for (const struct entry *e = __start_mpcc_store; e && e < __stop_mpcc_store; e++) {
		if (!e->fatbin || e->fatbin != fatbin || !e->spec)
			continue;
		struct kern tmp = {0};
		int r = spec(&tmp, e->spec, name);
		if (r == 1 && !first) {
			k->open = tmp.open;
			k->nparam = tmp.nparam;
			k->param = tmp.param;
			k->clone = tmp.clone;
			k->known = 1;
			first = e->spec;
			continue;
		}
		unknown(&tmp);
		if (r < 0 || (r == 1 && strcmp(first, e->spec))) {
			unknown(k);
			return;
		}
	}
}

static const void *
fatbin_of(void **h)
{
	for (int i = nmods - 1; i >= 0; i--)
		if (mods[i].h == h)
			return mods[i].fatbin;
	return NULL;
}

static int
narrowing(const struct kern *k)
{
	for (int i = 0; k->clone && !k->open && i < k->nparam; i++)
		if (k->param[i].cvt >= 0)
			return 1;
	return 0;
}

static struct kern *
kern_new(void **h, const void *hostfun, const char *name)
{
	struct kern *k = calloc(1, sizeof *k);
	if (!k)
		return NULL;
	k->name = name;
	k->hostfun = hostfun;
	k->module = h;
	lookup(k, fatbin_of(h), name);
	k->t = calloc(k->nparam + 1, sizeof *k->t);
	k->chk = calloc(k->nparam + 1, sizeof *k->chk);
	if (!k->t || !k->chk) {
		free(k->t);
		free(k->chk);
		unknown(k);
		free(k);
		return NULL;
	}
	atomic_store(&k->narrows, narrowing(k));
	*kernlast = k;
	kernlast = &k->next;
	return k;
}

void **
__wrap___cudaRegisterFatBinary(void *fatCubin)
{
	void **h = __real___cudaRegisterFatBinary(fatCubin);
	rt_init();
	rt_enter();
	if (nmods == capmods) {
		int cap = capmods ? 2 * capmods : 16;
		struct module *m = realloc(mods, cap * sizeof *m);
		if (m)
			mods = m, capmods = cap;
	}
	if (nmods < capmods)
		mods[nmods++] = (struct module){h, fatCubin};
	rt_leave();
	return h;
}

void
__wrap___cudaRegisterFunction(void **h, const char *hostFun, char *deviceFun,
                              const char *deviceName, int threadLimit, uint3 *tid, uint3 *bid,
                              dim3 *bDim, dim3 *gDim, int *wSize)
{
	__real___cudaRegisterFunction(h, hostFun, deviceFun, deviceName, threadLimit, tid, bid,
	                              bDim, gDim, wSize);
	rt_init();
	rt_enter();
	struct kern *k = deviceName ? kern_new(h, hostFun, deviceName) : NULL;
	if (k && atomic_load(&k->narrows) && atomic_load(&rt.off))
		atomic_store(&k->narrows, 0);
	if (k && atomic_load(&k->narrows))
		__real___cudaRegisterFunction(h, &k->anchor, k->clone, k->clone, -1, NULL, NULL, NULL,
		                              NULL, NULL);
	if (k)
		kern_put(hostFun, k);
	rt_leave();
}

/* a handle of a registered kernel, from the first or the public call */
static void
handle(cudaError_t r, cudaKernel_t *h, const void *fn)
{
	struct kern *k = r == cudaSuccess && h && !atomic_load(&rt.off) ? kern_find(fn) : NULL;
	if (!k || !*h || kern_find(*h) == k)
		return;
	rt_enter();
	kern_put(*h, k);
	rt_leave();
}

cudaError_t
__wrap___cudaGetKernel(cudaKernel_t *h, const void *fn)
{
	cudaError_t r = __real___cudaGetKernel(h, fn);
	handle(r, h, fn);
	return r;
}

cudaError_t
__wrap_cudaGetKernel(cudaKernel_t *h, const void *fn)
{
	cudaError_t r = __real_cudaGetKernel(h, fn);
	handle(r, h, fn);
	return r;
}

int
kern_ready(struct kern *k)
{
	if (!k->known || k->ready)
		return k->known;
	if (pending())
		return 0;   /* checked at a launch with no error of the program's pending */
	for (int i = 0; i < k->nparam; i++) {
		size_t off, size;
		cudaError_t r = cudaFuncGetParamInfo(k->hostfun, i, &off, &size);
		if (r != cudaSuccess || (k->param[i].use != '-' && size != sizeof(void *))) {
			quiet(r, 0);
			unknown(k);
			atomic_store(&k->narrows, 0);
			return 0;
		}
	}
	k->ready = 1;
	return 1;
}

void
kern_readyall(void)
{
	if (atomic_load(&rt.readied) || pending())
		return;
	atomic_store(&rt.readied, 1);
	for (struct kern *k = rt.kerns; k; k = k->next)
		if (kern_ready(k) && atomic_load(&k->narrows))
			clone_ready(k);
}

void
clone_drop(struct kern *k)
{
	k->clonestate = -1;
	atomic_store(&k->narrows, 0);
}

int
clone_ready(struct kern *k)
{
	if (k->clonestate || !kern_ready(k))
		return k->clonestate > 0 && k->known;
	if (pending())
		return 0;
	struct cudaFuncAttributes fa;
	size_t off, size;
	cudaError_t r = cudaFuncGetAttributes(&fa, &k->anchor);
	if (r == cudaSuccess && k->nparam)
		r = cudaFuncGetParamInfo(&k->anchor, k->nparam - 1, &off, &size);
	if (r == cudaSuccess)
		r = __real___cudaGetKernel(&k->clonek, &k->anchor);
	quiet(r, 0);
	if (r != cudaSuccess)
		clone_drop(k);
	else
		k->clonestate = 1;
	return k->clonestate > 0;
}

/* the same set on the clone: one it does not take is never launched */
static void
also(struct kern *k, cudaError_t r, int pend)
{
	quiet(r, pend);
	if (r != cudaSuccess)
		clone_drop(k);
}

cudaError_t
__wrap_cudaFuncSetAttribute(const void *fn, enum cudaFuncAttribute attr, int value)
{
	cudaError_t r = __real_cudaFuncSetAttribute(fn, attr, value);
	struct kern *k = kern_find(fn);
	if (r != cudaSuccess || !k || !atomic_load(&k->narrows))
		return r;
	rt_enter();
	int pend = pending();
	also(k, __real_cudaFuncSetAttribute(&k->anchor, attr, value), pend);
	rt_leave();
	return r;
}

cudaError_t
__wrap_cudaFuncSetCacheConfig(const void *fn, enum cudaFuncCache config)
{
	cudaError_t r = __real_cudaFuncSetCacheConfig(fn, config);
	struct kern *k = kern_find(fn);
	if (r != cudaSuccess || !k || !atomic_load(&k->narrows))
		return r;
	rt_enter();
	int pend = pending();
	also(k, __real_cudaFuncSetCacheConfig(&k->anchor, config), pend);
	rt_leave();
	return r;
}

cudaError_t
__wrap_cudaFuncSetSharedMemConfig(const void *fn, enum cudaSharedMemConfig config)
{
	cudaError_t r = __real_cudaFuncSetSharedMemConfig(fn, config);
	struct kern *k = kern_find(fn);
	if (r != cudaSuccess || !k || !atomic_load(&k->narrows))
		return r;
	rt_enter();
	int pend = pending();
	also(k, __real_cudaFuncSetSharedMemConfig(&k->anchor, config), pend);
	rt_leave();
	return r;
}

cudaError_t
__wrap_cudaKernelSetAttributeForDevice(cudaKernel_t kernel, enum cudaFuncAttribute attr,
                                       int value, int device)
{
	cudaError_t r = __real_cudaKernelSetAttributeForDevice(kernel, attr, value, device);
	struct kern *k = kern_find(kernel);
	if (r != cudaSuccess || !k || !atomic_load(&k->narrows))
		return r;
	rt_enter();
	int pend = pending();
	if (clone_ready(k))
		also(k, __real_cudaKernelSetAttributeForDevice(k->clonek, attr, value, device), pend);
	rt_leave();
	return r;
}
