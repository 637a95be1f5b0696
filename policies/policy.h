/* policy.h: .mpcc.yaml policies, loaded with libyaml (see man/mpcc.yaml.5).
 * A policy file holds profiles; a profile is an ordered list of rules; a rule
 * selects kernels (and optionally files) and carries one block per transform.
 * For each kernel and transform the last matching rule wins.
 *
 * Layers: driver -> transforms -> policies -> model -> ptx -> common; the
 * policies include only param.h and common/ (param.h says why). */
#ifndef MPCC_POLICY_H
#define MPCC_POLICY_H

#include "policies/param.h"

enum { UNSUP_WARN, UNSUP_ERROR, UNSUP_SILENT };

struct rule {
	char **kernels;   /* globs on the demangled or mangled name */
	const char **kwhere;  /* "path:line:col" of each kernels glob */
	int nkernels;
	char **files;     /* globs relative to dir; none: every file */
	int nfiles;
	const char *dir;  /* directory of the policy file that defined the rule */
	const char *where;/* "path:line:col" of the rule, for explain and the report */
	uint has;         /* bit t: the rule carries a block for schemas[t] */
	uint off;         /* bit t: "sfu: off": the rule switches schemas[t] off */
	struct params *param[MAXPASS];  /* the block of each pass in has */
};

struct profile {
	const char *name;     /* "" when the policy chooses none: no rule, nothing applies */
	const char *policy;   /* the nearest policy file, after inheritance */
	struct rule *rule;    /* parents' rules first, then the child's */
	int nrule;
	int on_unsupported;   /* UNSUP_* */
	const char *why;      /* how name was chosen: "--mpcc-profile", "MPCC_PROFILE",
	                       * "default_profile at f:l:c", or why there is none */
	const char **chain;   /* the policy files merged, nearest first (chain[0] == policy) */
	int nchain;
	const char *from;     /* "--mpcc-policy" or "MPCC_POLICY"; NULL: found by discovery */
	const char *override; /* MPCC_SET, whose rules come last (override.c); NULL: none */
};

/* the choice for one kernel: for each pass (schemas[t]) the rule that won, or NULL */
struct choice {
	const struct rule *rule[MAXPASS];
};

/* load.c */
/* one .mpcc.yaml as written, validated (the merge happens in policy.c) */
struct pprofile {
	const char *name, *where;
	int line;
	struct rule *rule;
	int nrule;
	int on_unsupported;   /* UNSUP_*, or -1: not set here */
};
struct policy {
	const char *path;     /* as opened: absolute when found by discovery */
	const char *dir;      /* absolute directory of the file: files globs start here */
	int root, inherit;
	const char *default_profile, *default_where;  /* NULL: not set here */
	int on_unsupported;   /* -1: not set here */
	struct pprofile *prof;
	int nprof;
	int nerr;             /* errors printed as it loaded: only policy_read() gives it */
	int unnamed;          /* with nerr: 'profiles' was not read, its names are unknown */
};
/* Load and validate one policy file; NULL after printing every problem as
 * "file:line:col: error: ...". Loaded files are cached by path. The passes'
 * schemas must have been registered (policy_passes()). */
struct policy *policy_load(const char *path);
/* The same, but a file whose errors it has just printed comes back, nerr
 * set, so that what needs the other files of its chain (default_profile
 * against their profiles) is reported in the same run; NULL for a file
 * that cannot be read or parsed, or that was found broken before. */
struct policy *policy_read(const char *path);
/* the .mpcc.yaml files at and above a directory, nearest first, "/" too:
 * start with *walk = xstrdup(dir); each call returns the next (malloc'd),
 * or NULL when none is left (and *walk is freed). The one walk the
 * driver, the policy hash and mpcc-tune's profile share */
char *policy_next(char **walk);

/* override.c */
/* Append the rules of MPCC_SET (if set) to *p, after its own so that they
 * win; with *p NULL, make a profile of them alone. 0, or -1 after printing
 * "MPCC_SET:1:COL: error: ..." (see man/mpcc.yaml.5, OVERRIDES). */
int override_apply(struct profile **p);

