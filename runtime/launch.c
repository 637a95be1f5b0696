/* launch.c: every kernel launch, and which kernel runs on which forms.
 * The wrappers of the launch entry points (the <<<>>> stub's
 * __cudaLaunchKernel, cudaLaunchKernel, cudaLaunchKernelExC,
 * cudaLaunchCooperativeKernel and their _ptsz twins) describe the launch
 * in a struct call, whose go() launches the original or the clone the
 * same way. launch() decides (runtime.h says how); the idle path, a
 * kernel without a narrowing clone while nothing is narrow anywhere, goes
 * straight to the CUDA runtime without the lock. */
#include "runtime/runtime.h"

#include <string.h>

cudaError_t __real___cudaLaunchKernel(cudaKernel_t k, dim3 g, dim3 b, void **args, size_t sh,
                                      cudaStream_t s);
cudaError_t __real___cudaLaunchKernel_ptsz(cudaKernel_t k, dim3 g, dim3 b, void **args,
                                           size_t sh, cudaStream_t s);
extern __typeof__(cudaLaunchKernel) __real_cudaLaunchKernel, __real_cudaLaunchKernel_ptsz,
	__wrap_cudaLaunchKernel, __wrap_cudaLaunchKernel_ptsz;
extern __typeof__(cudaLaunchKernelExC) __real_cudaLaunchKernelExC,
	__real_cudaLaunchKernelExC_ptsz, __wrap_cudaLaunchKernelExC, __wrap_cudaLaunchKernelExC_ptsz;
extern __typeof__(cudaLaunchCooperativeKernel) __real_cudaLaunchCooperativeKernel,
	__real_cudaLaunchCooperativeKernel_ptsz, __wrap_cudaLaunchCooperativeKernel,
	__wrap_cudaLaunchCooperativeKernel_ptsz;

static void *
argptr(void **args, int i)
{
	void *p;
	memcpy(&p, args[i], sizeof p);
	return p;
}

/* the original, on the original form of what its parameters reach */
static cudaError_t
closed_launch(const struct call *c, struct kern *k, void **args)
{
	struct alloc *w[MAXPARAM];
	int nw = 0;
	for (int i = 0; i < k->nparam; i++) {
		struct alloc *a = k->param[i].use == '-' ? NULL : alloc_find(argptr(args, i));
		if (a)
			to_orig(a, &k->t[i]);
		if (a && k->param[i].use == 'w')
			w[nw++] = a;
	}
	cudaError_t r = c->go(c, k, 0, args);
	while (nw)
		stale(w[--nw]);
	k->norig++;
	return r;
}

/* the original of a kernel that may reach any allocation */
static cudaError_t
open_launch(const struct call *c, struct kern *k, void **args)
{
	orig_all(k ? &k->t[k->nparam] : &rt.unknown);
	cudaError_t r = c->go(c, k, 0, args);
	stale_all();
	if (k)
		k->norig++;
	else
		rt.nunknown++;
	return r;
}

/* what each parameter of k's launch reaches, into u: -1 when the clone
 * can run on it, else why not */
static int
plan(struct kern *k, void **args, struct use *u)
{
	for (int i = 0; i < k->nparam; i++) {
		struct param *p = &k->param[i];
		u[i] = (struct use){.cvt = p->cvt};
		if (p->use == '-')
			continue;
		u[i].arg = argptr(args, i);
		u[i].a = alloc_find(u[i].arg);
		if (p->cvt < 0)
			continue;
		if (!u[i].a)
			return W_UNTRACKED;
		u[i].off = u[i].arg - u[i].a->base;
		if (u[i].off % cvts[p->cvt].wide)
			return W_INTERIOR;
	}
	for (int i = 0; i < k->nparam; i++)
		for (int j = 0; u[i].cvt >= 0 && j < k->nparam; j++)
			if (j != i && u[j].a == u[i].a && u[j].cvt != u[i].cvt)
				return W_ALIAS;   /* plain beside narrow, or two narrow types */
	return -1;
}

/* the forms the clone reads: narrowed arrays converted, the others
 * written back; -1 when a conversion failed */
static int
convert(struct kern *k, struct use *u)
{
	for (int i = 0; i < k->nparam; i++)
		if (u[i].a && u[i].cvt < 0 && to_orig(u[i].a, &k->t[i]) < 0)
			return -1;
	for (int i = 0; i < k->nparam; i++)
		if (u[i].cvt >= 0 && to_narrow(u[i].a, u[i].cvt, &k->t[i]) < 0)
			return -1;
	return 0;
}

/* the clone, its narrowed arguments pointing into the mirrors */
static cudaError_t
clone_launch(const struct call *c, struct kern *k, void **args, struct use *u)
{
	void *nargs[MAXPARAM], *val[MAXPARAM];
	for (int i = 0; i < k->nparam; i++) {
		nargs[i] = args[i];
		if (u[i].cvt >= 0) {
			val[i] = u[i].a->mirror + (u[i].off >> cvts[u[i].cvt].sh);
			nargs[i] = &val[i];
		}
	}
	int pend = pending();
	cudaError_t r = rt.check ? check_launch(c, k, u, args, nargs) : c->go(c, k, 1, nargs);
	if (r != cudaSuccess) {
		/* the original, on arrays no clone wrote (BOTH): a clone that fails
		 * where its original launches is never launched again */
		quiet(r, pend);
		k->why[W_CLONE]++;
		r = closed_launch(c, k, args);
		if (r == cudaSuccess)
			clone_drop(k);
		return r;
	}
	for (int i = 0; i < k->nparam; i++)
		if (u[i].a && k->param[i].use == 'w') {
			if (u[i].cvt >= 0)
				u[i].a->form = NARROW;
			else
				stale(u[i].a);
		}
	k->nclone++;
	return r;
}

