/* check.c: MPCC_STORE_CHECK, the clone checked against its original on
 * every launch. Before the clone runs, each narrowed allocation gets a
 * wide copy of what the clone reads (its mirror widened: the same rounded
 * inputs), and each plain allocation the kernel writes a copy on the host.
 * The clone runs; what it wrote to the plain arrays is kept aside and
 * their contents before it put back; the original runs on the wide copies
 * and the plain arrays. Then the narrowed arrays the kernel writes are
 * compared element by element (a difference beyond one unit in the last
 * place of the narrow type is said), the plain ones byte for byte, and the
 * program goes on with the clone's results, as without the check. All of
 * it synchronous, under the lock: a mode for tests and for users in doubt. */
#include "runtime/runtime.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern __typeof__(cudaMalloc) __real_cudaMalloc;
extern __typeof__(cudaFree) __real_cudaFree;
extern __typeof__(cudaMemcpy) __real_cudaMemcpy;

struct copy {            /* one allocation the launch reaches */
	struct alloc *a;
	int cvt;             /* narrowed: its conversion; -1 plain */
	char *wide;          /* narrowed: the device's wide copy */
	char *before, *after;/* plain: on the host, before and after the clone */
};

/* n bytes of the device at dev, on the host (malloc'd), or NULL */
static void *
host(const void *dev, size_t n)
{
	char *h = malloc(n ? n : 1);
	if (h && __real_cudaMemcpy(h, dev, n, cudaMemcpyDeviceToHost) != cudaSuccess) {
		free(h);
		h = NULL;
	}
	return h;
}

/* the narrowed allocation's wide copy: its mirror widened, and the bytes
 * past the last whole element as they are */
static int
widecopy(struct copy *cp)
{
	struct alloc *a = cp->a;
	size_t n = a->size / cvts[cp->cvt].wide;
	char *w = host(a->base, a->size), *m = host(a->mirror, n * cvts[cp->cvt].narrow);
	int ok = w && m && __real_cudaMalloc((void **)&cp->wide, a->size) == cudaSuccess;
	for (size_t i = 0; ok && i < n; i++)
		cvt_put(cp->cvt, w, i, cvt_widen(cp->cvt, m, i));
	ok = ok && __real_cudaMemcpy(cp->wide, w, a->size, cudaMemcpyHostToDevice) == cudaSuccess;
	free(w);
	free(m);
	return ok ? 0 : -1;
}

/* the allocations of u, each once, into cp[0..*n): the narrowed ones, and
 * the plain ones the kernel writes; -1 when a copy failed */
static int
copies(struct kern *k, struct use *u, struct copy *cp, int *n)
{
	for (int i = 0; i < k->nparam; i++) {
		int j = 0;
		while (j < *n && cp[j].a != u[i].a)
			j++;
		if (!u[i].a || j < *n || (u[i].cvt < 0 && k->param[i].use != 'w'))
			continue;
		cp[*n] = (struct copy){.a = u[i].a, .cvt = u[i].cvt};
		struct copy *x = &cp[(*n)++];
		if (x->cvt >= 0 ? widecopy(x) < 0 : !(x->before = host(x->a->base, x->a->size)))
			return -1;
	}
	return 0;
}

static struct copy *
copyof(struct copy *cp, int n, struct alloc *a)
{
	for (int j = 0; j < n; j++)
		if (cp[j].a == a)
			return &cp[j];
	return NULL;
}

/* one narrowed parameter's array after both kernels: its elements
 * compared, counted in k->chk[i] and said */
