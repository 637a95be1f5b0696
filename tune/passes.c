/* passes.c: what mpcc-tune knows of the passes, all of it from their table.
 *
 * No pass is named here or anywhere in tune/ (doc/DESIGN.md, "Adding a pass"):
 * a pass's struct tuning says whether it is searched (and by which
 * parameter, whose kind says how) or is the instrumentation of the timing
 * and shadow builds, and its stats keys' roles say which key of a report
 * is the predicted speed-up, the list of units a PSETS knob names by id,
 * their ratio or instruction ordinals, or the operations of a shadow
 * build. The reports are read here with jget() and those keys' names. */
#include "tune/tune.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int
pass_find(const char *name)
{
	for (int i = 0; i < npass; i++)
		if (!strcmp(passes[i]->schema.name, name))
			return i;
	return -1;
}

int
pass_probe(void)
{
	for (int i = 0; i < npass; i++)
		if (passes[i]->tune && passes[i]->tune->role == TUNE_PROBE)
			return i;
	return -1;
}

int
pass_tuned(int pass)
{
	return pass >= 0 && passes[pass]->tune && passes[pass]->tune->role == TUNE_TRANSFORM;
}

char *
pass_runreport(int pass, const char *dir)
{
	const struct tuning *tn = passes[pass]->tune;
	return tn && tn->runreport ? fmt("%s/run-%s.jsonl", dir, pass_name(pass)) : NULL;
}

const struct param *
pass_knob(int pass)
{
	const struct tuning *tn = passes[pass]->tune;
	const struct schema *s = &passes[pass]->schema;
	int k = tn && tn->knob ? param_find(s, tn->knob, strlen(tn->knob)) : -1;
	if (k < 0)
		BUG("pass '%s' has no knob for mpcc-tune", s->name);
	return &s->param[k];
}

const char *
pass_name(int pass)
{
	return passes[pass]->schema.name;
}

/* a build with several -gencode chains has a line per chain: the first
 * that shows the pass applied, else the first */
char *
report_stats(const char *report, int pass, const char *kernel, int *applied)
{
	char *st = NULL;
	*applied = 0;
	for (const char *l = report ? report : ""; *l && !*applied; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : "") {
		char *m = jget(l, "mangled"), *tr = jget(l, "transform");
		if (m && tr && !strcmp(m, kernel) && !strcmp(tr, pass_name(pass))) {
			char *ap = jget(l, "applied");
			*applied = ap && !strcmp(ap, "true");
			if (!st || *applied)
				free(st), st = jget(l, "stats");
			free(ap);
		}
		free(m), free(tr);
	}
	return st;
}

/* a number, or the worst of the numbers of a per-target object; 0: none */
static double
worst(const char *v)
{
	long n = 0;
	double *x = v ? numbers(v, strlen(v), O_TEXT, &n) : NULL, w = INFINITY;
	for (long i = 0; i < n; i++)
		w = x[i] < w ? x[i] : w;
	free(x);
	return n ? w : 0;
}

/* the value of obj's key of role in the JSON object text (malloc'd) */
static char *
byrole(const char *text, const struct field *obj, int role)
{
	const struct field *f = field_role(obj, role);
	return f && text ? jget(text, f->name) : NULL;
}

double
stats_predicted(const char *stats, int pass)
{
	char *v = byrole(stats, passes[pass]->stats, RPREDICTED);
	double w = worst(v);
	free(v);
	return w;
}

/* the next object of a JSON list at *s (from its '{' to the '}' that
 * closes it, malloc'd), NULL at the end */
static char *
nextobj(const char **s)
{
	const char *b = *s ? strchr(*s, '{') : NULL;
	if (!b)
		return NULL;
	int depth = 0;
	const char *e = b;
	do
		depth += *e == '{' ? 1 : *e == '}' ? -1 : 0;
	while (*++e && depth > 0);
	*s = e;
	return xstrndup(b, e - b);
}

static double
numval(const char *obj, const struct field *item, int role, double none)
{
	char *v = byrole(obj, item, role);
	double x = !v ? none : !strcmp(v, "null") ? INFINITY : atof(v);
	free(v);
	return x;
}

static void
unit_read(struct unit *u, const char *obj, const struct field *item, long n)
{
	char *ins = byrole(obj, item, RINS), *ch = byrole(obj, item, RCHOSEN), *pr = byrole(obj, item, RPREDICTED);
	long cnt = 0;
	double *v = ins ? numbers(ins, strlen(ins), O_TEXT, &cnt) : NULL;
	*u = (struct unit){(long)numval(obj, item, RID, n), numval(obj, item, RRATIO, 0), worst(pr),
	                   ch && !strcmp(ch, "true"), xmalloc((cnt + 1) * sizeof *u->ins), 0, 0};
	for (long i = 0; i < cnt; i++)
		u->ins[u->nins++] = (long)v[i];
	free(v), free(ins), free(ch), free(pr);
}

int
stats_units(const char *stats, int pass, struct unit **out)
{
	const struct field *item = field_role(passes[pass]->stats, RUNITS);
	char *list = item && stats ? jget(stats, item->name) : NULL, *obj;
	int n = 0;
	*out = NULL;
	for (const char *s = list; (obj = nextobj(&s)); free(obj)) {
		*out = xrealloc(*out, (n + 1) * sizeof **out);
		unit_read(&(*out)[n], obj, item, n);
		n++;
	}
	free(list);
	return n;
}

const char *
unit_key(int pass, int role)
{
	const struct field *item = field_role(passes[pass]->stats, RUNITS);
	const struct field *f = item ? field_role(item, role) : NULL;
	return f ? f->name : NULL;
}

void
units_release(struct unit *u, int n)
{
	for (int i = 0; i < n; i++)
		free(u[i].ins);
	free(u);
}

int
stats_nops(const char *stats, int pass, long *of)
{
	const struct field *op = field_role(passes[pass]->stats, ROPS);
	char *list = op && stats ? jget(stats, op->name) : NULL, *obj;
	int n = 0;
	for (const char *s = list; (obj = nextobj(&s)); free(obj))
		n++;
	free(list);
	double m = numval(stats, passes[pass]->stats, RNOPS, n);
	*of = isfinite(m) && m > n ? (long)m : n;
	return n;
}

char *
stats_opname(const char *stats, int pass, long ins)
{
	const struct field *op = field_role(passes[pass]->stats, ROPS);
	char *list = op && stats ? jget(stats, op->name) : NULL, *obj, *r = NULL;
	for (const char *s = list; !r && (obj = nextobj(&s)); free(obj))
		if ((long)numval(obj, op, RINS, -1) == ins)
			r = byrole(obj, op, RNAME);
	free(list);
	return r ? r : xstrdup("?");
}
