/* state.c: the runtime's state: the lock, the allocations it tracks and
 * the forms their data is in, and store off.
 * Allocations are an array sorted by base address, so that a pointer into
 * one (an interior pointer, a pool's array) is placed by binary search.
 * Every function here but rt_init() runs under the lock (rt_enter()). */
#include "runtime/runtime.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern __typeof__(cudaMalloc) __real_cudaMalloc;
extern __typeof__(cudaFree) __real_cudaFree;
extern __typeof__(cudaSetDevice) __real_cudaSetDevice;

struct rt rt = {.lock = PTHREAD_MUTEX_INITIALIZER, .dev = -1};

static _Thread_local int inside;

void
rt_enter(void)
{
	pthread_mutex_lock(&rt.lock);
	inside = 1;
}

void
rt_leave(void)
{
	inside = 0;
	pthread_mutex_unlock(&rt.lock);
}

int
rt_inside(void)
{
	return inside;
}

/* synchronize, and say so once if the device has failed: a conversion
 * cannot run on it */
static int
sync(void)
{
	return cudaDeviceSynchronize() == cudaSuccess ? 0 : -1;
}

static void
lost(struct alloc *a, cudaError_t r)
{
	fprintf(stderr, "mpcc: error: store: cannot write %zu bytes at %p back to their original "
	        "form (%s): the program may read wrong values\n", a->size, (void *)a->base,
	        cudaGetErrorString(r));
}

int
to_orig(struct alloc *a, struct tally *t)
{
	if (a->form != NARROW)
		return 0;
	size_t n = a->size / cvts[a->cvt].wide;
	cudaError_t r = sync() < 0 ? cudaErrorLaunchFailure : cvt_run(a->cvt, 1, a->base, a->mirror, n);
	if (r == cudaSuccess && sync() < 0)
		r = cudaErrorLaunchFailure;
	if (r != cudaSuccess) {
		lost(a, r);
		return -1;
	}
	a->form = BOTH;
	t->back++;
	t->backbytes += a->size;
	return 0;
}

void
stale(struct alloc *a)
{
	if (a->form != ORIG)
		atomic_fetch_sub(&rt.live, 1);
	a->form = ORIG;
}

/* the mirror's memory, gone (after the device is done with it) */
static void
unmirror(struct alloc *a)
{
	stale(a);
	if (a->mirror) {
		sync();
		__real_cudaFree(a->mirror);
	}
	a->mirror = NULL;
	a->msize = 0;
	a->cvt = -1;
}

/* memory for a mirror of conversion c: 0, or -1 (out of memory) */
static int
mirror(struct alloc *a, int c)
{
	size_t need = a->size / cvts[c].wide * cvts[c].narrow;
	if (a->mirror && a->msize >= need)
		return 0;
	unmirror(a);
	int pend = pending();
	cudaError_t r = __real_cudaMalloc((void **)&a->mirror, need);
	quiet(r, pend);
	if (r != cudaSuccess) {
		a->mirror = NULL;
		return -1;
	}
	a->msize = need;
	return 0;
}

int
to_narrow(struct alloc *a, int c, struct tally *t)
{
	if (a->form != ORIG && a->cvt == c)
		return 0;
	if (a->form != ORIG) {   /* a mirror of another type: back first */
		if (to_orig(a, t) < 0)
			return -1;
		stale(a);
	}
	size_t n = a->size / cvts[c].wide;
	if (!n || cvt_load(c) < 0 || mirror(a, c) < 0)
		return -1;
	int pend = pending();
	cudaError_t r = sync() < 0 ? cudaErrorLaunchFailure : cvt_run(c, 0, a->base, a->mirror, n);
	if (r == cudaSuccess && sync() < 0)
		r = cudaErrorLaunchFailure;
	if (r != cudaSuccess) {
		quiet(r, pend);
		a->cvt = -1;   /* its memory kept, its contents unknown */
		return -1;
	}
	a->cvt = c;
	a->form = BOTH;
	atomic_fetch_add(&rt.live, 1);
	t->narrow++;
	t->narrowbytes += a->size;
	return 0;
}

void
orig_all(struct tally *t)
{
	for (int i = 0; i < rt.n; i++)
		to_orig(&rt.a[i], t);
}

void
stale_all(void)
{
	for (int i = 0; i < rt.n; i++)
		stale(&rt.a[i]);
}

