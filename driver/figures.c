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
#include "transforms/pass.h"

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

/* the same flags, -v added, the input in replaced by in2 (NULL: kept), the
 * output to cubin, thrown away; a check for a virtual arch (-ptx:
 * -arch=compute_90, no output) becomes a build for its sm_NN. Only the
 * entries named (-e: ptxas gives each the figures it gets in the whole
 * module) */
char *
figures_line(const struct args *a, const char *in, const char *in2, const struct args *entries,
             const char *cubin)
{
	struct args v = ARGS_INIT;
	for (int i = 0; i < a->n; i++) {
		const char *s = a->v[i];
		if (in2 && !strcmp(s, in))
			args_push(&v, in2);
		else if (startswith(s, "-arch=compute_"))
			args_pushf(&v, "-arch=sm_%s", s + strlen("-arch=compute_"));
		else if (i > 0 && !strcmp(a->v[i - 1], "-arch") && startswith(s, "compute_"))
			args_pushf(&v, "sm_%s", s + strlen("compute_"));
		else if (i > 0 && !strcmp(a->v[i - 1], "-o"))
			args_push(&v, cubin);
		else if (!startswith(s, "-o="))
			args_push(&v, s);
	}
	if (optindex(&v, "-o") < 0) {
		args_push(&v, "-o");
		args_push(&v, cubin);
	}
	args_push(&v, "-v");
	struct buf e = BUF_INIT;
	for (int i = 0; i < entries->n; i++)
		buf_printf(&e, "%s%s", i ? "," : "", entries->v[i]);
	args_push(&v, "-e");
	args_push(&v, e.s);
	buf_release(&e);
	char *line = args_join(&v);
	args_release(&v);
	return line;
}

/* a kernel that the hook's PTX gives more registers than nvcc's, so many
 * that an SM holds fewer of its warps, is said once */
void
figures_report(struct reports *reps, const char *src, struct figures *figs,
               struct figures *before)
{
	for (int i = 0; i < reps->n; i++) {
		struct report *rep = &reps->r[i];
		if (!rep->ptxas)
			rep->ptxas = figures_json(figs, before, rep->mangled);
		for (int a = 0; a < figs->n; a++) {
			const struct figure *f = &figs->f[a], *b;
			if (strcmp(f->name, rep->mangled) || f->regs < 0 ||
			    !(b = figure_find(before, f->name, f->sm)))
				continue;
			int w0 = regwarps(f->sm, b->regs), w1 = regwarps(f->sm, f->regs);
			if (w1 < w0)
				warn("%s: kernel '%s' on sm_%d: %d registers a thread, %d as nvcc built it: "
				     "an SM holds at most %d of its warps, not %d", src, rep->mangled, f->sm,
				     f->regs, b->regs, w1, w0);
		}
	}
	figures_release(figs);
	figures_release(before);
}