/* under the lock: the launch, as runtime.h says */
static cudaError_t
decide(const struct call *c, struct kern *k, void **args)
{
	struct use u[MAXPARAM];
	int narrows = k && atomic_load(&k->narrows);
	if (atomic_load(&rt.off) || !rt_device()) {
		if (narrows)
			k->why[W_OFF]++, k->norig++;
		return c->go(c, k, 0, args);
	}
	if (!k || !kern_ready(k) || k->open || k->nparam > MAXPARAM) {
		if (narrows)
			k->why[W_OPEN]++;
		return open_launch(c, k, args);
	}
	if (!narrows || !clone_ready(k)) {
		if (narrows)
			k->why[W_CLONE]++;
		return closed_launch(c, k, args);
	}
	int why = plan(k, args, u);
	if (why < 0 && convert(k, u) == 0)
		return clone_launch(c, k, args, u);
	k->why[why < 0 ? W_CONVERT : why]++;
	return closed_launch(c, k, args);
}

static cudaError_t
launch(const struct call *c, void **args)
{
	struct kern *k = kern_find(c->fn);
	if (!atomic_load_explicit(&rt.readied, memory_order_relaxed) && rt.kerns &&
	    !atomic_load_explicit(&rt.off, memory_order_relaxed)) {
		rt_enter();
		kern_readyall();
		rt_leave();
	}
	if ((!k || !atomic_load_explicit(&k->narrows, memory_order_relaxed)) && idle())
		return c->go(c, k, 0, args);
	rt_init();
	rt_enter();
	cudaError_t r = decide(c, k, args);
	rt_leave();
	return r;
}

static cudaError_t
go_handle(const struct call *c, struct kern *k, int clone, void **args)
{
	cudaKernel_t f = clone ? k->clonek : (cudaKernel_t)c->fn;
	if (c->ptsz)
		return __real___cudaLaunchKernel_ptsz(f, c->grid, c->block, args, c->shmem, c->stream);
	return __real___cudaLaunchKernel(f, c->grid, c->block, args, c->shmem, c->stream);
}

static cudaError_t
go_func(const struct call *c, struct kern *k, int clone, void **args)
{
	const void *f = clone ? &k->anchor : c->fn;
	if (c->ptsz)
		return __real_cudaLaunchKernel_ptsz(f, c->grid, c->block, args, c->shmem, c->stream);
	return __real_cudaLaunchKernel(f, c->grid, c->block, args, c->shmem, c->stream);
}

static cudaError_t
go_ex(const struct call *c, struct kern *k, int clone, void **args)
{
	const void *f = clone ? &k->anchor : c->fn;
	if (c->ptsz)
		return __real_cudaLaunchKernelExC_ptsz(c->config, f, args);
	return __real_cudaLaunchKernelExC(c->config, f, args);
}

static cudaError_t
go_coop(const struct call *c, struct kern *k, int clone, void **args)
{
	const void *f = clone ? &k->anchor : c->fn;
	if (c->ptsz)
		return __real_cudaLaunchCooperativeKernel_ptsz(f, c->grid, c->block, args, c->shmem,
		                                               c->stream);
	return __real_cudaLaunchCooperativeKernel(f, c->grid, c->block, args, c->shmem, c->stream);
}

cudaError_t
__wrap___cudaLaunchKernel(cudaKernel_t f, dim3 g, dim3 b, void **args, size_t sh, cudaStream_t s)
{
	struct call c = {go_handle, f, g, b, sh, s, NULL, 0};
	return launch(&c, args);
}

cudaError_t
__wrap___cudaLaunchKernel_ptsz(cudaKernel_t f, dim3 g, dim3 b, void **args, size_t sh,
                               cudaStream_t s)
{
	struct call c = {go_handle, f, g, b, sh, s, NULL, 1};
	return launch(&c, args);
}

cudaError_t
__wrap_cudaLaunchKernel(const void *f, dim3 g, dim3 b, void **args, size_t sh, cudaStream_t s)
{
	struct call c = {go_func, f, g, b, sh, s, NULL, 0};
	return launch(&c, args);
}

cudaError_t
__wrap_cudaLaunchKernel_ptsz(const void *f, dim3 g, dim3 b, void **args, size_t sh,
                             cudaStream_t s)
{
	struct call c = {go_func, f, g, b, sh, s, NULL, 1};
	return launch(&c, args);
}

cudaError_t
__wrap_cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *f, void **args)
{
	if (!config)
		return __real_cudaLaunchKernelExC(config, f, args);
	struct call c = {go_ex, f, config->gridDim, config->blockDim, config->dynamicSmemBytes,
	                 config->stream, config, 0};
	return launch(&c, args);
}

cudaError_t
__wrap_cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t *config, const void *f, void **args)
{
	if (!config)
		return __real_cudaLaunchKernelExC_ptsz(config, f, args);
	struct call c = {go_ex, f, config->gridDim, config->blockDim, config->dynamicSmemBytes,
	                 config->stream, config, 1};
	return launch(&c, args);
}

cudaError_t
__wrap_cudaLaunchCooperativeKernel(const void *f, dim3 g, dim3 b, void **args, size_t sh,
                                   cudaStream_t s)
{
	struct call c = {go_coop, f, g, b, sh, s, NULL, 0};
	return launch(&c, args);
}

cudaError_t
__wrap_cudaLaunchCooperativeKernel_ptsz(const void *f, dim3 g, dim3 b, void **args, size_t sh,
                                        cudaStream_t s)
{
	struct call c = {go_coop, f, g, b, sh, s, NULL, 1};
	return launch(&c, args);
}
