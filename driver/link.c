/* link.c: mpcc's store runtime (runtime/, libmpccrt.a) at the link.
 * A line that links an executable, from objects or archive members that
 * hold the store table (an ELF section mpcc_store: a clone of some kernel
 * narrows arrays) or from .cu inputs whose profile has a store rule, gets
 * the runtime: its library as one more input and its wrap list as
 * -Xlinker --wrap=A,--wrap=B,... (nvcc hands each to the host linker;
 * "-Xlinker @FILE" would not do, since gcc expands @FILE itself). Both go
 * onto the line mpcc hands nvcc, so that pass-through and the pipeline's
 * dryrun carry them alike.
 *
 * It links nothing of its own, with one note saying why, where the
 * runtime cannot see every reader of device memory: a library that takes
 * device pointers (cuBLAS, cuFFT, NCCL, MPI, the driver API...) or one it
 * does not know, a call from an object to a cuda* or cu* function the
 * runtime does not account for (its list, mpccrt.syms), a shared library
 * (-shared), no CUDA runtime (-cudart none). The originals then run,
 * which is always right. The runtime is found beside mpcc in the build
 * tree (runtime/) or in PREFIX/lib/mpcc when installed. */
#include "driver/mpcc.h"
#include "transforms/pass.h"

#include <elf.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct line {             /* what the line asks of the link */
	int nolink;           /* it builds no executable: -c, -ptx, -lib, -dlink, -E... */
	int shared, nocudart;
	struct args libs;     /* -lNAME, and shared objects given as inputs */
	struct args wraps;    /* --wrap=NAME given to the linker already */
};

struct objs {             /* what the inputs' objects hold */
	int store;            /* a mpcc_store section somewhere */
	const char *lto;      /* an input whose symbols cannot be read (LTO IR), or NULL */
	struct args def, undef, where;   /* where[i]: the object that needs undef[i] */
	char *bad;            /* an input that does not read as an object, or NULL */
};

static const char *const nolinks[] = {
	"-E", "--preprocess", "-ptx", "--ptx", "-cubin", "--cubin", "-fatbin", "--fatbin",
	"-lib", "--lib", "-dlink", "--device-link", "-optix-ir", "--optix-ir", "-ltoir", "--ltoir",
	"-fdevice-syntax-only", "--fdevice-syntax-only", "-cuda", "--cuda", "-run", "--run",
	"-r", "--relocatable-link",
};

/* libraries known not to take device pointers */
static const char *const known[] = {
	"c", "m", "pthread", "dl", "rt", "stdc++", "gcc", "gcc_s", "atomic", "gomp",
	"cudart", "cudart_static", "cudadevrt", "nvToolsExt", "nvtx3interop",
};

/* libraries that take device pointers, by the start of their names and
 * of their functions' */
static const char *const devptr[] = {
	"cublas", "cufft", "cusparse", "cusolver", "curand", "cudnn", "cutensor", "nccl",
	"nvshmem", "mpi", "MPI_", "PMPI_", "npp", "nvjpeg", "cufile", "cupti", "nvrtc",
};

static int
among(const char *s, const char *const *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(s, v[i]))
			return 1;
	return 0;
}

static const char *
devptrlib(const char *name)
{
	for (size_t i = 0; i < countof(devptr); i++)
		if (startswith(name, devptr[i]))
			return devptr[i];
	return !strcmp(name, "cuda") ? "cuda" : NULL;
}

/* a value of -Xlinker or -Xcompiler: NAME,NAME,... */
static void
forwarded(struct line *l, const char *val, int linker)
{
	char *copy = xstrdup(val);
	for (char *w = strtok(copy, ","); w; w = strtok(NULL, ",")) {
		if (!strcmp(w, "-shared") || !strcmp(w, "--shared") || (linker && !strcmp(w, "-r")) ||
		    (linker && !strcmp(w, "--relocatable")))
			l->shared = 1;
		else if (startswith(w, "-l") && w[2])
			args_push(&l->libs, w + 2);
		else if (linker && (startswith(w, "--wrap=") || startswith(w, "-wrap=")))
			args_push(&l->wraps, strchr(w, '=') + 1);
	}
	free(copy);
}

