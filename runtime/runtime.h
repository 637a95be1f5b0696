/* runtime.h: libmpccrt, the runtime of mpcc's store transform (issue 47),
 * linked by the driver (driver/link.c) into programs whose kernels have
 * clones that read and write some arrays narrow (f64 as f32, f32 as
 * bf16 or f16). It runs inside users' programs: C11, CUDA's runtime API
 * and libc, nothing of mpcc's compiler (its own room: no file here
 * includes a header of the compiler, nor one of the compiler a header of
 * this folder; tests/driver/t-layers.sh). The interface with the compiler
 * is the store table (below) and nothing else.
 *
 * The link wraps every entry point of syms.h marked W (ld --wrap): the
 * program's calls come to __wrap_NAME here, which calls __real_NAME, the
 * CUDA runtime's. The library adds no other name to the program: its
 * objects are linked into one and the rest made local (CMakeLists.txt). The runtime knows each device allocation it saw made
 * (cudaMalloc and its kin) and the form its data is in:
 *   ORIG    only the original is valid (no mirror, or a stale one);
 *   BOTH    the original is valid and the mirror is narrow(original);
 *   NARROW  a clone wrote the mirror: the original is frozen since the
 *           mirror was made and is the truth only where the mirror did
 *           not change.
 * A conversion is synchronous (cudaDeviceSynchronize before and after):
 * to narrow converts the whole allocation (mirror[i] = cvt.rn(orig[i]));
 * back writes orig[i] = widen(mirror[i]) only where mirror[i] differs,
 * bit for bit, from cvt.rn(orig[i]), so that what no clone changed (data
 * of another type in the same allocation: a pool) keeps its bits.
 *
 * At a launch (launch.c): an unknown kernel (no table entry, or a
 * library's) or an open one gets every allocation back to the original
 * first and leaves every mirror stale; a closed kernel gets the original
 * form of what its parameters reach; a clone runs when store is on, every
 * narrowed parameter points into a tracked allocation at a multiple of the
 * element width, and no other parameter reaches the same allocation.
 * Every other reader and writer (memcpy and memset of every kind, the
 * host through them) sees the original form (copy.c). What the runtime
 * cannot follow switches store off for the rest of the process, every
 * array written back first: a second device, peer access, IPC and pool
 * export, stream capture, the driver API's entry points, dlopen of a
 * library that is not CUDA's own (api.c). Graph launches and batched
 * copies find every allocation in the original form.
 *
 * The store table, as the compiler writes it (transforms/store.c, line();
 * driver/table.c puts it in the host object):
 * 16-byte entries {const void *fatbin; const char *spec;} in section
 * mpcc_store, walked from __start_mpcc_store to __stop_mpcc_store, zeros
 * skipped; fatbin is the address the translation unit registers with
 * __cudaRegisterFatBinary, spec is
 *   1 MANGLED CLONE OPEN NPARAMS P0 ... P(NPARAMS-1)
 * CLONE "-" for none; OPEN "c" (every global access through the marked
 * parameters) or "o"; Pi "-" (not dereferenced), "r", "w", or
 * "r:f64>f32"-like (narrow in the clone; f64>f32 f32>bf16 f32>f16
 * f64>bf16 f64>f16). An entry of another version, or one that does not
 * parse, leaves its kernel unknown. What this runtime adds to the
 * contract, where the contract leaves it open:
 *   - an open kernel ("o") never runs its clone: a pointer it loads may
 *     reach a narrowed allocation whose original is stale;
 *   - marks r and w are read as a pointer (8 bytes) from the launch's
 *     argument; before the first launch that needs them, each marked
 *     parameter is checked to be 8 bytes (cudaFuncGetParamInfo) and the
 *     kernel to have as many parameters as the entry says, else the
 *     kernel is unknown;
 *   - the clone is registered under the kernel's fatbin handle with a
 *     host address of the runtime's and checked once
 *     (cudaFuncGetAttributes) before its first launch; a clone that fails
 *     that check, a launch, or an attribute the program sets on its kernel,
 *     is never launched again (the originals run);
 *   - MPCC_STORE_CHECK compares the narrowed arrays a clone writes within
 *     one unit in the last place of the narrow type, and the other arrays
 *     it writes bit for bit: atomics in the narrow type can differ by more;
 *   - the link: the contract's "-Xlinker @WRAPFILE" cannot work, since gcc
 *     expands @FILE itself before -Xlinker takes it (each --wrap becomes an
 *     unknown gcc option); the driver passes the list as one argument,
 *     -Xlinker --wrap=A,--wrap=B,..., which nvcc splits into -Xlinker
 *     pairs. mpccrt.wrap keeps one --wrap=NAME a line, for ld itself
 *     (-Wl,@FILE in a link made by hand, as the tests link);
 *   - besides a second device and peer access, store goes off (everything
 *     written back first) at stream capture, IPC and pool exports, the
 *     driver API's entry points (cudaGetDriverEntryPoint) and dlopen of a
 *     library that is not CUDA's own: all let something the runtime does
 *     not see reach the program's allocations;
 *   - under -rdc a unit registers no fatbinary of its own (nvcc's device
 *     link registers one for all), so a table entry naming a unit's
 *     fatbinary never matches one: its kernels stay unknown (originals).
 *
 * Files, each calling only those after it:
 *   launch.c  the launch wrappers and the decision: which kernel, which forms
 *   check.c   MPCC_STORE_CHECK: the original beside the clone, compared
 *   copy.c    memcpy and memset of every kind: they see the original form
 *   api.c     allocations, free, devices, peers, graphs, capture, dlopen
 *   kern.c    the store table, kernels and their lookup, clones, attributes
 *   report.c  the environment (MPCC_STORE*), and MPCC_STORE_REPORT at exit
 *   state.c   the lock, allocations and their forms, store off
 *   cvt.c     the conversion kernels (PTX text, loaded on first need), the
 *             same conversions on the host for the check, and the runtime's
 *             own CUDA errors kept off the program's
 * lists.c is not in the library: the build runs it to write mpccrt.wrap and
 * mpccrt.syms from syms.h.
 *
 * Thread safety: one lock (state.c) around everything that reads or
 * changes the tables, held across the CUDA call it guards, so that no
 * other thread's conversion comes between a decision and its call. The
 * idle path takes none: a launch of a kernel without a narrowing clone,
 * and any copy or set, while no allocation has a valid mirror, costs a
 * lookup (kern_find(), lock-free) and two atomic loads.
 *
 * Layers: runtime -> CUDA runtime, libc (a room of its own) */
