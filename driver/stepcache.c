/* stepcache.c: a content-keyed cache of nvcc's steps (MPCC_STEP_CACHE=DIR).
 *
 * mpcc-tune rebuilds the user's whole program for every trial, but a setting
 * changes only the PTX that cicc wrote, and only for the files whose kernels
 * it names: cudafe++, cicc and the host compile of every other file give the
 * same output in every trial. mpcc-tune sets MPCC_STEP_CACHE to a directory
 * of its work directory for every build; there every compile of a .cu file
 * takes the pipeline (run.c), and each step it runs goes through
 * stepcache_run(). The steps kept are gcc's preprocessing (-E), cudafe++,
 * cicc, ptxas and the host compile of cudafe++'s output; the others run as
 * they are: fatbinary takes a few hundredths of a second to write a C array
 * four times the size of its input, which would fill the cache at every
 * trial.
 *
 * A step's key is a hash of its command line, PATH, the working directory
 * if the line asks for debug information (which records it, as ccache's
 * hash_dir says), and the bytes of every file it reads: the files its line
 * names that exist before it runs (its -o aside), and for a host compile the
 * temporary files that its input #includes (cicc's stub, which includes the
 * fatbinary). Its outputs are the files its line names that it made, and its
 * -o. The preprocessing reads headers nobody lists before it runs: its
 * entry lists the files its output's line markers name with the hash of
 * their bytes, and is a hit only while each hashes the same (deprecords(),
 * fresh(): ccache's direct mode). A header made later in a directory
 * searched before the one its name was found in is not seen, as in ccache;
 * a file that uses __DATE__ or __TIME__ is not kept.
 * When a step exits 0 having changed none of its inputs, its outputs are kept in
 * DIR/KEY with its stdout and stderr; a later step of the same key gets them
 * back without running. An entry is written under a temporary name and
 * renamed, so builds running at once can share DIR. DIR/log gets a line for
 * each step looked up: "hit", "embed" or "miss", the key and the line.
 *
 * A trial changes the fatbinary that a host compile reads (through
 * nvcc's .fatbin.c), not its host code: so a host compile is keyed a
 * second time with the .fatbin.c's shape for its bytes (the host key), and
 * when the host compiler ran and its object holds the fatbinary as embed.c
 * knows it, DIR/HKEY.host names the entry. A miss whose host key names one
 * takes its object with the new fatbinary in place (embed.c), which is
 * byte for byte what the host compiler makes, keeps it as its own entry
 * and logs "embed". What embed.c cannot do (another host compiler, -g, a
 * form it does not know) runs the host compiler, said once for DIR
 * (DIR/note-*).
 *
 * Each compile's temporary directory is its own (run.c), and its name is in
 * the lines and in some outputs (cicc's stub names itself). The key and the
 * kept outputs have it replaced by its template, ".../mpcc-XXXXXX", which is
 * as long, so that a binary output stays valid; a hit puts back the
 * compile's own name. nvcc's temporary names (tmpxft_<8 hex>_<8 hex>, from
 * nvcc's pid) are made fixed when the cache is on (stepcache_fixnames()), so
 * what a hit writes is byte for byte what the step would have written.
 *
 * Each step's seconds go to MPCC_STEP_LOG when mpcc-tune names one, by
 * kind (stepcache_time()): where a trial's build spends its time. */
#define _GNU_SOURCE   /* memmem */
#include "common/spawn.h"
#include "driver/mpcc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define VERSION "mpcc-step 2"

struct job {
	const char *line;
	const char *tmp, *templ;  /* the compile's temporary directory, and its template */
	struct args words;        /* the line as sh splits it */
	struct args in;           /* the files it reads */
	struct stat *st;          /* of each of in, before it runs */
	struct args out;          /* the files it may write */
	char key[33];
	int fatbin;               /* a host compile: the index in in of nvcc's .fatbin.c, or -1 */
	const char *noembed;      /* why its object cannot take a new fatbinary, or NULL */
	struct fatbinc fb;        /* the .fatbin.c read, when its object can (fb.data set) */
	char hkey[33];            /* then the key with the .fatbin.c's shape for its bytes */
};

