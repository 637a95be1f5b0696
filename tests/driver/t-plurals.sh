#!/bin/sh
# A count of one reads in the singular in what mpcc says (issue 33, item 6):
# "1 f64 operation in 1 set", "1 branch differs", not "1 branches differ".
# One kernel of each pass whose --mpcc-explain lines count one of each
# thing: a paired f32 add with one f16-range constant each way (half2), one
# f64 division between casts (fiset, shadow).
. "$MPCC_SRC/tests/driver/lib.sh"

cd "$T" || exit 1
cat >k.cu <<'CU'
__global__ void inc(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] = x[i] * 70000.0f + 1e-30f;
}
__global__ void one(double *x, float *y) { y[0] = (float)(x[0] / 3.0); }
CU
cat >.mpcc.yaml <<'YAML'
version: 1
default_profile: p
profiles:
  p:
    rules:
      - kernels: ["inc"]
        half2: {force: true}
      - kernels: ["one"]
        fiset: {}
        shadow: {}
YAML
"$MPCC" --mpcc-explain -arch=sm_90 -c k.cu >out 2>err || fail "status $?: $(cat err)"

testing "explain counts one thing in the singular"
cat >want <<'EOF2'
           1 f32 instruction becomes f16x2, 8 run once per lane, 6 once for both lanes; 1 pack, 1 unpack
           1 branch differs between the lanes, 1 block runs under a lane mask
           1 f32 constant overflows f16 (|x| > 65504): consider type: bf16
           1 f32 constant is below the f16 normal range and loses digits
           1 f64 operation in 1 set; cost model for sm_90
           set 0: 1 op, 1 cast (r_ac 1.00), 1 conversion folded, loop depth 0
           1 f64 operation to shadow
EOF2
grep -vxFf out want >missing
[ ! -s missing ] && passed || fail "not said: $(cat missing)"

testing "no count of one with a plural noun"
# "1 f32 instructions", "1 packs": a 1 (not 1.5, not 21), maybe a type
# (f32), then a word in s
grep -E '(^|[^0-9.])1 ([a-z]+[0-9]+ )?[a-z]+s([ ,;:)]|$)' out >bad
[ ! -s bad ] && passed || fail "$(cat bad)"
finish
