/* lists.c: the build's generator of the two lists the link needs, from
 * syms.h (not part of the library):
 *   mpcc-rt-lists wrap   --wrap=NAME for each entry point the runtime wraps
 *                        (W), one a line: ld's response file (-Wl,@FILE);
 *                        the driver passes them to nvcc as one -Xlinker
 *                        list;
 *   mpcc-rt-lists syms   the entry points it accounts for (W and N), one a
 *                        line: the driver refuses to link the runtime into
 *                        a program that calls a cuda* or cu* function
 *                        outside it (driver/link.c). */
#include <stdio.h>
#include <string.h>

static const struct {
	const char *name;
	char kind;
} syms[] = {
#define X(name, kind) {#name, #kind[0]},
#include "runtime/syms.h"
#undef X
};

int
main(int argc, char **argv)
{
	int wrap = argc == 2 && !strcmp(argv[1], "wrap");
	if (argc != 2 || (!wrap && strcmp(argv[1], "syms"))) {
		fprintf(stderr, "usage: mpcc-rt-lists wrap|syms\n");
		return 2;
	}
	for (size_t i = 0; i < sizeof syms / sizeof *syms; i++)
		if (wrap && syms[i].kind == 'W')
			printf("--wrap=%s\n", syms[i].name);
		else if (!wrap && syms[i].kind != 'R')
			printf("%s\n", syms[i].name);
	return 0;
}