const char *
stepcache_dir(void)
{
	const char *d = getenv("MPCC_STEP_CACHE");
	return d && *d ? d : NULL;
}

/* nvcc's temporary names, tmpxft_<8 hex>_<8 hex>, made tmpxft_00000000_00000000 */
void
stepcache_fixnames(char *text)
{
	static const char hex[] = "0123456789abcdef";
	for (char *p = text; (p = strstr(p, "tmpxft_")); p += 7) {
		char *id = p + 7;
		size_t a = strspn(id, hex), b = a == 8 && id[8] == '_' ? strspn(id + 9, hex) : 0;
		if (b == 8) {
			memset(id, '0', 8);
			memset(id + 9, '0', 8);
		}
	}
}

/* every from in s[0..n) replaced by to, as long */
static void
replace(char *s, size_t n, const char *from, const char *to)
{
	size_t k = strlen(from);
	for (char *p = s; (p = memmem(p, n - (p - s), from, k)); p += k)
		memcpy(p, to, k);
}

/* FNV-1a, 128 bits (policies/hash.c), fed 8 bytes at a time: it only has
 * to tell honest changes apart, and a hit hashes megabytes (lulesh.cu's
 * headers, 6 MB: 9 ms a byte at a time, 1.1 ms so) */
typedef unsigned __int128 u128;

static void
feed(u128 *h, const void *p, size_t n)
{
	const u128 prime = ((u128)1 << 88) + ((u128)1 << 8) + 0x3b;
	const uchar *b = p;
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t w;
		memcpy(&w, b + i, 8);
		*h ^= w;
		*h *= prime;
	}
	for (; i < n; i++) {
		*h ^= b[i];
		*h *= prime;
	}
}

/* a length-prefixed field, so that "ab"+"c" and "a"+"bc" differ */
static void
field(u128 *h, const char *s, size_t n)
{
	char len[32];
	snprintf(len, sizeof len, "%zu\n", n);
	feed(h, len, strlen(len));
	feed(h, s, n);
}

static const char *
progname_of(const struct args *a)
{
	const char *s = a->n ? strrchr(a->v[0], '/') : NULL;
	return s ? s + 1 : a->n ? a->v[0] : "";
}

static int
has(const struct args *a, const char *s)
{
	for (int i = 0; i < a->n; i++)
		if (!strcmp(a->v[i], s))
			return 1;
	return 0;
}

/* host compiler options that write files the line does not name (ccache's
 * "too hard"): a line with one runs uncached */
static const char *const toohard[] = {
	"-M", "-save-temps", "--coverage", "-ftest-coverage", "-fprofile-", "-fdump-",
	"-fstack-usage", "-fcallgraph-info", "-gsplit-dwarf", "-Wa,",
};

/* the host compile of cudafe++'s output, a temporary file */
static int
hostcompile(const struct job *j)
{
	if (!has(&j->words, "-c"))
		return 0;
	for (int i = 1; i < j->words.n; i++)
		if (endswith(j->words.v[i], ".cudafe1.cpp") && startswith(j->words.v[i], j->tmp))
			return 1;
	return 0;
}

/* the line's -o: a host compile's object */
static const char *
outobj(const struct job *j)
{
	for (int i = 1; i + 1 < j->words.n; i++)
		if (!strcmp(j->words.v[i], "-o"))
			return j->words.v[i + 1];
	return NULL;
}

static int gnu(const struct args *w);

/* gcc's preprocessing into an -o file, whose line markers name every file
 * it read (kept by what it read: fresh()) */
static int
preprocess(const struct job *j)
{
	return has(&j->words, "-E") && gnu(&j->words) && outobj(j) && !has(&j->words, "-P");
}