/* policy.c */
/* The effective profile for the source file cu: --mpcc-policy (policy_opt) or
 * discovery, then --mpcc-profile (profile_opt) or default_profile. When
 * policy_opt is NULL, MPCC_POLICY is read; when profile_opt is NULL,
 * MPCC_PROFILE is read (empty values count as unset). Discovery takes the
 * nearest .mpcc.yaml at or above cu's directory and merges its parents first
 * (inherit: true) up to a root: true file or /; policy_opt replaces it: that
 * file alone applies. *out is NULL when no policy file applies. 0 on success;
 * -1 after printing "file:line:col: error: ..." for a broken policy or an
 * unknown profile (the error lists the known ones). MPCC_SET's rules are
 * appended last (override_apply()), with or without a policy file. */
int policy_profile(const char *cu, const char *policy_opt, const char *profile_opt,
                   struct profile **out);
/* can some rule of p switch a transform on for the source file cu (its files
 * globs match)? 0 for p NULL: the driver then passes the compile through */
int profile_may_apply(const struct profile *p, const char *cu);
/* Which rule wins for kernel (mangled and demangled names) of file cu: for
 * each transform, the last rule whose files and kernels globs match and that
 * carries that transform's block; a later "off" resets it to NULL. A kernels
 * glob (fnmatch(3), no flags) matches if it matches the mangled name, the
 * demangled name, or the demangled name without return type and parameter
 * list ("BoxMuller*" matches "BoxMuller(float*, int)"; "ns::f<*>" matches
 * "void ns::f<int>(float*)"). p NULL: no rule. */
void profile_match(const struct profile *p, const char *cu, const char *mangled,
                   const char *demangled, struct choice *c);
/* "void ns::f<int>(float*, int)" -> "ns::f<int>": no parameters, no
 * return type; a kernels glob matches it as well as the full names.
 * malloc'd */
char *kernel_shortname(const char *demangled);
/* Does glob (fnmatch(3), no flags) name the kernel: its mangled name, its
 * demangled name, or shrt (a policy's glob takes kernel_shortname())? Any
 * name may be NULL. The one test of a kernel by a name a user gave: a
 * policy's kernels, mpcc-opt's kernels=, mpcc-tune's --kernels and knobs */
int kernel_named(const char *glob, const char *mangled, const char *demangled, const char *shrt);
/* does rule r select kernel (either name may be NULL) of file cu? */
int rule_match(const struct rule *r, const char *cu, const char *mangled, const char *demangled);
/* do r's files globs select cu (before any kernel name is known)? */
int rule_file_match(const struct rule *r, const char *cu);
/* Warn where a kernels glob of a rule that selects cu names none of its
 * kernels (their n mangled names) but would name one ignoring case, or,
 * for a glob without wildcards, within a small edit distance:
 * "f:l:c: warning: kernels glob 'Wave' matches no kernel of 'k.cu'; did
 * you mean 'wave'?", at most once per rule. A glob that merely names no
 * kernel of cu is no mistake: the rule may be for other files. */
void profile_unmatched(const struct profile *p, const char *cu, char *const *mangled, int n);
/* Validate the policy file path and the parents it inherits, as a compile
 * would see them (mpcc --mpcc-check-policy FILE). 0 or -1 after errors. */
int policy_check(const char *path);

/* hash.c */
/* A hash (32 hex digits, malloc'd) of mpcc's version and executable (size,
 * mtime), MPCC_POLICY/policy_opt
 * (its contents), MPCC_PROFILE/profile_opt, MPCC_SET and the policy files that can
 * affect cu: for a file, every .mpcc.yaml in its directory and above; for a
 * directory (or NULL: the current directory), every .mpcc.yaml below it too. For
 * ccache's compiler_check (mpcc --mpcc-policy-hash[=DIR]), see mpcc.yaml(5). */
char *policy_hash(const char *cu, const char *policy_opt, const char *profile_opt);

/* explain.c */
/* print, for one kernel of cu, which policy file, profile and rule apply and
 * what each pass would do with which parameters (--mpcc-explain), each
 * pass's lines followed by what more(out, t, params, arg) adds (the pass's
 * own view of the kernel; may be NULL); p NULL: says that no policy file
 * applies */
void explain_kernel(FILE *out, const struct profile *p, const char *cu,
                    const char *mangled, const char *demangled,
                    void (*more)(FILE *, int t, const struct params *, void *), void *arg);

#endif
