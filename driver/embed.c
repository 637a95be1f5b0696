/* embed.c: a host object with another fatbinary in it, for the step cache.
 *
 * A trial of mpcc-tune changes the device code of a file and nothing of its
 * host code, yet the host compile of cudafe++'s output reads the fatbinary:
 * cicc's stub includes nvcc's .fatbin.c, which puts the fatbinary's bytes
 * in a section of their own with the assembler (`.section .nv_fatbin`, or
 * `__nv_relfatbin` under -rdc, then `.quad` lines) and points the wrapper
 * that registers it (`.nvFatBinSegment`) at the section's start, with a
 * relocation against the section. Nothing else in the object depends on
 * the fatbinary: its symbol, fatbinData, is at the section's start with no
 * size, and its count, `fatbinData[N]`, is only a declaration (but for
 * debug information, which records it: the step cache does not re-embed
 * under -g). So the object of the same host code with a new fatbinary is
 * the old object with the section's bytes replaced and every section after
 * it laid out again as the assembler lays them (each at the next offset of
 * its alignment, zeros between), which this file checks they were: byte
 * for byte what the host compiler makes. (objcopy --update-section gives
 * the same sections, but writes .shstrtab in another order.) stepcache.c
 * keys a host compile a second time with the .fatbin.c's text without its
 * bytes (its shape), and asks this file for the rest; what this file does
 * not know it refuses, with a reason, and the host compiler runs. */
#define _GNU_SOURCE   /* memmem */
#include "driver/mpcc.h"

#include <elf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void
fatbinc_release(struct fatbinc *f)
{
	free(f->section);
	free(f->data);
	free(f->shape);
	*f = (struct fatbinc){0};
}

/* the .quad lines at *p, `".quad 0x<hex>,0x<hex>, 0x<hex>\n"` (fatbinary
 * writes the last line with spaces), into data */
static int
quads(const char **p, const char *end, struct buf *data)
{
	static const char pre[] = "\".quad ";
	while (end - *p > (long)sizeof pre && !memcmp(*p, pre, sizeof pre - 1)) {
		const char *q = *p + sizeof pre - 1;
		for (;;) {
			char hex[17];
			size_t k = end - q > 2 && q[0] == '0' && q[1] == 'x' ? strspn(q + 2, "0123456789abcdef") : 0;
			if (!k || k > 16)
				return -1;
			memcpy(hex, q + 2, k);
			hex[k] = 0;
			unsigned long long v = strtoull(hex, NULL, 16);
			for (int i = 0; i < 8; i++, v >>= 8)   /* .quad is little-endian on x86-64 */
				buf_put(data, &(char){(char)(v & 0xff)}, 1);
			q += 2 + k;
			if (*q != ',')
				break;
			q += 1 + (q[1] == ' ');
		}
		if (end - q < 4 || memcmp(q, "\\n\"\n", 4))
			return -1;
		*p = q + 4;
	}
	return 0;
}

int
fatbinc_parse(struct fatbinc *f, const char *text, size_t n)
{
	static const char sec[] = "\".section ", label[] = "\"fatbinData:\\n\"\n",
	                  tail[] = "\".text\\n\");\n", decl[] = "fatbinData[";
	const char *end = text + n, *s = memmem(text, n, sec, sizeof sec - 1);
	const char *l = memmem(text, n, label, sizeof label - 1);
	*f = (struct fatbinc){0};
	if (!s || !l || s > l || memmem(l + 1, end - l - 1, label, sizeof label - 1))
		return -1;
	s += sizeof sec - 1;
	size_t k = strcspn(s, ", \n\"");
	if (!k || s[k] != ',')
		return -1;
	struct buf data = BUF_INIT;
	const char *p = l + sizeof label - 1, *d;
	int bad = quads(&p, end, &data) < 0 || !data.n || (size_t)(end - p) < sizeof tail - 1 ||
	          memcmp(p, tail, sizeof tail - 1);
	/* the one declaration's count is the number of .quads */
	d = bad ? NULL : memmem(p, end - p, decl, sizeof decl - 1);
	char *e = NULL;
	if (d && strtoul(d + sizeof decl - 1, &e, 10) == data.n / 8 && *e == ']' &&
	    !memmem(e, end - e, decl, sizeof decl - 1)) {
		struct buf shape = BUF_INIT;
		buf_put(&shape, text, l + sizeof label - 1 - text);
		buf_put(&shape, p, d + sizeof decl - 1 - p);
		buf_put(&shape, e, end - e);
		f->section = xstrndup(s, k);
		f->nshape = shape.n;
		f->shape = buf_take(&shape);
		f->n = data.n;
		f->data = buf_take(&data);
		return 0;
	}
	buf_release(&data);
	return -1;
}

