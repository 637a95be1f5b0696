/* param.h: the parameters of a pass, declared once as a schema that every
 * reader and writer of them walks (doc/DESIGN.md, "Adding a pass").
 *
 * A pass lists its parameters in a table: name, kind, range or words,
 * default and one line of help. From that one table come
 *   - the two readers: a rule's YAML block (load.c) and the text form
 *     "key=value,..." (mpcc-opt -p NAME:..., and overrides); both convert
 *     each value with param_word(), so a value gets the same message in both;
 *   - the writers: JSON for the report, the words of --mpcc-explain, the
 *     text form itself and YAML flow (params_write());
 *   - the man pages, which a test checks against the schemas.
 *
 * Layers: driver -> transforms -> policies -> model -> ptx -> common; an
 * include never points up (tests/driver/t-layers.sh checks it). The passes
 * live in transforms/, so the policy layer knows them only as the schemas
 * that the layer above hands to policy_passes() before loading any policy. */
#ifndef MPCC_PARAM_H
#define MPCC_PARAM_H

#include "common/util.h"
#include "model/facts.h"

enum {          /* param.kind */
	PINT,       /* an integer in [lo, hi] */
	PNUM,       /* a number in (lo, hi] */
	PBOOL,      /* true or false */
	PENUM,      /* one of words */
	PSET,       /* a non-empty set of words: YAML [a, b]; text [a,b] or a+b */
	PSETS,      /* one of words, an integer N in [lo, hi], or a list of ids (>= 0) */
	PSTR,       /* a string: a file name (tool parameters), a hash */
	PNUMS,      /* a list of numbers in [lo, hi], maybe empty: YAML [1, 2.5]; text [1,2.5] */
};

enum {          /* param.flags */
	PTOOL = 1 << 0,  /* mpcc-opt only: not in policies, reports or explain */
	PFACT = 1 << 1,  /* takes the fact of its name (model/facts.h's FACTS), of the kind
	                  * of its own: mpcc-tune sets it from its timing build */
};

/* what a PSETS value holds besides a word (value.i >= 0 is the word's index) */
enum { SETS_N = -1, SETS_IDS = -2 };

struct param {
	const char *name;
	int kind, flags;
	double lo, hi;            /* PINT, PNUM, PSETS (N) */
	const char *const *words; /* PENUM, PSET, PSETS: NULL-terminated */
	const char *item;         /* PSET: what one word is, for messages ("approximation") */
	const char *def;          /* default in the text form; NULL: required (a PTOOL
	                           * parameter is never required) */
	const char *help;         /* one line, for man pages and mpcc-opt --help */
};

#define MAXPARAM 8
#define MAXPASS 8

struct value {
	long i;         /* PINT; PBOOL 0/1; PENUM word index; PSET bit mask of words;
	                 * PSETS word index, SETS_N or SETS_IDS */
	double x;       /* PNUM; PSETS: N */
	long *ids;      /* PSETS SETS_IDS */
	double *xs;     /* PNUMS */
	int nids;       /* items of ids or xs */
	const char *s;  /* PSTR; NULL when not given */
};

struct params;
struct schema {
	const char *name;         /* the rule key and mpcc-opt -p NAME: "sfu" */
	const char *help;         /* one line */
	const struct param *param;
	int nparam;
	/* optional: lines saying what the parameters mean for a kernel, for
	 * --mpcc-explain, each starting with 11 spaces */
	void (*describe)(FILE *out, const struct params *p);
};

/* a pass's parameters as one rule (or one -p) gives them, defaults filled in */
struct params {
	const struct schema *s;
	struct value v[MAXPARAM];
	uint given;               /* bit i: param i was written, not defaulted */
};

/* param.c */
/* the passes' schemas, in the order the passes run; set by policy_passes() */
extern const struct schema *const *schemas;
extern int nschema;
void policy_passes(const struct schema *const *s, int n);
int schema_find(const char *name, size_t n);   /* index into schemas, or -1 */
int param_find(const struct schema *s, const char *name, size_t n);  /* or -1 */
/* Convert one scalar as written (quoted: it was a quoted YAML string) into
 * v; for PSET and the ids of PSETS, one item of the list. NULL, or the
 * message (malloc'd), without position: "'lambda' must be between 0 and 64,
 * not 65" */
char *param_word(const struct param *p, const char *word, int quoted, struct value *v);
/* finish a list value read item by item (PSET: at least one word) */
char *param_list_end(const struct param *p, int nitems);
/* "an integer", "true or false", "f16, bf16 or f32": what p expects */
char *param_expect(const struct param *p);
/* for a missing required parameter: "'sfu' needs 'lambda' (0 to 64)" */
char *param_missing(const struct schema *s, const struct param *p);
/* did-you-mean: the name in names closest to s (NULL if none is close);
 * names joined as "a, b, c" (malloc'd); "unknown WHAT 'S'IN; did you mean
 * 'x'?" or "... (known: a, b)" (malloc'd) */
char *policy_list(const char *const *names, int n);
char *unknown_msg(const char *what, const char *s, const char *in, const char *const *names, int n);
/* the message for an unknown key of s, with a suggestion or the known ones */
char *param_unknown(const struct schema *s, const char *key, int tool);
/* the defaults of s into p (given = 0); -1 if a default does not convert (a BUG) */
void params_default(const struct schema *s, struct params *p);
/* Read the text form "key=value,key=[a,b],..." (a+b also writes a list)
 * into p, defaults first. tool: accept PTOOL parameters (mpcc-opt). 0, or
 * -1 and *err (malloc'd) says what is wrong, as the YAML reader would. Lists
 * and strings are allocated in a. */
int params_parse(const struct schema *s, const char *text, int tool, Arena *a,
                 struct params *p, char **err);
/* one parameter's value as a number or word list (for passes' own use) */
int params_has(const struct params *p, int k);   /* written, not defaulted */
/* does p give the hash of the PTX its facts were measured on (an FK_HASH
 * fact written)? */
int params_hashed(const struct params *p);
/* the facts p gives (its PFACT parameters), into f: not given, not known */
void params_facts(const struct params *p, struct facts *f);

/* writers: every parameter but the PTOOL ones and empty PNUMS and PSTR, in
 * schema order */
enum { W_JSON, W_EXPLAIN, W_TEXT, W_YAML };
/* {"lambda":48,"approx":["div"],"newton":false} | lambda=48 approx=[div] newton=false |
 * lambda=48,approx=[div],newton=false | {lambda: 48, approx: [div], newton: false} */
void params_write(struct buf *b, const struct params *p, int style);
char *params_str(const struct params *p, int style);   /* malloc'd */
char *numstr(double x);   /* a double in as few digits as read back the same */

#endif