/* -l's value: NAME,NAME,... */
static void
libraries(struct line *l, const char *val)
{
	for (const char *s = val, *e; *s; s = *e ? e + 1 : e) {
		e = until(s, ',');
		if (e > s) {
			char *name = xstrndup(s, e - s);
			args_push(&l->libs, name);
			free(name);
		}
	}
}

static void scan(struct line *l, char **v, int n, int depth);

/* one option and its value, as nvcc takes it */
static void
option(struct line *l, const char *arg, const struct opt *o, const char *val, int depth)
{
	const char *name = o ? o->name : arg;
	if (o && (o->flags & (COMPILE | DEPSONLY | INFO)))
		l->nolink = 1;
	else if (among(name, nolinks, countof(nolinks)))
		l->nolink = 1;
	else if (!strcmp(name, "-shared") || !strcmp(name, "--shared"))
		l->shared = 1;
	else if ((!strcmp(name, "-cudart") || !strcmp(name, "--cudart")) && val)
		l->nocudart = !strcmp(val, "none");
	else if ((!strcmp(name, "-l") || !strcmp(name, "--library")) && val)
		libraries(l, val);
	else if ((!strcmp(name, "-Xlinker") || !strcmp(name, "--linker-options")) && val)
		forwarded(l, val, 1);
	else if ((!strcmp(name, "-Xcompiler") || !strcmp(name, "--compiler-options")) && val)
		forwarded(l, val, 0);
	else if (o && (o->flags & OPTF) && val) {
		char *text = readfile(val, NULL);
		struct args a = ARGS_INIT;
		if (text && depth < 8 && shsplit(&a, text, NULL) == 0)
			scan(l, a.v, a.n, depth + 1);
		args_release(&a);
		free(text);
	}
}

static void
scan(struct line *l, char **v, int n, int depth)
{
	for (int i = 0; i < n; i++) {
		const char *val, *arg = v[i];
		if (arg[0] != '-' || !arg[1])
			continue;
		const struct opt *o = nvopt(arg, &val);
		if (!o && startswith(arg, "-l") && arg[2]) {
			args_push(&l->libs, arg + 2);
			continue;
		}
		if (o && (o->flags & ARG) && !val && i + 1 < n)
			val = v[++i];
		option(l, arg, o, val, depth);
	}
}

static void
scanenv(struct line *l, const char *var)
{
	const char *e = getenv(var);
	struct args a = ARGS_INIT;
	if (e && shsplit(&a, e, NULL) == 0)
		scan(l, a.v, a.n, 0);
	args_release(&a);
}

/* names the runtime may have to account for: CUDA's APIs, and the
 * functions of libraries that take device pointers */
static int
interesting(const char *s)
{
	return startswith(s, "cu") || startswith(s, "__cu") || devptrlib(s);
}

static void
symbols(struct objs *o, const char *file, const char *obj, size_t n, const Elf64_Shdr *sym,
        const Elf64_Shdr *str)
{
	if (sym->sh_entsize != sizeof(Elf64_Sym) || sym->sh_offset > n ||
	    sym->sh_size > n - sym->sh_offset || str->sh_offset > n || str->sh_size > n - str->sh_offset)
		return;
	const char *names = obj + str->sh_offset;
	for (size_t i = 1; i < sym->sh_size / sizeof(Elf64_Sym); i++) {
		Elf64_Sym s;
		memcpy(&s, obj + sym->sh_offset + i * sizeof s, sizeof s);
		int bind = ELF64_ST_BIND(s.st_info);
		if ((bind != STB_GLOBAL && bind != STB_WEAK) || s.st_name >= str->sh_size ||
		    !memchr(names + s.st_name, 0, str->sh_size - s.st_name))
			continue;
		const char *name = names + s.st_name;
		if (startswith(name, "__gnu_lto_"))
			o->lto = o->lto ? o->lto : xstrdup(file);
		if (!interesting(name))
			continue;
		if (s.st_shndx != SHN_UNDEF) {
			args_push(&o->def, name);
		} else {
			args_push(&o->undef, name);
			args_push(&o->where, file);
		}
	}
}

