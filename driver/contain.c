/* contain.c: the PTX hook in a child process, so that a pass that hits an
 * internal error (a BUG, an abort, a signal, a sanitizer's report, running
 * out of memory or CPU time) costs its kernel the transform and never the
 * build. ccache makes the same promise: what it cannot handle goes to the
 * real compiler.
 *
 * The child runs pipeline() as the driver would, with limits, and writes
 * to a progress file each kernel and each pass before it runs. If it dies,
 * the last of those names the kernel and the pass: the driver says so once
 * and runs the hook again with that kernel left as nvcc wrote it (struct
 * hook's crash list). A death outside any kernel's passes (parsing,
 * verifying, printing) costs the file its transforms: nvcc's PTX goes on.
 *
 * What the hook hands back (the report's lines, the kernels' names, the
 * tally) comes through a results file; what it prints goes to files that
 * are copied out only from the try that finished, so that nothing is said
 * twice. A fork costs well under a millisecond; nothing is done twice on
 * the path without a crash. */
#include "common/spawn.h"
#include "driver/mpcc.h"
#include "transforms/pass.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif

/* the soft limits the child lowered, for what it runs (restored) */
static struct rlimit oldcpu, oldas;

/* in each child of the hook's child (the fast-math cicc runs, through
 * spawn_onchild()): the limits as they were */
static void
unlimit(void)
{
	setrlimit(RLIMIT_CPU, &oldcpu);
	setrlimit(RLIMIT_AS, &oldas);
}

/* CPU seconds and bytes of address space for the passes on a PTX file of
 * size bytes: far beyond what they take (0.1 s and tens of MB on a 1 MB
 * file with 36 kernels), so that only a loop or a runaway allocation meets
 * them. Under AddressSanitizer, whose shadow already maps terabytes, no
 * memory limit */
static void
limit(size_t size)
{
	struct rlimit core = {0, 0}, r;
	const char *s = getenv("MPCC_DEBUG_HOOK_SECONDS");
	setrlimit(RLIMIT_CORE, &core);   /* no core file in the user's build directory */
	getrlimit(RLIMIT_CPU, &oldcpu);
	getrlimit(RLIMIT_AS, &oldas);
	r = oldcpu;
	r.rlim_cur = s && atoi(s) > 0 ? (rlim_t)atoi(s) : 60 + (rlim_t)(size >> 20) * 20;
	if (oldcpu.rlim_cur == RLIM_INFINITY || r.rlim_cur < oldcpu.rlim_cur)
		setrlimit(RLIMIT_CPU, &r);
#ifndef SANITIZED
	r = oldas;
	r.rlim_cur = ((rlim_t)1 << 30) + (rlim_t)size * 128;
	if (oldas.rlim_cur == RLIM_INFINITY || r.rlim_cur < oldas.rlim_cur)
		setrlimit(RLIMIT_AS, &r);
#endif
	spawn_onchild(unlimit);
}

/* a string and its length, so that any bytes come back: "-" for NULL */
static void
putstr(FILE *f, const char *s)
{
	if (s)
		fprintf(f, "%zu\n%s\n", strlen(s), s);
	else
		fputs("-\n", f);
}

static char *
getstr(FILE *f, int *bad)
{
	char line[32] = "";
	size_t n;
	if (!fgets(line, sizeof line, f) || *line == '-' || sscanf(line, "%zu", &n) != 1) {
		*bad |= *line != '-';
		return NULL;
	}
	char *s = xmalloc(n + 2);
	if (fread(s, 1, n + 1, f) != n + 1)
		*bad = 1;
	s[n] = 0;
	return s;
}

/* what the hook handed back, written by the child */
static void
putresults(FILE *f, int st, const struct args *kernels, const struct args *table,
           const struct reports *reps, const struct tally *t)
{
	fprintf(f, "%d %d %d %d\n", st, kernels->n, table->n, reps->n);
	for (int i = 0; i < kernels->n; i++)
		putstr(f, kernels->v[i]);
	for (int i = 0; i < table->n; i++)
		putstr(f, table->v[i]);
	for (int i = 0; i < reps->n; i++) {
		const struct report *r = &reps->r[i];
		const char *s[] = {r->src, r->arch, r->mangled, r->demangled, r->transform,
		                   r->params, r->reason, r->stats, r->profile, r->rule};
		fprintf(f, "%d\n", r->applied);
		for (size_t k = 0; k < countof(s); k++)
			putstr(f, s[k]);
	}
	for (int p = 0; p < MAXPASS; p++)
		fprintf(f, "%d %d %d\n", t->applied[p], t->advised[p], t->refused[p]);
}