/* is the line a step the cache keeps? */
static int
kept(const struct job *j)
{
	static const char *const progs[] = {"cudafe++", "cicc", "ptxas"};
	const struct args *w = &j->words;
	for (int i = 1; i < w->n; i++)
		for (size_t k = 0; k < countof(toohard); k++)
			if (startswith(w->v[i], toohard[k]))
				return 0;
	if (has(w, "-E"))
		return preprocess(j);
	for (size_t k = 0; k < countof(progs); k++)
		if (!strcmp(progname_of(w), progs[k]))
			return 1;
	return hostcompile(j);
}

static int
regular(const char *path, struct stat *st)
{
	return stat(path, st) == 0 && S_ISREG(st->st_mode);
}

/* the temporary files that path #includes as "name", found beside it as gcc
 * finds them, and what they include: cudafe++'s output includes cicc's
 * stub, which includes the fatbinary */
static void
includes(struct job *j, const char *path)
{
	char *text = readfile(path, NULL);
	const char *dir = strrchr(path, '/');
	for (const char *p = dir ? text : NULL; p && (p = strstr(p, "#include \"")); p++) {
		p += strlen("#include \"");
		char *f = fmt("%.*s/%.*s", (int)(dir - path), path, (int)strcspn(p, "\"\n"), p);
		struct stat st;
		if (startswith(f, j->tmp) && regular(f, &st) && !has(&j->in, f)) {
			args_push(&j->in, f);
			includes(j, f);
		}
		free(f);
	}
	free(text);
}

/* the file a word may name: the word, or what follows its last '='
 * (--embedded-fatbin=F, --image3=kind=elf,sm=90,file=F) */
static const char *
wordpath(const char *w)
{
	const char *eq = strrchr(w, '=');
	return eq ? eq + 1 : w;
}

/* the files the line names: those that exist are its inputs, the others
 * and its -o (or fatbinary's --create) the outputs it may write */
static void
named(struct job *j)
{
	const struct args *w = &j->words;
	for (int i = 1; i < w->n; i++) {
		const char *f = wordpath(w->v[i]);
		struct stat st;
		if (!*f || has(&j->in, f) || has(&j->out, f))
			continue;
		if (!strcmp(w->v[i - 1], "-o") || startswith(w->v[i], "--create="))
			args_push(&j->out, f);
		else if (regular(f, &st))
			args_push(&j->in, f);
		else if (stat(f, &st) != 0)
			args_push(&j->out, f);
	}
	for (int i = 1; i < w->n; i++)
		if (endswith(w->v[i], ".cudafe1.cpp") && hostcompile(j))
			includes(j, w->v[i]);
	j->st = xcalloc(j->in.n + 1, sizeof *j->st);
	for (int i = 0; i < j->in.n; i++)
		stat(j->in.v[i], &j->st[i]);
}

/* did the step leave its inputs as it found them? */
static int
untouched(const struct job *j)
{
	for (int i = 0; i < j->in.n; i++) {
		struct stat st;
		const struct stat *a = &j->st[i];
		if (stat(j->in.v[i], &st) != 0 || st.st_ino != a->st_ino || st.st_size != a->st_size ||
		    st.st_mtim.tv_sec != a->st_mtim.tv_sec || st.st_mtim.tv_nsec != a->st_mtim.tv_nsec)
			return 0;
	}
	return 1;
}

/* does the line ask for debug information: gcc's -g*, cicc's -g and
 * -generate-line-info, ptxas's -g and -lineinfo? */
static int
debuginfo(const struct args *w)
{
	for (int i = 1; i < w->n; i++)
		if (startswith(w->v[i], "-g") || !strcmp(w->v[i], "-G") || !strcmp(w->v[i], "-lineinfo"))
			return 1;
	return 0;
}

/* the key: the line, the PATH it finds its tools on, where it runs if it
 * records that, and the bytes it reads, the temporary directory's name
 * masked */
static void
both(u128 h[2], const char *s, size_t n)
{
	field(&h[0], s, n);
	field(&h[1], s, n);
}

