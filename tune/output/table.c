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

/* where t's time went: "0.61 (0.02, 0.21, 0.01, 0.12); 6.3" */
static char *
timespent(const struct trial *t)
{
	const double *s = t->steps;
	return fmt("%.3g (%.2g, %.2g, %.2g, %.2g); %.3g", t->build, s[ST_TRANSFORM], s[ST_PTXAS],
	           s[ST_HOST], s[ST_LINK], t->cost - t->build);
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
	else if (k->beside)
		snprintf(m, sizeof m, "confounded");
	return fmt("%.*s: %s, %s", (int)strcspn(k->demangled, "("), k->demangled, p, m);
}

void
table_model(const struct tuner *tu)
{
	int n = 0, m = 0, out = 0;
	for (int i = 0; i < tu->nt; i++) {
		double pred, meas;
		const struct kern *k = tu->t[i]->verdict >= 0 ? kernel_speedup(tu, tu->t[i], &pred, &meas) : NULL;
		if (k && pred && meas) {
			m++;
			n += fabs(pred / meas - 1) <= 0.2;
		}
		out += k && pred && k->beside;
	}
	fprintf(stderr, "mpcc-tune: model within 20%% of the measured kernel speed-up on %d of %d %s",
	        n, m, plural(m, "trial", "trials"));
	if (out)
		fprintf(stderr, " (%d left out: the kernel ran beside others, its time confounded)", out);
	else if (!m)
		fprintf(stderr, " (a trial counts where it changes one kernel, its pass predicts, and the "
		        "kernel takes enough of the run to measure beyond the noise)");
	fputc('\n', stderr);
	/* the kernels' own times (search/kernels.c's model_check()) */
	struct buf b = BUF_INIT;
	n = m = out = 0;
	for (int i = 0; i < tu->nk; i++)
		for (int p = 0; tu->k[i].predicted && p < npass; p++) {
			const struct kern *k = &tu->k[i];
			double pred = k->predicted[p], meas = k->timed[p];
			if (pred <= 0)
				continue;
			if (k->beside) {
				out++;
				continue;
			}
			if (meas <= 0)
				continue;
			m++;
			n += fabs(pred / meas - 1) <= 0.2;
			buf_printf(&b, "%s%.*s %s %.3gx predicted, %.3gx timed", b.n ? "; " : "",
			           (int)strcspn(k->demangled, "("), k->demangled, pass_name(p), pred, meas);
		}
	if (m || out)
		fprintf(stderr, "mpcc-tune: model within 20%% of the kernel's own timed speed-up on %d of %d "
		        "%s (each pass's widest setting, timed per kernel)%s%s%s\n", n, m,
		        plural(m, "kernel", "kernels"), out ? ", confounded left out" : "", b.n ? ": " : "",
		        b.n ? b.s : "");
	buf_release(&b);
}

void
table_units(const struct tuner *tu, const struct trial *win)
{
	for (int i = 0; win && i < win->set.n; i++) {
		const struct knob *kn = &win->set.k[i];
		const struct field *list = field_role(passes[kn->pass]->stats, RUNITS);
		const char *chosen = unit_key(kn->pass, RCHOSEN);
		const struct kern *k = kern_byname(tu->k, tu->nk, kn->kernel);
		int applied, m = 0;
		char *st = list && chosen ? report_stats(win->report, kn->pass, kn->kernel, &applied) : NULL;
		struct unit *u;
		int n = st && applied ? stats_units(st, kn->pass, &u) : 0;
		struct buf b = BUF_INIT;
		for (int j = 0; j < n; j++)
			if (u[j].chosen)
				buf_printf(&b, "%s%ld", m++ ? ", " : "", u[j].id);
		if (n)
			fprintf(stderr, "mpcc-tune: the winner's %s on '%s': %s %s %s (of %d)\n",
			        pass_name(kn->pass), k ? k->demangled : kn->kernel, list->name, m ? b.s : "none",
			        chosen, n);
		buf_release(&b);
		if (n)
			units_release(u, n);
		free(st);
	}
}

