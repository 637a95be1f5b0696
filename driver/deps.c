/* deps.c: nvcc's "-- Filter Dependencies --" step, redone.
 * nvcc does not ask the host compiler for dependencies: it reads the line
 * markers (# 1 "file" flags) of the preprocessed file and lists every file
 * once, in order of first appearance, after "target : ". -MM leaves out the
 * system headers (flag 3); -MP adds an empty rule for each file but the
 * first. The dryrun shows the step but not how it works,
 * so mpcc does the same from the preceding step's output, and adds the
 * policy files the compile read, so that editing one rebuilds the object
 * (make, Ninja and CMake read these files). */
#include "driver/mpcc.h"

#include <stdlib.h>
#include <string.h>

static int
seen(const struct args *d, const char *s, size_t n)
{
	for (int i = d->n - 1; i >= 0; i--)
		if (strlen(d->v[i]) == n && !memcmp(d->v[i], s, n))
			return 1;
	return 0;
}

/* a line marker: '#' num '"' file '"' flags; 1 and the file if it is one */
static int
marker(const char *p, const char **file, size_t *len, int *system)
{
	if (*p++ != '#' || *p++ != ' ' || !strchr("0123456789", *p))
		return 0;
	p += strspn(p, "0123456789");
	if (*p++ != ' ' || *p++ != '"')
		return 0;
	const char *e = strchr(p, '"');
	const char *nl = until(p, '\n');
	if (!e || e > nl)
		return 0;
	*file = p;
	*len = e - p;
	*system = 0;
	for (const char *f = e + 1; f < nl; f++)
		if (f[0] == '3' && f[-1] == ' ' && (f[1] == ' ' || f + 1 == nl))
			*system = 1;
	return 1;
}

void
markerfiles(const char *text, int nonsystem, struct args *out)
{
	for (const char *p = text; *p;) {
		const char *file;
		size_t len;
		int sys;
		if (marker(p, &file, &len, &sys) && file[0] != '<' &&
		    !(nonsystem && sys) && !seen(out, file, len))
			args_pushf(out, "%.*s", (int)len, file);
		p = until(p, '\n');
		if (*p)
			p++;
	}
}

/* "dir/a.cu" -> "a.o", as nvcc names the object of a -M target */
static char *
objname(const char *src)
{
	const char *base = strrchr(src, '/') ? strrchr(src, '/') + 1 : src;
	const char *dot = strrchr(base, '.');
	size_t n = dot && dot > base ? (size_t)(dot - base) : strlen(base);
	return fmt("%.*s.o", (int)n, base);
}

/* write the dependencies of the preprocessed file ii; -1 if unreadable */
int
filterdeps(FILE *out, const char *ii, const char *target, int nonsystem, int phony,
           const struct args *extra)
{
	char *text = readfile(ii, NULL);
	if (!text)
		return -1;
	struct args d = ARGS_INIT;
	markerfiles(text, nonsystem, &d);
	for (int i = 0; extra && i < extra->n; i++)
		if (!seen(&d, extra->v[i], strlen(extra->v[i])))
			args_push(&d, extra->v[i]);
	char *deftarget = d.n ? objname(d.v[0]) : xstrdup("-");
	fprintf(out, "%s :", target ? target : deftarget);
	free(deftarget);
	for (int i = 0; i < d.n; i++)
		fprintf(out, i ? " \\\n    %s" : " %s", d.v[i]);
	fputc('\n', out);
	for (int i = 1; phony && i < d.n; i++)
		fprintf(out, "\n%s:\n", d.v[i]);
	args_release(&d);
	free(text);
	return 0;
}
