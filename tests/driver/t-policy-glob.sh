#!/bin/sh
# A kernels glob that names no kernel of a file its rule selects, where a
# kernel would match it ignoring case or with a small typo, is a mistake
# worth a warning at compile time (issue 26, item 4): --mpcc-check-policy
# cannot know the kernels. Once per rule and file (two -gencode chains or
# two bad globs of one rule give one line), at the glob's line and column,
# with --mpcc-explain too; never where no kernel is near, where the rule's
# files leave the file out, or where the glob matches.
. "$MPCC_SRC/tests/driver/lib.sh"

W=$T/w
mkdir -p "$W"
cd "$W" || exit 1
top=$(pwd -P)
cat >k.cu <<'CU'
__global__ void wave(float *x) { x[threadIdx.x] = sinf(x[threadIdx.x]); }
namespace ns { template <class T> __global__ void Stencil(T *x) { x[threadIdx.x] *= 2; } }
template __global__ void ns::Stencil<float>(float *);
CU
# policy RULES...: a .mpcc.yaml with one rule per argument (sfu, lambda 32)
policy() {
	printf 'version: 1\ndefault_profile: f\nprofiles:\n  f:\n    rules:\n' >.mpcc.yaml
	for r; do printf '      - %s\n        sfu: {lambda: 32}\n' "$r" >>.mpcc.yaml; done
}
# says WANT 'FLAGS': the compile succeeds and its stderr is exactly WANT
says() {
	"$MPCC" $2 -c k.cu -o k.o 2>err
	st=$?
	printf '%s' "$1" >want
	[ $st = 0 ] && cmp -s want err && passed || fail "status $st: $(diff want err)"
}
two="-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90"

testing "case differs: did you mean, once for two chains"
policy 'kernels: ["Wave"]'
says "$top/.mpcc.yaml:6:19: warning: kernels glob 'Wave' matches no kernel of 'k.cu'; did you mean 'wave'?
" "$two"

testing "a typo: did you mean"
policy 'kernels: ["wvae", "nothing"]'
says "$top/.mpcc.yaml:6:19: warning: kernels glob 'wvae' matches no kernel of 'k.cu'; did you mean 'wave'?
" -arch=sm_90

testing "a glob with a wildcard, case differs"
policy 'kernels: ["ns::stencil<*>"]'
says "$top/.mpcc.yaml:6:19: warning: kernels glob 'ns::stencil<*>' matches no kernel of 'k.cu'; did you mean 'ns::Stencil<float>'?
" -arch=sm_90

testing "one line per rule"
policy 'kernels: ["WAVE", "Wave"]' 'kernels: ["wave"]' 'kernels: ["wav"]'
says "$top/.mpcc.yaml:6:19: warning: kernels glob 'WAVE' matches no kernel of 'k.cu'; did you mean 'wave'?
$top/.mpcc.yaml:10:19: warning: kernels glob 'wav' matches no kernel of 'k.cu'; did you mean 'wave'?
" -arch=sm_90

testing "quiet where the glob matches or no kernel is near"
policy 'kernels: ["wave", "bodyForce"]' 'kernels: ["*Stencil*"]'
says "" -arch=sm_90

testing "quiet where the rule's files leave the file out"
policy 'kernels: ["Wave"]
        files: ["other.cu"]'
says "" -arch=sm_90

testing "explain warns too"
policy 'kernels: ["Wave"]'
"$MPCC" --mpcc-explain -arch=sm_90 k.cu >out 2>err &&
	grep -q "did you mean 'wave'" err && passed || fail "$(cat err)"

testing "check-policy cannot know the kernels"
"$MPCC" --mpcc-check-policy=.mpcc.yaml >out 2>err && [ ! -s err ] && passed || fail "$(cat err)"
finish
