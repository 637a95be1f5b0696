/* facts.h: the facts a run measures of a kernel (facts.c), apart from
 * model.h, which includes it, so that policies/param.h may read the list
 * without the IR.
 *
 * Layers: model -> ptx -> common; it includes nothing. */
#ifndef MPCC_MODEL_FACTS_H
#define MPCC_MODEL_FACTS_H

/* What a run of the program measured of a kernel (mpcc-tune --measure),
 * one line a fact: FACT(ID, key, kind). The key names it everywhere: the
 * parameter of a pass's schema that takes it (flag PFACT,
 * policies/param.h), the words mpcc-tune writes it in. Every layer expands
 * this list (struct facts, params_facts(), tune's kern_facts()), and no
 * other lists a fact (tests/driver/t-layers.sh): a new fact is one line
 * here, its measurement (tune/search/kernels.c) and its use. */
enum { FK_INT, FK_NUMS, FK_HASH };   /* a fact's kind: a schema's PINT, PNUMS, PSTR */
#define FACTS(FACT) \
	FACT(F_WARPS, "warps", FK_INT)   /* the warps an SM holds at once in its launches */ \
	FACT(F_TRIPS, "trips", FK_NUMS)  /* each loop's mean trips per entry (looporder()) */ \
	FACT(F_MEASURED, "measured", FK_NUMS)  /* fiset's candidates' speed-ups: [auto, all, noise] */ \
	FACT(F_PTX, "ptx", FK_HASH)      /* the hash of the PTX the others were measured on */
enum {
#define FACT(id, key, kind) id,
	FACTS(FACT)
#undef FACT
	NFACT
};
/* one fact of a kernel; not known: 0 and NULL */
struct fact {
	long i;            /* FK_INT */
	double *xs;        /* FK_NUMS: n items (known and none: not NULL, n 0) */
	int n;
	const char *s;     /* FK_HASH */
};
struct facts {
	struct fact f[NFACT];   /* by ID */
};
struct factdef {
	const char *key;
	int kind;
};
extern const struct factdef factdefs[NFACT];   /* by ID */
int fact_find(const char *key);   /* the ID of the fact of that key, -1 if none */

#endif