#ifndef MPCC_RUNTIME_H
#define MPCC_RUNTIME_H

#define CUDA_ENABLE_DEPRECATED   /* the deprecated entry points are wrapped too */
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

/* Everything declared below is hidden: the build links the objects into
 * one (ld -r) and makes these symbols local (objcopy --localize-hidden),
 * so that the library adds no name to a program but the __wrap_ functions
 * (the program may well have a function called reads()) */
#pragma GCC visibility push(hidden)

/* syms.h: S_NAME indexes every entry point of the table */
enum sym {
#define X(name, kind) S_##name,
#include "runtime/syms.h"
#undef X
	NSYM
};

enum { ORIG, BOTH, NARROW };   /* an allocation's form */

/* the conversions, in the order of cvts[] */
enum { F64F32, F32BF16, F32F16, F64BF16, F64F16, NCVT };
struct cvtinfo {
	const char *name;    /* "f64>f32", as the spec writes it */
	const char *id;      /* "f64_f32", in the conversion kernels' names */
	int wide, narrow;    /* element bytes */
	int sh;              /* log2(wide / narrow): mirror offset = offset >> sh */
};

struct tally {           /* conversions caused, for the report */
	unsigned long narrow, narrowbytes, back, backbytes;
};

struct alloc {
	char *base;
	size_t size;
	int form;
	int cvt;             /* the mirror's conversion, -1: no mirror memory */
	char *mirror;        /* kept, stale, in ORIG: the next conversion reuses it */
	size_t msize;
};

/* why a launch of a kernel with a clone ran the original */
enum why { W_OFF, W_UNTRACKED, W_INTERIOR, W_ALIAS, W_OPEN, W_CLONE, W_CONVERT, NWHY };

struct param {
	char use;            /* '-', 'r', 'w' */
	signed char cvt;     /* narrow in the clone: F64F32..., else -1 */
};

struct checked {         /* MPCC_STORE_CHECK, per parameter */
	unsigned long launches, elements, beyond;
	double worst;        /* the largest difference, in units of the narrow type's ulp */
};

struct kern {
	const char *name;    /* mangled, as registered */
	const void *hostfun;
	void **module;       /* the fatbin handle it was registered under */
	int known;           /* an entry of the table describes it (0: unknown) */
	int open;
	int ready;           /* 0 its entry not checked against the kernel yet, 1 checked */
	int nparam;
	struct param *param;
	char *clone;         /* the clone's name, NULL: none */
	atomic_int narrows;  /* a usable clone with a narrowed parameter: launches
	                      * take the lock (read by the idle path) */
	int clonestate;      /* 0 not checked, 1 checked, -1 unusable */
	cudaKernel_t clonek; /* the clone's handle, once checked */
	char anchor;         /* &anchor: the clone's host function */
	unsigned long nclone, norig, why[NWHY];
	struct tally *t;     /* [nparam + 1]: per parameter, then every other array */
	struct checked *chk; /* [nparam], MPCC_STORE_CHECK */
	struct kern *next;   /* every kernel, in registration order */
};

struct rt {
	pthread_mutex_t lock;
	struct alloc *a;     /* sorted by base */
	int n, cap;
	atomic_int live;     /* allocations whose mirror is valid (BOTH, NARROW) */
	atomic_int off;      /* store off: originals only, nothing tracked */
	char offwhy[160];
	int dev;             /* the one device the allocations are on, -1: none yet */
	int check;           /* MPCC_STORE_CHECK */
	char *report;        /* MPCC_STORE_REPORT */
	struct tally api[NSYM];   /* by each entry point, and by store off (S_cudaSetDevice...) */
	struct tally unknown;     /* by launches of kernels mpcc never saw registered */
	unsigned long nunknown;
	struct kern *kerns;  /* every kernel, in registration order */
	atomic_int readied;  /* kern_readyall() ran */
};
extern struct rt rt;

