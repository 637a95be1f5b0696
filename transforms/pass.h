/* pass.h: the passes, their one table, and the pipeline that the driver's
 * PTX hook calls.
 *
 *   passes.c    the table                 pipeline.c  the driver's PTX hook
 *   passctx.c   what a pass may ask of    mpcc-opt.c  passes on a .ptx file
 *               the run (targets, twins)  audit.c     --mpcc-warn: the passes'
 *   report.c    the report's lines                    warnings, said once
 *   stats.c     their stats objects
 *   sfu.c  shadow*.c (shadow.h)  fiset*.c (fiset.h)  half2*.c (half2.h): one
 *   pass each
 *
 * Analyses come from ptx/, costs from model/: a pass computes neither.
 *
 * A pass is one file with one entry in the table of passes.c (doc/STYLE.md,
 * "A pass"; doc/DESIGN.md, "Adding a pass"): its schema (the parameters, which
 * the policy layer reads from .mpcc.yaml rules and mpcc-opt from -p
 * NAME:key=value,...), the keys of its statistics (struct field: the
 * report's "stats" object is written through them, stats.c), what it does
 * to one kernel, optionally what it says for --mpcc-explain and dumps for
 * mpcc-opt -d NAME, what mpcc-tune does with it (struct tuning), the
 * warning its analysis gives (struct warning: --mpcc-warn=NAME), and the
 * settings scripts/sweep.sh runs. The pipeline, the report, explain,
 * mpcc-opt, mpcc-tune and the sweep all walk the table; nothing else names
 * a pass.
 *
 * Layers: driver -> transforms -> policies -> model -> ptx -> common. This
 * header may include policies/, model/ and ptx/; nothing below includes it. */
#ifndef MPCC_PASS_H
#define MPCC_PASS_H

#include "common/util.h"
#include "model/model.h"
#include "policies/policy.h"
#include "ptx/ptx.h"

/* what the fast path of sfu may approximate: the bits of its 'approx' set */
enum {
	AX_TRANS = 1 << 0,  /* sin cos exp log ... through the SFU (cicc -fast-math) */
	AX_DIV = 1 << 1,    /* f32 div.approx/div.full (cicc -prec_div=0), f64 div through rcp.approx */
	AX_SQRT = 1 << 2,   /* sqrt.approx (cicc -prec_sqrt=0), f64 sqrt through rsqrt.approx */
	AX_RCP = 1 << 3,    /* rcp.approx for f32 and f64 */
	AX_FTZ = 1 << 4,    /* flush denormals (cicc -ftz=1) */
	AX_ALL = (1 << 5) - 1,
};

/* What the driver tells the pipeline about one PTX file that cicc wrote and
 * that ptxas and fatbinary will read next. */
struct hook {
	const char *src;       /* the .cu input that produced the PTX */
	const char *arch;      /* "compute_90" */
	const int *sm;         /* the sm_NN that ptxas builds from this PTX (90 for sm_90) */
	int nsm;               /* 0: the PTX is only embedded (JIT-compiled at load) */
	int jit;               /* a fatbinary step embeds the PTX too: newer GPUs JIT-compile it */
	const struct profile *prof;  /* effective profile; NULL: identity round trip */
	/* The PTX of the same source from a second cicc run with the fast-math
	 * flags for the approximations in mask (AX_*); NULL if it failed. The
	 * driver owns the file, runs cicc at most once per mask, keeps it under
	 * --keep. */
	const char *(*fastptx)(void *drv, uint mask);
	void *drv;
	struct reports *reports; /* report lines go here; the driver writes them once
	                        * the PTX reached the output (NULL: none wanted) */
	int dryrun;            /* --mpcc-dryrun: say what would run, change nothing */
	struct args *kernels;  /* the mangled names of the module's kernels go here (may be NULL) */
	struct args *table;    /* the lines of the host object's table that passes give
	                        * (struct pass, table), one a kernel of a module where a
	                        * pass with a table changed one; NULL: not wanted */
	struct tally *tally;   /* what became of the kernels, counted (may be NULL) */
	FILE *explain;         /* --mpcc-explain: print explain_kernel() per entry here, change nothing */
	/* The driver runs the hook in a child process (driver/contain.c): each
	 * kernel's mangled name and each pass is written to progress before it
	 * runs (NULL: not asked), so that a child that dies tells on which;
	 * the kernels of crash[0..ncrash) are then left as nvcc wrote them */
	FILE *progress;
	const struct crash *crash;
	int ncrash;
};