static void
hex(char out[33], u128 h)
{
	for (int i = 0; i < 16; i++, h >>= 8)
		snprintf(out + 2 * i, 3, "%02x", (uint)(h & 0xff));
}

/* is word i of the line a host compile's -o, which its key leaves out?
 * The object does not record its own name (without -g, whose debug
 * information records the working directory, which the key then holds),
 * so that builds into other directories (mpcc-tune's trials) share it */
static int
isobject(const struct job *j, int i)
{
	return i > 0 && !strcmp(j->words.v[i - 1], "-o") && hostcompile(j);
}

/* what the preprocessing reads from the environment: gcc's include paths */
static const char *const envkey[] = {"CPATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH"};

/* The key, and for a host compile that reads nvcc's .fatbin.c, the host
 * key: the same with the .fatbin.c's shape (embed.c) for its text, which
 * is the same for any fatbinary of the same host code */
static void
key(struct job *j)
{
	u128 h[2] = {((u128)0x6c62272e07bb0142 << 64) | 0x62b821756295c58d};
	char cwd[4096] = "";
	const char *path = getenv("PATH");
	if (debuginfo(&j->words) && !getcwd(cwd, sizeof cwd))
		*cwd = 0;
	h[1] = h[0];
	field(&h[0], VERSION, strlen(VERSION));
	field(&h[1], VERSION " host", strlen(VERSION " host"));
	both(h, cwd, strlen(cwd));
	both(h, path ? path : "", path ? strlen(path) : 0);
	for (size_t k = 0; k < countof(envkey); k++) {
		const char *v = getenv(envkey[k]);
		both(h, v ? v : "", v ? strlen(v) : 0);
	}
	for (int i = 0; i < j->words.n; i++) {
		char *w = xstrdup(isobject(j, i) ? "<object>" : j->words.v[i]);
		replace(w, strlen(w), j->tmp, j->templ);
		both(h, w, strlen(w));
		free(w);
	}
	for (int i = 0; i < j->in.n; i++) {
		size_t n = 0;
		char *s = readfile(j->in.v[i], &n);
		if (s)
			replace(s, n, j->tmp, j->templ);
		field(&h[0], s ? s : "", n);
		if (i != j->fatbin || j->noembed)
			field(&h[1], s ? s : "", n);
		else if (fatbinc_parse(&j->fb, s ? s : "", n) == 0)
			field(&h[1], j->fb.shape, j->fb.nshape);
		else
			j->noembed = "nvcc's .fatbin.c is in a form mpcc does not know";
		free(s);
	}
	hex(j->key, h[0]);
	hex(j->hkey, h[1]);
}

static int
writeall(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t k = write(fd, s, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		s += k, n -= k;
	}
	return 0;
}

/* the log is for people and tests: a line it cannot take stops nothing */
static void
logline(const struct job *j, const char *dir, const char *what)
{
	char *path = fmt("%s/log", dir), *line = fmt("%s %s %s\n", what, j->key, j->line);
	replace(line, strlen(line), j->tmp, j->templ);
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0666);
	if (fd >= 0) {
		writeall(fd, line, strlen(line));
		close(fd);
	}
	free(path);
	free(line);
}

/* an entry: "mpcc-step 2\n", then for each output "file SIZE PATH\n"
 * and its bytes (a host compile's -o: "object SIZE\n", written back to
 * the -o of the line that hits, which its key leaves out), and
 * "stdout SIZE\n", "stderr SIZE\n" and theirs */
static void
record(struct buf *b, const char *what, const char *path, const char *s, size_t n)
{
	buf_printf(b, "%s %zu%s%s\n", what, n, path ? " " : "", path ? path : "");
	buf_put(b, s, n);
}

/* the hash of a file's bytes in hex; -1 if it cannot be read. *clock (if
 * clock): it names a macro of the time it is compiled at */
