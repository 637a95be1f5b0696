/* policy.c: from a .cu file to its effective profile, and from a kernel to
 * the rules that win for it.
 *
 * Discovery walks up from the source's directory and collects the chain of
 * .mpcc.yaml files, nearest first, until a file with root: true or
 * inherit: false, or /. The chain is merged from the top down: profiles are
 * the union of the files' profiles, a profile's rules are its rules in the
 * farthest file first, then nearer ones, so that a nearer file's rules come
 * later and win; default_profile and on_unsupported come from the nearest
 * file that sets them. */
#include "policies/policy.h"

#include <ctype.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *
env(const char *name)
{
	const char *v = getenv(name);
	return v && *v ? v : NULL;
}

/* the absolute directory of path, symlinks resolved; malloc'd */
static char *
dirof(const char *path)
{
	char *copy = xstrdup(path), *slash = strrchr(copy, '/');
	const char *d = slash ? (slash == copy ? "/" : (*slash = 0, copy)) : ".";
	char *r = realpath(d, NULL);
	if (!r && *d == '/')
		r = xstrdup(d);
	else if (!r) {
		char cwd[PATH_MAX];
		r = fmt("%s/%s", getcwd(cwd, sizeof cwd) ? cwd : ".", d);
	}
	free(copy);
	return r;
}

/* cu as an absolute path whose directory part is resolved like dirof() */
static char *
absolute(const char *cu)
{
	char *d = dirof(cu);
	const char *base = strrchr(cu, '/') ? strrchr(cu, '/') + 1 : cu;
	char *a = fmt("%s/%s", strcmp(d, "/") ? d : "", base);
	free(d);
	return a;
}

char *
policy_next(char **walk)
{
	while (*walk) {
		char *d = *walk, *path = fmt("%s/.mpcc.yaml", strcmp(d, "/") ? d : "");
		char *slash = strrchr(d, '/');
		if (!slash || !strcmp(d, "/"))
			free(d), *walk = NULL;
		else
			slash[slash == d] = 0;
		if (access(path, F_OK) == 0)
			return path;
		free(path);
	}
	return NULL;
}

/* the chain of policy files for a source in directory dir, nearest first;
 * a file with errors is in it (nerr), for what the chain can still check */
static int
discover(const char *dir, struct policy ***chain, int *n)
{
	int cap = 0;
	char *walk = xstrdup(dir), *path;
	*chain = NULL;
	*n = 0;
	while ((path = policy_next(&walk))) {
		struct policy *p = policy_read(path);
		free(path);
		if (!p) {
			free(walk);
			return -1;
		}
		vgrow(*chain, *n, cap);
		(*chain)[(*n)++] = p;
		if (p->root || !p->inherit)
			break;
	}
	free(walk);
	return 0;
}

/* every profile name of the chain, farthest file first, each once */
static const char **
known(struct policy **chain, int n, int *count)
{
	const char **v = NULL;
	int m = 0, cap = 0;
	for (int i = n - 1; i >= 0; i--)
		for (int j = 0; j < chain[i]->nprof; j++) {
			int k = 0;
			while (k < m && strcmp(v[k], chain[i]->prof[j].name))
				k++;
			if (k == m) {
				vgrow(v, m, cap);
				v[m++] = chain[i]->prof[j].name;
			}
		}
	*count = m;
	return v;
}

/* a file of the chain had errors, printed as it loaded */
static int
broken(struct policy **chain, int n)
{
	for (int i = 0; i < n; i++)
		if (chain[i]->nerr)
			return 1;
	return 0;
}

/* name is a profile of the chain, or cannot be said not to be one: a
 * file's 'profiles' could not be read */
static int
isprofile(struct policy **chain, int n, const char *name)
{
	int m, found = 0;
	const char **names = known(chain, n, &m);
	for (int i = 0; i < m && !found; i++)
		found = !strcmp(names[i], name);
	free(names);
	for (int i = 0; i < n && !found; i++)
		found = chain[i]->unnamed;
	return found;
}

