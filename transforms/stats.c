/* stats.c: a pass's statistics, written through the keys it declares.
 *
 * A pass declares the keys of its statistics in a table of struct field, as
 * it declares its parameters (policies/param.h): name, kind, decimals, what
 * mpcc-tune reads it as (role) and one line of help. The JSON object of the
 * report comes from that table: the pass writes each value through a
 * struct statw by its index in the table, and the writer takes the key's
 * name and format from the table, checks that keys come in the table's
 * order with the declared kind (a BUG otherwise), and writes commas and
 * brackets. So the report never holds a key the table does not declare, and
 * readers (mpcc-tune, mpcc-opt --stats, the documentation) read the same
 * table. */
#include "transforms/pass.h"

#include <math.h>

static struct statlevel *
top(struct statw *w)
{
	if (w->depth <= 0)
		BUG("stats: nothing is open");
	return &w->lv[w->depth - 1];
}

static void
push(struct statw *w, const struct field *f, int kind)
{
	if (w->depth == (int)countof(w->lv))
		BUG("stats: nested too deep");
	w->lv[w->depth++] = (struct statlevel){f, kind, 0, 0};
}

static void
sep(struct statw *w)
{
	if (top(w)->count++)
		buf_puts(&w->b, ",");
}

/* key k of the object open at the top, of kind; its "name": written */
static const struct field *
key(struct statw *w, int k, int kind)
{
	struct statlevel *l = top(w);
	if (l->kind != FOBJ)
		BUG("stats: a key inside a list or per-target object");
	if (k < l->next || k >= l->f->nsub)
		BUG("stats: key %d of '%s' out of the table's order", k, l->f->name);
	const struct field *f = &l->f->sub[k];
	if (kind >= 0 && f->kind != kind)
		BUG("stats: '%s' is not of the kind written", f->name);
	l->next = k + 1;
	sep(w);
	buf_printf(&w->b, "\"%s\":", f->name);
	return f;
}

static void
num(struct buf *b, double x, int digits)
{
	if (isinf(x) || isnan(x))
		buf_puts(b, "null");
	else
		buf_printf(b, "%.*f", digits, x);
}

void
statw_begin(struct statw *w, const struct field *root)
{
	if (root->kind != FOBJ)
		BUG("stats: the root of '%s' is not an object", root->name);
	*w = (struct statw){.b = BUF_INIT};
	buf_puts(&w->b, "{");
	push(w, root, FOBJ);
}

void
statw_int(struct statw *w, int k, long v)
{
	key(w, k, FINT);
	buf_printf(&w->b, "%ld", v);
}

void
statw_num(struct statw *w, int k, double v)
{
	num(&w->b, v, key(w, k, FNUM)->digits);
}

void
statw_bool(struct statw *w, int k, int v)
{
	key(w, k, FBOOL);
	buf_puts(&w->b, v ? "true" : "false");
}

void
statw_str(struct statw *w, int k, const char *s)
{
	key(w, k, FSTR);
	buf_json(&w->b, s);
}

void
statw_null(struct statw *w, int k)
{
	key(w, k, -1);
	buf_puts(&w->b, "null");
}

void
statw_open(struct statw *w, int k)
{
	const struct field *f = key(w, k, -1);
	switch (f->kind) {
	case FINTS:
	case FLIST:
		buf_puts(&w->b, "[");
		break;
	case FTARGETS:
	case FOBJ:
		buf_puts(&w->b, "{");
		break;
	default:
		BUG("stats: '%s' is not a list or an object", f->name);
	}
	push(w, f, f->kind);
}

void
statw_item(struct statw *w)
{
	struct statlevel *l = top(w);
	if (l->kind != FLIST)
		BUG("stats: an item outside a list");
	sep(w);
	buf_puts(&w->b, "{");
	push(w, l->f, FOBJ);
}

void
statw_elem(struct statw *w, long v)
{
	if (top(w)->kind != FINTS)
		BUG("stats: an integer outside a list of integers");
	sep(w);
	buf_printf(&w->b, "%ld", v);
}

void
statw_target(struct statw *w, int sm, double v)
{
	struct statlevel *l = top(w);
	if (l->kind != FTARGETS)
		BUG("stats: a target outside a per-target object");
	sep(w);
	buf_printf(&w->b, "\"sm_%d\":", sm);
	num(&w->b, v, l->f->digits);
}

void
statw_close(struct statw *w)
{
	struct statlevel *l = top(w);
	buf_puts(&w->b, l->kind == FINTS || l->kind == FLIST ? "]" : "}");
	w->depth--;
}

char *
statw_end(struct statw *w)
{
	statw_close(w);
	if (w->depth)
		BUG("stats: %d left open", w->depth);
	return buf_take(&w->b);
}

const struct field *
field_role(const struct field *obj, int role)
{
	for (int i = 0; obj && i < obj->nsub; i++)
		if (obj->sub[i].role == role)
			return &obj->sub[i];
	return NULL;
}
