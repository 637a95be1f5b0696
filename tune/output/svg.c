/* svg.c: one SVG of the session, for a person to read: a panel per
 * search and, when several passes were searched (--transform auto), one of
 * every trial's speed-up against its error with the Pareto front.
 *
 * A search's panel is drawn like Fig. 4 of paper 004: the knob's value on
 * x (its axis named by the pass's table entry; words for a knob of words),
 * the speed-up over the baseline on the left axis (black) with the
 * baseline's line and the band of its noise, the error on the right axis
 * (red; a log axis, errors of zero drawn at its floor and labelled so; the
 * digits of accuracy on a linear one), the QoS as a dashed red line, the
 * winner ringed, failed trials as crosses on the x axis, and a legend.
 * Ticks are round values in steps of 1, 2 or 5 times a power of ten. */
#include "tune/output/output.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { W = 720, H = 350, L = 70, R = 90, T = 44, B = 92 };   /* a panel, its margins */

struct axis {
	double lo, hi;          /* the range drawn */
	int log;                /* log10 axis: lo and hi are exponents */
	double floor;           /* log: where zero is drawn (an exponent) */
	double t[16];           /* tick values (exponents on a log axis) */
	int nt;
};

struct frame {
	FILE *f;
	double y0;              /* the panel's top */
	struct axis x, a, b;    /* x, left and right */
};

int
ticks(double lo, double hi, int max, double *t)
{
	if (!(hi > lo))
		hi = lo + 1;
	double raw = (hi - lo) / (max > 1 ? max - 1 : 1), p = pow(10, floor(log10(raw))), step = 10 * p;
	static const double m[] = {1, 2, 5, 10};
	for (int i = 0; i < 4; i++)
		if (m[i] * p >= raw) {
			step = m[i] * p;
			break;
		}
	int n = 0;
	for (double v = ceil(lo / step - 1e-9) * step; v <= hi + step * 1e-9 && n < max; v += step)
		t[n++] = fabs(v) < step * 1e-9 ? 0 : v;
	return n;
}

/* a linear axis over [lo, hi] with round ticks (whole numbers for a
 * count); widen: out to the ticks around it */
static void
linaxis(struct axis *a, double lo, double hi, int widen, int count)
{
	if (!(hi > lo))
		lo -= count ? 1 : 0.5, hi += count ? 1 : 0.5;
	a->log = 0;
	a->nt = ticks(lo, hi, 8, a->t);
	double step = a->nt > 1 ? a->t[1] - a->t[0] : 1;
	if (count && step < 1)
		step = 1;
	a->lo = lo, a->hi = hi;
	if (widen)
		a->lo = floor(lo / step + 1e-9) * step, a->hi = ceil(hi / step - 1e-9) * step;
	a->nt = 0;
	for (double v = ceil(a->lo / step - 1e-9) * step; v <= a->hi + step * 1e-9 && a->nt < 16; v += step)
		a->t[a->nt++] = fabs(v) < step * 1e-9 ? 0 : v;
}

/* a log axis over the positive values in [lo, hi] (lo <= 0: none), whole
 * decades, with a floor a decade under the least for zeros */
static void
logaxis(struct axis *a, double lo, double hi)
{
	double e0 = lo > 0 ? floor(log10(lo)) : hi > 0 ? floor(log10(hi)) - 1 : -8;
	double e1 = hi > 0 ? floor(log10(hi)) + 1 : e0 + 1;   /* room above the largest */
	a->log = 1;
	a->floor = e0 - 1;
	a->lo = a->floor, a->hi = e1 > e0 ? e1 : e0 + 1;
	int every = (int)ceil((a->hi - a->lo) / 7);
	a->nt = 0;
	for (double e = a->lo + 1; e <= a->hi + 1e-9 && a->nt < 16; e += every)
		a->t[a->nt++] = e;
}

static double
at(const struct axis *a, double v, double from, double to)
{
	if (a->log)
		v = v > 0 ? log10(v) : a->floor;
	double span = a->hi - a->lo ? a->hi - a->lo : 1;
	return from + (v - a->lo) / span * (to - from);
}

