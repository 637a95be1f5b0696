/* judge.c: the verdict of a trial whose runs are done: its first run's
 * output compared with the baseline's, its time with the baseline's. An
 * output that cannot be compared ends the session. */
#include "tune/trial/trial.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

char *
lastlines(const char *file, int n)
{
	size_t len;
	char *text = readfile(file, &len);
	if (!text || !len) {
		free(text);
		return fmt("    (%s is empty)\n", file);
	}
	const char *s = text + len;
	for (int k = 0; s > text && k <= n; )
		if (*--s == '\n' && s + 1 < text + len)
			k++;
	s += *s == '\n';
	struct buf b = BUF_INIT;
	buf_printf(&b, "  the last lines of %s:\n", file);
	for (const char *l = s; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l))
		buf_printf(&b, "    %.*s\n", (int)strcspn(l, "\n"), l);
	free(text);
	return buf_take(&b);
}

/* an output that cannot be compared ends the session: what the program
 * printed, and the work directory, kept */
static _Noreturn void
badoutput(const struct trial *t, const char *what)
{
	char *o = trial_path(t, "output"), *e = trial_path(t, "run.err");
	char *lo = lastlines(o, 10), *le = lastlines(e, 10);
	killall();
	die("%s\n%s%s  no profile written", what, lo, le);
}

/* the first line of words that has a letter; NULL: none */
static const char *
wordy(const char *words)
{
	for (const char *s = words; s && *s; s += strcspn(s, "\n") + !!s[strcspn(s, "\n")])
		for (const char *c = s; *c && *c != '\n'; c++)
			if (isalpha((uchar)*c))
				return s;
	return NULL;
}

/* the numbers mask marks, from 1: "3, 51-60" */
static char *
ranges(const char *mask, long n)
{
	struct buf b = BUF_INIT;
	for (long i = 0; i < n; i++) {
		if (!mask[i])
			continue;
		long j = i;
		while (j + 1 < n && mask[j + 1])
			j++;
		buf_printf(&b, j > i ? "%s%ld-%ld" : "%s%ld", b.n ? ", " : "", i + 1, j + 1);
		i = j;
	}
	return buf_take(&b);
}

/* the baseline's numbers its runs do not repeat (baseagain()); NULL: none */
static const char *
varying(const struct tuner *tu)
{
	return tu->nvary == tu->base->nnum ? tu->vary : NULL;
}

/* the baseline's output must hold numbers, and finite ones, or beside its
 * figure of merit words that a setting's must repeat (a program that
 * prints its times and PASS); --measure compares no setting's output, and
 * without numbers checks only that the instrumentation changed none.
 * Numbers its runs do not repeat (tu->vary) do not count */
static void
checkbase(const struct tuner *tu, const struct trial *t)
{
	const char *said = wordy(t->words), *vary = varying(tu);
	long kept = t->nnum;
	for (long i = 0; vary && i < t->nnum; i++)
		kept -= vary[i];
	if (kept < t->nnum) {
		char *which = t->nnum - kept > 1 ? ranges(vary, t->nnum) : NULL;
		char *first = fmt("number %ld: %s", tu->varyat + 1, tu->varysaid);
		note("%ld of the baseline's %ld numbers differ between its runs by more than the QoS "
		     "allows and 0.1%% (%s%s%s%s): left out of the comparisons, but a setting's must be "
		     "finite there, of the same sign and within 10x", t->nnum - kept, t->nnum,
		     which ? "numbers " : "", which ? which : "", which ? "; " : "", first);
		free(which), free(first);
	}
	const char *but = kept < t->nnum ? " and those its runs do not repeat" : "";
	if (!kept && tu->o->measure)
		note("the baseline's output holds no number besides its time%s: the measure run's output "
		     "is not checked against it", but);
	else if (!kept && tu->o->timepat && said && !tu->wordsvary)
		note("the baseline's output holds no number besides its times%s: a setting's must say the "
		     "same words (%.*s), and the QoS holds nothing (--output FILE: a file of its results)",
		     but, (int)strcspn(said, "\n"), said);
	else if (!kept && t->nnum)
		badoutput(t, fmt("the baseline's runs repeat none of its numbers within the QoS%s: nothing "
		                 "to hold the settings' outputs to (--output FILE: a file of its results)",
		                 tu->wordsvary ? ", nor its words" : ""));
	else if (!kept && tu->wordsvary)
		badoutput(t, "the baseline's runs print no number, and other words from run to run: "
		             "nothing to hold the settings' outputs to (--output FILE: a file of its results)");
	else if (!kept)
		badoutput(t, "the baseline's output holds no number (did the program run?): nothing to "
		             "compare the settings' outputs with");
	for (long i = 0; i < t->nnum && !tu->o->nonfinite; i++)
		if (!isfinite(t->num[i]))
			badoutput(t, fmt("the baseline's output holds %g (its number %ld of %ld), where "
			                     "finite numbers are expected (--allow-nonfinite accepts it)",
			                     t->num[i], i + 1, t->nnum));
}

/* the verdict of a trial whose runs all finished */
void
trial_judge(struct tuner *tu, struct trial *t)
{
	if (t->verdict > V_OK)
		return;
	t->time = median(t->times, t->ntimes);
	t->wall = median(t->walls, t->ntimes);
	t->verdict = V_OK;
	if (t == tu->base) {
		checkbase(tu, t);
		return;
	}
	double t0 = now();
	int c = compare(tu->base->num, tu->base->nnum, t->num, t->nnum, varying(tu), &t->e);
	t->judged = now() - t0;
	if (c == V_COUNT) {
		trial_fail(t, c, fmt("%ld %s in the output, the baseline has %ld", t->nnum,
		               plural(t->nnum, "number", "numbers"), tu->base->nnum));
		progress(tu, t);
		badoutput(t, fmt("[t%d] %s printed %ld %s where the baseline printed %ld: "
		                     "the outputs cannot be compared", t->id, t->what, t->nnum,
		                     plural(t->nnum, "number", "numbers"), tu->base->nnum));
	}
	if (c != V_OK) {
		trial_fail(t, c, xstrdup("NaN or Inf where the baseline has a number"));
		return;
	}
	/* the program's own check, in words: PASS, then FAIL */
	char *d = tu->base->words && t->words && !tu->wordsvary ?
	          wordsdiffer(tu->base->words, t->words) : NULL;
	if (d) {
		trial_fail(t, V_WORDS, fmt("its output says %s", d));
		free(d);
		return;
	}
	t->err = metric(&t->e, tu->o->metric);
	if (tu->o->timepat && !instrumented(t)) {   /* its time decides nothing (INSTRUMENTED_SLOW) */
		double ratio = tu->o->higher ? tu->base->time / t->time : t->time / tu->base->time;
		if (!(ratio <= tu->o->slow)) {
			trial_fail(t, V_SLOW, fmt("figure of merit %.4g against the baseline's %.4g", t->time,
			                    tu->base->time));
			return;
		}
	}
	t->meets = qos_met(tu, &t->e);
}
