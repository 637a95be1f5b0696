/* shadow.h: what the files of the shadow pass share. shadow.c is the pass
 * (measure=error's twins, measure=time's timer reads, the module's totals
 * and the exit .func that prints them); shadow-trips.c counts measure=time's
 * loop trips in the kernel's body. shadow.c calls shadow-trips.c, never the
 * other way. Private to them.
 *
 * Module-level names of kernel number N start with "__mpcc_shN_" (P below):
 * Ptrips is the .u64 totals of the trip counts, two per loop (heads, then
 * entries) in looporder(); shadow.c declares it and prints it. */
#ifndef MPCC_SHADOW_H
#define MPCC_SHADOW_H

#include "ptx/ptx.h"
#include "transforms/pass.h"

/* what a timing build counts of a kernel's loops */
struct trips {
	uint nloop;             /* the kernel's loops (fillloops) */
	const char *why;        /* why their trips are not counted (in the module's
	                         * arena); NULL: every loop is counted */
};

/* shadow-trips.c */
/* fn's loops and whether every back edge can take a counter's add; changes
 * only the analyses (needs nothing; fills cfg, loops and defuse of fn) */
struct trips trips_plan(Fn *fn);
/* the counters of fn's loops (trips_plan() said none is refused): declared,
 * zeroed at bodystart(), added to at each header and back edge. Returns the
 * exit block's lines that add each thread's counts into Ptrips (labels as
 * "NAME:", made by newlbl()), NULL-terminated, for oneexit() */
const char **trips_count(Fn *fn, const char *p);

#endif
