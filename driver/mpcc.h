/* mpcc.h: the driver, laid out in pipeline order.
 * argv -> struct cmd (options.c) -> real nvcc (nvcc.c) -> nvcc -dryrun ->
 * steps (dryrun.c) -> run them, calling the PTX hook after each cicc (run.c),
 * with a second cicc run for the fast-math variant on demand (fast.c),
 * nvcc's dependency filter redone from the preprocessed file (deps.c), and
 * under mpcc-tune each step through a cache of their outputs (stepcache.c),
 * which makes a host object with new device code from a cached one
 * (embed.c); a link of objects with store clones gets the store runtime
 * (link.c).
 *
 * Layers: tune -> driver -> transforms -> policies -> model -> ptx -> common. */
#ifndef MPCC_DRIVER_H
#define MPCC_DRIVER_H

#include "common/util.h"
#include "policies/policy.h"

#include <string.h>
#include <sys/types.h>

/* strchrnul without _GNU_SOURCE */
static inline const char *
until(const char *s, int c)
{
	const char *p = strchr(s, c);
	return p ? p : s + strlen(s);
}

/* options.c */
enum {                 /* nvcc option flags */
	ARG = 1 << 0,      /* takes a value: "-o x", "-o=x" */
	THREADS = 1 << 1,  /* -t: nvcc refuses it with -dryrun, mpcc runs the steps itself */
	VERBOSE = 1 << 2,  /* -v: mpcc prints the #$ lines as nvcc would */
	DRYRUN = 1 << 3,
	INFO = 1 << 4,     /* --help, --version...: nothing to compile */
	UNSUP = 1 << 5,    /* the pipeline cannot follow it: nvcc runs unchanged */
	LANG = 1 << 6,     /* -x */
	OUT = 1 << 7,
	OPTF = 1 << 8,
	KEEP = 1 << 9,
	KEEPDIR = 1 << 10,
	DEPTARGET = 1 << 11,
	COMPILE = 1 << 12,
	DEPSONLY = 1 << 13, /* -M, -MM: dependencies instead of a compile */
	NONSYS = 1 << 14,   /* -MM, -MMD: without system headers */
	PHONY = 1 << 15,    /* -MP: a phony target for each header */
	DEPS = 1 << 16,     /* -MD, -MMD: dependencies beside the compile */
};

struct opt {
	const char *name;
	uint flags;
};

extern const struct opt nvopts[];
extern const int nnvopts;
struct mpopt {
	const char *name;
	int value;         /* 1: --mpcc-x=VALUE, 0: a flag, 2: either */
	const char *env;   /* the MPCC_* variable that sets it too */
	const char *arg;   /* the value's name in --mpcc-help: "FILE" */
	const char *help;  /* one line for --mpcc-help */
};
extern const struct mpopt mpopts[];
extern const int nmpopts;

struct cmd {
	struct args nv;    /* nvcc's arguments: argv[1..] minus --mpcc-* */
	struct args inputs;/* every input file nvcc will see */
	struct args cu;    /* the inputs compiled as CUDA */
	const char *policy, *profile, *report;
	const char *hashdir;  /* --mpcc-policy-hash=DIR */
	const char *check;    /* --mpcc-check-policy=FILE */
	int force, explain, dryrun, version, hash, help, summary;
	int noptxas;       /* --mpcc-report-no-ptxas: no figures in the report */
	struct args warns, werrors;  /* --mpcc-warn=, --mpcc-werror= (NAME,...) as given */
	uint warn, werror; /* the passes whose warnings they name (bit t: passes[t]);
	                    * werror is part of warn */
	int verbose, keep, info, threads, nvdryrun, depsonly, nonsys, phony;
	int deps;          /* a dependency output: the policy files go in it */
	const char *keepdir, *out, *deptarget;
	char *unsup;       /* why the pipeline cannot take this line, or NULL */
	char *nvcc;        /* launcher form: the compiler the line starts with */
	struct args cache; /* launcher form: ccache or sccache (and ccache's
	                    * KEY=VALUE settings) in front of that compiler */
	int cachekind;     /* 'c' ccache, 's' sccache */
};

const struct opt *nvopt(const char *arg, const char **val);
const struct mpopt *mpopt(const char *name);
void mpcc_help(FILE *out);   /* --mpcc-help */
int parse_args(struct cmd *c, int argc, char **argv);
void analyze(struct cmd *c);
void dryrun_args(const struct cmd *c, struct args *out, int explain);
char *cmd_sources(const struct cmd *c);
void summary_kept(const struct cmd *c);
void cmd_release(struct cmd *c);

/* nvcc.c */
int launcher(struct cmd *c);
void loopguard(void);
char *find_nvcc(const struct cmd *c);
char *nvcc_identity(const struct cmd *c);
_Noreturn void passthrough(const char *nvcc, const struct args *nv, int dryrun);

/* cache.c */
_Noreturn void runcached(const struct cmd *c, const char *nvcc);
void viacache(const struct cmd *c, const char *nvcc);

/* dryrun.c */
enum { S_VAR, S_CMD, S_DEPS, S_TEXT };
struct step {
	int kind;
	char *line;        /* what follows "#$ ", or the whole line for S_TEXT */
	char *name, *value;/* S_VAR */
	char *depsout;     /* S_DEPS: "> file", or NULL for stdout */
};
int dryrun_parse(const char *text, struct step **out);
void steps_release(struct step *s, int n);
/* sh's word splitting for nvcc's lines: quotes, backslashes, $NAME and
 * ${NAME} through lookup (NULL: no expansion); -1 on an unclosed quote */
