#!/bin/sh
# Kernels on several streams run side by side, and a kernel's time in the
# timing build (its launches' spans by %globaltimer) then measures its
# neighbours too: on a public hydrodynamics proxy app a kernel no variant
# changed read 1.63x faster (issue 49). The timing build's lines carry each
# launch's start and end; where launches of different kernels overlap,
# mpcc-tune says once which kernels ran beside which, and their times
# decide nothing: their share does not leave them out of the tuning, and
# the model is not checked on them. The program's own time still chooses.
# Against the fake program of t-tune-fake.sh (tune-fake/fake.sh,
# FAKE_STREAMS) on loops.cu: multi and flt, 20 ms each, side by side or one
# after the other.
. "$(dirname "$0")/lib.sh"
: "${MPCC_TUNE:?set MPCC_TUNE to the mpcc-tune executable}"
FAKE="$MPCC_SRC/tests/driver/tune-fake"
# each kernel takes the whole run (0.9 s), so that its speed-up is said
# beyond the noise
WHOLE="sed 's/^\(mpcc-time [^ ]* [0-9]*\) [0-9]*/\1 900000000/'"

# tune DIR STREAMS ARGS...: mpcc-tune --transform fiset in a fresh copy of
# the fake program in $T/DIR, FAKE_STREAMS=STREAMS; stdout in DIR/out,
# stderr in DIR/err, status in DIR/rc
tune() {
	d=$T/$1 s=$2
	shift 2
	rm -rf "$d" && mkdir -p "$d" && cp "$FAKE/loops.cu" "$FAKE/fake.sh" "$d/"
	(cd "$d" && FAKE_STREAMS=$s "$MPCC_TUNE" --build "$MPCC -arch=sm_90 -ptx loops.cu -o k.ptx" \
		--run "sh fake.sh k.ptx | $WHOLE" --time 'time_ms=([0-9.]+)' --qos 1e-4 \
		--transform fiset --runs 1 --workdir "$d/work" "$@" >out 2>err)
	echo $? >"$d/rc"
}

MULTI='multi(int, double const\*, double const\*, double const\*, double\*)'
FLT='flt(int, float\*)'

testing "kernels one after another: every time is its own, the model checked on multi"
tune after after
if [ "$(cat "$T/after/rc")" != 0 ]; then
	fail "mpcc-tune failed: $(tail -5 "$T/after/err")"
elif grep -q -i 'confounded\|side by side' "$T/after/err" "$T/after/out" ||
     ! grep -q '^mpcc-tune: model within 20% of the measured kernel speed-up on [0-9]* of [1-9][0-9]* trials*$' "$T/after/err" ||
     ! grep -q '^| t[0-9]* | multi fiset .* | multi: [0-9.]*x, [0-9.]*x | [^|]* |$' "$T/after/out"; then
	fail "$(grep -i 'confounded\|side by side\|model within' "$T/after/err"); $(grep '^| t' "$T/after/out")"
else
	passed
fi

# multi and flt take 50% of the kernel time each: under --min-share 60,
# but their shares are confounded, so they are tuned
testing "kernels side by side: said once, which beside which"
tune side side --min-share 60
if [ "$(cat "$T/side/rc")" != 0 ]; then
	fail "mpcc-tune failed: $(tail -5 "$T/side/err")"
elif [ "$(grep -c 'side by side' "$T/side/err")" != 1 ] ||
     ! grep -q "^  $MULTI: beside $FLT for 100% of its time\$" "$T/side/err" ||
     ! grep -q "^  $FLT: beside $MULTI for 100% of its time\$" "$T/side/err"; then
	fail "$(grep -A3 'side by side' "$T/side/err")"
else
	passed
fi

testing "their shares leave neither out, and the model is not checked on them"
if ! grep -q "^ *50.0%  .*  $MULTI  (tuned)\$" "$T/side/err" ||
   ! grep -q '^| t[0-9]* | multi fiset .* | multi: [0-9.]*x, confounded | [^|]* |$' "$T/side/out" ||
   grep -q '^| t[0-9]* | multi fiset .* | multi: [0-9.?]*x*, [0-9.]*x | [^|]* |$' "$T/side/out" ||
   ! grep -q '^mpcc-tune: model within 20% of the measured kernel speed-up on 0 of 0 trials ([1-9][0-9]* left out: .* confounded' "$T/side/err"; then
	fail "$(grep -A4 'kernels (timing' "$T/side/err"; grep 'model within' "$T/side/err"; grep '^| t' "$T/side/out")"
else
	passed
fi

testing "the program's own time still chooses: the same rules as one after another"
if ! grep -q 'fiset: {sets:' "$T/after/.mpcc.yaml" ||
   ! cmp -s "$T/after/.mpcc.yaml" "$T/side/.mpcc.yaml"; then
	fail "$(diff "$T/after/.mpcc.yaml" "$T/side/.mpcc.yaml")"
else
	passed
fi
finish