/* a kernel whose pass hit an internal error (BUG, a signal, out of memory
 * or time) in a child process of the driver */
struct crash {
	char *mangled;
	const char *pass;   /* passes[t]->schema.name, or "the PTX hook" */
	char *why;          /* "BUG at fiset-lower.c:69: fiset: immediate" */
};
/* the crash of c[0..n) that left kernel mangled as nvcc wrote it, or NULL */
const struct crash *crash_of(const struct crash *c, int n, const char *mangled);
/* the reason a crashed kernel's report and explain give */
char *crash_reason(const struct crash *c);

/* per pass (passes[t]), outcomes of kernels on each PTX (a kernel of two
 * -gencode chains counts twice), for mpcc --mpcc-summary */
struct tally {
	int applied[MAXPASS], advised[MAXPASS], refused[MAXPASS];
};

/* One run of the passes over a module: what every pass may ask. */
struct passctx {
	Module *m;
	const char *src;        /* for messages: the .cu (driver) or the .ptx (mpcc-opt) */
	const char *arch;       /* "compute_90" of the PTX, NULL if unknown */
	const int *sm;          /* the targets ptxas builds from it (see struct hook) */
	int nsm;
	int jit;                /* embedded as PTX too (see struct hook) */
	const struct hook *h;   /* the driver's hook; NULL under mpcc-opt */
	uint changed;           /* bit t: passes[t] changed the kernel being worked on */
	const char *counted;    /* the first of those whose report counts the kernel's
	                         * instructions and cannot recount them (struct pass,
	                         * recount); NULL: none (passes_ran() sets both) */
	int keephash;           /* a rule gives a PTX hash (params_hashed()): keep */
	const Fn *hashed;       /* the kernel being worked on, and */
	uint hash;              /* fnhash() of it as nvcc wrote it (facts measured on
	                         * it hold while it is the same: fiset's ptx) */
	Module *fast[AX_ALL + 1];  /* sfu: the fast-math twins by mask, parsed once */
	Module **loaded;        /* passctx_load(): modules by path, parsed once */
	char **loadedpath;
	int nloaded;
	int checked;            /* passctx_refuse(): m verified, before any pass ran */
	char *invalid;          /* why m does not verify, NULL if it does */
};
/* passctx.c */
/* the sm_NN of the module's .target (sm_90 -> 90), else of the driver's
 * arch; -1 if neither says */
int ptxsm(const struct passctx *cx);
/* the registers a thread of kernel fn takes on sm_NN, as ptxas -v says
 * of m with fn its only kernel (ptxas on PATH: the driver's is nvcc's);
 * -1 if ptxas cannot say. spill (NULL: not asked): the bytes a thread
 * spills and reloads */
int ptxasregs(const Module *m, const Fn *fn, int sm, int spill[2]);
/* the demangled name of fn, in its module's arena */
const char *demangled(const Fn *fn);
/* why no pass may run on cx->m: it does not verify (malloc'd), or NULL.
 * A pass's contract starts from PTX that verifies, as ptxas takes it; the
 * module is verified at the first call, which comes before any pass */
char *passctx_refuse(struct passctx *cx);
/* the module at path, parsed once per run (NULL with a message if it does
 * not parse or verify) */
Module *passctx_load(struct passctx *cx, const char *path);
/* the driver's fast-math twin of cx->m for mask, parsed once; NULL if none */
Module *passctx_fast(struct passctx *cx, uint mask);
void passctx_release(struct passctx *cx);   /* frees what was parsed, not m */

/* what became of one kernel: why NULL means applied (both malloc'd) */
struct outcome {
	char *why;              /* why the kernel was left as it was */
	char *stats;            /* the pass's statistics (statw_end()), or NULL */
	int advised;            /* with why: the pass's own answer, nothing to do or will
	                         * not pay, not a refusal: the report and explain say
	                         * it, no warning, never an error (on_unsupported is for
	                         * what a rule asked and could not get) */
	int crashed;            /* with why: the pass hit an internal error on the kernel
	                         * (struct crash): the driver said it; counted as a
	                         * refusal, no warning, never an error */
	char *table;            /* without why: the kernel's line of the host object's
	                         * table (struct pass, table), or NULL */
};

/* A key of a pass's statistics (stats.c). A pass declares them in a table,
 * as it declares its parameters: the report's "stats" object is written
 * through that table, mpcc-opt --stats lists it, and mpcc-tune reads the
 * keys by their role, never by their name. */
