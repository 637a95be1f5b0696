/* table.c: the store table of a translation unit, in its host object.
 *
 * A pass whose clones a runtime launches (store) gives each kernel of a
 * module it changed one line (struct pass, table): "1 MANGLED CLONE OPEN
 * NPARAMS P0 P1 ...", the words runtime/ reads. Each -gencode chain's PTX
 * gives its own; here they become one line a kernel, and the lines go
 * into the stub that cicc wrote and the host compile includes, as an
 * array in the section mpcc_store that the runtime walks from
 * __start_mpcc_store to __stop_mpcc_store. Each entry holds the address of
 * the translation unit's __fatDeviceText, which its registration hands to
 * __cudaRegisterFatBinary, so that the runtime ties the lines to the
 * kernels that fatbinary registers (two translation units may have
 * kernels of one name).
 *
 * The chains agree but for PTX that differs by target; where they do not,
 * the kernel's line keeps no clone (the runtime launches the kernel as it
 * is), and says what any chain touches: open if one is, each parameter
 * read or written if one chain reads or writes it. A -rdc compile
 * registers its kernels through the device link, which has no
 * __fatDeviceText of its own: it gets no table, and its kernels run as
 * they are. */
#include "driver/mpcc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* a line's words, split in place */
static int
words(char *s, char **w, int max)
{
	int n = 0;
	for (char *t = strtok(s, " "); t && n < max; t = strtok(NULL, " "))
		w[n++] = t;
	return n;
}

#define MAXWORD 1024

/* the kernel of line l (its second word) into name[0..size) */
static void
kernelof(const char *l, char *name, size_t size)
{
	const char *s = strchr(l, ' ');
	size_t n = s ? strcspn(s + 1, " ") : 0;
	snprintf(name, size, "%.*s", (int)(n < size ? n : size - 1), s ? s + 1 : "");
}

/* lines a and b of one kernel, merged: what either touches, no clone */
static char *
merge(const char *a, const char *b)
{
	char *x = xstrdup(a), *y = xstrdup(b), *wa[MAXWORD], *wb[MAXWORD];
	int na = words(x, wa, MAXWORD), nb = words(y, wb, MAXWORD);
	struct buf o = BUF_INIT;
	if (na != nb || na < 5) {   /* not one kernel's lines: open, nothing known */
		buf_printf(&o, "1 %s - o 0", na > 1 ? wa[1] : "?");
		goto done;
	}
	buf_printf(&o, "1 %s - %c %s", wa[1], *wa[3] == 'o' || *wb[3] == 'o' ? 'o' : 'c', wa[4]);
	for (int i = 5; i < na; i++) {
		char p = *wa[i] == 'w' || *wb[i] == 'w' ? 'w' : *wa[i] == 'r' || *wb[i] == 'r' ? 'r' : '-';
		buf_printf(&o, " %c", p);
	}
done:
	free(x);
	free(y);
	return buf_take(&o);
}

void
table_merge(const struct args *const *chain, int nchain, struct args *out)
{
	char name[512], other[512];
	for (int c = 0; c < nchain; c++)
		for (int i = 0; i < chain[c]->n; i++) {
			int seen = 0;
			kernelof(chain[c]->v[i], name, sizeof name);
			for (int j = 0; j < out->n && !seen; j++) {
				kernelof(out->v[j], other, sizeof other);
				if (strcmp(name, other))
					continue;
				seen = 1;
				if (strcmp(out->v[j], chain[c]->v[i])) {
					char *m = merge(out->v[j], chain[c]->v[i]);
					free(out->v[j]);
					out->v[j] = m;
				}
			}
			if (!seen)
				args_push(out, chain[c]->v[i]);
		}
}

/* does a line give its kernel a clone? */
static int
hasclone(const char *l)
{
	char *x = xstrdup(l), *w[4];
	int yes = words(x, w, 4) == 4 && strcmp(w[2], "-");
	free(x);
	return yes;
}

int
table_write(const char *stub, const struct args *lines)
{
	int any = 0;
	for (int i = 0; i < lines->n; i++)
		any |= hasclone(lines->v[i]);
	if (!any)
		return 0;
	size_t n;
	char *text = readfile(stub, &n);
	if (!text || !strstr(text, "__cudaRegisterBinary(")) {   /* -rdc: the device link registers */
		free(text);
		return 1;
	}
	free(text);
	struct buf b = BUF_INIT;
	buf_printf(&b, "\n/* mpcc: the store table of this translation unit: what each kernel "
	               "touches, and its clone (runtime/) */\n"
	               "__attribute__((used, section(\"mpcc_store\"), aligned(16)))\n"
	               "static const struct { const void *fatbin; const char *line; } "
	               "__mpcc_store_table[] = {\n");
	for (int i = 0; i < lines->n; i++)
		buf_printf(&b, "\t{&__fatDeviceText, \"%s\"},\n", lines->v[i]);
	buf_printf(&b, "};\n");
	FILE *f = fopen(stub, "a");
	int bad = !f || fwrite(b.s, 1, b.n, f) != b.n;
	bad |= f && fclose(f) != 0;
	if (bad)
		error("cannot write '%s': %s", stub, strerror(errno));
	buf_release(&b);
	return bad ? -1 : 0;
}