/* "unknown profile 'x' SUFFIX (did you mean 'y'?); known profiles: a, b" */
static void
unknown_profile(const char *at, const char *name, const char *from, struct policy **chain, int n)
{
	int m;
	const char **names = known(chain, n, &m);
	const char *s = suggest(name, names, m);
	char *list = m ? policy_list(names, m) : xstrdup("none");
	char *mean = s ? fmt(" (did you mean '%s'?)", s) : xstrdup("");
	fprintf(stderr, "%s: error: unknown profile '%s' %s%s; known profiles: %s\n",
	        at, name, from, mean, list);
	free(mean);
	free(list);
	free(names);
}

static struct profile *
merge(struct policy **chain, int n, const char *name)
{
	struct profile *p = xcalloc(1, sizeof *p);
	p->name = name;
	p->policy = chain[0]->path;
	p->on_unsupported = -1;
	p->chain = xcalloc(n, sizeof *p->chain);
	p->nchain = n;
	for (int i = 0; i < n; i++)
		p->chain[i] = chain[i]->path;
	int cap = 0;
	for (int i = n - 1; i >= 0; i--) {
		if (chain[i]->on_unsupported >= 0)
			p->on_unsupported = chain[i]->on_unsupported;
		for (int j = 0; j < chain[i]->nprof; j++) {
			struct pprofile *q = &chain[i]->prof[j];
			if (strcmp(q->name, name))
				continue;
			if (q->on_unsupported >= 0)
				p->on_unsupported = q->on_unsupported;
			for (int k = 0; k < q->nrule; k++) {
				vgrow(p->rule, p->nrule, cap);
				p->rule[p->nrule++] = q->rule[k];
			}
		}
	}
	if (p->on_unsupported < 0)
		p->on_unsupported = UNSUP_WARN;
	return p;
}

/* choose the profile of the merged chain and build it; NULL after an
 * error, the chain's own included */
static struct profile *
choose(struct policy **chain, int n, const char *profile_opt)
{
	const char *name = profile_opt, *why = "--mpcc-profile";
	const char *at = chain[0]->path, *e = env("MPCC_PROFILE");
	/* a driver may pass MPCC_PROFILE's value as the option: say where it came from */
	if (!name ? (name = e) != NULL : e && !strcmp(e, name))
		why = "MPCC_PROFILE";
	for (int i = 0; !name && i < n; i++)
		if (chain[i]->default_profile) {
			name = chain[i]->default_profile;
			at = chain[i]->default_where;
			why = NULL;
		}
	if (name && !isprofile(chain, n, name)) {
		char *from = why ? fmt("from %s", why) : xstrdup("in 'default_profile'");
		unknown_profile(at, name, from, chain, n);
		free(from);
		return NULL;
	}
	if (broken(chain, n))
		return NULL;
	if (!name) {
		struct profile *p = merge(chain, n, "");
		p->nrule = 0;
		p->why = "no default_profile and no --mpcc-profile";
		return p;
	}
	struct profile *p = merge(chain, n, name);
	p->why = why ? why : fmt("default_profile at %s", at);
	return p;
}

int
policy_profile(const char *cu, const char *policy_opt, const char *profile_opt,
               struct profile **out)
{
	struct policy **chain = NULL;
	int n = 0;
	const char *from = "--mpcc-policy";
	*out = NULL;
	if (!profile_opt || !*profile_opt)
		profile_opt = NULL;
	const char *e = env("MPCC_POLICY");
	if (!policy_opt ? (policy_opt = e) != NULL : e && !strcmp(e, policy_opt))
		from = "MPCC_POLICY";
	if (policy_opt) {
		struct policy *p = policy_read(policy_opt);
		if (!p)
			return -1;
		chain = xmalloc(sizeof *chain);
		chain[n++] = p;
	} else {
		char *dir = dirof(cu);
		int r = discover(dir, &chain, &n);
		free(dir);
		if (r < 0)
			return free(chain), -1;
		from = NULL;
	}
	if (n == 0)
		return free(chain), override_apply(out);
	*out = choose(chain, n, profile_opt);
	free(chain);
	if (!*out)
		return -1;
	(*out)->from = from;
	return override_apply(out);
}