static int
filehash(const char *path, char out[33], int *clock)
{
	static const char *const temporal[] = {"__DATE__", "__TIME__", "__TIMESTAMP__"};
	size_t n;
	char *s = readfile(path, &n);
	if (!s)
		return -1;
	u128 h = 0;
	field(&h, s, n);
	hex(out, h);
	for (size_t k = 0; clock && k < countof(temporal); k++)
		*clock |= memmem(s, n, temporal[k], strlen(temporal[k])) != NULL;
	free(s);
	return 0;
}

/* A preprocessing step's key holds none of the headers it reads, as nobody
 * lists them before it runs: its entry does, after it ran, as a "dep 32
 * PATH" record for each file its output's line markers name, with the hash
 * of its bytes (ccache's direct mode and its manifest). Onto b; NULL, or
 * why the step is not kept */
static const char *
deprecords(const struct job *j, struct buf *b)
{
	char *text = readfile(outobj(j), NULL);
	struct args f = ARGS_INIT;
	const char *why = text ? NULL : "its output cannot be read";
	if (text)
		markerfiles(text, 0, &f);
	if (!why && !f.n)
		why = "its output has no line markers";
	for (int i = 0; !why && i < f.n; i++) {
		struct stat st;
		char hash[33];
		int clock = 0;
		if (stat(f.v[i], &st) == 0 && S_ISDIR(st.st_mode))   /* -g's "# 0 "CWD//"" */
			continue;
		if (startswith(f.v[i], j->tmp))
			why = "it reads a temporary file";
		else if (strchr(f.v[i], '\n'))   /* a record's path ends at its line's end */
			why = "it reads a file whose name holds a newline";
		else if (filehash(f.v[i], hash, &clock) != 0)
			why = "a file its output names cannot be read";
		else if (clock)
			why = "it reads a file that uses __DATE__ or __TIME__";
		else
			record(b, "dep", f.v[i], hash, 32);
	}
	args_release(&f);
	free(text);
	return why;
}

static void noteonce(const char *dir, const char *what, const char *why);

/* the entry of the step that just ran (outputs, stdout in out, stderr in
 * err) into DIR/KEY */
static void
store(const struct job *j, const char *dir, const char *out, const char *err)
{
	struct buf b = BUF_INIT;
	buf_puts(&b, VERSION "\n");
	const char *why = preprocess(j) ? deprecords(j, &b) : NULL;
	if (why) {
		char *m = fmt("the step cache does not keep the preprocessing of '%s'",
		              j->in.n ? j->in.v[0] : j->line);
		noteonce(dir, m, why);
		free(m);
		buf_release(&b);
		return;
	}
	for (int i = 0; i < j->out.n; i++) {
		size_t n;
		struct stat st;
		char *s = regular(j->out.v[i], &st) ? readfile(j->out.v[i], &n) : NULL;
		int obj = hostcompile(j) && outobj(j) && !strcmp(j->out.v[i], outobj(j));
		if (s)
			record(&b, obj ? "object" : "file", obj ? NULL : j->out.v[i], s, n);
		free(s);
	}
	const char *std[] = {out, err};
	for (int i = 0; i < 2; i++) {
		size_t n = 0;
		char *s = readfile(std[i], &n);
		record(&b, i ? "stderr" : "stdout", NULL, s ? s : "", n);
		free(s);
	}
	replace(b.s, b.n, j->tmp, j->templ);
	char *path = fmt("%s/%s", dir, j->key);
	if (writefile(path, b.s, b.n) != 0)
		warn("cannot write to the step cache '%s': %s", path, strerror(errno));
	free(path);
	buf_release(&b);
}

/* the next record of an entry at *p (its kind, its path or NULL,
 * malloc'd, and its bytes), *p moved past it: 1, 0 at the end, -1 if it
 * cannot be read */
