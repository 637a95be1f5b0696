#!/bin/sh
# The sfu partition on a GPU, through the bench harness (bench/run.py):
#  - every output element is written, in every build;
#  - lambda=0 gives output bit-identical to the plain nvcc build;
#  - lambda=64 gives output bit-identical to the -use_fast_math build on the
#    f32 kernels (their fast body is the fast-math PTX itself);
#  - the mean relative error never falls as lambda grows (transcendental kernels).
# With BENCH_DIR=DIR holding a finished "run.py all DIR", checks its results
# instead of running again (the one GPU session runs the bench once).
. "$(dirname "$0")/gpu-lib.sh"
if [ -z "$BENCH_DIR" ]; then
	need_gpu
	BENCH_DIR=$(mktemp -d)
	trap 'rm -rf "$BENCH_DIR"' EXIT
	SIZE_SCALE=${SIZE_SCALE:-4} LAMBDAS=${LAMBDAS:-"0 16 32 48 64"} \
		python3 "$MPCC_SRC/bench/run.py" all "$BENCH_DIR" >"$BENCH_DIR/log" 2>&1 ||
		{ cat "$BENCH_DIR/log"; fail "bench/run.py"; }
fi
tsv="$BENCH_DIR/results.tsv"
[ -f "$tsv" ] || fail "no $tsv"
awk -F'\t' '
NR == 1 { next }
$7 != 0 { print "FAILED: " $1 " " $2 ": " $7 " elements unwritten"; bad = 1 }
$2 == "lambda=0" && $8 != 1 { print "FAILED: " $1 " lambda=0 differs from the plain build"; bad = 1 }
$2 == "lambda=64" && $1 != "fp64" && $9 != 1 {
	print "FAILED: " $1 " lambda=64 differs from the -use_fast_math build"; bad = 1 }
$2 ~ /^lambda=[0-9]+$/ && $1 ~ /^(boxmuller|blackscholes|bilateral)$/ {
	if (($1 in last) && $5 < last[$1]) {
		print "FAILED: " $1 " " $2 ": mean error " $5 " below the previous lambda'"'"'s " last[$1]; bad = 1 }
	last[$1] = $5 }
END { exit bad }' "$tsv" || fail "see above"
echo "testing sfu bench outputs (lambda 0 = plain, lambda 64 = fast-math, errors grow) ... passed"