static double px(const struct frame *fr, double v) { return at(&fr->x, v, L, W - R); }
static double pya(const struct frame *fr, double v) { return at(&fr->a, v, fr->y0 + H - B, fr->y0 + T); }
static double pyb(const struct frame *fr, double v) { return at(&fr->b, v, fr->y0 + H - B, fr->y0 + T); }

/* a tick's label: as few decimals as its step needs; 10^e on a log axis */
static char *
label(const struct axis *a, double v)
{
	if (a->log)
		return v == 0 ? xstrdup("1") : fmt("1e%d", (int)v);
	double step = a->nt > 1 ? a->t[1] - a->t[0] : 1;
	int d = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);
	return fmt("%.*f", d, v);
}

/* text with &, < and > escaped (kernel names hold templates) */
static void
esc(FILE *f, const char *s)
{
	for (; *s; s++)
		fputs(*s == '&' ? "&amp;" : *s == '<' ? "&lt;" : *s == '>' ? "&gt;" : (char[]){*s, 0}, f);
}

static void
text(const struct frame *fr, double x, double y, const char *attrs, const char *s)
{
	fprintf(fr->f, "<text x=\"%.1f\" y=\"%.1f\" %s>", x, y, attrs);
	esc(fr->f, s);
	fputs("</text>\n", fr->f);
}

/* the frame, the grid and the ticks of the x and left axes, and of the
 * right one if rl (its label) is given; words: the x ticks' labels */
static void
axes(const struct frame *fr, const char *title, const char *xl, const char *al, const char *rl,
     const char *const *words)
{
	FILE *f = fr->f;
	double top = fr->y0 + T, bot = fr->y0 + H - B;
	text(fr, L, fr->y0 + 22, "font-size=\"14\" font-weight=\"bold\"", title);
	fprintf(f, "<rect x=\"%d\" y=\"%.0f\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#888\"/>\n",
	        L, top, W - L - R, H - T - B);
	for (int i = 0; i < fr->x.nt; i++) {
		char *s = words ? xstrdup(words[(int)fr->x.t[i]]) : label(&fr->x, fr->x.t[i]);
		double x = at(&fr->x, fr->x.log ? pow(10, fr->x.t[i]) : fr->x.t[i], L, W - R);
		fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.0f\" y2=\"%.0f\" stroke=\"#eee\"/>\n", x, x, top, bot);
		text(fr, x, bot + 16, "font-size=\"11\" text-anchor=\"middle\"", s);
		free(s);
	}
	for (int i = 0; i < fr->a.nt; i++) {
		char *s = label(&fr->a, fr->a.t[i]);
		double y = pya(fr, fr->a.t[i]);
		fprintf(f, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>\n", L, W - R, y, y);
		text(fr, L - 4, y + 4, "font-size=\"11\" text-anchor=\"end\"", s);
		free(s);
	}
	for (int i = 0; rl && i < fr->b.nt; i++) {
		char *s = label(&fr->b, fr->b.t[i]);
		text(fr, W - R + 4, pyb(fr, fr->b.log ? pow(10, fr->b.t[i]) : fr->b.t[i]) + 4,
		     "font-size=\"11\" fill=\"#c00\"", s);
		free(s);
	}
	text(fr, (L + W - R) / 2.0, bot + 34, "font-size=\"12\" text-anchor=\"middle\"", xl);
	char *rot = fmt("font-size=\"12\" text-anchor=\"middle\" transform=\"rotate(-90 16 %.0f)\"", (top + bot) / 2);
	text(fr, 16, (top + bot) / 2, rot, al);
	free(rot);
	if (rl) {
		rot = fmt("font-size=\"12\" fill=\"#c00\" text-anchor=\"middle\" transform=\"rotate(90 %d %.0f)\"",
		          W - 16, (top + bot) / 2);
		text(fr, W - 16, (top + bot) / 2, rot, rl);
		free(rot);
	}
}

/* zeros at the floor of a log axis: say so beside the axis */
static void
zerolabel(const struct frame *fr, int right)
{
	if (right && fr->b.log)
		text(fr, W - R + 4, pyb(fr, 0) + 4, "font-size=\"11\" fill=\"#c00\"", "0 (exact)");
	if (!right && fr->x.log)
		text(fr, px(fr, 0), fr->y0 + H - B + 16, "font-size=\"11\" text-anchor=\"middle\"", "0 (exact)");
}