enum {          /* field.kind */
	FINT,       /* an integer (or null) */
	FNUM,       /* a number with digits decimals (or null; inf and nan are null) */
	FBOOL,
	FSTR,       /* a string (or null) */
	FINTS,      /* a list of integers */
	FTARGETS,   /* an object of numbers (digits decimals), one per target: {"sm_90":1.25} */
	FOBJ,       /* an object of the keys sub */
	FLIST,      /* a list of objects of the keys sub */
};
enum {          /* field.role: what mpcc-tune reads a key as */
	RNONE,
	RPREDICTED, /* FNUM or FTARGETS: the speed-up the pass predicts (the worst target) */
	RUNITS,     /* FLIST: the parts of a kernel that the pass's PSETS knob lists by id */
	RID,        /* FINT in a unit: its id */
	RRATIO,     /* FNUM in a unit: arithmetic over casts, GPUMixer's r_ac (mode 3's order) */
	RCHOSEN,    /* FBOOL in a unit: applied in this build */
	RINS,       /* FINTS in a unit, FINT in an op: instruction ordinals, as the
	             * instrumentation numbers them */
	ROPS,       /* FLIST: the operations an instrumented build reports on */
	RNAME,      /* FSTR in an op: its opcode */
	RNOPS,      /* FINT: how many operations of that kind the kernel has; more
	             * than ROPS lists: those are a sample */
};
struct field {
	const char *name;
	int kind, role;
	int digits;                 /* FNUM, FTARGETS */
	const struct field *sub;    /* FOBJ, FLIST (a pass's root is an FOBJ) */
	int nsub;
	const char *help;           /* one line */
};
/* writes one stats object: keys by their index in the open object's sub */
struct statlevel {
	const struct field *f;
	int kind;                   /* FOBJ (an object or a list's item), FLIST, FINTS, FTARGETS */
	int next, count;            /* FOBJ: the next key allowed; what was written */
};
struct statw {
	struct buf b;
	struct statlevel lv[8];
	int depth;
};

/* What mpcc-tune may do with a pass (doc/DESIGN.md, "Tuning"); NULL: nothing. */
enum { TUNE_TRANSFORM = 1, TUNE_PROBE };   /* tuning.role */
struct tuning {
	int role;
	/* TUNE_TRANSFORM: the parameter searched, whose kind says how: PINT a
	 * grid from lo (the kernel as nvcc made it: no run) to hi, by HEU,
	 * linear or exhaustive; PENUM each of its words; PSETS the units its
	 * stats list (RUNITS), in GPUMixer's modes, besides its words */
	const char *knob;
	const char *strongest;  /* the setting of --transform auto's probe build */
	/* a second probe's setting, for the kernels the strongest leaves
	 * alone (store's float arrays: type=bf16); the knob's every trial on
	 * such a kernel keeps its parameters other than the knob. NULL: none */
	const char *fallback;
	/* its arrays are shared across kernels (store: an array one kernel
	 * keeps narrow and another reads in its original form is converted at
	 * each change of form): after the searches, what they kept with the
	 * probes' setting on every hot kernel they left without the pass is
	 * one more candidate */
	int joint;
	/* where a runtime carries the pass out (store): the environment
	 * variable under which a program's run writes what it did (mpcc-tune
	 * sets it to a file in each trial's directory), and, given that file's
	 * text and a kernel, the parameters whose arrays were converted to the
	 * narrow form again at most of the kernel's launches (another reader
	 * wants them as they were): into drop[], how many (at most max).
	 * NULL: none */
	const char *runreport;
	int (*flipped)(const char *report, const char *kernel, long *drop, int max);
	double guess;           /* the speed-up auto assumes where the stats predict none */
	const char *axis;       /* the x axis of its plots */
	/* TUNE_PROBE: the settings of the timing build (the run prints
	 * "mpcc-time KERNEL LAUNCHES NS THREADS BLOCK NSMID START END" as
	 * launches end,
	 * and "mpcc-trips KERNEL LAUNCHES LOOP HEADS ENTRIES" per loop) and of
	 * the shadow build ("mpcc-shadow KERNEL INS LAUNCHES ERROR") */
	const char *timing, *shadow;
};

/* What a pass's audit finds at one source line of a kernel as cicc made
 * it, for --mpcc-warn (audit.c says it). */
struct finding {
	uint file, line;        /* of the .loc before it; 0: the PTX has none there */
	uint cfile, cline;      /* where that code was inlined (the call site); 0: not */
	const char *text;       /* what it is, naming the kernel */
	const char *fix;        /* what the pass with its defaults (NAME: {}) does to
	                         * it on this chain's targets */
};

