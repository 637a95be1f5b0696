/* policy.h: .mpcc.yaml policies, loaded with libyaml (see man/mpcc.yaml.5).
 * A policy file holds profiles; a profile is an ordered list of rules; a rule
 * selects kernels (and optionally files) and carries one block per transform.
 * For each kernel and transform the last matching rule wins. */
#ifndef MPCC_POLICY_H
#define MPCC_POLICY_H

#include "common/util.h"

enum { T_SFU, T_FISET, T_HALF2, NTRANSFORM };
extern const char *const transform_name[NTRANSFORM];   /* "sfu", "fiset", "half2" */

/* what the fast path of sfu may approximate */
enum {
	AX_TRANS = 1 << 0,  /* sin cos exp log ... through the SFU (cicc -fast-math) */
	AX_DIV = 1 << 1,    /* f32 div.approx/div.full (cicc -prec_div=0), f64 div through rcp.approx */
	AX_SQRT = 1 << 2,   /* sqrt.approx (cicc -prec_sqrt=0), f64 sqrt through rsqrt.approx */
	AX_RCP = 1 << 3,    /* rcp.approx for f32 and f64 */
	AX_FTZ = 1 << 4,    /* flush denormals (cicc -ftz=1) */
	AX_ALL = (1 << 5) - 1,
};

enum { UNSUP_WARN, UNSUP_ERROR, UNSUP_SILENT };

struct sfu_params {
	int lambda;       /* 0..64: warps with %warpid < lambda take the fast path */
	uint approx;      /* AX_* mask, default AX_ALL */
	int newton;       /* 1: one Newton step refines the f64 approximations */
};

struct fiset_params {
	double min_ratio; /* r_ac threshold, default 1.5 */
	int sets;         /* -1: all sets over the threshold, 0: the best one, N: the N best */
};

struct half2_params {
	int bf16;         /* 0: f16x2 lanes, 1: bf16x2 lanes */
	int blocks;       /* 0: pair adjacent threads of a block, 1: matching threads of adjacent blocks */
};

struct rule {
	char **kernels;   /* globs on the demangled or mangled name */
	int nkernels;
	char **files;     /* globs relative to dir; none: every file */
	int nfiles;
	const char *dir;  /* directory of the policy file that defined the rule */
	const char *where;/* "path:line:col" of the rule, for explain and the report */
	uint has;         /* 1 << T_SFU | ... */
	struct sfu_params sfu;
	struct fiset_params fiset;
	struct half2_params half2;
};

struct profile {
	const char *name;
	const char *policy;   /* the nearest policy file, after inheritance */
	struct rule *rule;    /* parents' rules first, then the child's */
	int nrule;
	int on_unsupported;   /* UNSUP_* */
};

/* the choice for one kernel: for each transform the rule that won, or NULL */
struct choice {
	const struct rule *rule[NTRANSFORM];
};

/* policy.c */
/* The effective profile for the source file cu: --mpcc-policy (policy_opt) or
 * discovery, then --mpcc-profile (profile_opt) or default_profile. *out is
 * NULL when no policy file applies. 0 on success; -1 after printing
 * "file:line:col: error: ..." for a broken policy or an unknown profile. */
int policy_profile(const char *cu, const char *policy_opt, const char *profile_opt,
                   struct profile **out);
/* can some rule of p apply to the source file cu (its files globs match)? */
int profile_may_apply(const struct profile *p, const char *cu);
/* which rule wins for kernel (mangled and demangled names) of file cu */
void profile_match(const struct profile *p, const char *cu, const char *mangled,
                   const char *demangled, struct choice *c);
/* a hash of mpcc's version and the effective policies of cu, for ccache */
char *policy_hash(const char *cu, const char *policy_opt, const char *profile_opt);

/* report.c */
struct report {
	const char *src, *arch, *mangled, *demangled;
	const char *transform;  /* transform_name[] */
	const char *params;     /* JSON object text, e.g. {"lambda":32,"approx":[...]} */
	int applied;
	const char *reason;     /* why it was not applied, or NULL */
	const char *stats;      /* JSON object text of the transform's statistics, or NULL */
};
/* append one JSON line to path; one write(2) on an O_APPEND descriptor under
 * flock, so concurrent compiles (make -j) never interleave */
int report_append(const char *path, const struct report *r);

/* explain.c */
/* print, for one kernel of cu, which policy file, profile and rule apply and
 * what each transform would do with which parameters (--mpcc-explain) */
void explain_kernel(FILE *out, const struct profile *p, const char *cu,
                    const char *mangled, const char *demangled);

#endif
