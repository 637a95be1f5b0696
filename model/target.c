/* target.c: what one SM of each target does per clock, for the passes'
 * decisions per -gencode chain (doc/DESIGN.md, "What each op costs").
 *
 * Thread-instructions per clock per SM. The rows come from the arithmetic
 * instruction table of the CUDA C++ Programming Guide (results per clock per
 * multiprocessor; its 16-bit row counts lanes, so an f16x2 instruction rate
 * is half of it) and the occupancy table (resident warps per SM). The sm_90
 * row is what bench/probes/rates.cu measured on an H100: it is the only row
 * checked on hardware, and the guide's figures differ from it (FFMA 119 of
 * 128, HFMA2 64 where the guide implies 128). Re-measure on any new target.
 *
 * alu is the guide's "compare, minimum, maximum" and 32-bit logic row (64 on
 * every target here); on sm_90 bench/fiset/probe.cu measured it (min.f32 61,
 * setp+selp 31 a pair: FSETP and FSEL each one ALU slot). issue is one warp
 * instruction per clock per scheduler, 4 schedulers (128 thread-instructions).
 * bw is DRAM bandwidth per clock per SM: the datasheet bandwidth over (SMs x
 * boost clock) of the architecture's data-center part (T4, A100 40GB, A40,
 * Orin, L40S, H100 SXM, B200, Thor, RTX 5090, GB10), what a kernel that
 * streams data can get at most; on sm_90 the H100's measured 3.0 TB/s
 * (device-to-device copy, 132 SMs, 1.98 GHz). cvt16 is f16 packs and
 * unpacks: bench/probes/rates.cu on an H100 ran 32 packs + 64 unpacks a
 * clock, which every row takes until measured elsewhere. */
#include "model/model.h"

#include <stdlib.h>
#include <string.h>

#define GUIDE "CUDA C++ Programming Guide, arithmetic instruction throughput table"
static const struct target rows[] = {
	/* sm  warps  ffma  dfma  hfma2  mufu  f2f  alu  cvt16  issue  bw */
	{75, 32, 64, 2, 64, 16, 2, 64, 96, 128, 5.0,
	 GUIDE " (cc 7.5); DRAM: T4, 320 GB/s over 40 SMs at 1.59 GHz"},
	{80, 64, 64, 32, 128, 16, 16, 64, 96, 128, 10.2,
	 GUIDE " (cc 8.0); DRAM: A100 40GB, 1555 GB/s over 108 SMs at 1.41 GHz"},
	{86, 48, 128, 2, 128, 16, 2, 64, 96, 128, 4.8,
	 GUIDE " (cc 8.6); DRAM: A40, 696 GB/s over 84 SMs at 1.74 GHz"},
	{87, 48, 128, 2, 128, 16, 2, 64, 96, 128, 9.8,
	 GUIDE " (cc 8.7); DRAM: AGX Orin, 204.8 GB/s over 16 SMs at 1.3 GHz"},
	{89, 48, 128, 2, 64, 16, 2, 64, 96, 128, 2.4,
	 GUIDE " (cc 8.9); DRAM: L40S, 864 GB/s over 142 SMs at 2.52 GHz"},
	{90, 64, 119, 64, 64, 16, 15, 64, 96, 128, 11.5,
	 "measured on an H100 SXM: bench/probes/rates.cu (ffma dfma hfma2 mufu f2f "
	 "cvt16), bench/fiset/probe.cu (alu), a device-to-device copy (3.0 TB/s over "
	 "132 SMs at 1.98 GHz)"},
	{100, 64, 128, 64, 128, 16, 16, 64, 96, 128, 27.5,
	 GUIDE " (cc 10.0); DRAM: B200, 8 TB/s over 148 SMs at 1.965 GHz"},
	{103, 64, 128, 2.13, 128, 16, 2, 64, 96, 128, 27.5,
	 "NVIDIA's B300 figures: FP64 1.25 TFLOP/s against FP32 75 TFLOP/s (1/60), so "
	 "dfma = 128 / 60; conversions to and from f64 taken as sm_86's (2: the FP64 "
	 "units are as scarce); the rest as B200 (cc 10.0)"},
	{110, 48, 128, 2, 128, 16, 2, 64, 96, 128, 8.7,
	 GUIDE " (cc 11.0); DRAM: Thor, 273 GB/s over 20 SMs at 1.575 GHz"},
	{120, 48, 128, 2, 128, 16, 2, 64, 96, 128, 4.4,
	 GUIDE " (cc 12.0); DRAM: RTX 5090, 1792 GB/s over 170 SMs at 2.41 GHz"},
	{121, 48, 128, 2, 128, 16, 2, 64, 96, 128, 2.3,
	 GUIDE " (cc 12.1); DRAM: GB10, 273 GB/s over 48 SMs at 2.5 GHz"},
};

const struct target *
target(int sm)
{
	const struct target *best = NULL;
	for (size_t i = 0; i < countof(rows); i++)
		if (rows[i].sm / 10 == sm / 10 && rows[i].sm <= sm)
			best = &rows[i];
	return best;
}

int
mostwarps(int sm)
{
	int w = 0;
	for (size_t i = 0; i < countof(rows); i++)
		if (rows[i].sm / 10 >= sm / 10 && rows[i].maxwarps > w)
			w = rows[i].maxwarps;
	return w ? w : 64;
}

int
archnum(const char *arch)
{
	const char *d;
	if (!arch)
		return -1;
	if (!strncmp(arch, "compute_", 8))
		d = arch + 8;
	else if (!strncmp(arch, "sm_", 3))
		d = arch + 3;
	else
		return -1;
	char *end;
	long n = strtol(d, &end, 10);
	if (end == d || n <= 0 || n > 1000 || (*end && strcmp(end, "a") && strcmp(end, "f")))
		return -1;
	return n;
}

int
capregs(const Fn *fn)
{
	uint v[3] = {0, 1, 1}, b[3] = {1, 0, 0};
	int most = 255;
	if (perfdir(fn, ".maxnreg", v) == 1 && v[0] > 0 && (int)v[0] < most)
		most = v[0];
	v[1] = v[2] = 1;
	if (perfdir(fn, ".maxntid", v) > 0 || perfdir(fn, ".reqntid", v) > 0) {
		perfdir(fn, ".minnctapersm", b);
		long threads = ((long)v[0] * v[1] * v[2] + 31) / 32 * 32 * (b[0] ? b[0] : 1);
		int fit = threads > 0 ? (int)(65536 / threads) / 8 * 8 : most;
		if (fit >= 8 && fit < most)
			most = fit;
	}
	return most;
}

int
regwarps(int sm, int regs)
{
	const struct target *t = target(sm);
	int most = t ? t->maxwarps : 64, per = (regs + 7) / 8 * 8 * 32;
	int w = per > 0 ? 65536 / per : most;
	return w < most ? w : most;
}
