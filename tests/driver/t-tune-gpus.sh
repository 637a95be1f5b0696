#!/bin/sh
# mpcc-tune on several fake GPUs (issue 48): the timeline of a session, from
# the runs of the fake program of tune-fake/ (fake.sh, its FAKE_LOG: each
# run's GPU, trial directory and start). With --jobs 4 the searches of the
# three hot kernels run side by side from their first trial, each on the
# baseline, and their winners are composed; the timing build is built once
# the baseline's build is done and runs on another GPU while the baseline
# runs; four rounds of the confirmation run at once. --jobs 1 keeps what
# --jobs 4 keeps. A build made before through mpcc with the session's step
# cache makes the baseline's build a cache hit.
. "$(dirname "$0")/lib.sh"
: "${MPCC_TUNE:?set MPCC_TUNE to the mpcc-tune executable}"
FAKE="$MPCC_SRC/tests/driver/tune-fake"

# tune DIR ARGS...: mpcc-tune --transform auto on hot, multi and flat (k.cu,
# sets.cu and flat.cu in one file), each trial in its own directory, in a
# fresh $T/DIR: stdout in DIR/out, stderr in DIR/err, status in DIR/rc, the
# runs in DIR/runs.log (a run sleeps FAKE_SLEEP, 1 s unless set)
tune() {
	d=$T/$1
	shift
	rm -rf "$d" && mkdir -p "$d" && cp "$FAKE/fake.sh" "$d/"
	cat "$FAKE/k.cu" "$FAKE/sets.cu" "$FAKE/flat.cu" >"$d/three.cu"
	(cd "$d" && FAKE_SLEEP=${FAKE_SLEEP:-1} FAKE_LOG=$d/runs.log "$MPCC_TUNE" \
		--build "mkdir -p \$MPCC_TUNE_DIR && $MPCC -arch=sm_90 -ptx three.cu -o \$MPCC_TUNE_DIR/k.ptx" \
		--run "sh fake.sh \$MPCC_TUNE_DIR/k.ptx" --time 'time_ms=([0-9.]+)' --qos 2.55e-4 \
		--min-share 1 --runs 1 --build-jobs 4 --transform auto --workdir "$d/work" --keep "$@" >out 2>err)
	echo $? >"$d/rc"
}

# rules DIR: the profile's rules, one line
rules() { grep -v '^ *#' "$T/$1/.mpcc.yaml" 2>/dev/null | tr -s ' \n' ' '; }
# trial DIR WHAT: the directory name (tN) of the trial whose setting is WHAT
trial() { sed -n "s/^mpcc-tune: \[\(t[0-9]*\)\] $2: .*/\1/p" "$T/$1/err" | head -1; }
# start DIR TN: when the first run of trial TN started
start() { sed -n "s/.* dir=$2 start=\([0-9.]*\)$/\1/p" "$T/$1/runs.log" | head -1; }

FAKE_SLEEP=2 tune j4 --jobs 4
tune j1 --jobs 1

testing "--jobs 4: the three kernels' searches each vary their kernel alone on the baseline"
if [ "$(cat "$T/j4/rc")" != 0 ]; then
	fail "rc $(cat "$T/j4/rc"): $(tail -5 "$T/j4/err")"
elif ! grep -q '^mpcc-tune: 3 kernels searched side by side, each alone on the baseline$' "$T/j4/err" ||
     ! grep -q "^mpcc-tune: sfu on 'hot(int, double const\*, double\*)': kept hot sfu lambda=32 (1.333x)$" "$T/j4/err" ||
     ! grep -q "^mpcc-tune: fiset on 'multi(.*)': kept multi fiset sets=all (1.56[23]x)$" "$T/j4/err"; then
	fail "$(grep -e 'side by side' -e ': kept' -e 'not kept' "$T/j4/err")"
else
	passed
fi

# first DIR K: the start and GPU of the first run of kernel K's search (a
# trial of one knob, on K); a run of j4 takes 2 s
first() {
	sed -n "s/^mpcc-tune: \[\(t[0-9]*\)\] $2 [a-z0-9]* [^;]*: time .*/\1/p" "$T/$1/err" | sort -u >"$T/$1/$2.trials"
	awk 'NR == FNR { t[$1] = 1; next }
	     { split($0, f, " dir="); split(f[2], g, " start="); if (g[1] in t) print g[2], $1 }' \
		"$T/$1/$2.trials" "$T/$1/runs.log" | sort -n | head -1
}
testing "--jobs 4: the three searches run at once from their first trials, on three GPUs"
a=$(first j4 hot) b=$(first j4 multi) c=$(first j4 flat)
gpus=$(printf '%s\n%s\n%s\n' "${a#* }" "${b#* }" "${c#* }" | sort -u | wc -l)
if [ -z "$a" ] || [ -z "$b" ] || [ -z "$c" ]; then
	fail "no run of a search: '$a' '$b' '$c'"
