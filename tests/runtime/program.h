/* program.h: the program the runtime's tests run, as nvcc would have
 * compiled it with mpcc's store clones: two translation units (two
 * fatbinaries), their store table in section mpcc_store, the kernels'
 * host stubs and, for the fake runtime, their bodies and their clones'.
 * program() registers them as nvcc's constructors would; launch() launches
 * as a <<<>>> does (__cudaGetKernel, then __cudaLaunchKernel). */
#ifndef MPCC_TEST_PROGRAM_H
#define MPCC_TEST_PROGRAM_H

#include "tests/runtime/fake.h"

/* the host stubs: one address per kernel */
extern char axpy_h, scale_h, touch_h, zero_h, mix_h, half_h, opened_h, missing_h, future_h,
	bad_h, lib_h, wrong_h, axpyb_h, bscale_h, hscale_h, qscale_h;

/* what the clones saw, and touch read */
extern void *seen[4];
extern double touched;

void program(void);
/* k's launch on stream s with the arguments args points to */
cudaError_t launch(const void *k, void **args, cudaStream_t s);
/* the usual ones: scale(y, a, n) and axpy(y, x, a, n) on the default stream */
cudaError_t scale(void *y, double a, int n);
cudaError_t axpy(void *y, const void *x, double a, int n);
cudaError_t run1(const void *k, void *p, int n);   /* k(p, n) */

#endif
