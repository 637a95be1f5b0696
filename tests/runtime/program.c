/* program.c: the program of program.h. Clones compute as the store
 * transform's do: loads convert up, arithmetic in the wide type, stores
 * round to nearest. */
#include "tests/runtime/program.h"

#include <string.h>

char axpy_h, scale_h, touch_h, zero_h, mix_h, half_h, opened_h, missing_h, future_h, bad_h,
	lib_h, wrong_h, axpyb_h, bscale_h, hscale_h, qscale_h;
void *seen[4];
double touched;

/* two translation units' __fatDeviceText */
static char fatbin_a[16], fatbin_b[16];

/* the table, as the driver writes it into each unit's stub */
__attribute__((used, section("mpcc_store"), aligned(16)))
static const struct {
	const void *fatbin;
	const char *spec;
} table_a[] = {
	{fatbin_a, "1 axpy axpy_mpcc_store c 4 w:f64>f32 r:f64>f32 - -"},
	{fatbin_a, "1 scale scale_mpcc_store c 3 w:f64>f32 - -"},
	{fatbin_a, "1 touch - c 2 r -"},
	{fatbin_a, "1 zero - c 2 w -"},
	{fatbin_a, "1 mix mix_mpcc_store c 3 w:f64>f32 r -"},
	{fatbin_a, "1 half half_mpcc_store c 3 w:f64>f16 - -"},
	{fatbin_a, "1 opened opened_mpcc_store o 2 w:f64>f32 -"},
	{fatbin_a, "1 missing missing_mpcc_store c 2 w:f64>f32 -"},
	{fatbin_a, "2 future future_mpcc_store c 2 w:f64>f32 -"},
	{fatbin_a, "1 bad bad_mpcc_store c 3 w:f64>f32 - -"},
	{fatbin_a, "1 wrong wrong_mpcc_store c 3 w:f64>f32 - -"},
	{0, 0},   /* padding, as between two objects' parts of the section */
	{fatbin_a, "1 bscale bscale_mpcc_store c 3 w:f32>bf16 - -"},
	{fatbin_a, "1 hscale hscale_mpcc_store c 3 w:f32>f16 - -"},
	{fatbin_a, "1 qscale qscale_mpcc_store c 3 w:f64>bf16 - -"},
};
__attribute__((used, section("mpcc_store"), aligned(16)))
static const struct {
	const void *fatbin;
	const char *spec;
} table_b[] = {
	{fatbin_b, "1 axpy - c 4 w r - -"},
};

#define P(i) (*(void **)args[i])
#define D(i) (*(double *)args[i])
#define I(i) (*(int *)args[i])

static void
axpy_k(void **args)
{
	double *y = P(0);
	const double *x = P(1);
	for (int i = 0; i < I(3); i++)
		y[i] += D(2) * x[i];
}

static void
axpy_c(void **args)
{
	float *y = P(0);
	const float *x = P(1);
	seen[0] = y, seen[1] = P(1);
	for (int i = 0; i < I(3); i++)
		y[i] = fake_f32((double)y[i] + D(2) * (double)x[i]);
}

/* through memcpy: a test launches it on a pointer off an element */
static void
scale_k(void **args)
{
	char *y = P(0);
	for (int i = 0; i < I(2); i++) {
		double d;
		memcpy(&d, y + 8 * i, 8);
		d *= D(1);
		memcpy(y + 8 * i, &d, 8);
	}
}

static void
scale_c(void **args)
{
	float *y = P(0);
	seen[0] = y;
	for (int i = 0; i < I(2); i++)
		y[i] = fake_f32((double)y[i] * D(1));
}

/* a clone that is wrong: MPCC_STORE_CHECK must say so */
static void
wrong_c(void **args)
{
	float *y = P(0);
	for (int i = 0; i < I(2); i++)
		y[i] = fake_f32((double)y[i] * D(1) + 1);
}

static void
half_c(void **args)
{
	unsigned short *y = P(0);
	seen[0] = y;
	for (int i = 0; i < I(2); i++)
		y[i] = fake_f16(fake_widen_f16(y[i]) * D(1));
}

static void
bscale_k(void **args)
{
	float *y = P(0);
	for (int i = 0; i < I(2); i++)
		y[i] = (float)(y[i] * D(1));
}

static void
bscale_c(void **args)
{
	unsigned short *y = P(0);
	seen[0] = y;
	for (int i = 0; i < I(2); i++)
		y[i] = fake_bf16(fake_widen_bf16(y[i]) * D(1));
}

static void
hscale_c(void **args)
{
	unsigned short *y = P(0);
	seen[0] = y;
	for (int i = 0; i < I(2); i++)
		y[i] = fake_f16(fake_widen_f16(y[i]) * D(1));
}

static void
qscale_c(void **args)
{
	unsigned short *y = P(0);
	seen[0] = y;
	for (int i = 0; i < I(2); i++)
		y[i] = fake_bf16(fake_widen_bf16(y[i]) * D(1));
}

static void
touch_k(void **args)
{
	const double *x = P(0);
	touched = 0;
	for (int i = 0; i < I(1); i++)
		touched += x[i];
}

