#!/bin/sh
# The store runtime on a GPU (issue 47). tests/gpu/store-runtime.cu has
# kernels with hand-written clones that keep arrays as float where the
# kernels take double; bench/store/build.sh gives it the store table the
# compiler will write and links it through mpcc, which links the runtime.
# Without a GPU: the build links the runtime. With one, on random inputs
# (never zero), against nvcc's build of the same file (every kernel
# original): H2D, the clone of axpy launched many times on one stream and
# a kernel without a clone reading the array on another between them, a
# memset of part of a narrow array, an interior pointer, an unknown
# kernel, free and realloc, a clone the fatbinary lacks, D2H. The results
# within f32 rounding (bounds from the count of roundings), also with the
# CUDA modules loaded whole at start (CUDA_MODULE_LOADING=EAGER); MPCC_STORE=off
# bit for bit nvcc's; the report says the clones ran and converted;
# MPCC_STORE_CHECK finds no difference beyond one rounding. Then the
# idle cost, bench/store/run.sh (at most 1.01x).
. "$(dirname "$0")/gpu-lib.sh"
MPCC=${MPCC:-$MPCC_BUILD/mpcc}
[ -x "$MPCC" ] || { echo "skipped: no mpcc at '$MPCC'"; exit 77; }
[ -f "$MPCC_BUILD/runtime/libmpccrt.a" ] || { echo "skipped: no store runtime in '$MPCC_BUILD/runtime'"; exit 77; }
[ -x "$NVCC" ] || { echo "skipped: no nvcc"; exit 77; }
command -v python3 >/dev/null || { echo "skipped: no python3"; exit 77; }
export PATH="$(dirname "$NVCC"):$PATH" MPCC NVCC
unset MPCC_STORE MPCC_STORE_CHECK MPCC_STORE_REPORT
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
cd "$d" || exit 1
N=1048576 ITERS=64

echo "testing the builds: nvcc's, and with the store table and runtime ..."
"$NVCC" -O2 -arch="$ARCH" -o ref "$MPCC_SRC/tests/gpu/store-runtime.cu" || fail "nvcc"
NVFLAGS="-O2 -arch=$ARCH" sh "$MPCC_SRC/bench/store/build.sh" "$MPCC_SRC/tests/gpu/store-runtime.cu" store \
	"1 axpy axpy_mpcc_store c 4 w:f64>f32 r:f64>f32 - -" \
	"1 scale scale_mpcc_store c 3 w:f64>f32 - -" \
	"1 sum - c 3 r w -" \
	"1 ghost ghost_mpcc_store c 2 w:f64>f32 -" || fail "the store build"
echo "testing the builds ... passed"
need_gpu

./ref $N $ITERS 7 ref.bin >/dev/null || fail "nvcc's build did not run"
MPCC_STORE_REPORT=$d/report.json ./store $N $ITERS 7 store.bin >/dev/null 2>err || { cat err; fail "the store build did not run"; }
[ ! -s err ] || { cat err; fail "the store build said something"; }
MPCC_STORE=off ./store $N $ITERS 7 off.bin >/dev/null || fail "MPCC_STORE=off did not run"
# the clone ghost_mpcc_store, registered but not in the fatbinary, must not
# stop a module loaded whole at start either
CUDA_MODULE_LOADING=EAGER ./store $N $ITERS 7 eager.bin >/dev/null ||
	fail "the store build did not run with CUDA_MODULE_LOADING=EAGER"
MPCC_STORE_CHECK=1 MPCC_STORE_REPORT=$d/check.json ./store $N $ITERS 7 check.bin >/dev/null 2>check.err ||
	{ cat check.err; fail "MPCC_STORE_CHECK=1 did not run"; }

echo "testing MPCC_STORE=off is nvcc's build, bit for bit ..."
cmp -s ref.bin off.bin || fail "MPCC_STORE=off differs from nvcc's build"
echo "testing MPCC_STORE=off ... passed"

echo "testing the results within f32 rounding ..."
python3 - ref.bin store.bin check.bin eager.bin $N $ITERS <<'PY' || fail "results differ beyond f32 rounding"
import struct, sys
n, iters = int(sys.argv[5]), int(sys.argv[6])
nb = (n + 255) // 256
nsum = nb * (iters // 8 + 1)
def load(p):
    b = open(p, 'rb').read()
    v = struct.unpack('<%dd' % (len(b) // 8), b)
    assert len(v) == 2 * n + nsum, (p, len(v))
    return v[:n], v[n:n + nsum], v[n + nsum:]
ref = load(sys.argv[1])
u = 2.0 ** -24
# roundings each element went through: y once per launch of a clone on it
# (iters + 3), each sum 256 such elements, x2 once; twice the bound for
# the rounding of what the clones read
rounds = {'y': 2 * (iters + 3), 'sums': 256 * 2 * (iters + 3), 'x2': 2}
bad = 0
for path in sys.argv[2:5]:
    got = load(path)
    for name, r, g in zip(('y', 'sums', 'x2'), ref, got):
        scale = max(abs(x) for x in r)
        worst = max(abs(a - b) for a, b in zip(r, g))
        bound = rounds[name] * u * scale
        same = sum(a == b for a, b in zip(r, g))
        ok = worst <= bound and same < len(r)   # narrowed: the same everywhere cannot be
        if name == 'sums':
            ok = worst <= bound
        bad |= not ok
        print('  %s %s: max |diff| %.3g, bound %.3g, %d of %d equal%s' %
              (path, name, worst, bound, same, len(r), '' if ok else '  FAILED'))
sys.exit(bad)
PY
echo "testing the results ... passed"

echo "testing the report: clones ran, converted, and the originals where they must ..."
r=report.json
grep -q '^{"kernel":"axpy","clone":"axpy_mpcc_store","launches":{"clone":66,"original":0}' $r &&
	grep -q '^{"kernel":"scale","clone":"scale_mpcc_store","launches":{"clone":2,"original":0}' $r &&
	grep -q '^{"kernel":"ghost","clone":"ghost_mpcc_store","launches":{"clone":0,"original":1},"why_original":{"clone":1}}' $r &&
	grep -q '^{"kernel":"sum","clone":null,"launches":{"clone":0,"original":8}' $r &&
	grep -q '^{"kernel":"axpy","param":0,"type":"f64>f32","to_narrow":[1-9]' $r &&
	grep -q '"kernel":"sum","param":0,"type":"plain","to_narrow":0,"to_narrow_bytes":0,"back":8,' $r ||
	{ cat $r; fail "the report"; }
echo "testing the report ... passed"

echo "testing MPCC_STORE_CHECK finds nothing beyond one rounding ..."
grep -q '"kernel":"axpy","param":0,"check":{"launches":66,"elements":69206016,"beyond":0,' check.json &&
	grep -q '"kernel":"scale","param":0,"check":{"launches":2,' check.json &&
	! grep -q '"beyond":[1-9]' check.json && [ ! -s check.err ] || { cat check.err check.json; fail "the check"; }
echo "testing MPCC_STORE_CHECK ... passed"

echo "testing the idle cost (bench/store/run.sh) ..."
sh "$MPCC_SRC/bench/store/run.sh" 7 || fail "the idle cost is over the bar, or the bench did not run"
echo "testing the idle cost ... passed"
