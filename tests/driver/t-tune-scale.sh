#!/bin/sh
# mpcc-tune at the scale of real programs (issue 32), against the fake
# program of tune-fake/ built through the real driver: --time patterns read
# line by line, a trial that sets a transform on several kernels applied
# to those that take it, the stopping rule, --budget with the confirmation
# inside it, Ctrl-C, and --jobs 4 on four fake GPUs keeping what --jobs 1
# keeps, confirming four rounds at once; the timing build beside the
# baseline.
. "$(dirname "$0")/lib.sh"
: "${MPCC_TUNE:?set MPCC_TUNE to the mpcc-tune executable}"
FAKE="$MPCC_SRC/tests/driver/tune-fake"

# tune DIR SRC ARGS...: mpcc-tune on SRC (k.cu, sets.cu...) in a fresh $T/DIR;
# stdout in DIR/out, stderr in DIR/err, status in DIR/rc, seconds in DIR/secs
tune() {
	d=$T/$1 src=$2
	shift 2
	rm -rf "$d" && mkdir -p "$d" && cp "$FAKE"/*.cu "$FAKE/fake.sh" "$d/"
	t0=$(date +%s)
	(cd "$d" && "$MPCC_TUNE" --build "$MPCC -arch=sm_90 -ptx $src -o k.ptx" \
		--run "sh fake.sh k.ptx" --min-share 1 --runs 1 --workdir "$d/work" "$@" >out 2>err)
	echo $? >"$d/rc"
	echo $(($(date +%s) - t0)) >"$d/secs"
}

# trials DIR: the trials the session built and ran, the baseline's included
trials() { sed -n 's/^mpcc-tune: \([0-9]*\) trials built and run.*/\1/p' "$T/$1/err"; }
# rules DIR: the profile's rules, one line
rules() { grep -v '^ *#' "$T/$1/.mpcc.yaml" | tr -s ' \n' ' '; }

testing "--time's ^ and \$ match at every line, as in grep"
FAKE_BANNER=1 tune anchors k.cu --qos 2.55e-4 --time '^time_ms=([0-9.]+)$' --dry-run
if [ "$(cat "$T/anchors/rc")" = 0 ] && grep -q '^| hot(int, double const\*, double\*) | sfu | heu | [0-9]* | hot sfu lambda=32 |' "$T/anchors/out"; then
	passed
else
	fail "$(tail -3 "$T/anchors/err")"
fi

testing "a trial that sets fiset on two kernels runs with the one that takes it"
tune mixed mixed.cu --qos 2.55e-4 --transform auto --dry-run
if grep -q "^mpcc-tune: \[t[0-9]*\] hot fiset sets=all; flt fiset sets=all: time .*; refused: fiset left '_Z3fltiPf' alone (compute_90): no f64 arithmetic" "$T/mixed/err" &&
   grep -q '^| t[0-9]* | hot fiset sets=all; flt fiset sets=all | [0-9.]* | ' "$T/mixed/out"; then
	passed
else
	fail "$(grep 'sets=all' "$T/mixed/err")"
fi

testing "a winner with a knob its kernel refused writes a profile of the knobs that applied"
tune mixedw mixed.cu --qos 2e-3 --transform auto --time 'time_ms=([0-9.]+)'
if [ "$(cat "$T/mixedw/rc")" = 0 ] && grep -q '_Z3hotiPKdPd' "$T/mixedw/.mpcc.yaml" &&
   ! grep -q '_Z3fltiPf' "$T/mixedw/.mpcc.yaml" && grep -q 'checked: MPCC_PROFILE=tuned' "$T/mixedw/err"; then
	passed
else
	fail "rc $(cat "$T/mixedw/rc"): $(tail -3 "$T/mixedw/err")"
fi

testing "a search trial whose own knob is refused builds what was kept: not run again"
tune mixedf multiflt.cu --qos 2e-3 --transform fiset --time 'time_ms=([0-9.]+)' --dry-run
if grep -q "^mpcc-tune: fiset on 'multi(.*)': kept multi fiset sets=all" "$T/mixedf/err" &&
   grep -q "^mpcc-tune: \[t[0-9]*\] multi fiset sets=all; flt fiset sets=all: not applied: it builds what t[0-9]* built: fiset left '_Z3fltiPf' alone" "$T/mixedf/err"; then
	passed
else
	fail "$(grep 'flt fiset' "$T/mixedf/err")"
fi

testing "twelve sets that gain nothing stop after three: at most 8 trials"
tune flat flat.cu --qos 1e-3 --transform fiset --time 'time_ms=([0-9.]+)' --dry-run
if [ "$(cat "$T/flat/rc")" = 0 ] && [ "$(trials flat)" -le 8 ] &&
   grep -q '^| flat(int, double const\*, double\*) | fiset | mode 1 | [0-9]* | .* | 3 units in a row gained nothing beyond the noise (1.0%): 3 of 12 units kept |$' "$T/flat/out"; then
	passed
else
	fail "$(trials flat) trials: $(grep '^| flat' "$T/flat/out")"
fi

testing "--stop-after 0 walks every unit"
tune flat0 flat.cu --qos 1e-3 --transform fiset --time 'time_ms=([0-9.]+)' --dry-run --stop-after 0
if [ "$(trials flat0)" -ge 14 ]; then passed; else fail "$(trials flat0) trials"; fi

# each run sleeps 1 s: the exhaustive grid (16 trials, each a build and two
# runs) takes over 48 s; of 50 s, the confirmation and the check take about
# 17 (14 runs, a build), the baseline and the timing build 7 (15 on a
# loaded machine, where a build takes 7 s: with 40 s the searches had no
# time for one trial there), and the searches get the rest. Each trial
# keeps its program (--binary), so that the confirmation builds nothing:
# what it takes is the runs' sleeps
testing "--budget 50s: the session, confirmation included, ends within 54 s and writes a profile"
FAKE_SLEEP=1 tune budget k.cu --qos 2.55e-4 --time 'time_ms=([0-9.]+)' --search exhaustive \
	--runs 2 --budget 50s --binary k.ptx --run 'sh fake.sh $MPCC_TUNE_DIR/binary'
if [ "$(cat "$T/budget/rc")" = 0 ] && [ "$(cat "$T/budget/secs")" -le 54 ] &&
   grep -q 'mpcc-tune: the searches stopped: the budget is spent' "$T/budget/err" &&
   grep -q "checked: MPCC_PROFILE=tuned" "$T/budget/err"; then
	passed
else
	fail "rc $(cat "$T/budget/rc"), $(cat "$T/budget/secs") s: $(tail -4 "$T/budget/err")"
fi

testing "each trial's line says the trials done and planned, the time, the ETA and the best"
if grep -q '^mpcc-tune: \[t[0-9]*\] hot sfu lambda=[0-9]*: time .* \[[0-9]* of about [0-9]* trials, [0-9ms]*, ETA [0-9ms]*, best [0-9.]*x (t[0-9]*)\]$' "$T/budget/err"; then
	passed
else
	fail "$(grep '\[t' "$T/budget/err" | tail -2)"
fi

# interrupt DIR N: tune in the background, Ctrl-C (SIGINT) N times once a
# trial of the search has run; rc and the files as tune() leaves them
interrupt() {
	d=$T/$1 n=$2
	rm -rf "$d" && mkdir -p "$d" && cp "$FAKE/k.cu" "$FAKE/fake.sh" "$d/"
	(cd "$d" && exec env FAKE_SLEEP=0.3 "$MPCC_TUNE" --build "$MPCC -arch=sm_90 -ptx k.cu -o k.ptx" \
		--run "sh fake.sh k.ptx" --min-share 1 --runs 1 --workdir "$d/work" \
		--time 'time_ms=([0-9.]+)' --qos 2.55e-4 --search exhaustive >out 2>err) &
	pid=$!
	i=0
	until grep -q 'lambda=[0-9]*: time' "$d/err" 2>/dev/null || [ $i -ge 600 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	kill -INT $pid
	if [ "$n" = 2 ]; then
		sleep 0.5
		kill -INT $pid
	fi
	wait $pid
	echo $? >"$d/rc"
}

testing "one Ctrl-C stops the searches, confirms the best so far and writes it"
interrupt int1 1
if [ "$(cat "$T/int1/rc")" = 0 ] && grep -q 'the searches stopped: stopped by Ctrl-C' "$T/int1/err" &&
   grep -q 'lambda' "$T/int1/.mpcc.yaml" && grep -q 'checked: MPCC_PROFILE=tuned' "$T/int1/err"; then
	passed
else
	fail "rc $(cat "$T/int1/rc"): $(tail -4 "$T/int1/err")"
fi

testing "a second Ctrl-C stops at once and writes nothing"
interrupt int2 2
if [ "$(cat "$T/int2/rc")" = 130 ] && [ ! -e "$T/int2/.mpcc.yaml" ] &&
   grep -q 'Ctrl-C again: stopped; no profile written' "$T/int2/err"; then
	passed
else
	fail "rc $(cat "$T/int2/rc"): $(tail -3 "$T/int2/err")"
fi

# k.cu and sets.cu in one PTX: sfu's HEU on hot and fiset's units on multi,
# each trial in its own directory, on four fake GPUs; a run sleeps 0.5 s,
# so that runs overlap the builds
jobs() {
	n=$1
	shift
	FAKE_SLEEP=${FAKE_SLEEP:-0.5} FAKE_LOG=$T/$n.log tune "$n" k.cu --build-jobs 4 --qos 2.55e-4 --time 'time_ms=([0-9.]+)' --transform auto \
		--build "mkdir -p \$MPCC_TUNE_DIR && $MPCC -arch=sm_90 -ptx k.cu -o \$MPCC_TUNE_DIR/a.ptx && $MPCC -arch=sm_90 -ptx sets.cu -o \$MPCC_TUNE_DIR/b.ptx && cat \$MPCC_TUNE_DIR/a.ptx \$MPCC_TUNE_DIR/b.ptx >\$MPCC_TUNE_DIR/k.ptx" \
		--run "sh fake.sh \$MPCC_TUNE_DIR/k.ptx" "$@"
}
testing "--jobs 4 on four GPUs keeps what --jobs 1 keeps"
jobs j1 --jobs 1 --keep
jobs j4 --jobs 4 --keep
if [ "$(cat "$T/j1/rc")$(cat "$T/j4/rc")" = 00 ] && [ -n "$(rules j1)" ] && [ "$(rules j1)" = "$(rules j4)" ] &&
   grep -q 'CUDA_VISIBLE_DEVICES=1' "$T/j4.log"; then
	passed
else
	fail "jobs 1: $(rules j1); jobs 4: $(rules j4)"
fi

# with one GPU the next list of units is guessed and built while the
# list before it runs (0.5 s): some list of multi's sets, each asked for
# alone, was built before the one asked before it had run; no guess ran
# (with four GPUs guesses run)
testing "--jobs 1: the next trial builds while one runs, and runs only once asked for"
early=0 prev=
for n in $(sed -n 's/^mpcc-tune: \[t\([0-9]*\)\] .*multi fiset sets=\[.*/\1/p' "$T/j1/err"); do
	d=$T/j1/work/t$n
	[ -n "$prev" ] && [ -e "$prev/run.out" ] && [ -e "$d/run.out" ] &&
		[ -z "$(find "$d/report.jsonl" -newer "$prev/run.out")" ] && early=$((early + 1))
	prev=$d
done
if [ "$early" -gt 0 ] && grep -q 'trials built and run (the baseline.s included); ' "$T/j1/err" &&
   grep -q 'trials built and run (the baseline.s included), and [1-9][0-9]* guesses run' "$T/j4/err"; then
	passed
else
	fail "$early lists built before the one before them had run; $(grep 'trials built and run' "$T/j1/err")"
fi

# the confirmation's 14 runs, the last of the log: rounds 1-4 at once
# (two runs on each of GPUs 0-3), rounds 5-7 at once (two on each of GPUs
# 0-2); GPUs 2 and 3 run copies of the two programs
testing "--jobs 4: the confirmation runs four rounds at once, one on each GPU"
runs=$(tail -14 "$T/j4.log" | cut -d' ' -f1 | sort | uniq -c | tr -s ' \n' ' ')
if grep -q 'interleaved rounds (each in its own directory; 4 rounds at once, on GPUs 0 to 3, copies of both programs on GPUs 2 and up)' "$T/j4/err" &&
   [ "$runs" = " 4 CUDA_VISIBLE_DEVICES=0 4 CUDA_VISIBLE_DEVICES=1 4 CUDA_VISIBLE_DEVICES=2 2 CUDA_VISIBLE_DEVICES=3 " ] &&
   [ -d "$T/j4/work/confirm/p1-t0" ]; then
	passed
else
	fail "$(grep 'interleaved rounds' "$T/j4/err"); the last 14 runs: $runs"
fi

# each trial builds into its own directory: the timing build goes on
# beside the baseline's build and runs (3 of 1 s), and runs once
testing "the timing build is built while the baseline runs, and runs once"
FAKE_SLEEP=1 FAKE_LOG=$T/tb.log tune tb k.cu --qos 2.55e-4 --time 'time_ms=([0-9.]+)' --runs 3 --keep --dry-run \
	--build "mkdir -p \$MPCC_TUNE_DIR && $MPCC -arch=sm_90 -ptx k.cu -o \$MPCC_TUNE_DIR/k.ptx" \
	--run "sh fake.sh \$MPCC_TUNE_DIR/k.ptx" --search exhaustive --step 32
if [ "$(cat "$T/tb/rc")" = 0 ] && [ "$(grep -c 'timed=yes dir=t1 ' "$T/tb.log")" = 1 ] &&
   [ -n "$(find "$T/tb/work/t0/run.out" -newer "$T/tb/work/t1/build.log")" ]; then
	passed
else
	fail "rc $(cat "$T/tb/rc"), $(grep -c 'timed=yes' "$T/tb.log") timed runs: $(ls -l --time-style=+%T.%N "$T/tb/work/t0/run.out" "$T/tb/work/t1/build.log")"
fi

# one build directory, the program kept by each trial (--binary): the
# builds go one at a time (and so no guesses), the runs (three of 1.5 s
# each, longer than a build) on two GPUs: auto's three probes, built in
# turn, run side by side
testing "--binary with --jobs 2: each trial runs its own copy, one beside another, and keeps what --jobs 1 keeps"
FAKE_SLEEP=1.5 jobs jb --jobs 2 --runs 3 --keep --binary k.ptx \
	--build "$MPCC -arch=sm_90 -ptx k.cu -o a.ptx && $MPCC -arch=sm_90 -ptx sets.cu -o b.ptx && cat a.ptx b.ptx >k.ptx" \
	--run "sh fake.sh \$MPCC_TUNE_DIR/binary"
if [ "$(cat "$T/jb/rc")" = 0 ] && [ "$(rules jb)" = "$(rules j1)" ] &&
   grep -q 'CUDA_VISIBLE_DEVICES=1' "$T/jb.log" && [ -e "$T/jb/work/t3/binary" ]; then
	passed
else
	fail "rc $(cat "$T/jb/rc"): $(rules jb): $(cut -d' ' -f1 "$T/jb.log" | sort | uniq -c)"
fi
finish
