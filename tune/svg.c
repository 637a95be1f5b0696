/* svg.c: one SVG of the session, a panel per search and, when several
 * knobs were searched (--transform auto), one of every trial's time
 * against its error with the Pareto front.
 *
 * A search's panel is drawn like Fig. 4 of paper 004: the setting on x
 * (lambda, or the order in which sets were tried), the time relative to the
 * baseline on the left axis (black), the error on the right axis (red), the
 * QoS as a dashed red line, the chosen setting circled, failed trials as
 * crosses on the x axis. */
#include "tune/tune.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { W = 640, H = 300, L = 70, R = 80, T = 40, B = 50 };

struct frame {
	FILE *f;
	double y0;             /* the panel's top */
	double x0, x1, a0, a1, b0, b1;   /* x, left and right axis ranges */
	int logb;              /* right (or x, in the Pareto panel) axis in log10 */
};

static double
px(const struct frame *fr, double x)
{
	return L + (x - fr->x0) / (fr->x1 - fr->x0 ? fr->x1 - fr->x0 : 1) * (W - L - R);
}

static double
pya(const struct frame *fr, double y)
{
	return fr->y0 + T + (1 - (y - fr->a0) / (fr->a1 - fr->a0 ? fr->a1 - fr->a0 : 1)) * (H - T - B);
}

static double
pyb(const struct frame *fr, double y)
{
	if (fr->logb)
		y = log10(y > 0 ? y : pow(10, fr->b0));
	return fr->y0 + T + (1 - (y - fr->b0) / (fr->b1 - fr->b0 ? fr->b1 - fr->b0 : 1)) * (H - T - B);
}

static void
axes(const struct frame *fr, const char *title, const char *xl, const char *al, const char *bl)
{
	FILE *f = fr->f;
	double top = fr->y0 + T, bot = fr->y0 + H - B;
	fprintf(f, "<text x=\"%d\" y=\"%.0f\" font-size=\"14\" font-weight=\"bold\">%s</text>\n", L,
	        fr->y0 + 22, title);
	fprintf(f, "<rect x=\"%d\" y=\"%.0f\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#888\"/>\n",
	        L, top, W - L - R, H - T - B);
	for (int i = 0; i <= 4; i++) {
		double x = fr->x0 + (fr->x1 - fr->x0) * i / 4, a = fr->a0 + (fr->a1 - fr->a0) * i / 4;
		double b = fr->b0 + (fr->b1 - fr->b0) * i / 4;
		fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"11\" text-anchor=\"middle\">%.3g</text>\n",
		        px(fr, x), bot + 16, x);
		fprintf(f, "<text x=\"%d\" y=\"%.0f\" font-size=\"11\" text-anchor=\"end\">%.3g</text>\n",
		        L - 4, pya(fr, a) + 4, a);
		if (bl)
			fprintf(f, "<text x=\"%d\" y=\"%.0f\" font-size=\"11\" fill=\"#c00\">%.3g</text>\n",
			        W - R + 4, top + (bot - top) * (4 - i) / 4 + 4, fr->logb ? pow(10, b) : b);
	}
	fprintf(f, "<text x=\"%d\" y=\"%.0f\" font-size=\"12\" text-anchor=\"middle\">%s</text>\n",
	        (L + W - R) / 2, bot + 34, xl);
	fprintf(f, "<text x=\"14\" y=\"%.0f\" font-size=\"12\" transform=\"rotate(-90 14 %.0f)\" "
	        "text-anchor=\"middle\">%s</text>\n", (top + bot) / 2, (top + bot) / 2, al);
	if (bl)
		fprintf(f, "<text x=\"%d\" y=\"%.0f\" font-size=\"12\" fill=\"#c00\" transform=\"rotate(90 %d %.0f)\" "
		        "text-anchor=\"middle\">%s</text>\n", W - 14, (top + bot) / 2, W - 14, (top + bot) / 2, bl);
}

static int
byx(const void *a, const void *b)
{
	const struct trial *x = *(struct trial *const *)a, *y = *(struct trial *const *)b;
	return (x->x > y->x) - (x->x < y->x);
}

static double
rel(const struct tuner *tu, const struct trial *t)
{
	return tu->higher ? tu->base->time / t->time : t->time / tu->base->time;
}

