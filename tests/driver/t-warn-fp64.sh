#!/bin/sh
# --mpcc-warn=fp64, an FP64 audit for CI (issue 26, item 8): f64 arithmetic
# in a kernel that loads and stores f32 (fiset's "f64 in float code": a
# double literal or a double math function on float data, as cicc left it
# after optimization) is a warning per kernel, at the source line of each
# promotion (-lineinfo/-G; without them, how to get lines), saying whether
# a rule of that kernel alone, `{kernels: ["k"], fiset: {}}`, removes it.
# Kernels meant to be f64 (f64 loads and stores) and pure-f32 kernels are
# silent. --mpcc-werror=fp64 makes it an error that
# fails the compile and leaves no output. With no policy, the files built
# are nvcc's, byte for byte: the audit only reads cicc's PTX.
. "$MPCC_SRC/tests/driver/lib.sh"

W=$T/w
mkdir -p "$W"
cd "$W" || exit 1
cat >st.cu <<'CU'
// a float stencil with double literals: cicc computes it in f64
__global__ void stencil(const float *a, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i > 0 && i < n - 1)
		out[i] = 0.25 * (a[i - 1] + a[i + 1]) + 0.5 * a[i];
}
CU
cat >ok.cu <<'CU'
// pure f32: nothing to say
__global__ void stencil32(const float *a, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i > 0 && i < n - 1)
		out[i] = 0.25f * (a[i - 1] + a[i + 1]) + 0.5f * a[i];
}
// meant to be f64: its loads and stores are f64
__global__ void stencil64(const double *a, double *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i > 0 && i < n - 1)
		out[i] = 0.25 * (a[i - 1] + a[i + 1]) + 0.5 * a[i];
}
CU
cat >wave.cu <<'CU'
// sin of a double: libdevice's f64 sine on float data, its bit tricks
// (constants of 2^52 and more) are not fiset's to lower
__global__ void wave(const float *a, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = sin(a[i] * 0.5);
}
CU
cat >app.cu <<'CU'
#include <cstdio>
__global__ void stencil(const float *a, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i > 0 && i < n - 1)
		out[i] = 0.25 * (a[i - 1] + a[i + 1]) + 0.5 * a[i];
}
int main() { std::printf("%p\n", (void *)stencil); return 0; }
CU

# warns_once PATTERN OPTION...: mpcc --mpcc-warn=fp64 with OPTIONs builds
# st.cu and says one line, which matches PATTERN
warns_once() {
	pat=$1
	shift
	"$MPCC" --mpcc-warn=fp64 -arch=sm_90 "$@" -c st.cu -o st.o 2>err
	st=$?
	if [ $st = 0 ] && [ "$(wc -l <err)" = 1 ] && grep -q "$pat" err; then
		passed
	else
		fail "status $st: $(cat err)"
	fi
}

# the rule suggested names the kernel: fiset: {} for "*" would also lower
# the kernels that are f64 on purpose
testing "a double literal in a float kernel: the kernel, file:line, and its own fiset rule"
warns_once "^st\.cu:6: warning: .*'stencil(.*; {kernels: \[\"stencil\"\], fiset: {}} removes it \[--mpcc-warn=fp64\]$" -lineinfo

testing "without -lineinfo: how to get source lines"
warns_once "^st\.cu: warning: .*'stencil(.*{kernels: \[\"stencil\"\], fiset: {}} removes .*compile with -lineinfo for source lines"

testing "pure-f32 and intended-f64 kernels: silent"
"$MPCC" --mpcc-warn=fp64 -arch=sm_90 -lineinfo -c ok.cu -o ok.o 2>err && [ ! -s err ] &&
	passed || fail "$(cat err)"

testing "what fiset: {} cannot remove is said"
"$MPCC" --mpcc-warn=fp64 -arch=sm_90 -lineinfo -c wave.cu -o wave.o 2>err
if [ "$(wc -l <err)" = 1 ] &&
	grep -q "^wave\.cu:7: warning: .*'wave(.*{kernels: \[\"wave\"\], fiset: {}} \(does not remove\|removes only part of\) it: " err; then
	passed
else
	fail "$(cat err)"
fi

testing "--mpcc-werror=fp64: an error, and no output"
rm -f st.o st.ptx
"$MPCC" --mpcc-werror=fp64 -arch=sm_90 -lineinfo -c st.cu -o st.o 2>err
st=$?
"$MPCC" --mpcc-werror=fp64 -lineinfo -ptx st.cu -o st.ptx 2>err2
st2=$?
if [ $st != 0 ] && [ $st2 != 0 ] && [ ! -e st.o ] && [ ! -e st.ptx ] &&
	grep -q "^st\.cu:6: error: .*'stencil(.*\[--mpcc-werror=fp64\]$" err &&
	grep -q "^st\.cu:6: error: " err2; then
	passed
else
	fail "status $st, $st2: $(cat err err2; ls st.o st.ptx 2>&1)"
fi

testing "--mpcc-werror=fp64 on a clean file builds it"
"$MPCC" --mpcc-werror=fp64 -arch=sm_90 -c ok.cu -o ok2.o 2>err && [ ! -s err ] && [ -s ok2.o ] &&
	passed || fail "$(cat err)"

testing "no policy: the files are nvcc's (-c, -ptx, -cubin)"
nvcc -arch=sm_90 -lineinfo -c st.cu -o n.o && nvcc -lineinfo -ptx st.cu -o n.ptx &&
	nvcc -arch=sm_90 -cubin st.cu -o n.cubin || exit 1
"$MPCC" --mpcc-warn=fp64 -arch=sm_90 -lineinfo -c st.cu -o m.o 2>err &&
	"$MPCC" --mpcc-warn=fp64 -lineinfo -ptx st.cu -o m.ptx 2>>err &&
	"$MPCC" --mpcc-warn=fp64 -arch=sm_90 -cubin st.cu -o m.cubin 2>>err