/* the legend under the panel: items of (kind, label) */
static void
legend(const struct frame *fr, const char *const *items, int n)
{
	double x = L, y = fr->y0 + H - B + 58;
	for (int i = 0; i < n; i++) {
		const char *k = items[2 * i];
		if (!strcmp(k, "line"))
			fprintf(fr->f, "<line x1=\"%.0f\" x2=\"%.0f\" y1=\"%.0f\" y2=\"%.0f\" stroke=\"#000\" stroke-width=\"1.5\"/>"
			        "<circle cx=\"%.0f\" cy=\"%.0f\" r=\"3\"/>\n", x, x + 18, y - 4, y - 4, x + 9, y - 4);
		else if (!strcmp(k, "err"))
			fprintf(fr->f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"6\" height=\"6\" fill=\"#c00\"/>\n", x + 6, y - 7);
		else if (!strcmp(k, "qos"))
			fprintf(fr->f, "<line x1=\"%.0f\" x2=\"%.0f\" y1=\"%.0f\" y2=\"%.0f\" stroke=\"#c00\" stroke-dasharray=\"6 4\"/>\n",
			        x, x + 18, y - 4, y - 4);
		else if (!strcmp(k, "base"))
			fprintf(fr->f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"18\" height=\"8\" fill=\"#ddd\"/>"
			        "<line x1=\"%.0f\" x2=\"%.0f\" y1=\"%.0f\" y2=\"%.0f\" stroke=\"#666\" stroke-dasharray=\"2 2\"/>\n",
			        x, y - 8, x, x + 18, y - 4, y - 4);
		else if (!strcmp(k, "win"))
			fprintf(fr->f, "<circle cx=\"%.0f\" cy=\"%.0f\" r=\"7\" fill=\"none\" stroke=\"#06c\" stroke-width=\"2\"/>\n",
			        x + 9, y - 4);
		else if (!strcmp(k, "fail"))
			fprintf(fr->f, "<path d=\"M%.0f %.0f l8 -8 m-8 0 l8 8\" stroke=\"#c00\"/>\n", x + 5, y);
		else if (!strcmp(k, "over"))
			fprintf(fr->f, "<circle cx=\"%.0f\" cy=\"%.0f\" r=\"3\" fill=\"#c00\"/>\n", x + 9, y - 4);
		else if (!strcmp(k, "front"))
			fprintf(fr->f, "<line x1=\"%.0f\" x2=\"%.0f\" y1=\"%.0f\" y2=\"%.0f\" stroke=\"#06c\" stroke-width=\"1.5\"/>\n",
			        x, x + 18, y - 4, y - 4);
		text(fr, x + 22, y, "font-size=\"11\"", items[2 * i + 1]);
		x += 30 + 6.2 * strlen(items[2 * i + 1]);
	}
}

/* the baseline's speed-up (1) and the band of its noise */
static void
baseband(const struct frame *fr, const struct tuner *tu)
{
	double th = threshold(tu), y1 = pya(fr, fmin(1 + th, fr->a.hi)), y0 = pya(fr, fmax(1 - th, fr->a.lo));
	fprintf(fr->f, "<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" fill=\"#ddd\" opacity=\"0.6\"/>\n",
	        L, y1, W - L - R, y0 - y1);
	fprintf(fr->f, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#666\" stroke-dasharray=\"2 2\"/>\n",
	        L, W - R, pya(fr, 1), pya(fr, 1));
}

static int
byx(const void *a, const void *b)
{
	const struct trial *x = *(struct trial *const *)a, *y = *(struct trial *const *)b;
	return (x->x > y->x) - (x->x < y->x);
}

/* the left axis over the speed-ups of t[] that ran, 1 and the noise band */
static void
speedaxis(const struct tuner *tu, struct axis *a, struct trial **t, int n)
{
	double lo = 1 - threshold(tu), hi = 1 + threshold(tu);
	for (int i = 0; i < n; i++)
		if (t[i]->verdict == V_OK)
			lo = fmin(lo, speedup(tu, t[i])), hi = fmax(hi, speedup(tu, t[i]));
	linaxis(a, lo, hi, 1, 0);
}