/* the section headers of an ELF64 little-endian relocatable object, and
 * the index of the section named name; NULL, or why not */
static const char *
elfsections(const char *obj, size_t n, const char *name, Elf64_Ehdr *eh, Elf64_Shdr **sh, int *at)
{
	static const uint16_t one = 1;
	*sh = NULL;
	if (n < sizeof *eh || memcmp(obj, ELFMAG, SELFMAG))
		return "not an ELF file";
	memcpy(eh, obj, sizeof *eh);
	if (eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_ident[EI_DATA] != ELFDATA2LSB ||
	    *(const char *)&one != 1)
		return "not a 64-bit little-endian ELF file";
	if (eh->e_type != ET_REL || eh->e_phnum || eh->e_shentsize != sizeof **sh || !eh->e_shnum ||
	    eh->e_shstrndx >= eh->e_shnum || eh->e_shoff > n ||
	    (n - eh->e_shoff) / sizeof **sh < eh->e_shnum)
		return "not a relocatable object with its section headers in place";
	*sh = xmalloc(eh->e_shnum * sizeof **sh);
	memcpy(*sh, obj + eh->e_shoff, eh->e_shnum * sizeof **sh);
	const Elf64_Shdr *str = &(*sh)[eh->e_shstrndx];
	if (str->sh_type != SHT_STRTAB || str->sh_offset > n || str->sh_size > n - str->sh_offset)
		return "its section names are not in place";
	*at = -1;
	for (int i = 0; i < eh->e_shnum; i++) {
		const Elf64_Shdr *s = &(*sh)[i];
		const char *nm = obj + str->sh_offset + s->sh_name;
		if (s->sh_type != SHT_NOBITS && (s->sh_offset > n || s->sh_size > n - s->sh_offset))
			return "a section runs past the file's end";
		if (s->sh_type == SHT_SYMTAB_SHNDX)
			return "it has extended section indices";
		if (s->sh_name >= str->sh_size || !memchr(nm, 0, str->sh_size - s->sh_name) ||
		    strcmp(nm, name))
			continue;
		if (*at >= 0)
			return "two sections have the fatbinary's name";
		*at = i;
	}
	if (*at < 0)
		return "no section has the fatbinary's name";
	const Elf64_Shdr *f = &(*sh)[*at];
	if (f->sh_type != SHT_PROGBITS || (f->sh_flags & SHF_COMPRESSED) || !f->sh_size)
		return "the fatbinary's section is not plain bytes";
	return NULL;
}

/* does anything in the object depend on the bytes or the size of section
 * at, but a relocation against its start? NULL, or what does */
static const char *
depends(const char *obj, const Elf64_Ehdr *eh, const Elf64_Shdr *sh, int at)
{
	for (int i = 0; i < eh->e_shnum; i++) {
		const Elf64_Shdr *s = &sh[i];
		if ((s->sh_type == SHT_REL || s->sh_type == SHT_RELA) && s->sh_info == (uint)at)
			return "its bytes are relocated";
		if (s->sh_type != SHT_SYMTAB || s->sh_entsize != sizeof(Elf64_Sym))
			continue;
		for (size_t k = 0; k < s->sh_size / sizeof(Elf64_Sym); k++) {
			Elf64_Sym y;
			memcpy(&y, obj + s->sh_offset + k * sizeof y, sizeof y);
			if (y.st_shndx == at && (y.st_value || y.st_size))
				return "a symbol points inside it or has its size";
		}
	}
	return NULL;
}

const char *
elf_holds(const char *obj, size_t n, const char *name, const char *data, size_t dn)
{
	Elf64_Ehdr eh;
	Elf64_Shdr *sh;
	int at;
	const char *why = elfsections(obj, n, name, &eh, &sh, &at);
	if (!why && !(why = depends(obj, &eh, sh, at)) &&
	    (sh[at].sh_size != dn || memcmp(obj + sh[at].sh_offset, data, dn)))
		why = "its section is not the fatbinary's bytes";
	free(sh);
	return why;
}