static int
nextrecord(char **p, const char *end, char what[16], char **path, char **s, size_t *size)
{
	char *nl = *p < end ? memchr(*p, '\n', end - *p) : NULL, head[64];
	int at = 0;
	*path = NULL;
	if (*p >= end)
		return 0;
	/* sscanf() on the entry itself would measure the whole of it, each record */
	snprintf(head, sizeof head, "%.*s", nl ? (int)(nl - *p < 63 ? nl - *p : 63) : 0, *p);
	if (!nl || sscanf(head, "%15s %zu%n", what, size, &at) != 2 || *size > (size_t)(end - nl - 1))
		return -1;
	*path = (*p)[at] == ' ' ? xstrndup(*p + at + 1, nl - *p - at - 1) : NULL;
	*s = nl + 1;
	*p = *s + *size;
	return 1;
}

/* does every dep record of an entry hash as its file does now? */
static int
fresh(char *text, size_t n)
{
	char *p = text, *end = text + n, what[16], *path, *s;
	size_t size;
	int r = 0, ok = startswith(p, VERSION "\n");
	p += ok ? strlen(VERSION "\n") : 0;
	while (ok && (r = nextrecord(&p, end, what, &path, &s, &size)) > 0) {
		char hash[33];
		if (!strcmp(what, "dep"))   /* what it hashed had no __DATE__ when kept */
			ok = path && size == 32 && filehash(path, hash, NULL) == 0 &&
			     !memcmp(hash, s, 32);
		free(path);
	}
	return ok && r == 0;
}

/* a hit: the outputs of the entry text[0..n) written back, its stdout and
 * stderr said (stderr to err when given); -1 if it cannot be read */
static int
restore(const struct job *j, char *text, size_t n, const char *err)
{
	char *p = text, *end = text + n, what[16], *path, *s;
	size_t size;
	int r;
	replace(text, n, j->templ, j->tmp);
	if (!startswith(p, VERSION "\n"))
		return -1;
	p += strlen(VERSION "\n");
	while ((r = nextrecord(&p, end, what, &path, &s, &size)) > 0) {
		int bad = 0;
		if (!strcmp(what, "file"))
			bad = !path || writefile(path, s, size) != 0;
		else if (!strcmp(what, "object"))
			bad = !outobj(j) || writefile(outobj(j), s, size) != 0;
		else if (!strcmp(what, "stdout"))
			bad = writeall(1, s, size) != 0;
		else if (!strcmp(what, "stderr"))
			bad = err ? writefile(err, s, size) != 0 : writeall(2, s, size) != 0;
		free(path);
		if (bad)
			return -1;
	}
	return r;
}

/* sh -c line in this process group, its stdout and stderr to files when
 * given; the exit status as sh gives it */
static int
runsh(const char *line, const char *out, const char *err)
{
	return spawn_run(&(struct spawn){.line = line, .out = out, .err = err});
}

/* a miss: run the step with its stdout and stderr caught, keep it if it
 * succeeded, then say what it said */
static int
miss(const struct job *j, const char *dir, const char *err)
{
	char *o = fmt("%s/%ld.step.out", j->tmp, (long)getpid());
	char *e = fmt("%s/%ld.step.err", j->tmp, (long)getpid());
	int st = runsh(j->line, o, e);
	if (st == 0 && untouched(j))
		store(j, dir, o, e);
	size_t n = 0;
	char *s = readfile(o, &n);
	writeall(1, s ? s : "", n);
	free(s);
	s = readfile(e, &n);
	if (err)
		writefile(err, s ? s : "", s ? n : 0);
	else
		writeall(2, s ? s : "", s ? n : 0);
	free(s);
	unlink(o);
	unlink(e);
	free(o);
	free(e);
	return st;
}

static void
job_release(struct job *j)
{
	args_release(&j->words);
	args_release(&j->in);
	args_release(&j->out);
	free(j->st);
	fatbinc_release(&j->fb);
}

static const char *
env(const char *name)
{
	return getenv(name);
}

/* the host compiler of the line is gcc, whose objects embed.c knows:
 * gcc, g++, gcc-12, x86_64-linux-gnu-g++-12 (clang++ is not) */
static int
gnu(const struct args *w)
{
	const char *p = progname_of(w);
	static const char *const names[] = {"gcc", "g++"};
	for (size_t k = 0; k < countof(names); k++) {
		const char *at = strstr(p, names[k]), *end = at ? at + 3 : NULL;
		if (at && (at == p || at[-1] == '-') && (!*end || *end == '-'))
			return 1;
	}
	return 0;
}