/* the error axis over t[] and the QoS */
static void
erraxis(const struct tuner *tu, struct axis *a, struct trial **t, int n)
{
	if (tu->o->metric == M_DIGITS) {
		linaxis(a, 0, 17, 1, 0);
		return;
	}
	double lo = tu->o->qos > 0 ? tu->o->qos : INFINITY, hi = tu->o->qos;
	for (int i = 0; i < n; i++)
		if (t[i]->verdict == V_OK && t[i]->err > 0)
			lo = fmin(lo, t[i]->err), hi = fmax(hi, t[i]->err);
	logaxis(a, isfinite(lo) ? lo : 0, hi);
}

static void
points(const struct tuner *tu, const struct frame *fr, struct trial **t, int n, const struct trial *win)
{
	FILE *f = fr->f;
	for (int pass = 0; pass < 2; pass++) {
		fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"", pass ? "#c00" : "#000");
		for (int i = 0; i < n; i++)
			if (t[i]->verdict == V_OK)
				fprintf(f, "%.1f,%.1f ", px(fr, t[i]->x), pass ? pyb(fr, t[i]->err) : pya(fr, speedup(tu, t[i])));
		fprintf(f, "\"/>\n");
	}
	for (int i = 0; i < n; i++) {
		double x = px(fr, t[i]->x);
		if (t[i]->verdict != V_OK) {
			fprintf(f, "<path d=\"M%.1f %.1f l8 -8 m-8 0 l8 8\" stroke=\"#c00\"><title>", x - 4, fr->y0 + H - B - 2);
			esc(f, t[i]->what);
			fprintf(f, ": %s</title></path>\n", verdictname[t[i]->verdict]);
			continue;
		}
		fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\"><title>", x, pya(fr, speedup(tu, t[i])));
		esc(f, t[i]->what);
		fprintf(f, ": %.3fx</title></circle>\n", speedup(tu, t[i]));
		fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"6\" height=\"6\" fill=\"#c00\"><title>", x - 3,
		        pyb(fr, t[i]->err) - 3);
		esc(f, t[i]->what);
		fprintf(f, ": %.3g</title></rect>\n", t[i]->err);
		if (t[i] == win)
			fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"9\" fill=\"none\" stroke=\"#06c\" stroke-width=\"2\"/>\n",
			        x, pya(fr, speedup(tu, t[i])));
	}
}

static void
curve(const struct tuner *tu, FILE *f, double y0, const struct curve *c, const struct trial *win)
{
	struct trial **t = xmalloc((c->n + 1) * sizeof *t);
	int n = 0;
	for (int i = 0; i < c->n; i++)   /* a trial the budget or Ctrl-C stopped did not run */
		if (c->t[i]->x >= 0 && c->t[i]->verdict >= 0)
			t[n++] = c->t[i];
	qsort(t, n, sizeof *t, byx);
	const struct param *knob = pass_knob(c->pass);
	const char *const *words = knob->kind == PENUM ? knob->words : NULL;
	struct frame fr = {.f = f, .y0 = y0};
	linaxis(&fr.x, n ? t[0]->x : 0, n ? t[n - 1]->x : 1, 0, 1);
	if (words) {
		fr.x.lo = -0.5, fr.x.hi = n ? t[n - 1]->x + 0.5 : 0.5, fr.x.nt = 0;
		for (int i = 0; words[i] && i < 16; i++)
			fr.x.t[fr.x.nt++] = i;
	}
	speedaxis(tu, &fr.a, t, n);
	erraxis(tu, &fr.b, t, n);
	char *title = fmt("%.*s: %s, %s (%d %s run)", (int)strcspn(c->kernel, "("), c->kernel,
	                  pass_name(c->pass), c->how, c->runs, plural(c->runs, "trial", "trials"));
	axes(&fr, title, passes[c->pass]->tune->axis,
	     tu->o->timepat ? "figure of merit: speed-up over the baseline" : "speed-up over the baseline",
	     tu->o->metric == M_DIGITS ? "digits of accuracy" : "error (log)", words);
	free(title);
	baseband(&fr, tu);
	zerolabel(&fr, 1);
	fprintf(f, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#c00\" stroke-dasharray=\"6 4\"/>\n",
	        L, W - R, pyb(&fr, tu->o->qos), pyb(&fr, tu->o->qos));
	char *q = fmt("QoS %.3g", tu->o->qos);
	text(&fr, W - R - 4, pyb(&fr, tu->o->qos) - 4, "font-size=\"11\" fill=\"#c00\" text-anchor=\"end\"", q);
	free(q);
	points(tu, &fr, t, n, win);
	static const char *const items[] = {"line", "speed-up", "err", "error", "qos", "QoS",
	                                    "base", "baseline and its noise", "win", "winner", "fail", "failed"};
	legend(&fr, items, countof(items) / 2);
	free(t);
}

