#!/bin/sh
# sfu keeps only the fast body where every warp takes it, decided per
# -gencode chain from its targets' resident warps per SM (issue 10, part 2):
# sm_75 holds 32 warps, sm_86 48, sm_90 64. A PTX that is also embedded
# for JIT compilation (code=compute_NN, or the -ptx output) may run on a
# newer GPU with more warps, so there the most of any newer target counts.
# The report says which bodies were kept ("kept", "all_fast_from") and
# carries ptxas -v's figures per sm_NN for each kernel, the same as ptxas
# -v says on the kept PTX.
. "$MPCC_SRC/tests/driver/lib.sh"
W=$T/w
mkdir -p "$W"
cd "$W" || exit 1
cat >k.cu <<'CU'
__global__ void bm(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] = sinf(x[i]) * logf(x[i] + 2.0f);
}
CU
policy() { printf 'version: 1\ndefault_profile: f\nprofiles:\n  f:\n    rules:\n      - kernels: ["bm"]\n        sfu: {lambda: %s}\n' "$1" >.mpcc.yaml; }

# kept LAMBDA WANT FROM FLAGS...: the report says kept WANT, all_fast_from
# FROM, and the kept PTX has %warpid exactly when both bodies are kept
kept() {
	lambda=$1 want=$2 from=$3
	shift 3
	testing "lambda $lambda with $* keeps $want"
	policy "$lambda"
	rm -rf kd r.json && mkdir kd
	$MPCC --mpcc-report=r.json --keep --keep-dir kd "$@" -c k.cu -o k.o 2>err || { fail "$(cat err)"; return; }
	ptx=$(ls kd/*.ptx | grep -v -e '\.orig\.ptx$' -e '\.mpcc\.' | head -1)
	if ! grep -q "\"kept\":\"$want\",\"all_fast_from\":$from}" r.json; then
		fail "$(cat r.json)"
	elif [ "$want" = both ] && ! grep -q '%warpid' "$ptx"; then
		fail "no partition in $ptx"
	elif [ "$want" = fast ] && grep -q '%warpid' "$ptx"; then
		fail "a partition in $ptx"
	else
		passed
	fi
}
kept 32 fast 32 -gencode arch=compute_75,code=sm_75
kept 48 fast 48 -gencode arch=compute_86,code=sm_86
kept 47 both 48 -gencode arch=compute_86,code=sm_86
kept 48 both 64 -gencode arch=compute_86,code=[sm_86,compute_86]
kept 48 both 64 -gencode arch=compute_80,code=[sm_80,sm_86]
kept 48 both 64 -arch=sm_90
kept 64 fast 64 -arch=sm_90

testing "-ptx counts the GPUs that may JIT it"
policy 48
rm -f r.json
$MPCC --mpcc-report=r.json -gencode arch=compute_86,code=compute_86 -ptx k.cu -o k.ptx 2>err &&
	grep -q '"kept":"both","all_fast_from":64}' r.json && grep -q '%warpid' k.ptx && passed ||
	fail "$(cat err r.json)"

testing "the report carries ptxas -v of what shipped, per sm"
policy 32
rm -rf kd r.json && mkdir kd
$MPCC --mpcc-report=r.json --keep --keep-dir kd -gencode arch=compute_86,code=sm_86 \
	-gencode arch=compute_90,code=sm_90 -c k.cu -o k.o 2>err || fail "$(cat err)"
ok=1
for sm in 86 90; do
	ptx=$(ls kd/*.ptx | grep -v -e '\.orig\.ptx$' -e '\.mpcc\.' | grep "compute_$sm" | head -1)
	[ -n "$ptx" ] || ptx=$(ls kd/*.ptx | grep -v -e '\.orig\.ptx$' -e '\.mpcc\.' | head -1)
	regs=$(ptxas -arch=sm_$sm -v "$ptx" -o /dev/null 2>&1 | sed -n 's/.*Used \([0-9]*\) registers.*/\1/p')
	stack=$(ptxas -arch=sm_$sm -v "$ptx" -o /dev/null 2>&1 | sed -n 's/ *\([0-9]*\) bytes stack frame.*/\1/p' | head -1)
	grep "\"arch\":\"compute_$sm\"" r.json |
		grep -q "\"ptxas\":{\"sm_$sm\":{\"registers\":$regs,\"stack_frame\":$stack," || ok=0
done
[ $ok = 1 ] && passed || fail "$(cat r.json)"

testing "ptxas -v for the report leaves the objects as they were"
$MPCC --keep --keep-dir kd -gencode arch=compute_86,code=sm_86 -gencode arch=compute_90,code=sm_90 \
	-c k.cu -o k2.o 2>err && same k.o k2.o && passed || fail "the report changed the object"
finish
