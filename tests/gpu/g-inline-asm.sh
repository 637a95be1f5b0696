#!/bin/sh
# Inline PTX through the mpcc driver (issue 38): tests/gpu/inline-asm.cu's
# kernels under the pass that once broke on each (fiset: {sets: all} on an
# f64 selp with an immediate predicate and on f64 registers of an asm
# block's { }; half2: {force: true} on an f32 register of one; sfu:
# {lambda: 32} beside a predicate of one), plain and with -use_fast_math.
# Without a GPU: each build succeeds with no warning and its report says
# every kernel was transformed (but waves under -use_fast_math, which sfu
# leaves alone: its fast-math PTX is the accurate one). With one: both programs run on the same
# random inputs, and mpcc's output is compared with nvcc's of the same
# flags, per kernel: sel, scoped (f64 steps in f32) relative error at most
# 1e-5; pairs (f16x2 lanes) at most 1e-2; waves (sin, exp, cos on the SFU
# in half the warps) absolute error at most 1e-4.
. "$(dirname "$0")/gpu-lib.sh"
MPCC=${MPCC:-$MPCC_BUILD/mpcc}
[ -x "$MPCC" ] || { echo "skipped: no mpcc at '$MPCC'"; exit 77; }
[ -x "$NVCC" ] || { echo "skipped: no nvcc"; exit 77; }
command -v python3 >/dev/null || { echo "skipped: no python3"; exit 77; }
export PATH="$(dirname "$NVCC"):$PATH"
unset MPCC_POLICY MPCC_PROFILE MPCC_SET MPCC_REPORT
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
cp "$MPCC_SRC/tests/gpu/inline-asm.cu" "$d/" && cd "$d" || exit 1
cat >.mpcc.yaml <<'YAML'
version: 1
default_profile: p
profiles:
  p:
    rules:
      - kernels: ["sel", "scoped"]
        fiset: {sets: all, min_ratio: 0.001}
      - kernels: ["pairs"]
        half2: {force: true}
      - kernels: ["waves"]
        sfu: {lambda: 32}
YAML
for m in plain fast; do
	f=
	[ $m = fast ] && f=-use_fast_math
	echo "testing nvcc and mpcc builds ($m) ..."
	"$NVCC" -O3 -arch="$ARCH" $f -o nvcc.$m inline-asm.cu || fail "nvcc $f"
	"$MPCC" -O3 -arch="$ARCH" $f --mpcc-report=$m.json -o mpcc.$m inline-asm.cu >$m.log 2>&1 ||
		{ cat $m.log; fail "mpcc $f"; }
	[ ! -s $m.log ] || { cat $m.log; fail "mpcc $f said something"; }
	for k in sel scoped pairs waves; do
		want='"applied":true'   # -use_fast_math leaves sfu nothing to do, and says so
		[ $m$k = fastwaves ] && want='"applied":false,"reason":"the fast-math PTX of the kernel is the same'
		grep "\"demangled\":\"$k(" $m.json | grep -q "$want" ||
			{ grep "\"demangled\":\"$k(" $m.json; fail "mpcc $f: $k: no $want"; }
	done
done
echo "testing nvcc and mpcc builds ... passed"
need_gpu
for b in nvcc.plain mpcc.plain nvcc.fast mpcc.fast; do
	./$b 1048576 7 $b.out || fail "$b did not run"
done
echo "testing mpcc's outputs against nvcc's ..."
python3 - <<'PY' || fail "outputs differ"
import math, struct, sys
def load(name):
    b = open(name, 'rb').read()
    v = struct.unpack('<%df' % (len(b) // 4), b)
    n = len(v) // 4
    return [v[k * n:(k + 1) * n] for k in range(4)]
bad = 0
bounds = (('sel', 'rel', 1e-5), ('scoped', 'rel', 1e-5), ('pairs', 'rel', 1e-2), ('waves', 'abs', 1e-4))
for m in ('plain', 'fast'):
    ref, got = load('nvcc.%s.out' % m), load('mpcc.%s.out' % m)
    for k, (name, kind, bound) in enumerate(bounds):
        worst = 0.0
        for r, g in zip(ref[k], got[k]):
            if math.isnan(r) or math.isnan(g):
                worst = float('inf')
                break
            e = abs(g - r)
            worst = max(worst, e / abs(r) if kind == 'rel' and r else e)
        ok = worst <= bound
        bad |= not ok
        print('  %s %s: max %s error %.2e%s' % (m, name, kind, worst, '' if ok else ' (over %g)' % bound))
sys.exit(bad)
PY
echo "testing mpcc's outputs against nvcc's ... passed"