static void
compare(struct kern *k, int i, struct use *u, struct copy *cp)
{
	struct alloc *a = u->a;
	int c = cp->cvt;
	size_t n = a->size / cvts[c].wide, bad = 0, at = 0;
	char *w = host(cp->wide, a->size), *m = host(a->mirror, n * cvts[c].narrow);
	double worst = 0, cw = 0, cm = 0;
	for (size_t e = 0; w && m && e < n; e++) {
		double want = cvt_wide(c, w, e), got = cvt_widen(c, m, e);
		double d = fabs(got - want) / cvt_ulp(c, want);
		if (got == want || (isnan(got) && isnan(want)))
			continue;
		if (isnan(d) || d > 1)
			bad++;
		if (isnan(d) || d > worst)
			worst = isnan(d) ? INFINITY : d, at = e, cw = want, cm = got;
	}
	k->chk[i].launches++;
	k->chk[i].elements += n;
	k->chk[i].beyond += bad;
	if (worst > k->chk[i].worst)
		k->chk[i].worst = worst;
	if (bad)
		fprintf(stderr, "mpcc: store check: %s: parameter %d (%s): %zu of %zu elements differ "
		        "beyond one rounding (element %zu: clone %.17g, original %.17g)\n",
		        k->name, i, cvts[c].name, bad, n, at, cm, cw);
	free(w);
	free(m);
}

/* a plain array the kernel writes: the original's bytes against the clone's */
static void
compare_plain(struct kern *k, int i, struct copy *cp)
{
	struct alloc *a = cp->a;
	char *now = host(a->base, a->size);
	size_t bad = 0;
	for (size_t e = 0; now && cp->after && e < a->size; e++)
		bad += now[e] != cp->after[e];
	k->chk[i].launches++;
	k->chk[i].elements += a->size;
	k->chk[i].beyond += bad;
	if (bad)
		fprintf(stderr, "mpcc: store check: %s: parameter %d (not narrowed): %zu of %zu bytes "
		        "differ\n", k->name, i, bad, a->size);
	free(now);
}

/* the original, its narrowed arguments pointing into the wide copies */
static cudaError_t
original(const struct call *c, struct kern *k, struct use *u, void **args, struct copy *cp, int n)
{
	void *oargs[MAXPARAM], *val[MAXPARAM];
	for (int i = 0; i < k->nparam; i++) {
		struct copy *x = u[i].cvt >= 0 ? copyof(cp, n, u[i].a) : NULL;
		oargs[i] = args[i];
		if (x) {
			val[i] = x->wide + u[i].off;
			oargs[i] = &val[i];
		}
	}
	return c->go(c, k, 0, oargs);
}

static void
release(struct copy *cp, int n)
{
	for (int j = 0; j < n; j++) {
		if (cp[j].wide)
			__real_cudaFree(cp[j].wide);
		free(cp[j].before);
		free(cp[j].after);
	}
}

/* the plain arrays as the clone left them kept aside, and as they were
 * before it put back: 0, or -1 (nothing changed) */
static int
setback(struct copy *cp, int n)
{
	for (int j = 0; j < n; j++)
		if (cp[j].cvt < 0 && !(cp[j].after = host(cp[j].a->base, cp[j].a->size)))
			return -1;
	for (int j = 0; j < n; j++)
		if (cp[j].cvt < 0)
			__real_cudaMemcpy(cp[j].a->base, cp[j].before, cp[j].a->size, cudaMemcpyHostToDevice);
	return 0;
}

cudaError_t
check_launch(const struct call *c, struct kern *k, struct use *u, void **args, void **nargs)
{
	struct copy cp[MAXPARAM];
	int n = 0;
	if (copies(k, u, cp, &n) < 0) {
		fprintf(stderr, "mpcc: store check: %s: cannot copy its arrays: not checked\n", k->name);
		release(cp, n);
		return c->go(c, k, 1, nargs);
	}
	cudaDeviceSynchronize();
	cudaError_t r = c->go(c, k, 1, nargs);
	if (r != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess || setback(cp, n) < 0) {
		release(cp, n);
		return r;
	}
	if (original(c, k, u, args, cp, n) == cudaSuccess && cudaDeviceSynchronize() == cudaSuccess)
		for (int i = 0; i < k->nparam; i++) {
			struct copy *x = u[i].a && k->param[i].use == 'w' ? copyof(cp, n, u[i].a) : NULL;
			if (x && x->cvt >= 0)
				compare(k, i, &u[i], x);
			else if (x)
				compare_plain(k, i, x);
		}
	for (int j = 0; j < n; j++)   /* the program goes on with the clone's results */
		if (cp[j].cvt < 0)
			__real_cudaMemcpy(cp[j].a->base, cp[j].after, cp[j].a->size, cudaMemcpyHostToDevice);
	release(cp, n);
	return r;
}
