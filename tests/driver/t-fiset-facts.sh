#!/bin/sh
# Measured facts as fiset parameters (issue 37): a policy's trips and warps
# weigh the model; --mpcc-explain and the report say, for each set, whether
# its frequency was measured or guessed; facts measured on other PTX (the
# source changed since) are dropped with a note, the rule kept, and the
# kernel decided from the guesses.
. "$MPCC_SRC/tests/driver/lib.sh"

W=$T/w
mkdir -p "$W"
cd "$W" || exit 1
cp "$MPCC_SRC/tests/ptx/Inputs/kernels/fiset-trips.cu" deep.cu
# the same kernel, changed: a fourth term in the loop
sed 's/+ 0.125;/+ 0.125 + 0.0625 * s;/' deep.cu >changed.cu
cmp -s deep.cu changed.cu && { echo "sed changed nothing"; exit 1; }

policy() {  # policy FISET-BLOCK (and no report yet)
	rm -f r.json
	cat >.mpcc.yaml <<YAML
version: 1
root: true
default_profile: p
profiles:
  p:
    rules:
      - kernels: [deep]
        fiset: $1
YAML
}

testing "fiset: {} says its loops' trips are guessed"
policy '{}'
"$MPCC" -arch=sm_90 -c deep.cu -o a.o --mpcc-explain >out 2>&1
"$MPCC" -arch=sm_90 -c deep.cu -o a.o --mpcc-report=r.json >>out 2>&1
if grep -q 'measured facts: none' out && grep -q 'loop 3: depth 3, 64 trips per entry (guessed)' out &&
   grep -q 'loop depth 3 (runs 2.621e+05x a thread, guessed)' out &&
   grep -q '"runs_from":"guessed"' r.json && grep -q '"facts":"none"' r.json; then
	passed
else
	fail "$(cat out)"
fi

testing "trips: [1, 1, 1] lowers nothing, measured"
policy '{trips: [1, 1, 1]}'
"$MPCC" -arch=sm_90 -c deep.cu -o a.o --mpcc-explain >out 2>&1
"$MPCC" -arch=sm_90 -c deep.cu -o a.o --mpcc-report=r.json >>out 2>&1
if grep -q 'loop 3: depth 3, 1 trip per entry (measured)' out &&
   grep -q 'loop depth 3 (runs 1x a thread, measured)' out &&
   grep -q 'verdict: left alone' out && grep -q '"facts":"measured"' r.json; then
	passed
else
	fail "$(cat out)"
fi

testing "trips: [8, 8, 8] lowers the deep set"
policy '{trips: [8, 8, 8]}'
"$MPCC" -arch=sm_90 -c deep.cu -o a.o --mpcc-explain >out 2>&1
if grep -A1 'set 1: 23 ops' out | grep -q 'runs 512x a thread, measured' &&
   grep -A2 'set 1: 23 ops' out | grep -q '; lowered' && grep -q 'verdict: applied' out; then
	passed
else
	fail "$(cat out)"
fi

# the hash of deep.cu's kernel, as the note on a wrong one says it
policy '{trips: [1, 1, 1], ptx: "00000000"}'
"$MPCC" -arch=sm_90 -c deep.cu -o a.o 2>note
hash=$(sed -n "s/.*this kernel's is \([0-9a-f]*\)).*/\1/p" note)

testing "facts measured on this PTX hold, quietly"
policy "{trips: [1, 1, 1], ptx: \"$hash\"}"
"$MPCC" -arch=sm_90 -c deep.cu -o a.o --mpcc-explain >out 2>err
if [ -n "$hash" ] && [ ! -s err ] && grep -q 'measured facts: measured' out &&
   grep -q 'verdict: left alone' out; then
	passed
else
	fail "hash '$hash': $(cat note err out)"
fi

testing "a changed kernel drops its facts with a note and keeps its rule"
"$MPCC" -arch=sm_90 -c changed.cu -o b.o --mpcc-report=r2.json 2>err
"$MPCC" -arch=sm_90 -c changed.cu -o b.o --mpcc-explain >out 2>/dev/null
if grep -q "note: changed.cu: kernel 'deep(double const\*, double\*, int, int, int, int)' for compute_90: fiset dropped its measured warps and trips, measured on other PTX (ptx $hash; this kernel's is [0-9a-f]*); the model guesses them" err &&
   [ "$(grep -c 'fiset dropped' err)" = 1 ] &&
   grep -q "measured facts: dropped: measured on other PTX" out &&
   grep -q 'loop 3: depth 3, 64 trips per entry (guessed)' out &&
   grep -q '"facts":"dropped: measured on other PTX' r2.json; then
	passed
else
	fail "$(cat err out)"
fi

# issue 50: explain said "runs 1x a thread" of a set at loop depth 1 whose
# first instruction (a running sum's first value) is before its loop
testing "a set that starts before its loop runs as often as the loop"
cp "$MPCC_SRC/tests/ptx/Inputs/kernels/fiset-set-runs.cu" acc.cu
policy '{}'
sed -i 's/kernels: \[deep\]/kernels: [acc]/' .mpcc.yaml
"$MPCC" -arch=sm_90 -c acc.cu -o c.o --mpcc-explain >out 2>&1
if grep -q 'set 0: 5 ops, .*, loop depth 1 (runs 64x a thread, guessed)' out; then
	passed
else
	fail "$(cat out)"
fi

finish
