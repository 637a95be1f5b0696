/* cmp: compare a bench output with the reference output.
 * usage: cmp f|d REF OUT
 * prints "unwritten=U mean=M max=X identical=0|1 maxabs=A": U counts elements
 * still holding the 0xFF poison (or NaN), M and X are the mean and the
 * largest relative error |out - ref| / |ref| over the other elements, A the
 * largest absolute error (relative error is unbounded where ref is near 0, so
 * one wrong element shows in A, not in M). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char *slurp(const char *path, long *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *b;
	if (!f || fseek(f, 0, SEEK_END) || (*len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		fprintf(stderr, "cmp: error: cannot read '%s'\n", path);
		exit(2);
	}
	b = malloc(*len + 1);
	if (!b || fread(b, 1, *len, f) != (size_t)*len) {
		fprintf(stderr, "cmp: error: cannot read '%s'\n", path);
		exit(2);
	}
	fclose(f);
	return b;
}

int main(int argc, char **argv)
{
	long nr, nx, size, n, unwritten = 0, i;
	unsigned char *r, *x, poison[8];
	double tot = 0, mx = 0, mxabs = 0;
	if (argc != 4 || (argv[1][0] != 'f' && argv[1][0] != 'd')) {
		fprintf(stderr, "usage: cmp f|d REF OUT\n");
		return 2;
	}
	size = argv[1][0] == 'f' ? 4 : 8;
	r = slurp(argv[2], &nr);
	x = slurp(argv[3], &nx);
	if (nr != nx || nr % size) {
		fprintf(stderr, "cmp: error: '%s' and '%s' differ in size\n", argv[2], argv[3]);
		return 2;
	}
	memset(poison, 0xFF, sizeof poison);
	n = nr / size;
	for (i = 0; i < n; i++) {
		double a, b, e;
		if (!memcmp(x + i * size, poison, size)) {
			unwritten++;
			continue;
		}
		if (size == 4) {
			float fa, fb;
			memcpy(&fa, x + i * 4, 4);
			memcpy(&fb, r + i * 4, 4);
			a = fa, b = fb;
		} else {
			memcpy(&a, x + i * 8, 8);
			memcpy(&b, r + i * 8, 8);
		}
		if (isnan(a) || isnan(b)) {
			unwritten++;
			continue;
		}
		e = fabs(a - b) / fmax(fabs(b), 1e-300);
		tot += e;
		if (e > mx)
			mx = e;
		if (fabs(a - b) > mxabs)
			mxabs = fabs(a - b);
	}
	printf("unwritten=%ld mean=%.6e max=%.6e identical=%d maxabs=%.6e\n", unwritten,
	       n ? tot / n : 0.0, mx, !memcmp(r, x, nr), mxabs);
	return 0;
}