int shsplit(struct args *out, const char *s, const char *(*lookup)(const char *));
const char *optval(const struct args *a, const char *name);
int optindex(const struct args *a, const char *name);

/* fast.c */
void fast_args(struct args *out, const struct args *cicc, uint mask, const char *prefix);
/* remove what a stopped run may have left of the files fast_args names */
void fast_unlink(const char *prefix);

/* figures.c */
struct figure {        /* ptxas -v on one entry function */
	char *name;        /* mangled */
	int sm, regs, stack, spillst, spillld;  /* -1: not said */
};
struct figures {
	struct figure *f;
	int n, cap;
};
/* read ptxas -v's stderr text, one figure per entry function compiled */
void figures_parse(struct figures *fs, const char *text);
/* the figure of kernel name on sm_NN with a register count, else NULL */
const struct figure *figure_find(const struct figures *fs, const char *name, int sm);
/* {"sm_90":{"registers":24,"stack_frame":32,"spill_stores":0,"spill_loads":0,
 * "registers_before":20},...} for the entry name (registers_before: of
 * nvcc's PTX, from before, where it says), or NULL if ptxas said nothing of
 * it; malloc'd */
char *figures_json(const struct figures *fs, const struct figures *before, const char *name);
void figures_release(struct figures *fs);
/* the line of ptxas -v on the PTX that the ptxas line a just accepted,
 * for the entries named; malloc'd */
char *figures_line(const struct args *a, const char *in, const char *in2,
                   const struct args *entries, const char *cubin);
struct reports;
/* the figures into the report lines (reps, of the source src) of their
 * kernels, then released */
void figures_report(struct reports *reps, const char *src, struct figures *figs,
                    struct figures *before);

/* deps.c */
/* target NULL: the first file's name with its suffix replaced by .o;
 * extra (may be NULL): files to list after the headers, the policy files */
int filterdeps(FILE *out, const char *ii, const char *target, int nonsystem, int phony,
               const struct args *extra);
/* the files that the line markers of preprocessed text name, each once, in
 * order of first appearance (nonsystem: not the system headers), onto out */
void markerfiles(const char *text, int nonsystem, struct args *out);

/* stepcache.c */
const char *stepcache_dir(void);  /* MPCC_STEP_CACHE, NULL when unset or empty */
void stepcache_fixnames(char *text);  /* tmpxft_<8 hex>_<8 hex> -> tmpxft_00000000_00000000 */
/* sh -c line, its stderr to err (NULL: ours), in this process group: through
 * the cache in dir (NULL: none) when the line is a step it keeps. tmp is the
 * compile's temporary directory, templ its mkdtemp template (as long) */
int stepcache_run(const char *dir, const char *tmp, const char *templ, const char *line,
                  const char *err);
/* with MPCC_STEP_LOG=FILE (mpcc-tune's, one a build), "KIND SECONDS HOW"
 * appended to FILE: KIND front (cudafe++, cicc, -E), ptxas, fatbinary,
 * host (-c), link (nvlink, a line with -o), transform (the hook), other;
 * HOW hit, embed, miss, or run (a step the cache does not keep) */
void stepcache_time(const char *kind, double secs, const char *how);

/* embed.c */
struct fatbinc {       /* nvcc's .fatbin.c: the fatbinary as the assembler's .quad lines */
	char *section;     /* the section it goes in: ".nv_fatbin", "__nv_relfatbin" (-rdc) */
	char *data;        /* its bytes, as the assembler puts them there */
	size_t n;
	char *shape;       /* the text without the bytes and their count */
	size_t nshape;
};
/* 0, or -1 when text[0..n) is not in the form nvcc 13 writes */
int fatbinc_parse(struct fatbinc *f, const char *text, size_t n);
void fatbinc_release(struct fatbinc *f);
/* does the ELF object obj[0..n) hold data[0..dn) as section name, in a
 * form elf_embed() can replace? NULL, or why not */
const char *elf_holds(const char *obj, size_t n, const char *name, const char *data, size_t dn);
/* obj with section name's bytes replaced by data[0..dn) into out: what the
 * assembler would have made of the same code with that section; NULL, or
 * why it cannot (out untouched) */
const char *elf_embed(struct buf *out, const char *obj, size_t n, const char *name,
                      const char *data, size_t dn);

/* table.c */
/* the lines of the host object's table that each -gencode chain's PTX
 * gave (chain[0..nchain)), one a kernel, onto out: where chains differ, a
 * line without the clone that says what any of them touches */
void table_merge(const struct args *const *chain, int nchain, struct args *out);
/* append lines to the stub cicc wrote, which the host compile includes,
 * when one gives a kernel a clone: 0 (written, or nothing to write), 1
 * (not written: a -rdc compile, whose kernels the device link registers),
 * -1 (said) */
int table_write(const char *stub, const struct args *lines);

/* run.c */
int run_pipeline(struct cmd *c, const char *nvcc, struct profile **prof);

/* link.c */
/* a line that links an executable from objects holding the store table
 * (or from .cu inputs with a store rule): the runtime's library and wrap
 * list onto c->nv, or one note saying why not (runtime/runtime.h) */
void link_store(struct cmd *c, struct profile **prof);

/* contain.c */
struct hook;
/* pipeline(path, h) in a child process with limits, its files in dir: a
 * kernel whose pass dies is left as nvcc wrote it, said once; a death
 * outside a kernel's passes leaves the file as nvcc wrote it (-1) */
int contained_pipeline(const char *path, const struct hook *h, const char *dir);

#endif
