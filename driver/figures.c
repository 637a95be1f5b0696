/* figures.c: what ptxas -v says about each kernel, for the report.
 * The driver runs ptxas once more with -v on a PTX whose kernels have
 * report lines (-v changes the cubin's bytes, so never on nvcc's own
 * step), after the real step accepted it, and reads per entry function:
 *
 *	ptxas info    : Compiling entry function 'mriq' for 'sm_90'
 *	ptxas info    : Function properties for mriq
 *	    32 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
 *	ptxas info    : Used 24 registers, used 0 barriers, 32 bytes cumulative stack size
 */
#include "driver/mpcc.h"

#include <stdlib.h>
#include <string.h>

static struct figure *
current(struct figures *fs, const char *name)
{
	if (fs->n && !strcmp(fs->f[fs->n - 1].name, name))
		return &fs->f[fs->n - 1];
	return NULL;
}

/* the text between the quotes after key in line, malloc'd, or NULL */
static char *
quoted(const char *line, const char *key)
{
	const char *s = strstr(line, key), *e;
	if (!s || !(s = strchr(s + strlen(key), '\'')) || !(e = strchr(s + 1, '\'')))
		return NULL;
	return xstrndup(s + 1, e - s - 1);
}

static void
entry(struct figures *fs, const char *line)
{
	char *name = quoted(line, "Compiling entry function"), *sm = quoted(line, " for ");
	if (name && sm && startswith(sm, "sm_")) {
		vgrow(fs->f, fs->n, fs->cap);
		fs->f[fs->n++] = (struct figure){name, atoi(sm + 3), -1, -1, -1, -1};
		name = NULL;
	}
	free(name);
	free(sm);
}

void
figures_parse(struct figures *fs, const char *text)
{
	char *props = NULL;   /* the function whose properties follow */
	for (const char *l = text; *l; l = *until(l, '\n') ? until(l, '\n') + 1 : until(l, '\n')) {
		char *line = xstrndup(l, until(l, '\n') - l);
		struct figure *f = fs->n ? &fs->f[fs->n - 1] : NULL;
		int a, b, c;
		if (strstr(line, "Compiling entry function")) {
			entry(fs, line);
		} else if (strstr(line, "Function properties for ")) {
			free(props);
			props = xstrdup(strstr(line, "Function properties for ") + 24);
		} else if (props && sscanf(line, " %d bytes stack frame, %d bytes spill stores, %d bytes spill loads",
		                           &a, &b, &c) == 3) {
			if ((f = current(fs, props)))
				f->stack = a, f->spillst = b, f->spillld = c;
		} else if (f && f->regs < 0 && sscanf(line, "ptxas info : Used %d registers", &a) == 1) {
			f->regs = a;
		}
		free(line);
	}
	free(props);
}

const struct figure *
figure_find(const struct figures *fs, const char *name, int sm)
{
	for (int i = 0; fs && i < fs->n; i++)
		if (fs->f[i].sm == sm && fs->f[i].regs >= 0 && !strcmp(fs->f[i].name, name))
			return &fs->f[i];
	return NULL;
}

char *
figures_json(const struct figures *fs, const struct figures *before, const char *name)
{
	struct buf b = BUF_INIT;
	for (int i = 0; i < fs->n; i++) {
		const struct figure *f = &fs->f[i];
		if (strcmp(f->name, name) || f->regs < 0)
			continue;
		buf_printf(&b, "%s\"sm_%d\":{\"registers\":%d,\"stack_frame\":%d,"
		           "\"spill_stores\":%d,\"spill_loads\":%d", b.n ? "," : "{", f->sm, f->regs,
		           f->stack < 0 ? 0 : f->stack, f->spillst < 0 ? 0 : f->spillst,
		           f->spillld < 0 ? 0 : f->spillld);
		const struct figure *was = figure_find(before, name, f->sm);
		if (was)
			buf_printf(&b, ",\"registers_before\":%d", was->regs);
		buf_puts(&b, "}");
	}
	if (b.n)
		buf_puts(&b, "}");
	return b.n ? buf_take(&b) : NULL;
}

void
figures_release(struct figures *fs)
{
	for (int i = 0; i < fs->n; i++)
		free(fs->f[i].name);
	free(fs->f);
	*fs = (struct figures){0};
}
