#!/bin/sh
# What a trial's build costs (issue 40): a program whose host code takes
# the host compiler seconds (tune-fake/host.cu, <regex>), built in each
# trial's directory as make would. With the step cache each trial's build
# runs the transform, ptxas and the link, and puts the new fatbinary into
# the cached host object (driver/embed.c); its preprocessing comes from the
# cache too (the headers it read unchanged): its builds come to at most 0.25x
# the full build, and the session's summary says so ("Rx the full build")
# and where a trial's time went, step by step; the table gives each
# trial's. A trial's program is byte for byte a clean build of its setting.
. "$(dirname "$0")/lib.sh"
: "${MPCC_TUNE:?set MPCC_TUNE to the mpcc-tune executable}"
command -v gcc >/dev/null 2>&1 || { echo "no gcc: skipped"; exit 77; }
FAKE="$MPCC_SRC/tests/driver/tune-fake"
cp "$FAKE/host.cu" "$FAKE/fake.sh" "$T/"

# build DIR: the program and its PTX, built in DIR as a trial builds them
BUILD="mkdir -p \$MPCC_TUNE_DIR && cd \$MPCC_TUNE_DIR && $MPCC -arch=sm_90 -c $T/host.cu -o host.o && $MPCC -arch=sm_90 host.o -o prog && $MPCC -arch=sm_90 -ptx $T/host.cu -o k.ptx"

# a full build, every step run (an empty step cache), as the test times it
mkdir -p "$T/full"
t0=$(date +%s.%N)
(cd "$T" && MPCC_TUNE_DIR=$T/full MPCC_STEP_CACHE=$T/full-cache MPCC_SET=off sh -c "$BUILD") || fail "the full build"
full=$(echo "$(date +%s.%N) $t0" | awk '{print $1 - $2}')

# sfu on hot, lambda 16 to 64: four trials, one a build; the first runs
# sfu's fast-math cicc, which the others find in the cache
(cd "$T" && "$MPCC_TUNE" --build "$BUILD" --run "sh fake.sh \$MPCC_TUNE_DIR/k.ptx" --min-share 1 \
	--runs 1 --build-jobs 1 --workdir "$T/work" --keep --qos 2.55e-4 --time 'time_ms=([0-9.]+)' \
	--transform sfu --search exhaustive --step 16 >out 2>err)
echo $? >"$T/rc"

testing "a trial's build is at most 0.25x the full build, and the summary says so"
line=$(grep 'mpcc-tune: trial builds: median' "$T/err")
med=$(echo "$line" | sed -n 's/.*median \([0-9.e+-]*\) s, .*/\1/p')
ratio=$(echo "$line" | sed -n 's/.*, \([0-9.]*\)x the full build (.*/\1/p')
if [ "$(cat "$T/rc")" = 0 ] && [ -n "$ratio" ] &&
   awk -v r="$ratio" -v m="$med" -v f="$full" 'BEGIN { exit !(r <= 0.25 && m <= 0.25 * f) }'; then
	passed
else
	fail "rc $(cat "$T/rc"); $line; the test's full build $full s"
fi

testing "the trials' host objects take the new fatbinary: the host compiler ran in no search trial"
bad=
for d in "$T"/work/t[2-9]; do
	grep -q '^host [0-9.]* embed$' "$d/steps.log" && ! grep -q '^host [0-9.]* miss$' "$d/steps.log" || bad="$bad $(basename "$d")"
done
if [ "$(cat "$T/rc")" = 0 ] && [ -z "$bad" ] && [ -d "$T/work/t5" ]; then
	passed
else
	fail "the host compiler ran in:$bad"
fi

testing "no build of the session asks ptxas for figures: no ptxas -v, no \"ptxas\" in a report"
bad=$(grep -l '"ptxas"' "$T"/work/t*/report.jsonl "$T"/work/check/report.jsonl 2>/dev/null | tr '\n' ' ')
if [ "$(cat "$T/rc")" = 0 ] && [ -z "$bad" ] && grep -q '"applied":true' "$T/work/t3/report.jsonl" &&
   [ -s "$T/work/check/report.jsonl" ] && ! grep -q 'ptxas .* -v ' "$T/work/cache/log"; then
	passed
else
	fail "figures in: $bad; ptxas -v: $(grep -c 'ptxas .* -v ' "$T/work/cache/log")"
fi

testing "gcc's preprocessing ran in no search trial: the step cache kept it (front steps all hits)"
bad=
for d in "$T"/work/t[2-9]; do
	[ "$(grep -c '^front [0-9.]* hit$' "$d/steps.log")" -ge 4 ] &&
		! grep -q '^front [0-9.]* run$' "$d/steps.log" || bad="$bad $(basename "$d")"
done
if [ "$(cat "$T/rc")" = 0 ] && [ -z "$bad" ] && [ -d "$T/work/t5" ]; then
	passed
else
	fail "a front step ran in:$bad ($(cat "$T/work/t3/steps.log" | tr '\n' ';'))"
fi

testing "the summary and the table say where a trial's time went: transform, ptxas, host, link, runs"
if grep -q '^mpcc-tune: of a trial (medians; .*): transform [0-9.e-]* s, ptxas [0-9.e-]* s, host [0-9.e-]* s, link [0-9.e-]* s, other steps [0-9.e-]* s, runs [0-9.e-]* s, compare ' "$T/err" &&
   grep -q '| build s (transform, ptxas, host, link); runs s |$' "$T/out" &&
   grep -q '^| t3 | hot sfu lambda=32 | .* | [0-9.]* ([0-9.e-]*, [0-9.e-]*, [0-9.e-]*, [0-9.e-]*); [0-9.e-]* |$' "$T/out"; then
	passed
else
	fail "$(grep 'of a trial' "$T/err"); $(grep '^| t3 ' "$T/out")"
fi

testing "a trial's program is byte for byte a clean build of its setting"
set3=$(sed -n 's/^mpcc-tune: \[t3\] \(.*\): time .*/\1/p' "$T/err")
mkdir -p "$T/clean"
(cd "$T" && MPCC_TUNE_DIR=$T/clean MPCC_STEP_CACHE=$T/clean-cache MPCC_SET='off;sfu:lambda=32,kernels=_Z3hotiPKdPd' sh -c "$BUILD") &&
if [ "$set3" = "hot sfu lambda=32" ] && cmp -s "$T/work/t3/prog" "$T/clean/prog" && cmp -s "$T/work/t3/host.o" "$T/clean/host.o"; then
	passed
else
	fail "t3 is '$set3'; $(cmp "$T/work/t3/prog" "$T/clean/prog" 2>&1)"
fi
finish