void
table_print(const struct tuner *tu, const struct trial *win, const struct confirmation *cf)
{
	printf("\n| trial | setting | time | speedup | %s | verdict | kernel: predicted, measured | "
	       "build s (transform, ptxas, host, link); runs s |\n"
	       "|---|---|---:|---:|---:|---|---|---|\n",
	       tu->o->metric == M_DIGITS ? "digits" : (const char *[]){"mean rel err", "max rel err",
	                                                            "rel Frobenius"}[tu->o->metric]);
	for (int i = 0; i < tu->nt; i++) {
		const struct trial *t = tu->t[i];
		if (t->verdict < 0)
			continue;
		printf("| t%d | %s | ", t->id, t->what);
		char *sp = timespent(t);
		if (t->verdict == V_OK) {
			char *m = model(tu, t);
			printf("%.4g | %.3fx | %.3g | %s | %s | %s |\n", t->time, speedup(tu, t), t->err,
			       status(tu, t, win), m, sp);
			free(m);
		} else
			printf("- | - | - | %s: %s | - | %s |\n", verdictname[t->verdict], t->why ? t->why : "",
			       sp);
		free(sp);
	}
	printf("\n| kernel | transform | search | trials | best | stopped |\n|---|---|---|---:|---|---|\n");
	struct curve *const *cs;
	for (int i = 0, n = search_curves(tu, &cs); i < n; i++) {
		const struct curve *c = cs[i];
		printf("| %s | %s | %s | %d | %s | %s |\n", c->kernel, pass_name(c->pass), c->how, c->runs,
		       c->best ? c->best->what : "none met the QoS", c->stop ? c->stop : "");
	}
	printf("\nnoise: the baseline's runs spread over %.1f%%", 100 * tu->noise);
	if (tu->outlier >= 0)
		printf(" (run %d left out, an outlier)", tu->outlier + 1);
	printf("; a gain counts beyond %.1f%%\n", 100 * threshold(tu));
	if (cf->rounds)
		printf("confirmation: %d interleaved rounds against the baseline: median %.3fx (range %.3fx "
		       "to %.3fx): %s\n", cf->rounds, cf->median, cf->lo, cf->hi,
		       cf->ok ? "confirmed" : "not beyond the noise");
}

/* the median over the trials that built (the baseline and the
 * instrumented builds aside: those build beside the baseline, with every
 * step to run) of what at(t) gives (NAN: t does not count) */
static double
trialmedian(const struct tuner *tu, double (*at)(const struct trial *t, int k), int k)
{
	double *v = xmalloc((tu->nt + 1) * sizeof *v), m = 0;
	int n = 0;
	for (int i = 0; i < tu->nt; i++)
		if (tu->t[i] != tu->base && !instrumented(tu->t[i]) && tu->t[i]->build > 0 &&
		    !isnan(v[n] = at(tu->t[i], k)))
			n++;
	if (n)
		m = median(v, n);
	free(v);
	return n ? m : -1;
}

static double buildof(const struct trial *t, int k) { return (void)k, t->build; }
static double stepof(const struct trial *t, int k) { return t->steps[k]; }
static double runsof(const struct trial *t, int k) { return (void)k, t->ntimes ? t->cost - t->build : NAN; }
static double judgedof(const struct trial *t, int k) { return (void)k, t->ntimes ? t->judged : NAN; }

/* where the trials' time went: their builds against the full build (the
 * baseline's: an empty step cache, every step run), the steps of a
 * build, the runs, the comparison */
void
table_builds(const struct tuner *tu)
{
	double b = trialmedian(tu, buildof, 0), full = tu->base->build;
	if (b < 0 || !(full > 0))
		return;
	if (tu->warm && tu->base->hits)   /* no build of the session was a full one */
		fprintf(stderr, "mpcc-tune: trial builds: median %.3g s (the baseline's, %.3g s, had %d of "
		        "its %d steps from a warm step cache)", b, full, tu->base->hits, tu->base->keyed);
	else
		fprintf(stderr, "mpcc-tune: trial builds: median %.3g s, %.2fx the full build (%.3g s, the "
		        "baseline's)", b, b / full, full);
	fprintf(stderr, "\nmpcc-tune: of a trial (medians; a build's steps summed over its compiles):");
	for (int k = 0; k < NSTEPS; k++)
		fprintf(stderr, " %s %.3g s,", k == ST_OTHER ? "other steps" : stepnames[k],
		        trialmedian(tu, stepof, k));
	fprintf(stderr, " runs %.3g s, compare %.2g s (of the trials that ran)\n", trialmedian(tu, runsof, 0),
	        trialmedian(tu, judgedof, 0));
}