/* what lies after the fatbinary in the file: a section, or the section
 * headers (sec -1) */
struct item {
	uint64_t off, size, align;
	int sec;
};

static int
byplace(const void *a, const void *b)
{
	const struct item *x = a, *y = b;
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	if (!x->size != !y->size)   /* at one offset an empty one comes first */
		return x->size ? 1 : -1;
	return x->sec - y->sec;
}

static uint64_t
alignup(uint64_t x, uint64_t a)
{
	return a > 1 ? (x + a - 1) / a * a : x;
}

/* The sections and headers after the fatbinary, in file order, into it[]
 * (*k of them): they must lie as the assembler lays them (BFD: each at the
 * next offset of its alignment after the one before, with zeros between;
 * the headers on 8), so that laying them out again after a fatbinary of
 * another size is what it would have made. NULL, or why not */
static const char *
after(const char *obj, size_t n, const Elf64_Ehdr *eh, const Elf64_Shdr *sh, int at,
      struct item *it, int *k)
{
	uint64_t start = sh[at].sh_offset, pos = start + sh[at].sh_size;
	*k = 0;
	for (int i = 0; i < eh->e_shnum; i++) {
		const Elf64_Shdr *s = &sh[i];
		uint64_t size = s->sh_type == SHT_NOBITS ? 0 : s->sh_size;
		if (i == at || s->sh_offset < start || (s->sh_offset == start && !size))
			continue;
		if (s->sh_offset < pos)
			return "a section overlaps the fatbinary's";
		it[(*k)++] = (struct item){s->sh_offset, size, s->sh_addralign, i};
	}
	if (eh->e_shoff > start && eh->e_shoff < pos)
		return "the section headers overlap the fatbinary";
	if (eh->e_shoff >= pos)
		it[(*k)++] = (struct item){eh->e_shoff, eh->e_shnum * sizeof *sh, 8, -1};
	qsort(it, *k, sizeof *it, byplace);
	for (int i = 0; i < *k; i++) {
		if (it[i].off != alignup(pos, it[i].align))
			return "the sections after it are not laid out as the assembler lays them";
		for (; pos < it[i].off; pos++)
			if (obj[pos])
				return "the sections after it are not laid out as the assembler lays them";
		pos = it[i].off + it[i].size;
	}
	return pos == n ? NULL : "the file runs past its last section";
}

/* the object with data[0..dn) for section at's bytes and what comes after
 * laid out again by the same rule, into out */
static void
relayout(struct buf *out, const char *obj, Elf64_Ehdr *eh, Elf64_Shdr *sh, int at,
         struct item *it, int k, const char *data, size_t dn)
{
	uint64_t start = sh[at].sh_offset, pos = start + dn;
	static const char zeros[64];
	buf_put(out, obj, start);
	buf_put(out, data, dn);
	sh[at].sh_size = dn;
	for (int i = 0; i < k; i++) {
		uint64_t off = alignup(pos, it[i].align);
		while (pos < off) {
			size_t z = off - pos < sizeof zeros ? off - pos : sizeof zeros;
			buf_put(out, zeros, z);
			pos += z;
		}
		buf_put(out, obj + it[i].off, it[i].size);
		if (it[i].sec < 0)
			eh->e_shoff = off;
		else
			sh[it[i].sec].sh_offset = off;
		pos = off + it[i].size;
	}
	memcpy(out->s, eh, sizeof *eh);
	memcpy(out->s + eh->e_shoff, sh, eh->e_shnum * sizeof *sh);
}

const char *
elf_embed(struct buf *out, const char *obj, size_t n, const char *name, const char *data,
          size_t dn)
{
	Elf64_Ehdr eh;
	Elf64_Shdr *sh;
	int at, k;
	const char *why = elfsections(obj, n, name, &eh, &sh, &at);
	struct item *it = why ? NULL : xmalloc((eh.e_shnum + 1) * sizeof *it);
	if (!why)
		why = depends(obj, &eh, sh, at);
	if (!why)
		why = after(obj, n, &eh, sh, at, it, &k);
	if (!why)
		relayout(out, obj, &eh, sh, at, it, k, data, dn);
	free(it);
	free(sh);
	return why;
}
