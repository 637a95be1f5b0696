/* numbers.c: the numbers of an output, and how far a candidate's are from
 * the baseline's.
 *
 * A text output is read as the sequence of every number in it, in order:
 * decimals with an optional sign, fraction and exponent, and the words nan
 * and inf(inity) standing alone. A raw output (--output-type f32|f64) is the
 * array of its values. Two outputs compare element by element; the metrics
 * are those of the papers: mean and max relative error, the relative
 * Frobenius norm of the difference (002, Eq. 1), and digits of accuracy
 * (003: -log10 of the largest relative error, 17 for an exact output). A
 * baseline zero counts as a relative error of 0 if the candidate is also
 * zero, else 1. */
#include "tune/tune.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const verdictname[] = {
	[V_OK] = "ok", [V_BUILD] = "build failed", [V_NOAPPLY] = "not applied",
	[V_CRASH] = "crashed", [V_TIMEOUT] = "timed out", [V_SLOW] = "too slow",
	[V_NAN] = "NaN/Inf in the output", [V_COUNT] = "another count of numbers",
	[V_NOTIME] = "no figure of merit", [V_WORDS] = "other words in the output",
};

static int
wordchar(int c)
{
	return isalnum(c) || c == '_' || c == '.';
}

/* nan, inf or infinity at s as a whole word, with an optional sign before it */
static int
special(const char *s, const char *end, double *v)
{
	static const char *const w[] = {"infinity", "inf", "nan"};
	int neg = *s == '-', skip = *s == '-' || *s == '+';
	for (int i = 0; i < 3; i++) {
		size_t n = strlen(w[i]);
		if (end - s - skip >= (long)n && !strncasecmp(s + skip, w[i], n) &&
		    (s + skip + n == end || !wordchar((uchar)s[skip + n]))) {
			*v = i == 2 ? NAN : neg ? -INFINITY : INFINITY;
			return skip + n;
		}
	}
	return 0;
}

/* a decimal at s: its length, 0 if none */
static int
decimal(const char *s, const char *end, double *v)
{
	const char *p = s;
	if (p < end && (*p == '-' || *p == '+'))
		p++;
	const char *d = p;
	while (p < end && isdigit((uchar)*p))
		p++;
	if (p < end && *p == '.') {
		p++;
		while (p < end && isdigit((uchar)*p))
			p++;
	}
	if (p == d || (p == d + 1 && *d == '.'))
		return 0;
	if (p < end && (*p == 'e' || *p == 'E')) {
		const char *q = p + 1;
		if (q < end && (*q == '-' || *q == '+'))
			q++;
		if (q < end && isdigit((uchar)*q)) {
			while (q < end && isdigit((uchar)*q))
				q++;
			p = q;
		}
	}
	char buf[128];
	size_t n = p - s < 127 ? (size_t)(p - s) : 127;
	memcpy(buf, s, n);
	buf[n] = 0;
	*v = strtod(buf, NULL);
	return p - s;
}

static void
push(double **v, long *n, long *cap, double x)
{
	if (*n >= *cap) {
		*cap = *cap ? 2 * *cap : 64;
		*v = xrealloc(*v, *cap * sizeof **v);
	}
	(*v)[(*n)++] = x;
}

/* the numbers of [s, end) into v; into w (if given) its words: the text
 * with each number as '#' and each run of blanks as one space */
static void
textnums(const char *s, const char *end, double **v, long *n, long *cap, struct buf *w)
{
	while (s < end) {
		double x;
		const char *from = s;
		int k = special(s, end, &x);
		if (!k)
			k = decimal(s, end, &x);
		if (k) {
			push(v, n, cap, x);
			s += k;
			while (s < end && wordchar((uchar)*s))  /* 1.2.3: one token */
				s++;
			if (w)
				buf_put(w, "#", 1);
			continue;
		}
		if (isalpha((uchar)*s) || *s == '_') {
			/* a word: skipped whole, so that "sm_90" and "x2" give no number */
			while (s < end && (isalnum((uchar)*s) || *s == '_'))
				s++;
		} else if (isspace((uchar)*s)) {
			while (s < end && isspace((uchar)*s))
				s++;
			if (w)
				buf_put(w, " ", 1);   /* a run of blanks as one */
			continue;
		} else {
			s++;
		}
		if (w)
			buf_put(w, from, s - from);
	}
}

