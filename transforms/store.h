/* store.h: what the files of the store pass share (store.c: the pass,
 * which arrays to keep narrow, what it reports, explains and gives the
 * host object's table; store-clone.c: the clone that reads and writes
 * them narrow). Private to those files. */
#ifndef MPCC_STORE_H
#define MPCC_STORE_H

#include "ptx/ptx.h"
#include "transforms/pass.h"

/* the suffix of a kernel's clone: KERNEL_mpcc_store */
#define CLONESUFFIX "_mpcc_store"

/* one parameter's narrowing: its array's element type and the narrow one */
struct narrow {
	int ty;         /* Tf64 or Tf32; Tnone: left as it is */
	int nt;         /* Tf32, Tbf16 or Tf16 */
};

/* store-clone.c */
/* Add to fn's module the clone of fn named name that reads and writes the
 * arrays of the parameters nw[k] names (nw[k].ty != Tnone) in their narrow
 * type; fn is left as it is. The clone, or NULL with *why set (a name
 * taken). needs nothing; breaks nothing of fn */
Fn *store_clone(Fn *fn, const struct narrow *nw, const char *name, const char **why);

#endif