/* gcc options under which the object holds the fatbinary elsewhere too:
 * LTO's IR keeps the top-level asm that puts it in its section */
static int
lto(const struct args *w)
{
	for (int i = 1; i < w->n; i++)
		if (startswith(w->v[i], "-flto") || !strcmp(w->v[i], "-ffat-lto-objects"))
			return 1;
	return 0;
}

/* A host compile that reads nvcc's .fatbin.c: can a cached object of the
 * same host code take another fatbinary (embed.c)? j->fatbin, and
 * j->noembed when it cannot; key() says whether the .fatbin.c is one
 * embed.c can read */
static void
embeddable(struct job *j)
{
	if (!hostcompile(j))
		return;
	for (int i = 0; i < j->in.n; i++)
		if (endswith(j->in.v[i], ".fatbin.c") && startswith(j->in.v[i], j->tmp))
			j->fatbin = i;
	if (j->fatbin < 0)
		return;
	if (!gnu(&j->words))
		j->noembed = "the host compiler is not gcc";
	else if (lto(&j->words))
		j->noembed = "the line asks for LTO, whose IR holds the fatbinary too";
	else if (debuginfo(&j->words))
		j->noembed = "the line asks for debug information, which records the fatbinary's size";
}

/* why a step runs again, said once for the cache (a build compiles many
 * files; a tune, many builds) */
static void
noteonce(const char *dir, const char *what, const char *why)
{
	u128 h = 0;
	field(&h, what, strlen(what));
	field(&h, why, strlen(why));
	char *path = fmt("%s/note-%08x", dir, (uint)h);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0666);
	if (fd >= 0) {
		close(fd);
		note("%s: %s", what, why);
	}
	free(path);
}

static const char hostagain[] = "the step cache runs the host compiler again for new device code";

/* the host compiler ran: if its object holds the fatbinary as embed.c
 * knows it, DIR/HKEY.host names its entry for a compile of the same host
 * code with another fatbinary */
static void
remember(const struct job *j, const char *dir)
{
	size_t n = 0;
	const char *o = outobj(j);
	char *obj = o ? readfile(o, &n) : NULL, *entry = fmt("%s/%s", dir, j->key);
	const char *why = !obj ? "it cannot be read"
	                       : elf_holds(obj, n, j->fb.section, j->fb.data, j->fb.n);
	if (why) {
		char *m = fmt("the host object does not keep the fatbinary as mpcc knows it (%s)", why);
		noteonce(dir, hostagain, m);
		free(m);
	} else if (access(entry, F_OK) == 0) {
		char *path = fmt("%s/%s.host", dir, j->hkey);
		writefile(path, j->key, strlen(j->key));
		free(path);
	}
	free(entry);
	free(obj);
}

/* the entry text[0..n) of the same host code, its object with this
 * compile's fatbinary, into out; NULL, or why not */
static const char *
reentry(const struct job *j, char *text, size_t n, struct buf *out)
{
	char *p = text, *end = text + n, what[16], *path, *s;
	const char *why = NULL;
	size_t size;
	int r, objs = 0;
	if (!startswith(p, VERSION "\n"))
		return "its entry cannot be read";
	p += strlen(VERSION "\n");
	buf_puts(out, VERSION "\n");
	while (!why && (r = nextrecord(&p, end, what, &path, &s, &size)) > 0) {
		struct buf obj = BUF_INIT;
		if (!strcmp(what, "file"))
			why = "its entry holds files other than the object";
		else if (strcmp(what, "object"))
			record(out, what, NULL, s, size);
		else if (objs++)
			why = "its entry holds two objects";
		else if (!(why = elf_embed(&obj, s, size, j->fb.section, j->fb.data, j->fb.n)))
			record(out, what, NULL, obj.s, obj.n);
		buf_release(&obj);
		free(path);
	}
	if (!why && (r < 0 || objs != 1))
		why = "its entry cannot be read";
	return why;
}