/* read them back into h; the hook's status, or -2 if they are cut short */
static int
getresults(FILE *f, const struct hook *h)
{
	int st, nk, nt, nr, bad = 0;
	if (fscanf(f, "%d %d %d %d\n", &st, &nk, &nt, &nr) != 4)
		return -2;
	for (int i = 0; i < nk + nt && !bad; i++) {
		char *s = getstr(f, &bad);
		struct args *to = i < nk ? h->kernels : h->table;
		if (s && to)
			args_push(to, s);
		free(s);
	}
	for (int i = 0; i < nr && !bad; i++) {
		struct report r = {0};
		char *s[10];
		bad |= fscanf(f, "%d\n", &r.applied) != 1;
		for (size_t k = 0; k < countof(s); k++)
			s[k] = bad ? NULL : getstr(f, &bad);
		r.src = s[0], r.arch = s[1], r.mangled = s[2], r.demangled = s[3];
		r.transform = s[4], r.params = s[5], r.reason = s[6], r.stats = s[7];
		r.profile = s[8], r.rule = s[9];
		if (!bad && h->reports)
			reports_add(h->reports, &r);
		for (size_t k = 0; k < countof(s); k++)
			free(s[k]);
	}
	for (int p = 0; p < MAXPASS && !bad; p++) {
		int a, v, x;
		bad |= fscanf(f, "%d %d %d\n", &a, &v, &x) != 3;
		if (!bad && h->tally)
			h->tally->applied[p] += a, h->tally->advised[p] += v, h->tally->refused[p] += x;
	}
	return bad ? -2 : st;
}

/* The fast-math twins are the driver's runs (struct fast): its children,
 * which only it can wait for, and stop when nobody asked for them. So the
 * hook's child asks the driver for each, over a socket: one byte, the
 * mask; back, the path's length and the path (length 0: the run failed).
 * A socket, not a pipe, so that an answer to a child that died is
 * MSG_NOSIGNAL, not a SIGPIPE for mpcc. */
static int askfd = -1;

static const char *
askdriver(void *drv, uint mask)
{
	static char *got[AX_ALL + 1];
	unsigned char m = mask & AX_ALL;
	uint32_t n;
	(void)drv;
	if (got[m])
		return *got[m] ? got[m] : NULL;
	if (send(askfd, &m, 1, MSG_NOSIGNAL) != 1 || recv(askfd, &n, sizeof n, MSG_WAITALL) != sizeof n)
		BUG("no answer from the driver for fast-math mask %u", m);
	got[m] = xmalloc(n + 1);
	if (n && recv(askfd, got[m], n, MSG_WAITALL) != (ssize_t)n)
		BUG("a short answer from the driver for fast-math mask %u", m);
	got[m][n] = 0;
	return n ? got[m] : NULL;
}

/* the driver's side: answer each question until the child ends */
static void
answer(int fd, const struct hook *h)
{
	unsigned char m;
	while (recv(fd, &m, 1, 0) == 1) {
		const char *p = h->fastptx ? h->fastptx(h->drv, m) : NULL;
		uint32_t n = p ? (uint32_t)strlen(p) : 0;
		if (send(fd, &n, sizeof n, MSG_NOSIGNAL) != sizeof n ||
		    (n && send(fd, p, n, MSG_NOSIGNAL) != (ssize_t)n))
			break;
	}
}

/* the child: the hook with its outputs to files; never returns */
static _Noreturn void
child(const char *path, struct hook h, const char *const *f)
{
	struct args kernels = ARGS_INIT, table = ARGS_INIT;
	struct reports reps = {0};
	struct tally tally = {0};
	struct stat sb;
	FILE *res = fopen(f[0], "w"), *prog = fopen(f[1], "w");
	if (!res || !prog || !freopen(f[2], "w", stdout) || !freopen(f[3], "w", stderr))
		_exit(125);
	setvbuf(stderr, NULL, _IONBF, 0);   /* a BUG's words before its abort */
	limit(stat(path, &sb) == 0 ? (size_t)sb.st_size : 0);
	h.progress = prog;
	if (h.fastptx)
		h.fastptx = askdriver, h.drv = NULL;
	h.kernels = &kernels;
	h.table = h.table ? &table : NULL;
	h.reports = h.reports ? &reps : NULL;
	h.tally = &tally;
	int st = pipeline(path, &h);
	putresults(res, st, &kernels, &table, &reps, &tally);
	fflush(NULL);
	_exit(ferror(res) || fclose(res) ? 125 : 0);
}