static void
curve(const struct tuner *tu, FILE *f, double y0, const struct curve *c)
{
	struct trial **t = xmalloc((c->n + 1) * sizeof *t);
	int n = 0;
	for (int i = 0; i < c->n; i++)
		if (c->t[i]->x >= 0)
			t[n++] = c->t[i];
	qsort(t, n, sizeof *t, byx);
	struct frame fr = {f, y0, 1e300, -1e300, 1e300, -1e300, 0, tu->qos, 0};
	int ok = 0;
	for (int i = 0; i < n; i++) {
		fr.x0 = fmin(fr.x0, t[i]->x), fr.x1 = fmax(fr.x1, t[i]->x);
		if (t[i]->verdict != V_OK)
			continue;
		ok++;
		fr.a0 = fmin(fr.a0, rel(tu, t[i])), fr.a1 = fmax(fr.a1, rel(tu, t[i]));
		fr.b1 = fmax(fr.b1, t[i]->err);
	}
	if (!ok)
		fr.a0 = 0, fr.a1 = 1;
	fr.a0 = fmin(fr.a0 * 0.95, 0.95), fr.a1 = fmax(fr.a1 * 1.05, 1.05);
	fr.b1 *= 1.1;
	if (tu->metric == M_DIGITS)
		fr.b0 = 0, fr.b1 = fmax(fr.b1, 17);
	char *title = fmt("%s: %s, %s search (%d runs)", c->kernel, c->pass, c->how, c->runs);
	const char *xl = !strcmp(c->pass, "sfu") ? "lambda (warps on the fast path)" : "setting";
	const char *bl = tu->metric == M_DIGITS ? "digits of accuracy" : "error";
	axes(&fr, title, xl, tu->timepat ? "figure of merit / baseline" : "time / baseline", bl);
	free(title);
	fprintf(f, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#c00\" stroke-dasharray=\"6 4\"/>\n",
	        L, W - R, pyb(&fr, tu->qos), pyb(&fr, tu->qos));
	fprintf(f, "<text x=\"%d\" y=\"%.1f\" font-size=\"11\" fill=\"#c00\" text-anchor=\"end\">QoS %.3g</text>\n",
	        W - R - 4, pyb(&fr, tu->qos) - 4, tu->qos);
	for (int pass = 0; pass < 2; pass++) {
		fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"", pass ? "#c00" : "#000");
		for (int i = 0; i < n; i++)
			if (t[i]->verdict == V_OK)
				fprintf(f, "%.1f,%.1f ", px(&fr, t[i]->x), pass ? pyb(&fr, t[i]->err) : pya(&fr, rel(tu, t[i])));
		fprintf(f, "\"/>\n");
	}
	for (int i = 0; i < n; i++) {
		double x = px(&fr, t[i]->x);
		if (t[i]->verdict != V_OK) {
			double y = y0 + H - B;
			fprintf(f, "<path d=\"M%.1f %.1f l8 -8 m-8 0 l8 8\" stroke=\"#c00\" transform=\"translate(-4 -4)\"/>"
			        "<title>%s: %s</title>\n", x, y, t[i]->what, verdictname[t[i]->verdict]);
			continue;
		}
		fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"#000\"><title>%s: %.4g</title></circle>\n",
		        x, pya(&fr, rel(tu, t[i])), t[i]->what, t[i]->time);
		fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"6\" height=\"6\" fill=\"#c00\"><title>%s: %.3g</title></rect>\n",
		        x - 3, pyb(&fr, t[i]->err) - 3, t[i]->what, t[i]->err);
		if (t[i] == c->best)
			fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"9\" fill=\"none\" stroke=\"#06c\" stroke-width=\"2\"/>\n",
			        x, pya(&fr, rel(tu, t[i])));
	}
	free(t);
}

static int
bytime(const void *a, const void *b)
{
	const struct trial *x = *(struct trial *const *)a, *y = *(struct trial *const *)b;
	return (x->time > y->time) - (x->time < y->time);
}

/* time against error of every trial; the front: no other is both faster
 * and more accurate */
static void
pareto(const struct tuner *tu, FILE *f, double y0)
{
	struct trial **t = xmalloc((tu->nt + 1) * sizeof *t);
	int n = 0;
	for (int i = 0; i < tu->nt; i++)
		if (tu->t[i]->verdict == V_OK && tu->t[i]->x >= 0)
			t[n++] = tu->t[i];
	qsort(t, n, sizeof *t, bytime);
	struct frame fr = {f, y0, 1e300, -1e300, 1e300, -1e300, 1e300, -1e300, 1};
	for (int i = 0; i < n; i++) {
		double e = t[i]->err > 0 ? log10(t[i]->err) : -17;
		fr.x0 = fmin(fr.x0, e), fr.x1 = fmax(fr.x1, e);
		fr.a0 = fmin(fr.a0, rel(tu, t[i])), fr.a1 = fmax(fr.a1, rel(tu, t[i]));
	}
	fr.a0 *= 0.95, fr.a1 *= 1.05;
	axes(&fr, "every trial: time against error, and the Pareto front", "log10 error",
	     "time / baseline", NULL);
	double best = 1e300;
	fprintf(f, "<polyline fill=\"none\" stroke=\"#06c\" stroke-width=\"1.5\" points=\"");
	for (int i = 0; i < n; i++) {
		double e = t[i]->err > 0 ? log10(t[i]->err) : -17;
		if (e < best) {
			best = e;
			fprintf(f, "%.1f,%.1f ", px(&fr, e), pya(&fr, rel(tu, t[i])));
		}
	}
	fprintf(f, "\"/>\n");
	for (int i = 0; i < n; i++) {
		double e = t[i]->err > 0 ? log10(t[i]->err) : -17;
		fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"><title>%s</title></circle>\n",
		        px(&fr, e), pya(&fr, rel(tu, t[i])), t[i]->meets ? "#000" : "#c00", t[i]->what);
	}
	double q = tu->qos > 0 ? log10(tu->qos) : -17;
	if (tu->metric != M_DIGITS && q >= fr.x0 && q <= fr.x1)
		fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.0f\" y2=\"%.0f\" stroke=\"#c00\" stroke-dasharray=\"6 4\"/>\n",
		        px(&fr, q), px(&fr, q), y0 + T, y0 + H - B);
	free(t);
}

int
svg_write(const struct tuner *tu, const char *path)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	int panels = 0, nc = 0;
	for (int i = 0; i < tu->nc; i++)
		nc += tu->c[i]->n > 0;
	int withpareto = tu->transform && !strcmp(tu->transform, "auto");
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
	        "font-family=\"sans-serif\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n",
	        W, H * (nc + withpareto));
	for (int i = 0; i < tu->nc; i++)
		if (tu->c[i]->n > 0)
			curve(tu, f, H * panels++, tu->c[i]);
	if (withpareto)
		pareto(tu, f, H * panels++);
	fprintf(f, "</svg>\n");
	return fclose(f) ? -1 : 0;
}