double *
numbers(const char *text, size_t len, int type, long *n)
{
	double *v = NULL;
	long cap = 0;
	*n = 0;
	if (type == O_TEXT) {
		textnums(text, text + len, &v, n, &cap, NULL);
	} else if (type == O_F32) {
		for (size_t i = 0; i + 4 <= len; i += 4) {
			float f;
			memcpy(&f, text + i, 4);
			push(&v, n, &cap, f);
		}
	} else {
		for (size_t i = 0; i + 8 <= len; i += 8) {
			double d;
			memcpy(&d, text + i, 8);
			push(&v, n, &cap, d);
		}
	}
	return v;
}

/* line [s, e)'s words (textnums()) */
static char *
shape(const char *s, const char *e)
{
	struct buf w = BUF_INIT;
	double *v = NULL;
	long n = 0, cap = 0;
	textnums(s, e, &v, &n, &cap, &w);
	free(v);
	return buf_take(&w);
}

/* line [s, e) names a time or a rate (a word of them, or WORD/s): a timer,
 * whose numbers follow the run's speed, not its results */
static int
timerline(const char *s, const char *e)
{
	static const char *const w[] = {"time", "times", "elapsed", "runtime", "seconds", "second",
	                                "sec", "secs", "ms", "msec", "us", "usec", "ns", "throughput",
	                                "bandwidth", "fom", "gflops", "tflops"};
	while (s < e) {
		if (!isalpha((uchar)*s)) {
			s++;
			continue;
		}
		const char *b = s;
		while (s < e && isalpha((uchar)*s))
			s++;
		if (s + 1 < e && s[0] == '/' && s[1] == 's' && (s + 2 == e || !isalnum((uchar)s[2])))
			return 1;
		for (size_t i = 0; i < sizeof w / sizeof *w; i++)
			if ((size_t)(s - b) == strlen(w[i]) && !strncasecmp(b, w[i], s - b))
				return 1;
	}
	return 0;
}

/* the numbers of a program's text output, and into *words its words, a
 * line each, but the instrumentation's lines ("mpcc-") and the timers: the
 * lines the figure of merit's pattern re matches, the lines shaped as they
 * are (the same words, other numbers: HeCBench's kalman prints a time for
 * each of 8 configurations, the pattern names the last), and the lines
 * that name a time or a rate (LULESH's "Elapsed time", "FOM"). Into
 * *timers (if given) the words of those left out, but re's */
double *
outnumbers(const char *text, size_t len, const regex_t *re, long *n, char **words, char **timers)
{
	double *v = NULL;
	long cap = 0;
	int nfom = 0;
	char **fom = NULL;
	struct buf w = BUF_INIT, tm = BUF_INIT;
	*n = 0;
	for (int pass = 0; pass < 2; pass++)
		for (const char *s = text, *end = text + len; s < end;) {
			/* pass 0: the shapes of re's lines; pass 1: every other line */
			const char *nl = memchr(s, '\n', end - s), *e = nl ? nl : end;
			char *line = xstrndup(s, e - s);
			int matched = re && !regexec(re, line, 0, NULL, 0);
			if (!pass && matched) {
				fom = xrealloc(fom, (nfom + 1) * sizeof *fom);
				fom[nfom++] = shape(s, e);
			} else if (pass && !matched && !startswith(line, "mpcc-")) {
				char *sh = shape(s, e);
				int timer = timerline(s, e);
				for (int i = 0; i < nfom && !timer; i++)
					timer = !strcmp(fom[i], sh);
				if (!timer)
					textnums(s, e, &v, n, &cap, NULL);
				buf_puts(timer ? &tm : &w, sh);
				buf_put(timer ? &tm : &w, "\n", 1);
				free(sh);
			}
			free(line);
			s = nl ? nl + 1 : end;
		}
	for (int i = 0; i < nfom; i++)
		free(fom[i]);
	free(fom);
	*words = buf_take(&w);
	if (timers)
		*timers = buf_take(&tm);
	buf_release(&tm);
	return v;
}

