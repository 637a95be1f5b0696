#!/bin/sh
# The fiset bench on a GPU: every variant of every kernel (the f64 original,
# the all-f32 build, mpcc-opt -p fiset with auto, best, all and each set
# alone) writes every output element, and each lowered variant stays within
# the error bound measured for its kernel on an H100 (mean relative error
# against the f64 output, about 10x what was measured, bench/results/
# 2026-11-23-h100-fiset.md). With BENCH_DIR set it checks that directory's
# results.tsv (run.py run done); otherwise it builds and runs the bench at
# 1/16 of its size, one round. Needs nvcc, ptxas, mpcc-opt and a GPU.
. "$(dirname "$0")/gpu-lib.sh"
need_gpu
if [ -z "$BENCH_DIR" ]; then
	BENCH_DIR=$(mktemp -d)
	trap 'rm -rf "$BENCH_DIR"' EXIT
	python3 "$MPCC_SRC/bench/fiset/run.py" build "$BENCH_DIR" >/dev/null || fail "run.py build"
	SIZE_SCALE=16 ROUNDS=1 python3 "$MPCC_SRC/bench/fiset/run.py" run "$BENCH_DIR" >/dev/null || fail "run.py run"
fi
[ -s "$BENCH_DIR/results.tsv" ] || fail "no results.tsv in $BENCH_DIR"
echo "testing fiset bench outputs and error bounds ..."
python3 - "$BENCH_DIR/results.tsv" <<'PY' || fail "fiset bench"
import sys
bound = {'nbody': 1e-4, 'lj': 1e-3, 'flux': 1e-5, 'divsqrt': 1e-5, 'axpy': 1e-5, 'heat': 1e-6}
bad = 0
rows = [l.rstrip('\n').split('\t') for l in open(sys.argv[1])][1:]
for r in rows:
    k, v, unwritten, mean = r[0], r[1], int(r[5]), float(r[6])
    if unwritten:
        print('  %s %s: %d outputs unwritten' % (k, v, unwritten)); bad = 1
    if v not in ('f64', 'f32', 'floatlit') and mean > bound[k]:
        print('  %s %s: mean rel err %.2e over %.0e' % (k, v, mean, bound[k])); bad = 1
print('  %d variants checked' % len(rows))
sys.exit(bad)
PY
echo "testing fiset bench outputs and error bounds ... passed"
