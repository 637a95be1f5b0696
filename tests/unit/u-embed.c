/* unit tests for driver/embed.c: nvcc 13's .fatbin.c as the step cache
 * reads it, and a fatbinary section replaced in a small ELF object made
 * here (tests/driver/t-step-embed.sh does it on nvcc's and gcc's own) */
#define _GNU_SOURCE   /* memmem */
#include "driver/mpcc.h"
#include "tests/unit/test.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

/* the form nvcc 13 writes, with the last line as fatbinary writes it */
#define FATBINC(QUADS, N)                                                              \
	"#ifndef __SKIP_INTERNAL_FATBINARY_HEADERS\n#include \"fatbinary_section.h\"\n#endif\n" \
	"#define __CUDAFATBINSECTION  \".nvFatBinSegment\"\n"                             \
	"#define __CUDAFATBINDATASECTION  \".nv_fatbin\"\n"                                \
	"asm(\n\".section .nv_fatbin, \\\"a\\\"\\n\"\n\".align 8\\n\"\n\"fatbinData:\\n\"\n"   \
	QUADS "\".text\\n\");\n"                                                        \
	"extern const unsigned long long fatbinData[" N "];\n"                             \
	"static const __fatBinC_Wrapper_t __fatDeviceText __attribute__ ((aligned (8))) "  \
	"__attribute__ ((section (__CUDAFATBINSECTION)))= \n\t{ 0x466243b1, 1, fatbinData, 0 };\n"

static const char one[] = FATBINC("\".quad 0x00100001ba55ed50,0x0000000000000010\\n\"\n"
                                  "\".quad 0x0807060504030201, 0x00000000000000ff\\n\"\n", "4");
static const char two[] = FATBINC("\".quad 0x1111111111111111\\n\"\n", "1");

TEST(a_fatbin_c_gives_its_section_and_bytes_little_endian)
{
	struct fatbinc f;
	CHECK(fatbinc_parse(&f, one, strlen(one)) == 0);
	CHECK_STR(f.section, ".nv_fatbin");
	CHECK(f.n == 32);
	CHECK(f.n == 32 && !memcmp(f.data + 16, "\x01\x02\x03\x04\x05\x06\x07\x08\xff", 9));
	CHECK(!memmem(f.shape, f.nshape, ".quad", 5) && !memmem(f.shape, f.nshape, "[4]", 3));
	fatbinc_release(&f);
}

TEST(two_fatbinaries_of_one_host_code_have_one_shape)
{
	struct fatbinc a, b;
	CHECK(fatbinc_parse(&a, one, strlen(one)) == 0 && fatbinc_parse(&b, two, strlen(two)) == 0);
	CHECK(a.nshape == b.nshape && !memcmp(a.shape, b.shape, a.nshape));
	fatbinc_release(&a);
	fatbinc_release(&b);
}

TEST(a_form_it_does_not_know_is_refused)
{
	static const char count[] = FATBINC("\".quad 0x1111111111111111\\n\"\n", "2");
	static const char incbin[] = FATBINC("\".incbin \\\"k.fatbin\\\"\\n\"\n", "1");
	static const char word[] = FATBINC("\".quad fatbinData\\n\"\n", "1");
	struct fatbinc f;
	CHECK(fatbinc_parse(&f, count, strlen(count)) < 0);
	CHECK(fatbinc_parse(&f, incbin, strlen(incbin)) < 0);
	CHECK(fatbinc_parse(&f, word, strlen(word)) < 0);
	CHECK(fatbinc_parse(&f, "int x;\n", 7) < 0);
}

/* an object as gas lays one out: the header, .nv_fatbin (16 bytes, align
 * 8), .after (4 bytes, align 4), .shstrtab, the section headers (align 8);
 * with rel, a .rela section against .nv_fatbin */
static char *
object(size_t *n, int rel)
{
	static const char names[] = "\0.nv_fatbin\0.after\0.shstrtab\0.rela.nv_fatbin";
	size_t fat = sizeof(Elf64_Ehdr), after = fat + 16, str = after + 4;
	size_t shoff = (str + sizeof names + 7) & ~(size_t)7, nsh = rel ? 5 : 4;
	char *o = xcalloc(1, shoff + nsh * sizeof(Elf64_Shdr));
	Elf64_Ehdr eh = {.e_type = ET_REL, .e_machine = EM_X86_64, .e_version = EV_CURRENT,
	                 .e_shoff = shoff, .e_ehsize = sizeof eh,
	                 .e_shentsize = sizeof(Elf64_Shdr), .e_shnum = nsh, .e_shstrndx = 3};
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	Elf64_Shdr sh[5] = {
		{0},
		{.sh_name = 1, .sh_type = SHT_PROGBITS, .sh_flags = SHF_ALLOC, .sh_offset = fat,
		 .sh_size = 16, .sh_addralign = 8},
		{.sh_name = 12, .sh_type = SHT_PROGBITS, .sh_offset = after, .sh_size = 4,
		 .sh_addralign = 4},
		{.sh_name = 19, .sh_type = SHT_STRTAB, .sh_offset = str, .sh_size = sizeof names,
		 .sh_addralign = 1},
		{.sh_name = 29, .sh_type = SHT_RELA, .sh_offset = str, .sh_info = 1, .sh_addralign = 8},
	};
	memcpy(o, &eh, sizeof eh);
	memcpy(o + fat, "fatbin-0fatbin-1", 16);
	memcpy(o + after, "tail", 4);
	memcpy(o + str, names, sizeof names);
	memcpy(o + shoff, sh, nsh * sizeof *sh);
	*n = shoff + nsh * sizeof *sh;
	return o;
}