/* A miss of a host compile: the object of the same host code with another
 * fatbinary (DIR/HKEY.host), with this compile's fatbinary in place, kept
 * as this compile's entry and written back as a hit is; -1 if there is
 * none or it cannot take it (then the host compiler runs) */
static int
reembed(const struct job *j, const char *dir, const char *err)
{
	size_t n = 0;
	char *alias = fmt("%s/%s.host", dir, j->hkey), *k = readfile(alias, NULL), *path = NULL;
	char *text = k && strlen(k) == 32 && strspn(k, "0123456789abcdef") == 32
	                 ? readfile(path = fmt("%s/%s", dir, k), &n) : NULL;
	struct buf b = BUF_INIT;
	const char *why = text ? reentry(j, text, n, &b) : "";
	int st = -1;
	if (!why) {
		char *entry = fmt("%s/%s", dir, j->key);
		replace(b.s, b.n, j->tmp, j->templ);
		if (writefile(entry, b.s, b.n) != 0)
			warn("cannot write to the step cache '%s': %s", entry, strerror(errno));
		st = restore(j, b.s, b.n, err);
		free(entry);
	} else if (*why) {
		char *m = fmt("a cached host object cannot take the new fatbinary (%s)", why);
		noteonce(dir, hostagain, m);
		free(m);
	}
	buf_release(&b);
	free(text);
	free(path);
	free(k);
	free(alias);
	return st;
}

void
stepcache_time(const char *kind, double secs, const char *how)
{
	const char *path = getenv("MPCC_STEP_LOG");
	if (!path || !*path)
		return;
	char *line = fmt("%s %.6f %s\n", kind, secs, how);
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
	if (fd >= 0) {
		writeall(fd, line, strlen(line));   /* one short write: lines do not mix */
		close(fd);
	}
	free(line);
}

/* what kind of step a line is, for stepcache_time() */
static const char *
stepkind(const struct job *j)
{
	static const char *const cuda[] = {"cudafe++", "cicc", "ptxas", "fatbinary", "nvlink"};
	static const char *const kinds[] = {"front", "front", "ptxas", "fatbinary", "link"};
	const struct args *w = &j->words;
	if (has(w, "-E"))
		return "front";
	for (size_t k = 0; k < countof(cuda); k++)
		if (!strcmp(progname_of(w), cuda[k]))
			return kinds[k];
	if (has(w, "-c"))
		return "host";
	return w->n && optval(w, "-o") ? "link" : "other";
}

int
stepcache_run(const char *dir, const char *tmp, const char *templ, const char *line,
              const char *err)
{
	struct job j = {.line = line, .tmp = tmp, .templ = templ, .fatbin = -1};
	double t0 = now();
	if (!dir || shsplit(&j.words, line, env) < 0 || !kept(&j)) {
		int st = runsh(line, NULL, err);
		stepcache_time(j.words.n ? stepkind(&j) : "other", now() - t0, "run");
		job_release(&j);
		return st;
	}
	mkdir(dir, 0777);
	named(&j);
	embeddable(&j);
	key(&j);
	size_t n;
	char *path = fmt("%s/%s", dir, j.key), *text = readfile(path, &n);
	int st = 0;
	int hit = text && fresh(text, n) && restore(&j, text, n, err) == 0;
	int embedded = !hit && j.fb.data && reembed(&j, dir, err) == 0;
	logline(&j, dir, hit ? "hit" : embedded ? "embed" : "miss");
	if (j.fatbin >= 0 && j.noembed && !hit)
		noteonce(dir, hostagain, j.noembed);
	if (!hit && !embedded && (st = miss(&j, dir, err)) == 0 && j.fb.data)
		remember(&j, dir);
	stepcache_time(stepkind(&j), now() - t0, hit ? "hit" : embedded ? "embed" : "miss");
	free(text);
	free(path);
	job_release(&j);
	return st;
}