/* the idle path: nothing in any form but the original */
static inline int
idle(void)
{
	return atomic_load_explicit(&rt.off, memory_order_relaxed) ||
	       !atomic_load_explicit(&rt.live, memory_order_acquire);
}

/* launch.c: the wrappers only */
enum { MAXPARAM = 256 };   /* a kernel with more parameters runs as an open one */

/* check.c */
/* what a launch's parameter i reaches: the allocation, and for a narrowed
 * one its conversion and the offset into it */
struct use {
	struct alloc *a;
	int cvt;             /* -1: plain */
	size_t off;
	char *arg;           /* the pointer the program passed */
};
struct call;
/* MPCC_STORE_CHECK: run the clone with nargs, then the original (args
 * are the program's) on the same rounded inputs, compare what both wrote,
 * keep the clone's; the clone's launch status */
cudaError_t check_launch(const struct call *c, struct kern *k, struct use *u, void **args,
                         void **nargs);
/* the wrappers' launch, the same for every entry point */
struct call {
	/* launch the original (clone 0) or k's clone with args */
	cudaError_t (*go)(const struct call *c, struct kern *k, int clone, void **args);
	const void *fn;      /* the host function or cudaKernel_t launched */
	dim3 grid, block;
	size_t shmem;
	cudaStream_t stream;
	const cudaLaunchConfig_t *config;   /* cudaLaunchKernelExC */
	int ptsz;            /* the _ptsz twin */
};

/* copy.c, api.c: the wrappers only */

/* kern.c */
/* the kernel a launch names (host function or cudaKernel_t), or NULL;
 * takes no lock */
struct kern *kern_find(const void *key);
/* under the lock: k's entry checked against the kernel once (0: k is now
 * unknown); and its clone (1: ready to launch) */
int kern_ready(struct kern *k);
int clone_ready(struct kern *k);
/* under the lock, at the first allocation or launch with no error of the
 * program's pending: every kernel registered so far, and its clone,
 * checked (a check is never made while one is: its failure would take
 * the place of the program's error; a program that leaves an error
 * pending and never reads it would otherwise keep the kernels it first
 * launches after it unchecked, and run them as open ones, for good) */
void kern_readyall(void);
/* under the lock: the clone failed to launch where the original did not */
void clone_drop(struct kern *k);

/* report.c */
extern const char *const symname[NSYM];
void rt_init(void);        /* the environment, once (at the first registration) */
void report_write(void);   /* atexit, with MPCC_STORE_REPORT */

/* state.c */
void rt_enter(void);       /* take the lock */
void rt_leave(void);
int rt_inside(void);       /* this thread holds the lock */
/* under the lock: the current device is the one of the allocations (else
 * store goes off: 0) */
int rt_device(void);
/* under the lock: switch store off for the rest of the process, every
 * allocation written back first (the conversions counted in t) */
void store_off(const char *why, struct tally *t);
/* under the lock: the allocation holding p, or NULL */
struct alloc *alloc_find(const void *p);
void alloc_add(void *p, size_t n);
void alloc_del(void *p);   /* at its free */
/* under the lock: store off, the allocations forgotten: their memory is
 * gone (cudaDeviceReset), nothing to write back */
void store_reset(const char *why);
/* under the lock: to the forms; -1 when a conversion failed (the form
 * is then what it was) */
int to_narrow(struct alloc *a, int cvt, struct tally *t);
int to_orig(struct alloc *a, struct tally *t);
void stale(struct alloc *a);
void orig_all(struct tally *t);
void stale_all(void);
/* under the lock: [p, p+n) is read (the original made valid) or written
 * (made valid, then the only valid form); n 0: the allocation at p */
void reads(const void *p, size_t n, struct tally *t);
void writes(const void *p, size_t n, struct tally *t);
/* cvt.c */
/* a CUDA call of the runtime's own that failed: its error taken off
 * the thread's last error, unless the program had one pending (pend) */
void quiet(cudaError_t r, int pend);
int pending(void);
extern const struct cvtinfo cvts[NCVT];
int cvt_parse(const char *s, size_t n);   /* "f64>f32" -> F64F32, else -1 */
char *cvt_ptx(int c);      /* the module of c's two kernels; malloc'd */
int cvt_load(int c);       /* that module loaded, once: 0, or -1 when it does not load here */
/* launch c's conversion of n elements: to narrow (back 0) or back; no
 * synchronization; the launch's status */
cudaError_t cvt_run(int c, int back, void *orig, void *mirror, size_t n);
/* host side, for the check: element i of a wide array, of a narrow one
 * widened, and one unit in the last place of the narrow type at v */
double cvt_wide(int c, const void *wide, size_t i);
double cvt_widen(int c, const void *narrow, size_t i);
void cvt_put(int c, void *wide, size_t i, double v);   /* a wide element */
double cvt_ulp(int c, double v);

#pragma GCC visibility pop

#endif