/* section i of the object (memcpy: an archive member need not be aligned) */
static Elf64_Shdr
shdr(const char *obj, const Elf64_Ehdr *eh, size_t i)
{
	Elf64_Shdr sh;
	memcpy(&sh, obj + eh->e_shoff + i * sizeof sh, sizeof sh);
	return sh;
}

/* an ELF relocatable object: its store table and its symbols into o;
 * NULL, or why it cannot be read */
static const char *
object(struct objs *o, const char *file, const char *obj, size_t n)
{
	Elf64_Ehdr eh;
	if (n < sizeof eh || memcmp(obj, ELFMAG, SELFMAG))
		return "not an ELF object";
	memcpy(&eh, obj, sizeof eh);
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB ||
	    eh.e_type != ET_REL || eh.e_shentsize != sizeof(Elf64_Shdr) || !eh.e_shoff ||
	    eh.e_shoff > n || (n - eh.e_shoff) / sizeof(Elf64_Shdr) < 1)
		return "not a 64-bit relocatable ELF object";
	size_t nsh = eh.e_shnum ? eh.e_shnum : shdr(obj, &eh, 0).sh_size;
	size_t stri = eh.e_shstrndx == SHN_XINDEX ? shdr(obj, &eh, 0).sh_link : eh.e_shstrndx;
	if (nsh > (n - eh.e_shoff) / sizeof(Elf64_Shdr) || stri >= nsh)
		return "a damaged ELF object";
	Elf64_Shdr strs = shdr(obj, &eh, stri);
	if (strs.sh_offset > n || strs.sh_size > n - strs.sh_offset)
		return "a damaged ELF object";
	for (size_t i = 1; i < nsh; i++) {
		Elf64_Shdr sh = shdr(obj, &eh, i);
		const char *name = "";
		if (sh.sh_name < strs.sh_size &&
		    memchr(obj + strs.sh_offset + sh.sh_name, 0, strs.sh_size - sh.sh_name))
			name = obj + strs.sh_offset + sh.sh_name;
		if (!strcmp(name, "mpcc_store") && sh.sh_size)
			o->store = 1;
		if (startswith(name, ".gnu.lto_"))
			o->lto = o->lto ? o->lto : xstrdup(file);
		if (sh.sh_type == SHT_SYMTAB && sh.sh_link < nsh) {
			Elf64_Shdr str = shdr(obj, &eh, sh.sh_link);
			symbols(o, file, obj, n, &sh, &str);
		}
	}
	return NULL;
}

/* a GNU ar archive's members, each an object; NULL, or why one cannot be
 * read */
static char *
archive(struct objs *o, const char *path, const char *buf, size_t n)
{
	const char *longnames = NULL;
	size_t nlong = 0;
	for (size_t off = 8; off + 60 <= n;) {
		const char *h = buf + off;
		char num[11] = {0};
		memcpy(num, h + 48, 10);
		size_t size = strtoul(num, NULL, 10);
		if (memcmp(h + 58, "`\n", 2) || size > n - off - 60)
			return fmt("'%s' is a damaged archive", path);
		const char *data = h + 60;
		off += 60 + size + (size & 1);
		if (!memcmp(h, "// ", 3)) {
			longnames = data, nlong = size;
			continue;
		}
		if (h[0] == '/' && (h[1] == ' ' || !memcmp(h, "/SYM64/", 7)))
			continue;   /* the symbol index */
		size_t at = h[0] == '/' ? strtoul(h + 1, NULL, 10) : 0;
		const char *name = h[0] == '/' && longnames && at < nlong ? longnames + at : h;
		char *member = fmt("%s(%.*s)", path, (int)strcspn(name, "/\n"), name);
		const char *why = object(o, member, data, size);
		char *bad = why ? fmt("'%s' is %s", member, why) : NULL;
		free(member);
		if (bad)
			return bad;
	}
	return NULL;
}

/* the library a shared object's path names: libNAME.so[.N] -> NAME */
static char *
soname(const char *path)
{
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	if (startswith(b, "lib"))
		b += 3;
	return xstrndup(b, strcspn(b, "."));
}

static int
suffix(const char *path, const char *sfx)
{
	return endswith(path, sfx);
}

/* one input of the line: objects and archives read, shared objects taken
 * as libraries; sources and device code are not read here */