/* A warning a pass's analysis gives, --mpcc-warn=NAME: it only reads the
 * kernel, so it runs with or without a rule for the pass. */
struct warning {
	const char *name;       /* "fp64" */
	const char *help;       /* one line: what it warns of */
	/* the findings in kernel fn of cx->m, read only (analyses may be
	 * refreshed), into *out in the module's arena; their number */
	int (*audit)(struct passctx *cx, Fn *fn, struct finding **out);
};

struct pass {
	struct schema schema;   /* name, parameters, explain's words */
	const struct field *stats;  /* the keys of its statistics (an FOBJ); NULL: none */
	/* Rewrite kernel fn of cx->m (a .entry with a body) as p says. 0:
	 * applied; -1: fn is left exactly as it was, o->why says why. */
	int (*apply)(struct passctx *cx, Fn *fn, const struct params *p, struct outcome *o);
	/* optional: what the pass sees in fn, for --mpcc-explain (lines
	 * starting with 11 spaces) */
	void (*explain)(FILE *out, struct passctx *cx, Fn *fn, const struct params *p);
	/* optional: after the last pass of the build ran on kernel fn, which
	 * the pass changed (apply returned 0 with o->stats), restate in
	 * o->stats the figures that count the kernel's code, so that the
	 * report is a fact about the PTX that ships (half2, after fiset, runs
	 * each f64 operation fiset left once per lane) */
	void (*recount)(Fn *fn, struct outcome *o);
	/* optional: mpcc-opt -d NAME after the pass ran on fn */
	void (*dump)(FILE *out, struct passctx *cx, Fn *fn, const struct params *p);
	/* optional: the fast-math cicc runs (bit M: approximation mask M) that
	 * a rule with p will ask for whatever its kernels are, so that the
	 * driver starts them beside the accurate cicc */
	uint (*fastmasks)(const struct params *p);
	/* optional, for a pass whose clones a runtime in the program launches
	 * (store): each kernel of a module where the pass changed one gets a
	 * line of the host object's table, which the runtime reads (apply
	 * gives it in o->table for a kernel it changed); this is the line of
	 * kernel fn that it left as it was. malloc'd */
	char *(*table)(struct passctx *cx, Fn *fn);
	const struct tuning *tune;  /* optional: what mpcc-tune does with it */
	const struct warning *warn; /* optional: the warning its analysis gives */
	/* the settings scripts/sweep.sh runs on real code (mpcc-opt
	 * --settings), NULL-terminated; the first also goes into the chain of
	 * every transform */
	const char *const *sweep;
};

/* passes.c */
/* free what an outcome holds (why, stats, table) and clear it */
void outcome_release(struct outcome *o);
/* every pass, in the order the pipeline runs them on a kernel */
extern const struct pass *const passes[];
extern const int npass;
void passes_init(void);     /* hand the schemas to the policy layer; call once first */
const struct pass *findpass(const char *name, size_t n);   /* NULL if none */
/* the pass whose warning is name[0..n) (passes[i]), or -1 */
int findwarning(const char *name, size_t n);
/* tell cx which passes changed its kernel fn so far (bit t: passes[t]):
 * cx->changed and cx->counted, before the next pass runs on it; and, the
 * first time and with cx->keephash, its hash (printing a kernel to hash it
 * costs as much as parsing it: only where a rule will compare it) */
void passes_ran(struct passctx *cx, Fn *fn, uint changed);
/* why passes[t] leaves a kernel alone that a pass after it in the table's
 * order changed already (changed, bit u: passes[u]): they compose in that
 * order only; NULL if none did. malloc'd */
char *passes_order(uint changed, int t);

/* audit.c */
/* one finding of one kernel on one -gencode chain, kept by the driver
 * until it says them (malloc'd strings) */
struct found {
	char *src, *arch;       /* the .cu, and the chain's compute_NN (NULL: not known) */
	char *kernel;           /* mangled; NULL: only says that the chain was audited */
	char *where;            /* "st.cu:6"; NULL: no line */
	char *text, *fix;
	int pass;               /* passes[pass]'s warning */
};
struct findings {
	struct found *f;
	int n, cap;
};
/* the warnings of the passes in mask (bit t: passes[t]'s) on every kernel
 * of the PTX at path as cicc wrote it, into out; changes nothing. A line of
 * h->src is named as h->src names the file. 0, or -1 if the PTX does not
 * parse (said) */
