#!/bin/sh
# mpcc-tune against a fake program whose time and error are known functions
# of the setting (tune-fake/fake.sh: time 10 (1 - lambda/128), error
# 1e-3 (lambda/64)^2), built through the real mpcc driver, so that every
# candidate goes through MPCC_SET and the build's report. With the QoS at
# 2.55e-4 the answer is lambda 32 (on the grid of 4).
. "$(dirname "$0")/lib.sh"
: "${MPCC_TUNE:?set MPCC_TUNE to the mpcc-tune executable}"
FAKE="$MPCC_SRC/tests/driver/tune-fake"

# tune DIR ARGS...: mpcc-tune in a fresh copy of the fake program in $T/DIR;
# stdout in DIR/out, stderr in DIR/err, status in DIR/rc
tune() {
	d=$T/$1
	shift
	rm -rf "$d"
	mkdir -p "$d"
	cp "$FAKE/k.cu" "$FAKE/fake.sh" "$d/"
	(cd "$d" && "$MPCC_TUNE" --build "$MPCC -arch=sm_90 -ptx k.cu -o k.ptx" \
		--run "sh fake.sh k.ptx" --time 'time_ms=([0-9.]+)' --min-share 1 --runs 1 \
		"$@" >out 2>err)
	echo $? >"$d/rc"
}

# best DIR: the best setting of the search table ("hot sfu lambda=32")
best() { sed -n 's/^| hot(int, double const\*, double\*) | sfu | [a-z]* | [0-9]* | \([^|]*\) | .*|$/\1/p' "$T/$1/out"; }
# trials DIR: the trials the search table says it used
trials() { sed -n 's/^| hot(int, double const\*, double\*) | sfu | [a-z]* | \([0-9]*\) | .*/\1/p' "$T/$1/out"; }

testing "heu finds lambda 32 in at most 5 trials"
tune heu --qos 2.55e-4 --search heu --runs 2
if [ "$(cat "$T/heu/rc")" != 0 ]; then
	fail "mpcc-tune failed: $(tail -5 "$T/heu/err")"
elif [ "$(best heu)" != "hot sfu lambda=32" ] || [ "$(trials heu)" -gt 5 ]; then
	fail "best '$(best heu)' in $(trials heu) trials"
else
	passed
fi

testing "heu confirms the winner, writes the profile and checks that it builds the winner"
if grep -q 'lambda: 32' "$T/heu/.mpcc.yaml" && grep -q '_Z3hotiPKdPd' "$T/heu/.mpcc.yaml" &&
   grep -q '^confirmation: 7 interleaved rounds against the baseline: median 1.333x (range 1.333x to 1.333x): confirmed$' "$T/heu/out" &&
   grep -q 'checked: MPCC_PROFILE=tuned builds what the winner built' "$T/heu/err"; then
	passed
else
	fail "$(cat "$T/heu/.mpcc.yaml") $(tail -3 "$T/heu/err")"
fi

testing "the profile builds lambda 32 through the driver"
(cd "$T/heu" && MPCC_PROFILE=tuned "$MPCC" -arch=sm_90 -ptx k.cu -o p.ptx) &&
	if sh "$T/heu/fake.sh" "$T/heu/p.ptx" | grep -q 'time_ms=7.5'; then passed; else fail "not lambda 32"; fi

testing "only the hot kernel is tuned"
if grep -q 'cold(int, double\*)$' "$T/heu/err" && grep -q 'hot(int, double const\*, double\*)  (tuned)' "$T/heu/err"; then
	passed
else
	fail "$(grep -A3 'kernels (timing' "$T/heu/err")"
fi

testing "linear walks down from 64 to 32 (9 trials)"
tune lin --qos 2.55e-4 --search linear
if [ "$(best lin)" = "hot sfu lambda=32" ] && [ "$(trials lin)" = 9 ]; then passed; else fail "$(best lin) in $(trials lin)"; fi

testing "exhaustive tries the 16 points and finds 32 (rel-fro)"
# the relative Frobenius norm of numbers all off by +-E is E too
tune exh --qos 2.55e-4 --search exhaustive --metric rel-fro --dry-run
if [ "$(best exh)" = "hot sfu lambda=32" ] && [ "$(trials exh)" = 16 ]; then passed; else fail "$(best exh) in $(trials exh)"; fi

testing "--dry-run prints the profile and writes none"
if [ ! -e "$T/exh/.mpcc.yaml" ] && grep -q '        sfu: {lambda: 32,' "$T/exh/out"; then passed; else fail "$(tail -8 "$T/exh/out")"; fi

testing "digits of accuracy: 4 digits (max-rel 1e-4) allow lambda 20"
tune dig --qos 4 --metric digits --dry-run
if [ "$(best dig)" = "hot sfu lambda=20" ]; then passed; else fail "$(best dig)"; fi