/* where words a (the baseline's) and b differ: "'B' where the baseline's
 * says 'A'", their first line that differs; NULL where they agree */
char *
wordsdiffer(const char *a, const char *b)
{
	for (;;) {
		size_t na = strcspn(a, "\n"), nb = strcspn(b, "\n");
		if (na != nb || memcmp(a, b, na))
			return fmt("'%.*s' where the baseline's says '%.*s'", nb > 80 ? 80 : (int)nb, b,
			           na > 80 ? 80 : (int)na, a);
		if (!a[na] && !b[nb])
			return NULL;
		a += na + !!a[na], b += nb + !!b[nb];
	}
}

int
compare(const double *b, long nb, const double *x, long nx, const char *skip, struct errors *e)
{
	double sum = 0, mx = 0, d2 = 0, b2 = 0;
	long n = 0;
	*e = (struct errors){.n = nx};
	if (nb != nx)
		return V_COUNT;
	for (long i = 0; i < nb; i++) {
		double r;
		if (skip && skip[i] && isfinite(b[i])) {
			/* noise, but never NaN or Inf where it had a number, and of its
			 * sign and within 10x of it (a rate: two settings' rates differ
			 * by their speed-up), else counted as any other */
			if (!isfinite(x[i]))
				return V_NAN;
			double q = x[i] / b[i];
			if (q >= 0.1 && q <= 10)
				continue;
		}
		n++;
		if (!isfinite(b[i])) {   /* the baseline's own NaN/Inf must come back */
			if (!(isnan(b[i]) ? isnan(x[i]) : x[i] == b[i]))
				return V_NAN;
			continue;
		}
		if (!isfinite(x[i]))
			return V_NAN;
		if (b[i] == 0)
			r = x[i] == 0 ? 0 : 1;
		else
			r = fabs(x[i] - b[i]) / fabs(b[i]);
		sum += r;
		mx = r > mx ? r : mx;
		d2 += (x[i] - b[i]) * (x[i] - b[i]);
		b2 += b[i] * b[i];
	}
	e->mean = n ? sum / n : 0;
	e->max = mx;
	e->fro = b2 > 0 ? sqrt(d2) / sqrt(b2) : d2 > 0;
	e->digits = mx > 0 ? fmin(17, -log10(mx)) : 17;
	return V_OK;
}

double
metric(const struct errors *e, int m)
{
	switch (m) {
	case M_MEAN:
		return e->mean;
	case M_MAX:
		return e->max;
	case M_FRO:
		return e->fro;
	}
	return e->digits;
}

/* the most one number of the baseline may differ between its runs (as a
 * relative difference) and be compared: the QoS's bound (for digits
 * 10^-digits), and at least 0.1%. One that differs more is noise to every
 * setting (a rate); one below 0.1% a result (a sum in another order),
 * which a QoS tighter than its noise fails as before */
double
qos_one(const struct tuner *tu)
{
	return fmax(tu->o->metric == M_DIGITS ? pow(10, -tu->o->qos) : tu->o->qos, 1e-3);
}

int
qos_met(const struct tuner *tu, const struct errors *e)
{
	double v = metric(e, tu->o->metric);
	return tu->o->metric == M_DIGITS ? v >= tu->o->qos : v <= tu->o->qos;
}

static int
cmpd(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double
median(double *v, int n)
{
	if (n <= 0)
		return NAN;
	double *c = xmalloc(n * sizeof *c);
	memcpy(c, v, n * sizeof *c);
	qsort(c, n, sizeof *c, cmpd);
	double m = n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
	free(c);
	return m;
}