if same n.o m.o && cmp -s n.ptx m.ptx && cmp -s n.cubin m.cubin && [ "$(wc -l <err)" = 3 ]; then
	passed
else
	fail "$(cat err; cmp n.o m.o; cmp n.ptx m.ptx; cmp n.cubin m.cubin)"
fi

testing "several -gencode targets: once per kernel"
"$MPCC" --mpcc-warn=fp64 -lineinfo -gencode arch=compute_80,code=sm_80 \
	-gencode arch=compute_90,code=sm_90 -c st.cu -o g.o 2>err
if [ "$(wc -l <err)" = 1 ] && grep -q "^st\.cu:6: warning: .*'stencil(" err; then passed
else fail "$(cat err)"; fi

# fiset decides per target: where what it does differs, the line names
# the chains (sm_80 and sm_86 weigh libdevice's sine differently)
testing "several -gencode targets: one line, the chains named where fiset differs"
"$MPCC" --mpcc-warn=fp64 -lineinfo -gencode arch=compute_80,code=sm_80 \
	-gencode arch=compute_86,code=sm_86 -c wave.cu -o g.o 2>err
if [ "$(wc -l <err)" = 1 ] && grep -q "^wave\.cu:7: warning: .*'wave(" err &&
	{ ! grep -q '(on compute_' err || grep -q '(on compute_80).*(on compute_86)' err; }; then
	passed
else
	fail "$(cat err)"
fi

testing "compile and link: the warning, and nvcc's executable"
nvcc -lineinfo app.cu -o n.app || exit 1
"$MPCC" --mpcc-warn=fp64 -lineinfo app.cu -o m.app 2>err
if [ "$(wc -l <err)" = 1 ] && grep -q "^app\.cu:6: warning: .*'stencil(" err && same n.app m.app; then
	passed
else
	fail "$(cat err)"
fi

testing "MPCC_WARN, and through make"
printf 'st.o: st.cu\n\t$(NVCC) $(NVCCFLAGS) -c st.cu -o st.o\n' >Makefile
rm -f st.o
MPCC_WARN=fp64 "$MPCC" -lineinfo -arch=sm_90 -c st.cu -o v.o 2>err1
make NVCC="$MPCC" NVCCFLAGS="--mpcc-warn=fp64 -lineinfo -arch=sm_90" >out 2>err2
if grep -q "^st\.cu:6: warning: " err1 && grep -q "^st\.cu:6: warning: " err2 && [ -s st.o ]; then
	passed
else
	fail "$(cat err1 out err2)"
fi

testing "an unknown warning is an error"
"$MPCC" --mpcc-warn=fp46 -c st.cu -o u.o 2>err
st=$?
if [ $st = 1 ] && grep -q "error: unknown warning 'fp46'.*fp64" err && [ ! -e u.o ]; then passed
else fail "status $st: $(cat err)"; fi

# the policy has the rule the warning suggests, as it is written there
testing "with a policy that lowers it: said of nvcc's PTX, and lowered"
mkdir -p pol
cp st.cu pol/
printf 'version: 1\ndefault_profile: p\nprofiles:\n  p:\n    rules:\n      - {kernels: ["stencil"], fiset: {}}\n' \
	>pol/.mpcc.yaml
(cd pol && "$MPCC" --mpcc-warn=fp64 -lineinfo -arch=sm_90 -c st.cu -o st.o --mpcc-report=r.json) 2>err
if [ "$(wc -l <err)" = 1 ] && grep -q "^st\.cu:6: warning: .*{kernels: \[\"stencil\"\], fiset: {}} removes it" err &&
	grep -q '"applied":true' pol/r.json; then
	passed
else
	fail "$(cat err pol/r.json)"
fi

if command -v ccache >/dev/null 2>&1; then
	testing "through ccache: a hit says it again, --mpcc-werror misses"
	export CCACHE_DIR="$T/ccache"
	nv=$(command -v nvcc)
	for i in 1 2; do
		"$MPCC" ccache "$nv" --mpcc-warn=fp64 -lineinfo -arch=sm_90 -c st.cu -o c.o 2>"err$i"
	done
	"$MPCC" ccache "$nv" --mpcc-werror=fp64 -lineinfo -arch=sm_90 -c st.cu -o c2.o 2>err3
	st=$?
	if grep -q "^st\.cu:6: warning: " err1 && cmp -s err1 err2 && [ $st != 0 ] &&
		grep -q "^st\.cu:6: error: " err3 && [ ! -e c2.o ] &&
		ccache -s 2>/dev/null | grep -Eiq '(hits:|cache hit[^0-9]*) *[1-9]'; then
		passed
	else
		fail "status $st: $(cat err1 err2 err3; ccache -s | head -5)"
	fi
	unset CCACHE_DIR
fi

if command -v cmake >/dev/null 2>&1; then
	testing "through CMake (CMAKE_CUDA_FLAGS)"
	mkdir -p cm
	cp st.cu cm/
	printf 'cmake_minimum_required(VERSION 3.18)\nproject(w CUDA)\nadd_library(w OBJECT st.cu)\n' \
		>cm/CMakeLists.txt
	if cmake -S cm -B cm/b -DCMAKE_CUDA_COMPILER="$MPCC" -DCMAKE_CUDA_ARCHITECTURES=90 \
		"-DCMAKE_CUDA_FLAGS=--mpcc-warn=fp64 -lineinfo" >cm.log 2>&1 &&
		cmake --build cm/b >>cm.log 2>&1 && grep -q "st\.cu:6: warning: .*'stencil(" cm.log; then
		passed
	else
		fail "$(tail -5 cm.log)"
	fi
fi
finish