/* the ELF header of obj, and its section header k */
static Elf64_Ehdr
ehdr(const char *obj)
{
	Elf64_Ehdr eh;
	memcpy(&eh, obj, sizeof eh);
	return eh;
}

static Elf64_Shdr
shdr(const char *obj, int k)
{
	Elf64_Shdr sh;
	memcpy(&sh, obj + ehdr(obj).e_shoff + k * sizeof sh, sizeof sh);
	return sh;
}

/* does obj (n bytes) with the fatbinary of object() put back give orig? */
static int
backto(const char *obj, size_t n, const char *orig, size_t norig)
{
	struct buf c = BUF_INIT;
	int same = elf_embed(&c, obj, n, ".nv_fatbin", "fatbin-0fatbin-1", 16) == NULL &&
	           c.n == norig && !memcmp(c.s, orig, norig);
	buf_release(&c);
	return same;
}

TEST(a_longer_fatbinary_moves_the_sections_after_it)
{
	size_t n;
	char *o = object(&n, 0);
	struct buf b = BUF_INIT;
	CHECK(elf_holds(o, n, ".nv_fatbin", "fatbin-0fatbin-1", 16) == NULL);
	CHECK(elf_holds(o, n, ".nv_fatbin", "fatbin-0fatbin-2", 16) != NULL);
	CHECK(elf_embed(&b, o, n, ".nv_fatbin", "new-fat-binary-of-24byte", 24) == NULL);
	CHECK(b.n == n + 8);
	CHECK(elf_holds(b.s, b.n, ".nv_fatbin", "new-fat-binary-of-24byte", 24) == NULL);
	Elf64_Shdr after = shdr(b.s, 2);
	CHECK(after.sh_offset == sizeof(Elf64_Ehdr) + 24 && !memcmp(b.s + after.sh_offset, "tail", 4));
	CHECK(backto(b.s, b.n, o, n));   /* and back: the object it came from */
	buf_release(&b);
	free(o);
}

TEST(a_size_off_an_alignment_lays_the_sections_after_it_out_again)
{
	size_t n;
	char *o = object(&n, 0);
	struct buf b = BUF_INIT;
	CHECK(elf_embed(&b, o, n, ".nv_fatbin", "twenty-bytes-of-data", 20) == NULL);
	Elf64_Ehdr eh = ehdr(b.s);
	Elf64_Shdr after = shdr(b.s, 2), str = shdr(b.s, 3);
	CHECK(after.sh_offset == sizeof eh + 20 && !memcmp(b.s + after.sh_offset, "tail", 4));
	CHECK(str.sh_offset == after.sh_offset + 4 && eh.e_shoff % 8 == 0);
	CHECK(eh.e_shoff == ((str.sh_offset + str.sh_size + 7) & ~7ul));
	CHECK(backto(b.s, b.n, o, n));
	buf_release(&b);
	free(o);
}

TEST(a_layout_the_assembler_does_not_make_or_a_relocated_section_is_refused)
{
	size_t n;
	char *o = object(&n, 0);
	struct buf b = BUF_INIT;
	Elf64_Shdr str = shdr(o, 3);
	str.sh_offset += 1;                     /* .shstrtab one byte later than it would be */
	memcpy(o + ehdr(o).e_shoff + 3 * sizeof str, &str, sizeof str);
	CHECK(elf_embed(&b, o, n, ".nv_fatbin", "new-fat-binary-of-24byte", 24) != NULL);
	CHECK(b.n == 0);
	CHECK(elf_embed(&b, o, n, ".no_such", "x", 1) != NULL);
	free(o);
	o = object(&n, 1);
	CHECK(elf_holds(o, n, ".nv_fatbin", "fatbin-0fatbin-1", 16) != NULL);
	CHECK(elf_embed(&b, o, n, ".nv_fatbin", "new-fat-binary-of-24byte", 24) != NULL);
	free(o);
}

int
main(void)
{
	RUN(a_fatbin_c_gives_its_section_and_bytes_little_endian);
	RUN(two_fatbinaries_of_one_host_code_have_one_shape);
	RUN(a_form_it_does_not_know_is_refused);
	RUN(a_longer_fatbinary_moves_the_sections_after_it);
	RUN(a_size_off_an_alignment_lays_the_sections_after_it_out_again);
	RUN(a_layout_the_assembler_does_not_make_or_a_relocated_section_is_refused);
	return DONE();
}