/* the line of a dead child's stderr that says what went wrong */
static char *
diagnosis(const char *err, int st)
{
	static const char *const marks[] = {"BUG at ", "AddressSanitizer: ", "runtime error: ",
	                                    "out of memory", "error: "};
	size_t n;
	char *text = readfile(err, &n), *why = NULL;
	for (size_t k = 0; text && k < countof(marks) && !why; k++) {
		char *s = strstr(text, marks[k]);
		if (!s)
			continue;
		while (s > text && s[-1] != '\n' && k != 0 && k != 1)
			s--;
		if (startswith(s, "mpcc: "))
			s += strlen("mpcc: ");
		if (startswith(s, "error: "))
			s += strlen("error: ");
		size_t len = strcspn(s, "\n");
		char *pc = k == 1 ? strstr(s, " (pc ") : NULL;   /* the addresses of one run */
		why = xstrndup(s, pc && pc < s + len ? (size_t)(pc - s) : len);
	}
	free(text);
	if (why)
		return why;
	if (st == 128 + SIGXCPU)
		return xstrdup("out of CPU time");
	if (st > 128)
		return fmt("killed by signal %d (%s)", st - 128, strsignal(st - 128));
	return fmt("exit status %d", st);
}

/* the kernel and the pass the child was working on, from its progress */
static void
where(const char *prog, char **kernel, const char **pass)
{
	size_t n;
	char *text = readfile(prog, &n), *line, *save = NULL;
	*kernel = NULL, *pass = "the PTX hook";
	for (line = text ? strtok_r(text, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (startswith(line, "kernel ")) {
			free(*kernel);
			*kernel = xstrdup(line + 7);
			*pass = "the PTX hook";
		} else if (startswith(line, "pass ") && *kernel) {
			for (int t = 0; t < npass; t++)
				if (!strcmp(line + 5, passes[t]->schema.name))
					*pass = passes[t]->schema.name;
		} else if (startswith(line, "verify")) {
			free(*kernel);
			*kernel = NULL;
		}
	}
	free(text);
}

/* said once per source, kernel and pass, over a compile's -gencode chains */
static int
said(const char *src, const char *kernel, const char *pass)
{
	static struct args seen = ARGS_INIT;
	char *key = fmt("%s\n%s\n%s", src, kernel, pass);
	for (int i = 0; i < seen.n; i++)
		if (!strcmp(seen.v[i], key)) {
			free(key);
			return 1;
		}
	args_push(&seen, key);
	free(key);
	return 0;
}

/* one try: the child's status, its files in f (results, progress, stdout,
 * stderr) */
static int
try(const char *path, const struct hook *h, const char *const *f)
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		die("socketpair: %s", strerror(errno));
	pid_t pid = spawn_fork();
	if (pid == 0) {
		close(sv[0]);
		askfd = sv[1];
		child(path, *h, f);
	}
	close(sv[1]);
	answer(sv[0], h);
	close(sv[0]);
	return spawn_wait(pid);
}

int
contained_pipeline(const char *path, const struct hook *h0, const char *dir)
{
	struct hook h = *h0;
	struct crash *cr = NULL;
	int ncr = 0, cap = 0, st = -1;
	char *f[4];
	static int seq;
	for (int i = 0; i < 4; i++)
		f[i] = fmt("%s/hook%d.%d", dir, seq, i);
	seq++;
	for (;;) {
		h.crash = cr, h.ncrash = ncr;
		int rc = try(path, &h, (const char *const *)f);
		FILE *res = rc == 0 ? fopen(f[0], "r") : NULL;
		if (res) {
			st = getresults(res, &h);
			fclose(res);
		}
		if (res && st != -2) {
			catfile(f[2], stdout), fflush(stdout);
			catfile(f[3], stderr);
			break;
		}
		char *kernel, *why = diagnosis(f[3], rc);
		const char *pass;
		where(f[1], &kernel, &pass);
		if (!kernel || crash_of(cr, ncr, kernel)) {   /* outside a kernel's passes, or twice on one */
			warn("%s (%s): %s hit an internal error (%s, a bug in mpcc): nvcc's PTX is kept "
			     "for this file", h.src, h.arch ? h.arch : "?", pass, why);
			free(kernel);
			free(why);
			st = -1;
			break;
		}
		if (!said(h.src, kernel, pass)) {
			char *dm = demangle(kernel);
			warn("%s: kernel '%s' (%s): %s hit an internal error (%s, a bug in mpcc): "
			     "nvcc's PTX is kept for this kernel", h.src, dm, h.arch ? h.arch : "?", pass,
			     why);
			free(dm);
		}
		vgrow(cr, ncr, cap);
		cr[ncr++] = (struct crash){kernel, pass, why};
	}
	for (int i = 0; i < ncr; i++)
		free(cr[i].mangled), free(cr[i].why);
	free(cr);
	for (int i = 0; i < 4; i++)
		unlink(f[i]), free(f[i]);
	return st;
}