static void
zero_k(void **args)
{
	memset(P(0), 0, I(1) * sizeof(double));
}

/* mix(y, z, n): y[i] = z[i] */
static void
mix_k(void **args)
{
	double *y = P(0);
	const double *z = P(1);
	for (int i = 0; i < I(2); i++)
		y[i] = z[i];
}

static void
mix_c(void **args)
{
	float *y = P(0);
	const double *z = P(1);
	seen[0] = y;
	for (int i = 0; i < I(2); i++)
		y[i] = fake_f32(z[i]);
}

static void
add_k(void **args, double v)
{
	double *y = P(0);
	for (int i = 0; i < I(1); i++)
		y[i] += v;
}

static void
add1(void **args)
{
	add_k(args, 1);
}

static void
add1_c(void **args)
{
	float *y = P(0);
	for (int i = 0; i < I(1); i++)
		y[i] = fake_f32(y[i] + 1.0);
}

static void
sub1(void **args)
{
	add_k(args, -1);
}

static void
reg(void **h, char *stub, const char *name)
{
	__cudaRegisterFunction(h, stub, (char *)name, name, -1, NULL, NULL, NULL, NULL, NULL);
}

static void
bodies(void)
{
	static const int y_n[] = {8, 4}, y_a_n[] = {8, 8, 4}, y_x_a_n[] = {8, 8, 8, 4};
	static const int y_z_n[] = {8, 8, 4};
	fake_kernel("axpy", axpy_k, 4, y_x_a_n);
	fake_kernel("axpy_mpcc_store", axpy_c, 4, y_x_a_n);
	fake_kernel("scale", scale_k, 3, y_a_n);
	fake_kernel("scale_mpcc_store", scale_c, 3, y_a_n);
	fake_kernel("wrong", scale_k, 3, y_a_n);
	fake_kernel("wrong_mpcc_store", wrong_c, 3, y_a_n);
	fake_kernel("half", scale_k, 3, y_a_n);
	fake_kernel("half_mpcc_store", half_c, 3, y_a_n);
	fake_kernel("bscale", bscale_k, 3, y_a_n);
	fake_kernel("bscale_mpcc_store", bscale_c, 3, y_a_n);
	fake_kernel("hscale", bscale_k, 3, y_a_n);
	fake_kernel("hscale_mpcc_store", hscale_c, 3, y_a_n);
	fake_kernel("qscale", scale_k, 3, y_a_n);
	fake_kernel("qscale_mpcc_store", qscale_c, 3, y_a_n);
	fake_kernel("touch", touch_k, 2, y_n);
	fake_kernel("zero", zero_k, 2, y_n);
	fake_kernel("mix", mix_k, 3, y_z_n);
	fake_kernel("mix_mpcc_store", mix_c, 3, y_z_n);
	fake_kernel("opened", add1, 2, y_n);
	fake_kernel("opened_mpcc_store", add1_c, 2, y_n);
	fake_kernel("missing", add1, 2, y_n);   /* and no missing_mpcc_store */
	fake_kernel("future", add1, 2, y_n);
	fake_kernel("future_mpcc_store", add1_c, 2, y_n);
	fake_kernel("bad", add1, 2, y_n);       /* its entry says 3 parameters */
	fake_kernel("bad_mpcc_store", add1_c, 2, y_n);
	fake_kernel("lib", sub1, 2, y_n);
}

void
program(void)
{
	bodies();
	void **a = __cudaRegisterFatBinary(fatbin_a);
	reg(a, &axpy_h, "axpy");
	reg(a, &scale_h, "scale");
	reg(a, &touch_h, "touch");
	reg(a, &zero_h, "zero");
	reg(a, &mix_h, "mix");
	reg(a, &half_h, "half");
	reg(a, &opened_h, "opened");
	reg(a, &missing_h, "missing");
	reg(a, &future_h, "future");
	reg(a, &bad_h, "bad");
	reg(a, &lib_h, "lib");
	reg(a, &wrong_h, "wrong");
	reg(a, &bscale_h, "bscale");
	reg(a, &hscale_h, "hscale");
	reg(a, &qscale_h, "qscale");
	__cudaRegisterFatBinaryEnd(a);
	void **b = __cudaRegisterFatBinary(fatbin_b);
	reg(b, &axpyb_h, "axpy");
	__cudaRegisterFatBinaryEnd(b);
	(void)table_a, (void)table_b;
}

cudaError_t
launch(const void *k, void **args, cudaStream_t s)
{
	cudaKernel_t h;
	dim3 g = {1, 1, 1}, b = {64, 1, 1};
	cudaError_t r = __cudaGetKernel(&h, k);
	return r != cudaSuccess ? r : __cudaLaunchKernel(h, g, b, args, 0, s);
}

cudaError_t
scale(void *y, double a, int n)
{
	void *args[] = {&y, &a, &n};
	return launch(&scale_h, args, NULL);
}

cudaError_t
axpy(void *y, const void *x, double a, int n)
{
	void *args[] = {&y, &x, &a, &n};
	return launch(&axpy_h, args, NULL);
}

cudaError_t
run1(const void *k, void *p, int n)
{
	void *args[] = {&p, &n};
	return launch(k, args, NULL);
}