static void
input(struct line *l, struct objs *o, const char *path)
{
	int ar = suffix(path, ".a") || suffix(path, ".lib");
	if (strstr(path, ".so") && (suffix(path, ".so") || strstr(path, ".so."))) {
		char *name = soname(path);
		args_push(&l->libs, name);
		free(name);
		return;
	}
	if (!ar && !suffix(path, ".o") && !suffix(path, ".obj"))
		return;
	char *lib = ar ? soname(path) : NULL;
	if (lib && devptrlib(lib))
		args_push(&l->libs, lib);   /* cuBLAS's static archive, say: refused by name */
	free(lib);
	size_t n;
	char *buf = readfile(path, &n);
	if (!buf)
		return;   /* nvcc will say it is missing */
	const char *why = NULL;
	if (ar && n >= 8 && !memcmp(buf, "!<arch>\n", 8))
		o->bad = o->bad ? o->bad : archive(o, path, buf, n);
	else if (ar)
		why = "not an archive mpcc reads (a thin archive?)";
	else
		why = object(o, path, buf, n);
	if (why && !o->bad)
		o->bad = fmt("'%s' is %s", path, why);
	free(buf);
}

/* the pass table's index of `store`, or -1 (none yet) */
static int
storepass(void)
{
	for (int t = 0; t < npass; t++)
		if (!strcmp(passes[t]->schema.name, "store"))
			return t;
	return -1;
}

/* a .cu input whose profile has a rule with store on for it */
static int
storerule(const struct cmd *c, struct profile **prof)
{
	int t = storepass();
	for (int i = 0; t >= 0 && i < c->cu.n; i++)
		for (int j = 0; prof[i] && j < prof[i]->nrule; j++) {
			const struct rule *r = &prof[i]->rule[j];
			if ((r->has >> t & 1) && !(r->off >> t & 1) && rule_file_match(r, c->cu.v[i]))
				return 1;
		}
	return 0;
}

struct runtime {          /* libmpccrt where mpcc finds it */
	char *lib;
	struct args wrap;     /* the names it wraps */
	struct args syms;     /* the names it accounts for */
};

/* the lines of path into a (one name each, "--wrap=" taken off): 0, or -1 */
static int
names(const char *path, struct args *a)
{
	char *text = readfile(path, NULL);
	if (!text)
		return -1;
	for (char *s = strtok(text, "\n"); s; s = strtok(NULL, "\n"))
		args_push(a, startswith(s, "--wrap=") ? s + strlen("--wrap=") : s);
	free(text);
	return a->n ? 0 : -1;
}

/* beside mpcc in the build tree (runtime/), else PREFIX/lib/mpcc: 0, or -1 */
static int
findrt(struct runtime *r)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n <= 0)
		return -1;
	self[n] = 0;
	*strrchr(self, '/') = 0;
	static const char *const dirs[] = {"%s/runtime", "%s/../lib/mpcc"};
	for (size_t i = 0; i < countof(dirs); i++) {
		char *d = fmt(dirs[i], self), real[PATH_MAX];
		const char *dir = realpath(d, real) ? real : d;
		char *lib = fmt("%s/libmpccrt.a", dir);
		char *w = fmt("%s/mpccrt.wrap", dir), *s = fmt("%s/mpccrt.syms", dir);
		int ok = access(lib, R_OK) == 0 && names(w, &r->wrap) == 0 && names(s, &r->syms) == 0;
		free(d);
		free(w);
		free(s);
		if (ok) {
			r->lib = lib;
			return 0;
		}
		free(lib);
		args_release(&r->wrap);
		args_release(&r->syms);
	}
	return -1;
}

static int
has(const struct args *a, const char *s)
{
	for (int i = 0; i < a->n; i++)
		if (!strcmp(a->v[i], s))
			return 1;
	return 0;
}

/* a name of CUDA's APIs (cudaMalloc, cuMemAlloc_v2, __cudaPushCallConfiguration) */
static int
cudaapi(const char *s)
{
	return (startswith(s, "cuda") && (s[4] == '_' || (s[4] >= 'A' && s[4] <= 'Z'))) ||
	       (startswith(s, "cu") && s[2] >= 'A' && s[2] <= 'Z') || startswith(s, "__cu");
}