elif ! awk -v a="${a%% *}" -v b="${b%% *}" -v c="${c%% *}" 'BEGIN {
	hi = a > b ? a : b; hi = hi > c ? hi : c; lo = a < b ? a : b; lo = lo < c ? lo : c
	exit !(hi - lo < 2) }' || [ "$gpus" != 3 ]; then
	fail "their first runs: $a; $b; $c (a run takes 2 s)"
else
	passed
fi

testing "--jobs 4: the searches' winners are composed in one trial, which holds"
if grep -q "^mpcc-tune: compose: the winners of 2 searches together (t[0-9]*): [0-9.]*x, error .*, within the QoS; their parts promised 2.083x: holds$" "$T/j4/err"; then
	passed
else
	fail "$(grep 'compose' "$T/j4/err")"
fi

testing "--jobs 1 keeps what --jobs 4 keeps, one search after another"
if [ "$(cat "$T/j1/rc")" = 0 ] && [ -n "$(rules j1)" ] && [ "$(rules j1)" = "$(rules j4)" ] &&
   ! grep -q 'side by side' "$T/j1/err"; then
	passed
else
	fail "jobs 1: $(rules j1); jobs 4: $(rules j4)"
fi

# the baseline (t0) runs 5 times, 2 s each, on GPU 0; the timing build's
# preprocessing comes from the step cache that the baseline's build filled
testing "--jobs 4: the timing build is built after the baseline's build, and runs on another GPU while it runs"
timed=$(grep 'timed=yes dir=t1 ' "$T/j4/runs.log")   # t1: the timing build (a pass's timed check runs later)
last=$(sed -n 's/.* dir=t0 start=\([0-9.]*\)$/\1/p' "$T/j4/runs.log" | sed -n 5p)
if [ -z "$timed" ] || [ -z "$last" ]; then
	fail "no timed run, or the baseline ran fewer than 5 times: $(head -7 "$T/j4/runs.log")"
elif ! awk -v t="${timed##*start=}" -v l="$last" 'BEGIN { exit !(t < l) }' ||
     [ "${timed%% *}" = CUDA_VISIBLE_DEVICES=0 ] ||
     ! grep -q '^front [0-9.]* hit$' "$T/j4/work/t1/steps.log"; then
	fail "the timed run ($timed) began after the baseline's last ($last), or on its GPU, or built every front step: $(cat "$T/j4/work/t1/steps.log" | tr '\n' ';')"
else
	passed
fi

# the confirmation's 14 runs, the last of the log: rounds 1-4 at once
# (two runs on each of GPUs 0-3), then rounds 5-7 (two on each of GPUs 0-2)
testing "--jobs 4: four rounds of the confirmation at once"
runs=$(tail -14 "$T/j4/runs.log" | cut -d' ' -f1 | sort | uniq -c | tr -s ' \n' ' ')
if [ "$runs" = " 4 CUDA_VISIBLE_DEVICES=0 4 CUDA_VISIBLE_DEVICES=1 4 CUDA_VISIBLE_DEVICES=2 2 CUDA_VISIBLE_DEVICES=3 " ]; then
	passed
else
	fail "the last 14 runs: $runs"
fi

# two GPUs: the baseline on one, the timing build on the other
testing "--jobs 2: the timing build runs on the other GPU while the baseline runs"
FAKE_SLEEP=0.6 tune j2 --jobs 2 --max-trials 3 --dry-run
timed=$(grep 'timed=yes dir=t1 ' "$T/j2/runs.log")
last=$(sed -n 's/.* dir=t0 start=\([0-9.]*\)$/\1/p' "$T/j2/runs.log" | sed -n 5p)
if [ -n "$timed" ] && [ -n "$last" ] && awk -v t="${timed##*start=}" -v l="$last" 'BEGIN { exit !(t < l) }' &&
   [ "${timed%% *}" = CUDA_VISIBLE_DEVICES=1 ]; then
	passed
else
	fail "the timed run: $timed; the baseline's fifth began at $last"
fi
# the user built the program through mpcc before, with the step cache the
# session is given (MPCC_STEP_CACHE set): the baseline's build finds every
# step it keeps there
testing "a warm step cache: the baseline's build is a cache hit, and its line says so"
d=$T/warm
rm -rf "$d" && mkdir -p "$d" && cp "$FAKE/k.cu" "$FAKE/fake.sh" "$d/"
(cd "$d" && export MPCC_STEP_CACHE="$d/cache" && "$MPCC" -arch=sm_90 -ptx k.cu -o k.ptx &&
	"$MPCC_TUNE" --build "$MPCC -arch=sm_90 -ptx k.cu -o k.ptx" --run "sh fake.sh k.ptx" \
	--time 'time_ms=([0-9.]+)' --qos 2.55e-4 --min-share 1 --runs 1 --max-trials 3 --dry-run >out 2>err)
if grep -q '^mpcc-tune: \[t0\] .*; its build ([0-9.]* s) a cache hit: \([1-9][0-9]*\) of \1 steps from the step cache' "$d/err" &&
   grep -q 'trial builds: .*from a warm step cache' "$d/err"; then
	passed
else
	fail "$(grep -e '\[t0\]' -e 'trial builds' -e error "$d/err")"
fi
finish