int audit_ptx(const char *path, const struct hook *h, uint mask, struct findings *out);
/* say the findings of src, each once however many chains found it (naming
 * the chains where not all did, or where what the pass does to it
 * differs), as errors for the passes in werror; then drop them. The number
 * of errors said */
int audit_say(struct findings *fs, const char *src, uint werror);

/* report.c */
struct report {
	const char *src, *arch, *mangled, *demangled;
	const char *transform;  /* the pass: schemas[t]->name */
	const char *params;     /* JSON object text, e.g. {"lambda":32,"approx":[...]} */
	int applied;
	const char *reason;     /* why it was not applied, or NULL */
	const char *stats;      /* JSON object text of the transform's statistics, or NULL */
	const char *profile;    /* optional: the profile name */
	const char *rule;       /* optional: "path:line:col" of the rule (struct rule's where) */
	const char *ptxas;      /* optional: JSON object of ptxas -v's figures per sm_NN */
};
/* append one JSON line to path; one write(2) on an O_APPEND descriptor under
 * flock, so concurrent compiles (make -j) never interleave. NULL strings are
 * written as null, NULL params/stats as {}. 0, or -1 after a warning. */
int report_append(const char *path, const struct report *r);
/* the JSON object report_append writes, without the newline; malloc'd */
char *report_line(const struct report *r);

/* reports kept until the PTX they describe has reached the output (the
 * driver writes them after ptxas accepted it) */
struct reports {
	struct report *r;
	int n, cap;
};
void reports_add(struct reports *l, const struct report *r);   /* copies r's strings */
/* append each to path; restored: nvcc's PTX replaced the transformed one,
 * so nothing was applied and this is why. Empties l. */
void reports_flush(struct reports *l, const char *path, const char *restored);
/* the value of key in the JSON object text line (a report line, or an
 * object in one): a string unquoted, anything else as written; NULL if
 * absent (malloc'd) */
char *jget(const char *line, const char *key);
/* line with the value of its key (JSON text, e.g. "12") replaced; a copy
 * if it has no such key (malloc'd) */
char *jset(const char *line, const char *key, const char *value);

/* stats.c */
void statw_begin(struct statw *w, const struct field *root);   /* root: the pass's stats */
void statw_int(struct statw *w, int k, long v);
void statw_num(struct statw *w, int k, double v);
void statw_bool(struct statw *w, int k, int v);
void statw_str(struct statw *w, int k, const char *s);          /* NULL: null */
void statw_null(struct statw *w, int k);
void statw_open(struct statw *w, int k);   /* an FINTS, FTARGETS, FOBJ or FLIST key */
void statw_item(struct statw *w);          /* the next object of the open FLIST */
void statw_elem(struct statw *w, long v);  /* the next integer of the open FINTS */
void statw_target(struct statw *w, int sm, double v);   /* "sm_NN": v in the open FTARGETS */
void statw_close(struct statw *w);         /* the open list, object or item */
char *statw_end(struct statw *w);          /* the JSON object (malloc'd) */
/* the first key of obj (an FOBJ or FLIST) with role, NULL if none */
const struct field *field_role(const struct field *obj, int role);

/* pipeline.c */
/* Rewrite the PTX file at path in place with the passes that h->prof
 * selects. 0: written (possibly unchanged); -1: the file is left as it was
 * and a reason was printed (the driver then goes on with nvcc's PTX); 1:
 * left as it was, and a transform a rule asked for was refused under
 * on_unsupported: error (said): the compile fails. */
int pipeline(const char *path, const struct hook *h);
/* MPCC_DEBUG_BREAK_KERNEL=NAME: called after the passes changed kernel fn;
 * if NAME is its mangled or demangled name, make fn something the
 * verifier rejects (a branch to a label never placed), to exercise what
 * follows a pass's bad output: the driver's fallback to nvcc's code,
 * mpcc-opt's refusal to write it */
void breakkernel(Fn *fn);
/* The fast-math cicc runs that h->fastptx will likely be asked for on src,
 * before cicc has named its kernels: the passes' fastmasks() of every rule
 * whose files globs match src and one of whose kernels globs may name a
 * kernel of text (n bytes; cicc's preprocessed input; NULL: any may). The
 * driver starts them beside the accurate cicc and stops those nobody asked
 * for; other masks run on demand (sfu: only when the kernel has something
 * they change). */
uint pipeline_fastmasks(const struct profile *p, const char *src, const char *text, size_t n);

#endif
