#!/bin/sh
# fiset on -use_fast_math builds (issue 33, item 1), through the mpcc
# driver: tests/gpu/fiset-fastmath.cu (a float stencil with the literal 2.0,
# sqrt and fmax on doubles of a float, and x * 0.5 + x * 0.5 on f32
# subnormals, zeros and values near FLT_MIN) built by nvcc and by mpcc with
# the rule fiset: {}, plain and with -use_fast_math. The builds need no GPU:
# each mpcc build must lower all three kernels (the report says applied,
# f64_ops_after 0). With a GPU each program then runs on the same random
# inputs, and mpcc's output is compared with nvcc's of the same flags:
#   heat, scale  relative error at most 1e-6 (f32 rounding of f64 steps)
#   flush        -use_fast_math: bit for bit, except where an intermediate
#                x * 0.5 falls below FLT_MIN (|x| < 2^-125), which the f64
#                code kept and the .ftz f32 code flushes: there mpcc's
#                output may be 0 where nvcc's is x, an error below 2^-125
#                (2 FLT_MIN); an f32 subnormal input gives 0 in both,
#                as -use_fast_math flushes it. Plain: f32 keeps subnormals,
#                and the error is at most one subnormal step (2^-149).
# and, under -use_fast_math, with the same source written with float
# literals (-DFLOATLIT), the build the lowering stands in for (relative
# error at most 1e-6, the same flushing). Exit 77 (after the builds)
# without a GPU.
. "$(dirname "$0")/gpu-lib.sh"
MPCC=${MPCC:-$MPCC_BUILD/mpcc}
[ -x "$MPCC" ] || { echo "skipped: no mpcc at '$MPCC'"; exit 77; }
[ -x "$NVCC" ] || { echo "skipped: no nvcc"; exit 77; }
command -v python3 >/dev/null || { echo "skipped: no python3"; exit 77; }
export PATH="$(dirname "$NVCC"):$PATH"
unset MPCC_POLICY MPCC_PROFILE MPCC_SET MPCC_REPORT
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
mkdir -p "$d/tests/gpu" "$d/bench"
cp "$MPCC_SRC/tests/gpu/fiset-fastmath.cu" "$d/tests/gpu/" &&
	cp "$MPCC_SRC/bench/bench.h" "$d/bench/" && cd "$d/tests/gpu" || exit 1
cat >.mpcc.yaml <<'YAML'
version: 1
default_profile: fast
profiles:
  fast:
    rules:
      - kernels: ["*"]
        fiset: {}
YAML
for m in plain fast; do
	f=
	[ $m = fast ] && f=-use_fast_math
	echo "testing nvcc and mpcc builds ($m) ..."
	"$NVCC" -O3 -arch="$ARCH" $f -o nvcc.$m fiset-fastmath.cu || fail "nvcc $f"
	"$NVCC" -O3 -arch="$ARCH" $f -DFLOATLIT -o lit.$m fiset-fastmath.cu || fail "nvcc $f -DFLOATLIT"
	"$MPCC" -O3 -arch="$ARCH" $f --mpcc-report=$m.json -o mpcc.$m fiset-fastmath.cu >$m.log 2>&1 ||
		{ cat $m.log; fail "mpcc $f"; }
	got=$(grep -c '"transform":"fiset".*"applied":true.*"f64_ops_after":0,' $m.json)
	[ "$got" = 3 ] || { cat $m.json; fail "mpcc $f: fiset lowered $got kernels of 3"; }
done
echo "testing nvcc and mpcc builds ... passed"
need_gpu
for b in nvcc.plain mpcc.plain nvcc.fast mpcc.fast lit.fast; do
	./$b 1048576 7 $b.out || fail "$b did not run"
done
echo "testing mpcc's outputs against nvcc's ..."
python3 - <<'PY' || fail "outputs differ"
import math, struct, sys
def load(name):
    b = open(name, 'rb').read()
    v = struct.unpack('<%df' % (len(b) // 4), b)
    n = len(v) // 4
    return [v[0:n], v[n:2 * n], v[2 * n:3 * n]], v[3 * n:]
bad = 0
def check(what, ref, got, inp, fast):
    global bad
    for k, name in enumerate(('heat', 'scale')):
        worst = max((abs(g - r) / abs(r) if r else abs(g)) for r, g in zip(ref[k], got[k]))
        ok = worst <= 1e-6
        bad |= not ok
        print('  %s %s: max relative error %.2e%s' % (what, name, worst, '' if ok else ' (over 1e-6)'))
    diff = worst = 0
    for x, r, g in zip(inp, ref[2], got[2]):
        if struct.pack('<f', r) == struct.pack('<f', g):
            continue
        diff += 1
        e = abs(g - r)
        worst = max(worst, e)
        sub = x != 0 and abs(x) < 2.0 ** -126
        if fast and (abs(x) >= 2.0 ** -125 or sub or e >= 2.0 ** -125):
            print('  %s flush: x=%r nvcc %r mpcc %r' % (what, x, r, g)); bad = 1
        if not fast and e > 2.0 ** -149:
            print('  %s flush: x=%r nvcc %r mpcc %r' % (what, x, r, g)); bad = 1
    print('  %s flush: %d of %d differ, by at most %.3g' % (what, diff, len(inp), worst))
for m, fast in (('plain', 0), ('fast', 1)):
    ref, inp = load('nvcc.%s.out' % m)
    got, _ = load('mpcc.%s.out' % m)
    check('%s: mpcc against nvcc' % m, ref, got, inp, fast)
ref, inp = load('lit.fast.out')
got, _ = load('mpcc.fast.out')
check('fast: mpcc against float literals', ref, got, inp, 1)
sys.exit(bad)
PY
echo "testing mpcc's outputs against nvcc's ... passed"