static int
byspeedup(const void *a, const void *b)
{
	const struct trial *x = *(struct trial *const *)a, *y = *(struct trial *const *)b;
	return (x->time > y->time) - (x->time < y->time);
}

/* speed-up against error of every trial that ran; the front: no other is
 * both faster and more accurate */
static void
pareto(const struct tuner *tu, FILE *f, double y0, const struct trial *win)
{
	struct trial **t = xmalloc((tu->nt + 1) * sizeof *t);
	int n = 0;
	for (int i = 0; i < tu->nt; i++)
		if (tu->t[i]->verdict == V_OK && tu->t[i]->set.n && !instrumented(tu->t[i]))
			t[n++] = tu->t[i];
	t[n++] = tu->base;
	qsort(t, n, sizeof *t, byspeedup);
	struct frame fr = {.f = f, .y0 = y0};
	speedaxis(tu, &fr.a, t, n);
	erraxis(tu, &fr.x, t, n);
	axes(&fr, "every trial: speed-up against error, and the Pareto front",
	     tu->o->metric == M_DIGITS ? "digits of accuracy" : "error (log)", "speed-up over the baseline",
	     NULL, NULL);
	zerolabel(&fr, 0);
	baseband(&fr, tu);
	double best = INFINITY;
	fprintf(f, "<polyline fill=\"none\" stroke=\"#06c\" stroke-width=\"1.5\" points=\"");
	for (int i = 0; i < n; i++) {
		double e = tu->o->metric == M_DIGITS ? -t[i]->err : t[i]->err;
		if (e < best)
			best = e, fprintf(f, "%.1f,%.1f ", px(&fr, t[i]->err), pya(&fr, speedup(tu, t[i])));
	}
	fprintf(f, "\"/>\n");
	for (int i = 0; i < n; i++) {
		fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"><title>", px(&fr, t[i]->err),
		        pya(&fr, speedup(tu, t[i])), t[i] == tu->base ? "#666" : t[i]->meets ? "#000" : "#c00");
		esc(f, t[i]->what);
		fprintf(f, "</title></circle>\n");
		if (t[i] == win)
			fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"9\" fill=\"none\" stroke=\"#06c\" stroke-width=\"2\"/>\n",
			        px(&fr, t[i]->err), pya(&fr, speedup(tu, t[i])));
	}
	fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.0f\" y2=\"%.0f\" stroke=\"#c00\" stroke-dasharray=\"6 4\"/>\n",
	        px(&fr, tu->o->qos), px(&fr, tu->o->qos), y0 + T, y0 + H - B);
	static const char *const items[] = {"line", "within the QoS", "over", "over the QoS", "front",
	                                    "Pareto front", "qos", "QoS", "base", "baseline and its noise",
	                                    "win", "winner"};
	legend(&fr, items, countof(items) / 2);
	free(t);
}

int
svg_write(const struct tuner *tu, const struct trial *win, const char *path)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	struct curve *const *c;
	int panels = 0, nc = 0, n = search_curves(tu, &c);
	for (int i = 0; i < n; i++)
		nc += c[i]->n > 0;
	int withpareto = tu->o->transform < 0;
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
	        "font-family=\"sans-serif\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n",
	        W, H * (nc + withpareto > 0 ? nc + withpareto : 1));
	for (int i = 0; i < n; i++)
		if (c[i]->n > 0)
			curve(tu, f, H * panels++, c[i], win);
	if (withpareto)
		pareto(tu, f, H * panels++, win);
	fprintf(f, "</svg>\n");
	return fclose(f) ? -1 : 0;
}