/* why an object's call keeps the runtime out, or NULL */
static char *
calls(const struct objs *o, const struct runtime *r)
{
	for (int i = 0; i < o->undef.n; i++) {
		const char *s = o->undef.v[i], *w = o->where.v[i];
		if (devptrlib(s))
			return fmt("'%s' calls '%s', of a library that takes device pointers mpcc cannot "
			           "follow", w, s);
		/* nvcc's device link defines the registration of -rdc objects */
		if (!cudaapi(s) || has(&o->def, s) || has(&r->syms, s) ||
		    startswith(s, "__cudaRegisterLinkedBinary_"))
			continue;
		return fmt("'%s' calls '%s', which mpcc's runtime does not account for", w, s);
	}
	return NULL;
}

/* why the line gets no runtime, or NULL (then r is the runtime) */
static char *
refusal(const struct line *l, const struct objs *o, struct runtime *r)
{
	if (l->shared)
		return fmt("the line makes a shared library (-shared), and the runtime goes into "
		           "executables only");
	if (l->nocudart)
		return fmt("the line links no CUDA runtime (-cudart none)");
	for (int i = 0; i < l->libs.n; i++) {
		const char *lib = l->libs.v[i];
		if (!strcmp(lib, "cuda"))
			return fmt("the program links 'cuda', the driver API, which takes device pointers "
			           "mpcc cannot follow");
		if (devptrlib(lib))
			return fmt("the program links '%s', which takes device pointers mpcc cannot follow",
			           lib);
		if (!among(lib, known, countof(known)))
			return fmt("the program links '%s', a library mpcc does not know", lib);
	}
	if (o->bad)
		return fmt("%s, whose calls mpcc cannot read", o->bad);
	if (o->lto)
		return fmt("'%s' holds LTO IR, whose calls mpcc cannot read", o->lto);
	if (findrt(r) < 0)
		return fmt("mpcc's runtime is not installed (libmpccrt.a, mpccrt.wrap and mpccrt.syms, "
		           "in runtime/ beside mpcc or in PREFIX/lib/mpcc)");
	for (int i = 0; i < l->wraps.n; i++)
		if (has(&r->wrap, l->wraps.v[i]))
			return fmt("the line wraps '%s' itself (--wrap)", l->wraps.v[i]);
	return calls(o, r);
}

/* the runtime onto the line: its library, and its wrap list for the linker */
static void
add(struct cmd *c, const struct runtime *r)
{
	struct buf b = BUF_INIT;
	for (int i = 0; i < r->wrap.n; i++)
		buf_printf(&b, "%s--wrap=%s", i ? "," : "", r->wrap.v[i]);
	args_push(&c->nv, r->lib);
	args_push(&c->nv, "-Xlinker");
	args_push(&c->nv, b.s);
	buf_release(&b);
}

void
link_store(struct cmd *c, struct profile **prof)
{
	if (c->info || c->explain || c->depsonly || !c->inputs.n)
		return;
	struct line l = {0, 0, 0, ARGS_INIT, ARGS_INIT};
	struct objs o = {0, NULL, ARGS_INIT, ARGS_INIT, ARGS_INIT, NULL};
	struct runtime r = {NULL, ARGS_INIT, ARGS_INIT};
	scanenv(&l, "NVCC_PREPEND_FLAGS");
	scan(&l, c->nv.v, c->nv.n, 0);
	scanenv(&l, "NVCC_APPEND_FLAGS");
	for (int i = 0; !l.nolink && i < c->inputs.n; i++)
		input(&l, &o, c->inputs.v[i]);
	if (!l.nolink && (o.store || storerule(c, prof))) {
		char *why = refusal(&l, &o, &r);
		if (why)
			note("store: not linking mpcc's runtime: %s: every kernel runs in its original form",
			     why);
		else
			add(c, &r);
		free(why);
	}
	args_release(&l.libs);
	args_release(&l.wraps);
	args_release(&o.def);
	args_release(&o.undef);
	args_release(&o.where);
	free((char *)o.lto);
	free(o.bad);
	free(r.lib);
	args_release(&r.wrap);
	args_release(&r.syms);
}
