#!/bin/sh
# half2 on a GPU, through its bench (bench/half2/run.py): every bench kernel
# paired in every type (f16, bf16, f32) and pairing (threads, blocks),
# forced past the advice, on random inputs (never zeros) for launch shapes
# with odd block sizes, partial last blocks, single-thread blocks, 2-D and
# 3-D blocks. Checked against the kernel as nvcc built it:
#  - every output element is written, in every variant and shape;
#  - f32 lanes give output bit-identical to the original (pairing alone
#    changes no arithmetic);
#  - f16 lanes are within a normwise relative error of 2e-2, bf16 of 1e-1
#    (measured on an H100: at most 8.3e-3 and 7.6e-2, on bsl's cancelling
#    call/put differences; unit roundoff is 4.9e-4 and 3.9e-3).
# With BENCH_DIR=DIR holding a finished "run.py check DIR", checks its
# results instead of running again.
. "$(dirname "$0")/gpu-lib.sh"
if [ -z "$BENCH_DIR" ]; then
	need_gpu
	BENCH_DIR=$(mktemp -d)
	trap 'rm -rf "$BENCH_DIR"' EXIT
	export VARIANTS="${VARIANTS:-f16 bf16 f32 f16-blocks f32-blocks}"
	python3 "$MPCC_SRC/bench/half2/run.py" build "$BENCH_DIR" >"$BENCH_DIR/log" 2>&1 ||
		{ cat "$BENCH_DIR/log"; fail "run.py build"; }
	python3 "$MPCC_SRC/bench/half2/run.py" check "$BENCH_DIR" >>"$BENCH_DIR/log" 2>&1
fi
tsv="$BENCH_DIR/check.tsv"
[ -f "$tsv" ] || fail "no $tsv"
awk -F'\t' '
NR == 1 { next }
{ rows++ }
$4 != "0" { print "FAILED: " $1 " " $2 " block " $3 ": " ($4 == "FAILED" ? $9 : $4 " elements unwritten"); bad = 1 }
($2 == "f32" || $2 == "f32-blocks" || $2 == "orig") && $8 != "1" {
	print "FAILED: " $1 " " $2 " block " $3 ": not bit-identical to the original"; bad = 1 }
$2 ~ /^f16/ && $7 + 0 > 2e-2 { print "FAILED: " $1 " " $2 " block " $3 ": error " $7 " over 2e-2"; bad = 1 }
$2 ~ /^bf16/ && $7 + 0 > 1e-1 { print "FAILED: " $1 " " $2 " block " $3 ": error " $7 " over 1e-1"; bad = 1 }
END { if (rows < 100) { print "FAILED: only " rows " checks"; bad = 1 } exit bad }' "$tsv" || fail "see above"
echo "testing half2 on every bench kernel, type, pairing and launch shape ($(($(wc -l <"$tsv") - 1)) runs) ... passed"