# (another count of numbers ends the session: t-tune-judge.sh)
for f in nan crash sleep words; do
	testing "FAKE_FAIL=$f: lambda >= 48 fails as such and heu still finds 32"
	FAKE_FAIL=$f tune "f$f" --qos 2.55e-4 --dry-run
	case $f in
	nan) want="NaN/Inf in the output" ;; crash) want="crashed: run 1 exited with 3" ;;
	sleep) want="timed out" ;; words) want="other words in the output: its output says .check: FAIL. where the baseline.s says .check: PASS." ;;
	esac
	if [ "$(best "f$f")" = "hot sfu lambda=32" ] && grep -q "lambda=64: $want" "$T/f$f/err"; then
		passed
	else
		fail "$(best "f$f"): $(grep 'lambda=64' "$T/f$f/err")"
	fi
done

# fiset lowers hot's f64 sets, but the fake's time and error follow lambda
# only: fiset is probed, searched and not kept
testing "auto probes every transform on the hot kernel and keeps sfu lambda 32"
tune auto --qos 2.55e-4 --transform auto
if [ "$(best auto)" = "hot sfu lambda=32" ] && grep -q 'lambda: 32' "$T/auto/.mpcc.yaml" &&
   grep -q "auto: fiset on 'hot(int, double const\*, double\*)': applies" "$T/auto/err" &&
   grep -q "^mpcc-tune: fiset on 'hot(int, double const\*, double\*)': its best, .* is not faster than 1.333x by over the noise (1.0%): not kept$" "$T/auto/err" &&
   grep -q "auto: half2 on 'hot(int, double const\*, double\*)': left alone" "$T/auto/err" &&
   grep -q "^mpcc-tune: sfu on 'hot(int, double const\*, double\*)': kept hot sfu lambda=32 (1.333x)$" "$T/auto/err" &&
   grep -q "^| hot(int, double const\*, double\*) | fiset | mode 1 | [0-9]* | .* | every unit tried: .* |$" "$T/auto/out" &&
   grep -q 'Pareto front' "$T/auto/mpcc-tune.svg"; then
	passed
else
	fail "$(best auto): $(grep 'auto:' "$T/auto/err")"
fi

testing "a QoS nothing meets writes a profile with no rules, and checks it"
tune none --qos 1e-9
if [ "$(best none)" = "none met the QoS" ] && grep -q 'rules: \[\]' "$T/none/.mpcc.yaml" &&
   grep -q 'no setting met the QoS' "$T/none/err" && grep -q 'checked: MPCC_PROFILE=tuned' "$T/none/err"; then
	passed
else
	fail "$(best none)"
fi

testing "a build that rebuilds nothing is caught by its report"
d=$T/stale
rm -rf "$d" && mkdir -p "$d" && cp "$FAKE/k.cu" "$FAKE/fake.sh" "$d/"
(cd "$d" && "$MPCC_TUNE" --build "test -e k.ptx || $MPCC -arch=sm_90 -ptx k.cu -o k.ptx" \
	--run "sh fake.sh k.ptx" --time 'time_ms=([0-9.]+)' --qos 2.55e-4 --runs 1 --dry-run >out 2>err)
if grep -q 'no report line for .*(make -B)' "$d/err"; then passed; else fail "$(tail -4 "$d/err")"; fi

# and it keeps its work directory for the logs, saying where (issue 26, item 7)
testing "a failed tune says where its work directory is"
kept=$(sed -n 's/^mpcc-tune: note: the work directory \(.*\) is kept: its logs say what failed; remove it when done$/\1/p' "$d/err")
if [ -n "$kept" ] && [ -d "$kept" ] && rm -rf "$kept"; then passed; else fail "$(tail -2 "$d/err")"; fi

testing "--launcher prefixes every run"
cat >"$T/launch.sh" <<EOF
#!/bin/sh
echo "\$*" >>"$T/launch.log"
exec "\$@"
EOF
chmod +x "$T/launch.sh"
rm -f "$T/launch.log"
tune lau --qos 2.55e-4 --dry-run --launcher "$T/launch.sh"
runs=$(grep -c '^sh -c sh fake.sh k.ptx$' "$T/launch.log")
# the baseline five runs, the timing build and five heu trials one each,
# the confirmation 7 rounds of two
if [ "$(best lau)" = "hot sfu lambda=32" ] && [ "$runs" = 25 ]; then passed; else fail "$runs runs: $(head -3 "$T/launch.log")"; fi

# a run sleeps a second, longer than a build: a trial runs while the next
# builds and runs
testing "--jobs 2 runs candidates on two GPUs at once"
rm -f "$T/jobs.log"
FAKE_SLEEP=1 FAKE_LOG=$T/jobs.log tune job --qos 2.55e-4 --dry-run --search exhaustive --step 16 --jobs 2 \
	--build "mkdir -p \$MPCC_TUNE_DIR && $MPCC -arch=sm_90 -ptx k.cu -o \$MPCC_TUNE_DIR/k.ptx" \
	--run "sh fake.sh \$MPCC_TUNE_DIR/k.ptx"
if [ "$(best job)" = "hot sfu lambda=32" ] && grep -q 'CUDA_VISIBLE_DEVICES=0' "$T/jobs.log" &&
   grep -q 'CUDA_VISIBLE_DEVICES=1' "$T/jobs.log"; then
	passed
else
	fail "$(best job): $(sort "$T/jobs.log" | uniq -c | head)"
fi
finish
