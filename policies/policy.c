/* placeholder until the policy layer lands: no policy ever applies */
#include "policies/policy.h"

const char *const transform_name[NTRANSFORM] = {"sfu", "fiset", "half2"};

int
policy_profile(const char *cu, const char *policy_opt, const char *profile_opt,
               struct profile **out)
{
	(void)cu, (void)policy_opt, (void)profile_opt;
	*out = NULL;
	return 0;
}

int
profile_may_apply(const struct profile *p, const char *cu)
{
	(void)p, (void)cu;
	return 0;
}

void
profile_match(const struct profile *p, const char *cu, const char *mangled,
              const char *demangled, struct choice *c)
{
	(void)p, (void)cu, (void)mangled, (void)demangled;
	*c = (struct choice){0};
}

char *
policy_hash(const char *cu, const char *policy_opt, const char *profile_opt)
{
	(void)cu, (void)policy_opt, (void)profile_opt;
	return xstrdup("0");
}
