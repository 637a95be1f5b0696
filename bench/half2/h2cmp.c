/* h2cmp: compare an f32 bench output with the reference output.
 * usage: h2cmp REF OUT
 * prints "unwritten=U mean=M max=X l2=E identical=0|1": U counts elements
 * still holding the 0xFF poison (or NaN), M and X are the mean and the
 * largest relative error |out - ref| / |ref| over the others, E the
 * normwise error ||out - ref|| / ||ref|| (where an output near zero makes
 * the elementwise relative error meaningless, as after cancellation). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static float *slurp(const char *path, long *n)
{
	FILE *f = fopen(path, "rb");
	long len;
	float *b;
	if (!f || fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		fprintf(stderr, "h2cmp: error: cannot read '%s'\n", path);
		exit(2);
	}
	b = malloc(len + 4);
	if (!b || fread(b, 1, len, f) != (size_t)len) {
		fprintf(stderr, "h2cmp: error: cannot read '%s'\n", path);
		exit(2);
	}
	fclose(f);
	*n = len / 4;
	return b;
}

int main(int argc, char **argv)
{
	long nr, nx, unwritten = 0;
	double tot = 0, mx = 0, d2 = 0, r2 = 0;
	if (argc != 3) {
		fprintf(stderr, "usage: h2cmp REF OUT\n");
		return 2;
	}
	float *r = slurp(argv[1], &nr), *x = slurp(argv[2], &nx);
	if (nr != nx) {
		fprintf(stderr, "h2cmp: error: '%s' and '%s' differ in size\n", argv[1], argv[2]);
		return 2;
	}
	for (long i = 0; i < nr; i++) {
		unsigned u;
		memcpy(&u, &x[i], 4);
		if (u == 0xFFFFFFFFu || isnan(x[i]) || isnan(r[i])) {
			unwritten++;
			continue;
		}
		double a = x[i], b = r[i], e = fabs(a - b) / fmax(fabs(b), 1e-300);
		tot += e;
		mx = e > mx ? e : mx;
		d2 += (a - b) * (a - b);
		r2 += b * b;
	}
	printf("unwritten=%ld mean=%.6e max=%.6e l2=%.6e identical=%d\n", unwritten,
	       nr ? tot / nr : 0.0, mx, r2 > 0 ? sqrt(d2 / r2) : 0.0,
	       !memcmp(r, x, nr * 4));
	return 0;
}