int
policy_check(const char *path)
{
	struct policy *p = policy_read(path), **chain = NULL;
	int n = 0;
	if (!p)
		return -1;
	if (p->inherit && !p->root && strcmp(p->dir, "/")) {
		char *parent = xstrdup(p->dir);
		*strrchr(parent, '/') = 0;
		int r = discover(*parent ? parent : "/", &chain, &n);
		free(parent);
		if (r < 0)
			return free(chain), -1;
	}
	struct policy **all = xcalloc(n + 1, sizeof *all);
	all[0] = p;
	if (n)
		memcpy(all + 1, chain, n * sizeof *chain);
	free(chain);
	int r = broken(all, n + 1) ? -1 : 0;
	for (int i = 0; i <= n; i++)
		if (all[i]->default_profile) {
			if (!isprofile(all, n + 1, all[i]->default_profile)) {
				unknown_profile(all[i]->default_where, all[i]->default_profile,
				                "in 'default_profile'", all, n + 1);
				r = -1;
			}
			break;
		}
	free(all);
	return r;
}

/* Path globs, like .gitignore: a glob with no '/' matches the file name at
 * any depth; otherwise it matches the path relative to the policy's
 * directory segment by segment, "**" standing for any number of segments. */
static int
segmatch(const char *p, const char *s)
{
	if (p[0] == '*' && p[1] == '*' && (p[2] == '/' || !p[2])) {
		if (!p[2])
			return 1;
		for (const char *q = s; q; q = strchr(q, '/'), q = q ? q + 1 : q)
			if (segmatch(p + 3, q))
				return 1;
		return 0;
	}
	size_t pl = strcspn(p, "/"), sl = strcspn(s, "/");
	char *ps = xstrndup(p, pl), *ss = xstrndup(s, sl);
	int ok = fnmatch(ps, ss, 0) == 0;
	free(ps);
	free(ss);
	if (!ok || !p[pl] || !s[sl])
		return ok && !p[pl] && !s[sl];
	return segmatch(p + pl + 1, s + sl + 1);
}

static int
filematch(const struct rule *r, const char *cuabs)
{
	if (!r->nfiles)
		return 1;
	size_t dl = strlen(r->dir);
	const char *rel = NULL;
	if (!strcmp(r->dir, "/"))
		rel = cuabs + 1;
	else if (!strncmp(cuabs, r->dir, dl) && cuabs[dl] == '/')
		rel = cuabs + dl + 1;
	for (int i = 0; i < r->nfiles; i++) {
		const char *g = r->files[i];
		if (*g == '/') {
			if (segmatch(g + 1, cuabs + 1))
				return 1;
		} else if (rel && strchr(g, '/')) {
			if (segmatch(g, rel))
				return 1;
		} else if (rel) {
			char *any = fmt("**/%s", g);
			int ok = segmatch(any, rel);
			free(any);
			if (ok)
				return 1;
		}
	}
	return 0;
}

char *
kernel_shortname(const char *d)
{
	size_t n = strlen(d);
	if (n && d[n - 1] == ')') {
		int depth = 0;
		size_t i = n;
		while (i-- > 0) {
			depth += d[i] == ')' ? 1 : d[i] == '(' ? -1 : 0;
			if (!depth)
				break;
		}
		if (i < n && i > 0)
			n = i;
	}
	size_t start = 0;
	int depth = 0;
	for (size_t i = 0; i < n; i++) {
		if (d[i] == '<' || d[i] == '(')
			depth++;
		else if ((d[i] == '>' || d[i] == ')') && depth > 0)
			depth--;
		else if (d[i] == ' ' && !depth)
			start = i + 1;
	}
	return xstrndup(d + start, n - start);
}

int
kernel_named(const char *glob, const char *mangled, const char *demangled, const char *shrt)
{
	return (mangled && !fnmatch(glob, mangled, 0)) || (demangled && !fnmatch(glob, demangled, 0)) ||
	       (shrt && !fnmatch(glob, shrt, 0));
}

