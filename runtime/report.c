/* report.c: what the user asks for in the environment (read at the first
 * registration: MPCC_STORE=off, MPCC_STORE_CHECK, MPCC_STORE_REPORT), and
 * the report, MPCC_STORE_REPORT=FILE, JSON lines appended at exit:
 *   {"kernel":K,"clone":C,"launches":{"clone":N,"original":N},"why_original":{"alias":N,...}}
 *     for each kernel launched (C null when it has none; an unknown kernel
 *     is "known":false);
 *   {"kernel":K,"param":I,"type":"f64>f32","to_narrow":N,"to_narrow_bytes":B,"back":N,
 *    "back_bytes":B} for each parameter (I "other" for every other array:
 *     an open kernel's) whose launches converted something, type "plain"
 *     for one not narrowed;
 *   {"kernel":K,"param":I,"check":{"launches":N,"elements":N,"beyond":N,"worst_ulps":X}}
 *     under MPCC_STORE_CHECK;
 *   {"api":NAME,"back":N,"back_bytes":B} for each entry point that wrote
 *     arrays back (a copy, a set, a graph launch, store off);
 *   {"unknown_launches":N,"back":N,"back_bytes":B} for kernels never seen
 *     registered (a library's);
 *   {"store":"off","why":WHY} when store went off.
 * Bytes are those of the allocations converted, in their original form. */
#include "runtime/runtime.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const symname[NSYM] = {
#define X(name, kind) #name,
#include "runtime/syms.h"
#undef X
};

static const char *const whyname[NWHY] = {
	[W_OFF] = "off", [W_UNTRACKED] = "untracked", [W_INTERIOR] = "interior",
	[W_ALIAS] = "alias", [W_OPEN] = "open", [W_CLONE] = "clone", [W_CONVERT] = "conversion",
};

static void
init(void)
{
	const char *e = getenv("MPCC_STORE");
	if (e && (!strcmp(e, "off") || !strcmp(e, "0"))) {
		snprintf(rt.offwhy, sizeof rt.offwhy, "MPCC_STORE=%s", e);
		atomic_store(&rt.off, 1);
	}
	e = getenv("MPCC_STORE_CHECK");
	rt.check = e && *e && strcmp(e, "0");
	e = getenv("MPCC_STORE_REPORT");
	if (e && *e && (rt.report = strdup(e)))
		atexit(report_write);
}

void
rt_init(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, init);
}

/* s as a JSON string (the names here are mangled C++ or messages of ours) */
static void
str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++)
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	fputc('"', f);
}

static void
tally(FILE *f, const struct tally *t)
{
	fprintf(f, "\"to_narrow\":%lu,\"to_narrow_bytes\":%lu,\"back\":%lu,\"back_bytes\":%lu}\n",
	        t->narrow, t->narrowbytes, t->back, t->backbytes);
}

static void
kernel(FILE *f, const struct kern *k)
{
	fputs("{\"kernel\":", f);
	str(f, k->name);
	fputs(",\"clone\":", f);
	if (k->clone)
		str(f, k->clone);
	else
		fputs("null", f);
	if (!k->known)
		fputs(",\"known\":false", f);
	fprintf(f, ",\"launches\":{\"clone\":%lu,\"original\":%lu},\"why_original\":{", k->nclone,
	        k->norig);
	for (int w = 0, any = 0; w < NWHY; w++)
		if (k->why[w])
			fprintf(f, "%s\"%s\":%lu", any++ ? "," : "", whyname[w], k->why[w]);
	fputs("}}\n", f);
}

static void
params(FILE *f, const struct kern *k)
{
	for (int i = 0; i <= k->nparam; i++) {
		const struct tally *t = &k->t[i];
		if (t->narrow || t->back) {
			fputs("{\"kernel\":", f);
			str(f, k->name);
			if (i < k->nparam)
				fprintf(f, ",\"param\":%d,\"type\":\"%s\",", i,
				        k->param[i].cvt >= 0 ? cvts[(int)k->param[i].cvt].name : "plain");
			else
				fputs(",\"param\":\"other\",", f);
			tally(f, t);
		}
		const struct checked *c = &k->chk[i];
		if (i < k->nparam && c->launches) {
			fputs("{\"kernel\":", f);
			str(f, k->name);
			fprintf(f, ",\"param\":%d,\"check\":{\"launches\":%lu,\"elements\":%lu,\"beyond\":%lu,"
			        "\"worst_ulps\":%.3g}}\n", i, c->launches, c->elements, c->beyond,
			        isfinite(c->worst) ? c->worst : 1e300);
		}
	}
}

void
report_write(void)
{
	FILE *f = fopen(rt.report, "a");
	if (!f)
		return;
	for (const struct kern *k = rt.kerns; k; k = k->next) {
		if (k->nclone || k->norig)
			kernel(f, k);
		params(f, k);
	}
	for (int s = 0; s < NSYM; s++)
		if (rt.api[s].back || rt.api[s].narrow) {
			fputs("{\"api\":", f);
			str(f, symname[s]);
			fputc(',', f);
			tally(f, &rt.api[s]);
		}
	if (rt.nunknown || rt.unknown.back) {
		fprintf(f, "{\"unknown_launches\":%lu,", rt.nunknown);
		tally(f, &rt.unknown);
	}
	if (atomic_load(&rt.off)) {
		fputs("{\"store\":\"off\",\"why\":", f);
		str(f, rt.offwhy);
		fputs("}\n", f);
	}
	fclose(f);
}
