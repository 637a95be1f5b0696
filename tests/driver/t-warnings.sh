#!/bin/sh
# Warnings mean something (issue 26, item 10). A rule on every kernel
# (kernels: ["*"]) asks each pass's advice to decide; a kernel with nothing
# to do (no f64 arithmetic for fiset, nothing to approximate for sfu) or
# that will not pay (fiset's "no set chosen ... does not pay", half2's
# "will not pay") is the advice's answer, not a failure: it goes to the
# report (applied false, with the reason) and to --mpcc-explain, never to a
# warning, and never fails a build under on_unsupported: error. What a rule
# asked and could not get (half2 on a kernel with warp shuffles) still
# warns, once. --mpcc-summary adds one line per compile.
. "$MPCC_SRC/tests/driver/lib.sh"

W=$T/w
mkdir -p "$W"
cd "$W" || exit 1
cat >k.cu <<'CU'
// float code: nothing for fiset; polynomial: half2 will not pay (memory)
__global__ void scale(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] = 2.0f * x[i] + 1.0f;
}
// memory-bound f64: no fiset set pays; no transcendental for sfu
__global__ void daxpy(int n, double a, const double *x, double *y)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
		y[i] = a * x[i] + y[i];
}
// shuffles: half2 cannot pair it
__global__ void warpsum(const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	float v = i < n ? x[i] : 0.0f;
	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_down_sync(0xffffffffu, v, o);
	if ((threadIdx.x & 31) == 0)
		y[i / 32] = v;
}
CU
# policy UNSUP BLOCK...: every kernel gets each block
policy() {
	u=$1
	shift
	printf 'version: 1\ndefault_profile: p\non_unsupported: %s\nprofiles:\n  p:\n    rules:\n      - kernels: ["*"]\n' "$u" >.mpcc.yaml
	for b; do printf '        %s\n' "$b" >>.mpcc.yaml; done
}

testing "nothing to do and will not pay are not warnings"
policy warn 'fiset: {}' 'sfu: {lambda: 32}'
rm -f r.json
if "$MPCC" -arch=sm_90 -c k.cu -o k.o --mpcc-report=r.json 2>err && [ ! -s err ] &&
	[ "$(grep -c '"applied":false' r.json)" = 4 ] && grep -q '"reason":"no f64 arithmetic"' r.json &&
	grep -q 'does not pay' r.json && grep -q 'nothing to approximate' r.json; then
	passed
else
	fail "$(cat err) / $(grep -o '"transform":"[a-z0-9]*".*"reason":"[^"]*"' r.json)"
fi

testing "what a rule could not get still warns, once"
policy warn 'half2: {}'
"$MPCC" -arch=sm_90 -c k.cu -o k.o 2>err
if [ "$(wc -l <err)" = 1 ] && grep -q "warning: .*half2 on 'warpsum.*shuffle" err; then
	passed
else
	fail "$(cat err)"
fi

# (it did not fail at all: the error was printed and the compile went on
# with nvcc's PTX, exit 0, though mpcc.yaml(5) says "error fails the compile")
testing "on_unsupported: error fails only on what could not be done"
policy error 'fiset: {}' 'sfu: {lambda: 32}'
if "$MPCC" -arch=sm_90 -c k.cu -o k.o 2>err && [ ! -s err ]; then
	policy error 'half2: {}'
	"$MPCC" -arch=sm_90 -c k.cu -o k.o 2>err
	st=$?
	if [ $st = 1 ] && grep -q "error: .*half2 on 'warpsum" err; then passed
	else fail "status $st: $(cat err)"; fi
else
	fail "$(cat err)"
fi

testing "--mpcc-summary: one line per compile"
policy warn 'fiset: {}' 'half2: {}'
"$MPCC" --mpcc-summary -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 \
	-c k.cu -o k.o 2>err
want="mpcc: note: k.cu: fiset: 0 applied, 6 left alone (nothing to do or will not pay); half2: 0 applied, 4 left alone (nothing to do or will not pay), 2 refused; kernels counted once per -gencode chain (--mpcc-explain says why)"
if [ "$(grep -c 'note:' err)" = 1 ] && grep -qxF "$want" err; then passed; else fail "$(cat err)"; fi

# one line per compile, also where no rule applies: the compile that no
# policy touches is nvcc's own (the same object, nvcc's stderr after the
# line), and a line with no CUDA input compiles nothing, so says nothing
testing "--mpcc-summary: one line where no policy applies"
N=$T/none
mkdir -p "$N" && cp k.cu "$N/k.cu" && (cd "$N" && nvcc -arch=sm_90 -c k.cu -o n.o &&
	"$MPCC" --mpcc-summary -arch=sm_90 -c k.cu -o m.o 2>err && "$MPCC" -arch=sm_90 -c k.cu -o q.o 2>qerr)
want="mpcc: note: k.cu: no rule applies: nvcc's code is kept (--mpcc-explain says why)"
if [ "$(cat "$N/err")" = "$want" ] && [ ! -s "$N/qerr" ] && same "$N/n.o" "$N/m.o"; then
	passed
else
	fail "$(cat "$N/err" "$N/qerr")"
fi

testing "--mpcc-summary: one line where a policy's rules name no kernel"
printf 'version: 1\ndefault_profile: p\nprofiles:\n  p:\n    rules:\n      - kernels: ["nosuch"]\n        fiset: {}\n' >.mpcc.yaml
"$MPCC" --mpcc-summary -arch=sm_90 -c k.cu -o k.o 2>err
[ "$(cat err)" = "$want" ] && passed || fail "$(cat err)"

testing "--mpcc-summary: no line without a CUDA input"
(cd "$N" && "$MPCC" --mpcc-summary -lib m.o -o libk.a 2>lerr) && [ ! -s "$N/lerr" ] &&
	passed || fail "$(cat "$N/lerr")"

testing "explain still says why"
policy warn 'fiset: {}'
"$MPCC" --mpcc-explain -arch=sm_90 k.cu >out 2>err && grep -q 'does not pay' out && [ ! -s err ] &&
	passed || fail "$(cat out err)"
finish