/* the index of the first allocation that ends after p */
static int
first(uintptr_t p)
{
	int lo = 0, hi = rt.n;
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if ((uintptr_t)rt.a[mid].base + rt.a[mid].size <= p)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct alloc *
alloc_find(const void *p)
{
	int i = first((uintptr_t)p);
	return i < rt.n && (uintptr_t)rt.a[i].base <= (uintptr_t)p ? &rt.a[i] : NULL;
}

/* the allocations [p, p+n) overlaps (n 0: the one holding p), from *i
 * on: the next one, or NULL */
static struct alloc *
overlap(uintptr_t p, size_t n, int *i)
{
	uintptr_t end = n && p + n > p ? p + n : p + 1;
	if (*i < 0)
		*i = first(p);
	return *i < rt.n && (uintptr_t)rt.a[*i].base < end ? &rt.a[(*i)++] : NULL;
}

void
reads(const void *p, size_t n, struct tally *t)
{
	int i = -1;
	for (struct alloc *a; (a = overlap((uintptr_t)p, n, &i));)
		to_orig(a, t);
}

void
writes(const void *p, size_t n, struct tally *t)
{
	int i = -1;
	uintptr_t lo = (uintptr_t)p, hi = lo + n;
	for (struct alloc *a; (a = overlap((uintptr_t)p, n, &i));) {
		/* a write of all of it needs nothing back: a memset each step */
		if (lo > (uintptr_t)a->base || hi < (uintptr_t)a->base + a->size)
			to_orig(a, t);
		stale(a);
	}
}

static void
remove_at(int i)
{
	unmirror(&rt.a[i]);
	memmove(&rt.a[i], &rt.a[i + 1], (rt.n - i - 1) * sizeof *rt.a);
	rt.n--;
}

void
alloc_add(void *p, size_t n)
{
	if (atomic_load(&rt.off) || !p || !n)
		return;
	int i = first((uintptr_t)p);
	/* what still overlaps it was freed where the runtime could not see */
	while (i < rt.n && (uintptr_t)rt.a[i].base < (uintptr_t)p + n)
		remove_at(i);
	if (rt.n == rt.cap) {
		int cap = rt.cap ? 2 * rt.cap : 64;
		struct alloc *a = realloc(rt.a, cap * sizeof *a);
		if (!a)
			return;   /* untracked: its pointers run the originals */
		rt.a = a;
		rt.cap = cap;
	}
	memmove(&rt.a[i + 1], &rt.a[i], (rt.n - i) * sizeof *rt.a);
	rt.a[i] = (struct alloc){.base = p, .size = n, .form = ORIG, .cvt = -1};
	rt.n++;
}

void
alloc_del(void *p)
{
	int i = first((uintptr_t)p);
	if (i < rt.n && rt.a[i].base == p)
		remove_at(i);
}

void
store_reset(const char *why)
{
	for (int i = 0; i < rt.n; i++)
		stale(&rt.a[i]);
	rt.n = 0;
	snprintf(rt.offwhy, sizeof rt.offwhy, "%s", why);
	atomic_store(&rt.off, 1);
}

int
rt_device(void)
{
	int d;
	if (atomic_load(&rt.off) || cudaGetDevice(&d) != cudaSuccess)
		return !atomic_load(&rt.off);
	if (rt.dev < 0 || !rt.n)
		rt.dev = d;   /* nothing tracked is on another one */
	if (d == rt.dev)
		return 1;
	char why[64];
	snprintf(why, sizeof why, "a second device (%d, after %d)", d, rt.dev);
	store_off(why, &rt.api[S_cudaSetDevice]);
	return 0;
}

void
store_off(const char *why, struct tally *t)
{
	if (atomic_load(&rt.off))
		return;
	snprintf(rt.offwhy, sizeof rt.offwhy, "%s", why);
	int cur = -1, mirrors = 0;
	for (int i = 0; i < rt.n; i++)
		mirrors |= rt.a[i].mirror != NULL;
	if (mirrors && cudaGetDevice(&cur) == cudaSuccess && rt.dev >= 0 && cur != rt.dev)
		__real_cudaSetDevice(rt.dev);
	orig_all(t);
	while (rt.n)
		remove_at(rt.n - 1);
	if (mirrors && cur >= 0 && rt.dev >= 0 && cur != rt.dev)
		__real_cudaSetDevice(cur);
	atomic_store(&rt.off, 1);
}
