/* hash.c: policy_hash(), what ccache's compiler_check runs.
 *
 * ccache keys a compile on the compiler's identity (compiler_check), the
 * command line and the source; an mpcc compile also depends on the policy
 * files and on MPCC_POLICY/MPCC_PROFILE/MPCC_SET (and what it says on
 * MPCC_WARN/MPCC_WERROR), which ccache cannot see. ccache runs
 * compiler_check's command in the compile's working directory and
 * environment, but without the source file's name, so the hash is
 * conservative: every policy file that could apply to any source under a
 * directory, and every one above it. A file changes the hash through its
 * path and its bytes; nothing is parsed, so a broken policy hashes too (the
 * compile then reports it). mpcc's own size and mtime go in as well, since
 * compiler_check takes the place of ccache's check of the compiler. The hash is 128-bit FNV-1a: not cryptographic,
 * but it only has to tell honest edits apart. */
#include "policies/policy.h"

#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef unsigned __int128 u128;

struct hash {
	u128 h;
};

static void
feed(struct hash *h, const void *p, size_t n)
{
	const u128 prime = ((u128)1 << 88) + ((u128)1 << 8) + 0x3b;
	const uchar *b = p;
	for (size_t i = 0; i < n; i++) {
		h->h ^= b[i];
		h->h *= prime;
	}
}

/* a length-prefixed field, so that "ab"+"c" and "a"+"bc" differ */
static void
field(struct hash *h, const char *tag, const char *s, size_t n)
{
	char len[32];
	snprintf(len, sizeof len, "%s %zu\n", tag, n);
	feed(h, len, strlen(len));
	feed(h, s, n);
}

static void
file(struct hash *h, const char *path)
{
	size_t n = 0;
	char *text = readfile(path, &n);
	field(h, "path", path, strlen(path));
	if (text)
		field(h, "text", text, n);
	else
		field(h, "unreadable", "", 0);
	free(text);
}

static int
cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* every .mpcc.yaml under dir (symlinks and dot-directories not followed),
 * in sorted order so that the hash does not depend on readdir's */
static void
tree(struct hash *h, const char *dir, int depth)
{
	DIR *d = opendir(dir);
	if (!d || depth > 64) {
		if (d)
			closedir(d);
		return;
	}
	char **names = NULL;
	int n = 0, cap = 0;
	for (struct dirent *e; (e = readdir(d));) {
		if (e->d_name[0] == '.' && strcmp(e->d_name, ".mpcc.yaml"))
			continue;
		vgrow(names, n, cap);
		names[n++] = xstrdup(e->d_name);
	}
	closedir(d);
	if (n)   /* an empty directory leaves names NULL, which qsort may not take */
		qsort(names, n, sizeof *names, cmp);
	for (int i = 0; i < n; i++) {
		char *p = fmt("%s/%s", dir, names[i]);
		struct stat st;
		if (!strcmp(names[i], ".mpcc.yaml"))
			file(h, p);
		else if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
			tree(h, p, depth + 1);
		free(p);
		free(names[i]);
	}
	free(names);
}

/* every .mpcc.yaml in dir and the directories above it */
static void
above(struct hash *h, const char *dir)
{
	char *walk = xstrdup(dir), *p;
	while ((p = policy_next(&walk))) {
		file(h, p);
		free(p);
	}
}

char *
policy_hash(const char *cu, const char *policy_opt, const char *profile_opt)
{
	struct hash h = {((u128)0x6c62272e07bb0142 << 64) | 0x62b821756295c58d};
	const char *v = "mpcc " MPCC_VERSION " policy v1";
	field(&h, "version", v, strlen(v));
	/* compiler_check replaces ccache's mtime check of the compiler, so the
	 * hash stands for mpcc itself too: a rebuilt mpcc of the same version
	 * may transform differently */
	struct stat self;
	if (stat("/proc/self/exe", &self) == 0) {
		char *id = fmt("%lld %lld.%09ld", (long long)self.st_size, (long long)self.st_mtim.tv_sec,
		               self.st_mtim.tv_nsec);
		field(&h, "self", id, strlen(id));
		free(id);
	}
	if (!policy_opt || !*policy_opt)
		policy_opt = getenv("MPCC_POLICY");
	if (!profile_opt || !*profile_opt)
		profile_opt = getenv("MPCC_PROFILE");
	if (profile_opt && *profile_opt)
		field(&h, "profile", profile_opt, strlen(profile_opt));
	const char *set = getenv("MPCC_SET");   /* override.c: rules that win */
	if (set && *set)
		field(&h, "set", set, strlen(set));
	/* the driver's warnings: a cached compile replays its stderr, and one
	 * under --mpcc-werror must fail again */
	const char *warn = getenv("MPCC_WARN"), *werror = getenv("MPCC_WERROR");
	if (warn && *warn)
		field(&h, "warn", warn, strlen(warn));
	if (werror && *werror)
		field(&h, "werror", werror, strlen(werror));
	if (policy_opt && *policy_opt) {
		file(&h, policy_opt);
	} else {
		const char *target = cu && *cu ? cu : ".";
		struct stat st;
		char *abs = realpath(target, NULL);
		if (abs && stat(abs, &st) == 0 && S_ISDIR(st.st_mode)) {
			tree(&h, abs, 0);
			char *parent = xstrdup(abs);
			char *slash = strrchr(parent, '/');
			if (slash && strcmp(parent, "/")) {
				slash[slash == parent] = 0;
				above(&h, parent);
			}
			free(parent);
		} else {
			char *copy = xstrdup(abs ? abs : target), *slash = strrchr(copy, '/');
			if (slash)
				slash[slash == copy] = 0;
			char *dir = realpath(slash ? copy : ".", NULL);
			if (dir)
				above(&h, dir);
			free(dir);
			free(copy);
		}
		free(abs);
	}
	return fmt("%016llx%016llx", (unsigned long long)(h.h >> 64), (unsigned long long)h.h);
}
