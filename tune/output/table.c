/* table.c: the session's results on stdout: each trial, each search, the
 * noise and the confirmation; and the builds' times. */
#include "tune/output/output.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* what the table says of a trial that ran */
static const char *
status(const struct tuner *tu, const struct trial *t, const struct trial *win)
{
	if (t == tu->base)
		return "baseline";
	if (t == tu->idealt)
		return "ideal (Eq. 3)";
	if (t == win)
		return "meets, the winner (confirmed)";
	if (!eligible(tu, t))
		return t->meets ? "instrumented" : "over the QoS";
	if (beats(tu, t, tu->base))
		return "meets, faster";
	return beats(tu, tu->base, t) ? "meets, slower" : "meets, within the noise";
}

/* the model's column: "multi: 1.594x, 1.410x"; "-" where t changes more
 * than one kernel (or none), "?" where there is no prediction or the noise
 * hides the measurement */
static char *
model(const struct tuner *tu, const struct trial *t)
{
	double pred, meas;
	const struct kern *k = kernel_speedup(tu, t, &pred, &meas);
	if (!k)
		return xstrdup("-");
	char p[32] = "?", m[32] = "?";
	if (pred)
		snprintf(p, sizeof p, "%.3fx", pred);
	if (meas)
		snprintf(m, sizeof m, "%.3fx", meas);
	return fmt("%.*s: %s, %s", (int)strcspn(k->demangled, "("), k->demangled, p, m);
}

void
table_model(const struct tuner *tu)
{
	int n = 0, m = 0;
	for (int i = 0; i < tu->nt; i++) {
		double pred, meas;
		if (tu->t[i]->verdict >= 0 && kernel_speedup(tu, tu->t[i], &pred, &meas) && pred && meas) {
			m++;
			n += fabs(pred / meas - 1) <= 0.2;
		}
	}
	fprintf(stderr, "mpcc-tune: model within 20%% of the measured kernel speed-up on %d of %d %s",
	        n, m, plural(m, "trial", "trials"));
	if (!m)
		fprintf(stderr, " (a trial counts where it changes one kernel, its pass predicts, and the "
		        "kernel takes enough of the run to measure beyond the noise)");
	fputc('\n', stderr);
}

void
table_print(const struct tuner *tu, const struct trial *win, const struct confirmation *cf)
{
	printf("\n| trial | setting | time | speedup | %s | verdict | kernel: predicted, measured |\n"
	       "|---|---|---:|---:|---:|---|---|\n",
	       tu->metric == M_DIGITS ? "digits" : (const char *[]){"mean rel err", "max rel err",
	                                                            "rel Frobenius"}[tu->metric]);
	for (int i = 0; i < tu->nt; i++) {
		const struct trial *t = tu->t[i];
		if (t->verdict < 0)
			continue;
		printf("| t%d | %s | ", t->id, t->what);
		if (t->verdict == V_OK) {
			char *m = model(tu, t);
			printf("%.4g | %.3fx | %.3g | %s | %s |\n", t->time, speedup(tu, t), t->err,
			       status(tu, t, win), m);
			free(m);
		} else
			printf("- | - | - | %s: %s | - |\n", verdictname[t->verdict], t->why ? t->why : "");
	}
	printf("\n| kernel | transform | search | trials | best | stopped |\n|---|---|---|---:|---|---|\n");
	for (int i = 0; i < tu->nc; i++) {
		const struct curve *c = tu->c[i];
		printf("| %s | %s | %s | %d | %s | %s |\n", c->kernel, pass_name(c->pass), c->how, c->runs,
		       c->best ? c->best->what : "none met the QoS", c->stop ? c->stop : "");
	}
	printf("\nnoise: the baseline's runs spread over %.1f%%; a gain counts beyond %.1f%%\n",
	       100 * tu->noise, 100 * threshold(tu));
	if (cf->rounds)
		printf("confirmation: %d interleaved rounds against the baseline: median %.3fx (range %.3fx "
		       "to %.3fx): %s\n", cf->rounds, cf->median, cf->lo, cf->hi,
		       cf->ok ? "confirmed" : "not beyond the noise");
}

/* the builds' times: the baseline's (every step run) and the trials' */
void
table_builds(const struct tuner *tu)
{
	double *b = xmalloc((tu->nt + 1) * sizeof *b);
	int n = 0;
	for (int i = 0; i < tu->nt; i++)
		if (tu->t[i] != tu->base && tu->t[i]->build > 0)
			b[n++] = tu->t[i]->build;
	if (n)
		fprintf(stderr, "mpcc-tune: builds: the baseline's %.3g s; the trials' median %.3g s (%.2fx)\n",
		        tu->base->build, median(b, n), median(b, n) / tu->base->build);
	free(b);
}