static int
kernelmatch(const struct rule *r, const char *mangled, const char *demangled, const char *shrt)
{
	for (int i = 0; i < r->nkernels; i++)
		if (kernel_named(r->kernels[i], mangled, demangled, shrt))
			return 1;
	return 0;
}

int
profile_may_apply(const struct profile *p, const char *cu)
{
	if (!p)
		return 0;
	char *a = absolute(cu);
	int yes = 0;
	for (int i = 0; i < p->nrule && !yes; i++)
		yes = p->rule[i].has && filematch(&p->rule[i], a);
	free(a);
	return yes;
}

void
profile_match(const struct profile *p, const char *cu, const char *mangled,
              const char *demangled, struct choice *c)
{
	*c = (struct choice){0};
	if (!p || !p->nrule)
		return;
	char *a = absolute(cu), *d = NULL, *s;
	if (!demangled && mangled)
		demangled = d = demangle(mangled);
	s = demangled ? kernel_shortname(demangled) : NULL;
	for (int i = 0; i < p->nrule; i++) {
		const struct rule *r = &p->rule[i];
		if (!filematch(r, a) || !kernelmatch(r, mangled, demangled, s))
			continue;
		for (int t = 0; t < nschema; t++) {
			if (r->has & 1u << t)
				c->rule[t] = r;
			if (r->off & 1u << t)
				c->rule[t] = NULL;
		}
	}
	free(a);
	free(d);
	free(s);
}

int
rule_file_match(const struct rule *r, const char *cu)
{
	char *a = absolute(cu);
	int yes = filematch(r, a);
	free(a);
	return yes;
}

static char *
lower(const char *s)
{
	char *l = xstrdup(s);
	for (char *p = l; *p; p++)
		*p = tolower((uchar)*p);
	return l;
}

/* the kernel (of n, by their short names) that glob g nearly names, or NULL */
static const char *
nearly(const char *g, char *const *shrt, int n)
{
	char *lg = lower(g);
	const char *best = NULL;
	for (int i = 0; i < n && !best; i++) {
		char *ls = lower(shrt[i]);
		if (!fnmatch(lg, ls, 0))
			best = shrt[i];
		free(ls);
	}
	free(lg);
	if (!best && !strpbrk(g, "*?["))
		best = suggest(g, (const char *const *)shrt, n);
	return best;
}

void
profile_unmatched(const struct profile *p, const char *cu, char *const *mangled, int n)
{
	if (!p || !n)
		return;
	char *a = absolute(cu);
	char **d = xcalloc(n, sizeof *d), **s = xcalloc(n, sizeof *s);
	for (int k = 0; k < n; k++)
		d[k] = demangle(mangled[k]), s[k] = kernel_shortname(d[k]);
	for (int i = 0; i < p->nrule; i++) {
		const struct rule *r = &p->rule[i];
		if (!filematch(r, a))
			continue;
		for (int j = 0; j < r->nkernels; j++) {
			struct rule one = *r;
			one.kernels = &r->kernels[j], one.nkernels = 1;
			int hit = 0;
			for (int k = 0; k < n && !hit; k++)
				hit = kernelmatch(&one, mangled[k], d[k], s[k]);
			const char *near = hit ? NULL : nearly(r->kernels[j], s, n);
			if (near) {
				fprintf(stderr, "%s: warning: kernels glob '%s' matches no kernel of '%s'; "
				        "did you mean '%s'?\n", r->kwhere ? r->kwhere[j] : r->where,
				        r->kernels[j], cu, near);
				break;
			}
		}
	}
	for (int k = 0; k < n; k++)
		free(d[k]), free(s[k]);
	free(d);
	free(s);
	free(a);
}

int
rule_match(const struct rule *r, const char *cu, const char *mangled, const char *demangled)
{
	char *a = absolute(cu), *d = NULL, *s;
	if (!demangled && mangled)
		demangled = d = demangle(mangled);
	s = demangled ? kernel_shortname(demangled) : NULL;
	int yes = filematch(r, a) && kernelmatch(r, mangled, demangled, s);
	free(a);
	free(d);
	free(s);
	return yes;
}
