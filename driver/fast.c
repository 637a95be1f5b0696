/* fast.c: the cicc line of the fast-math variant.
 * -use_fast_math reaches cicc as "-ftz=1 -prec_div=0 -prec_sqrt=0 -fmad=1
 * -fast-math --gen_div_approx_ftz"; each AX_* bit asks for its part of that.
 * Flags are found by name, never by position (cicc's argument order changes
 * between CUDA versions), and every file the first run wrote goes to a
 * private name so the second run overwrites nothing. */
#include "driver/mpcc.h"
#include "transforms/pass.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* cicc's options that name a file it writes, and the suffix of the private
 * name. The module id file is only read when cudafe++ wrote it (-c, -dc):
 * the second run reads the same one. With -ptx, -cubin, -fatbin cicc itself
 * makes the id (--gen_module_id_file, no file left on disk): the second run
 * makes it too, under a private name; the id depends on the source alone,
 * so both runs name internal symbols alike. */
static const struct {
	const char *opt, *suffix;
} outputs[] = {
	{"-o", ".ptx"},
	{"-olto", ".ltoir"},   /* -dlto: the NVVM IR that fatbinary embeds */
	{"--gen_c_file_name", ".cudafe1.c"},
	{"--stub_file_name", ".stub.c"},
	{"--gen_device_file_name", ".gpu"},
	{"--module_id_file_name", ".module_id"},
};

static int
output(const char *arg)
{
	for (size_t i = 0; i < countof(outputs); i++)
		if (!strcmp(arg, outputs[i].opt))
			return i;
	return -1;
}

/* set "-name=value" in place, or add it after the program */
static void
setflag(struct args *a, const char *name, const char *value)
{
	char *flag = fmt("%s=%s", name, value);
	size_t n = strlen(name);
	int i;
	for (i = 1; i < a->n; i++)
		if (!strncmp(a->v[i], name, n) && a->v[i][n] == '=')
			break;
	if (i < a->n)
		args_remove(a, i);
	args_insert(a, i < a->n ? i : 1, flag);
	free(flag);
}

static void
addflag(struct args *a, const char *flag)
{
	for (int i = 1; i < a->n; i++)
		if (!strcmp(a->v[i], flag))
			return;
	args_insert(a, 1, flag);
}

void
fast_unlink(const char *prefix)
{
	for (size_t i = 0; i < countof(outputs); i++) {
		char *p = fmt("%s%s", prefix, outputs[i].suffix);
		unlink(p);
		free(p);
	}
}

/* out = the cicc line in, asking for the approximations in mask, its
 * outputs renamed prefix + suffix */
void
fast_args(struct args *out, const struct args *in, uint mask, const char *prefix)
{
	int genid = 0;
	for (int i = 1; i < in->n; i++)
		genid |= !strcmp(in->v[i], "--gen_module_id_file");
	for (int i = 0; i < in->n; i++) {
		int k = i > 0 ? output(in->v[i]) : -1;
		if (k >= 0 && !strcmp(outputs[k].opt, "--module_id_file_name") && !genid)
			k = -1;
		if (k < 0 || i + 1 == in->n) {
			args_push(out, in->v[i]);
		} else {
			args_push(out, in->v[i]);
			args_pushf(out, "%s%s", prefix, outputs[k].suffix);
			i++;
		}
	}
	if (mask & AX_FTZ)
		setflag(out, "-ftz", "1");
	if (mask & AX_DIV)
		setflag(out, "-prec_div", "0");
	if (mask & AX_SQRT)
		setflag(out, "-prec_sqrt", "0");
	if (mask & AX_TRANS)
		addflag(out, "-fast-math");
	if ((mask & AX_DIV) && (mask & AX_FTZ))
		addflag(out, "--gen_div_approx_ftz");
}
