#!/bin/sh
# The step cache (MPCC_STEP_CACHE, driver/stepcache.c) that mpcc-tune
# builds every trial with. A program of three files (kernels in a.cu and
# b.cu; objects, a report and a link through make) is built under one
# setting after another, sharing one cache, as mpcc-tune's trials are. Each
# build must be byte for byte what an empty cache builds for its setting,
# which is what mpcc builds without a cache but for nvcc's temporary names
# (fixed under the cache). A setting that changes one file's PTX reruns
# that file's ptxas alone (and the report's ptxas -v), and makes its object
# from the cached one with the new fatbinary (t-step-embed.sh); a setting
# built before reruns nothing; PTX that ptxas rejects still falls
# back to nvcc's; compiles running at once share the cache, and so do the
# builds of an mpcc-tune session.
. "$(dirname "$0")/lib.sh"
command -v make >/dev/null 2>&1 || { echo "no make: skipped"; exit 77; }

S=$T/src
mkdir -p "$S"
{ cat "$KERNELS/nbody.cu"; echo 'void forces(Body *p, double3 *f, int n) { bodyForce<<<1, 32>>>(p, f, n, 1e-9); }'; } >"$S/a.cu"
{ cat "$KERNELS/boxmuller.cu"; echo 'void normals(float *o, unsigned *s, int n) { BoxMuller<<<1, 32>>>(o, s, n); }'; } >"$S/b.cu"
echo 'int main(void) { return 0; }' >"$S/main.cu"
cat >"$S/Makefile" <<'EOF'
NV = nvcc
prog: main.o a.o b.o
	$(NV) -arch=sm_90 main.o a.o b.o -o prog
.cu.o:
	$(NV) -arch=sm_90 -c $< -o $@
.SUFFIXES: .cu .o
EOF
FISET='off;fiset:sets=all,kernels=bodyForce*'
SFU='off;sfu:lambda=32,kernels=BoxMuller*'
SFU16='off;sfu:lambda=16,kernels=BoxMuller*'
C=$T/cache

# build DIR SETTING [CACHE]: make the program in $W, as mpcc-tune makes a
# trial (the same files rebuilt in the same place, a report asked for),
# under MPCC_SET=SETTING with the step cache CACHE (none if empty), and keep
# it and its report in DIR; the cache's log lines of this build in DIR.log
W=$T/w
cp -r "$S" "$W"
build() {
	n=0
	[ -f "$3/log" ] && n=$(wc -l <"$3/log")
	: >"$W/report.jsonl"
	(cd "$W" && MPCC_SET=$2 MPCC_STEP_CACHE=$3 MPCC_REPORT=$W/report.jsonl make -B NV="$MPCC" >make.out 2>&1) ||
		{ echo "make failed: $(tail -5 "$W/make.out")"; return 1; }
	rm -rf "$1"
	mkdir -p "$1"
	cp "$W/prog" "$W"/*.o "$W/make.out" "$W/report.jsonl" "$1/"
	tail -n +$((n + 1)) "$3/log" >"$1.log" 2>/dev/null || :
}

# identical A B [FILES]: the program, objects and report (or FILES) of A
# and B are the same bytes
identical() {
	for f in ${3:-prog main.o a.o b.o report.jsonl}; do
		cmp -s "$1/$f" "$2/$f" || { echo "$f differs from $2's"; return 1; }
	done
}

# like A B: ... the same but for nvcc's temporary names
like() {
	for f in prog main.o a.o b.o; do
		same "$1/$f" "$2/$f" || { echo "$f differs from $2's (temporary names masked)"; return 1; }
	done
}

# misses BUILD: the steps the build ran, "PROGRAM FILE" sorted (FILE: the
# .cu file of nvcc's temporary names, "-" for none; ptxas-v: the report's
# ptxas -v runs, on nvcc's PTX and on mpcc's), and the host compiles whose
# objects it made from cached ones, "embed:PROGRAM FILE"
misses() {
	sed -n -e 's/^miss [0-9a-f]* //p' -e 's/^embed [0-9a-f]* /embed:/p' "$1.log" |
		sed -E -e 's/^ptxas (.* -v -e .*)/ptxas-v \1/' \
		-e 's#^"?([^ "]*/)?([^ /"]*)"? .*tmpxft_0{8}_0{8}-[0-9]+_([a-z_]+)\..*#\2 \3#' -e 's/^([^ ]*) .* .*/\1 -/' |
		LC_ALL=C sort | tr '\n' ' '
}

# name SETTING: off, fiset, sfu32 or sfu16
name() { echo "$1" | sed -E 's/off;(fiset|sfu)(:lambda=)?([0-9]*).*/\1\3/'; }

for s in off "$FISET" "$SFU" "$SFU16"; do
	build "$T/clean-$(name "$s")" "$s" "$T/empty-$(name "$s")" || exit 1
	build "$T/nvcc-$(name "$s")" "$s" "" || exit 1
done

testing "a build with an empty cache keeps its steps and is nvcc's program"
kept=$(cat "$T/clean-off.log" | wc -l)
if [ "$kept" -lt 12 ]; then
	fail "the cache kept $kept steps"
elif why=$(like "$T/clean-off" "$T/nvcc-off"); then
	passed
else
	fail "$why"
fi

testing "an empty cache builds each setting's program as mpcc does without one"
why=
for s in fiset sfu32 sfu16; do
	why=$why$(like "$T/clean-$s" "$T/nvcc-$s")
done
if [ -z "$why" ]; then passed; else fail "$why"; fi

testing "the baseline fills the cache, and its program is the empty cache's"
if build "$T/b1" off "$C" && why=$(identical "$T/b1" "$T/clean-off"); then passed; else fail "$why"; fi

# rebuilds DIR SETTING STEPS CLEAN: built with the warm cache, it reruns
# STEPS alone (misses' words) and builds CLEAN's program
rebuilds() {
	if ! build "$1" "$2" "$C"; then
		fail "build"
	elif [ "$(misses "$1")" != "$3" ]; then
		fail "it ran: $(misses "$1")"
	elif why=$(identical "$1" "$4"); then
		passed
	else
		fail "$why"
	fi
}

testing "a setting of a.cu's kernel reruns a.cu's ptxas alone, and re-embeds its host object"
rebuilds "$T/b2" "$FISET" "embed:gcc a ptxas a ptxas-v - ptxas-v a " "$T/clean-fiset"

testing "a setting of b.cu's kernel reruns b.cu's, and its first sfu the fast-math cicc"
rebuilds "$T/b3" "$SFU" "cicc b embed:gcc b ptxas b ptxas-v - ptxas-v b " "$T/clean-sfu32"

testing "another lambda reruns b.cu's ptxas alone, and re-embeds its host object"
rebuilds "$T/b4" "$SFU16" "embed:gcc b ptxas b ptxas-v b " "$T/clean-sfu16"

testing "a setting built before reruns no step, and builds the same program"
why=
for s in off "$FISET" "$SFU"; do
	build "$T/again" "$s" "$C" || why="build"
	[ -z "$(misses "$T/again")" ] || why="$why; it ran: $(misses "$T/again")"
	grep -q cicc "$T/again.log" || why="$why; no cicc in the log"
	why=$why$(identical "$T/again" "$T/clean-$(name "$s")")
done
if [ -z "$why" ]; then passed; else fail "$why"; fi

testing "PTX that ptxas rejects falls back to nvcc's with the cache on"
why=
for i in 1 2; do
	MPCC_DEBUG_BREAK_PTX=1 build "$T/broken" "$FISET" "$C" || why="$why; build $i failed"
	grep -q "ptxas rejected the PTX that mpcc transformed from 'a.cu': using nvcc's PTX" "$T/broken/make.out" ||
		why="$why; build $i did not say so: $(cat "$T/broken/make.out")"
	why=$why$(identical "$T/broken" "$T/clean-off" "prog main.o a.o b.o")
done
if [ -z "$why" ]; then passed; else fail "$why"; fi

testing "compiles of one file at once share a cold cache"
P=$T/par-cache
(cd "$W" && for i in 1 2 3; do MPCC_SET=$FISET MPCC_STEP_CACHE=$P "$MPCC" -arch=sm_90 -c a.cu -o p$i.o & done; wait)
(cd "$W" && MPCC_SET=$FISET MPCC_STEP_CACHE=$P "$MPCC" -arch=sm_90 -c a.cu -o p4.o)
if ! cmp -s "$W/p1.o" "$T/clean-fiset/a.o" || ! cmp -s "$W/p2.o" "$W/p1.o" ||
   ! cmp -s "$W/p3.o" "$W/p1.o" || ! cmp -s "$W/p4.o" "$W/p1.o"; then
	fail "the objects differ"
elif [ "$(tail -4 "$P/log" | grep -c '^hit')" != 4 ]; then
	fail "the last compile, into another object, ran a step: $(tail -4 "$P/log" | cut -c1-60)"
elif ls "$P" | grep -q tmp; then
	fail "temporary files left: $(ls "$P")"
else
	passed
fi

testing "an empty MPCC_STEP_CACHE is no cache: the object has nvcc's own temporary name"
if (cd "$W" && MPCC_STEP_CACHE= "$MPCC" -arch=sm_90 -c a.cu -o e.o) &&
   same "$W/e.o" "$T/nvcc-off/a.o" && ! grep -q tmpxft_00000000_00000000 "$W/e.o"; then
	passed
else
	fail "object"
fi

testing "mpcc-tune's builds share one cache in its work directory: cicc ran for nvcc's PTX and the fast-math variant alone"
if [ -z "$MPCC_TUNE" ]; then
	echo "skipped (no MPCC_TUNE)"
else
	FAKE="$MPCC_SRC/tests/driver/tune-fake"
	mkdir -p "$T/tune"
	cp "$FAKE/k.cu" "$FAKE/fake.sh" "$T/tune/"
	(cd "$T/tune" && "$MPCC_TUNE" --build "$MPCC -arch=sm_90 -ptx k.cu -o k.ptx" --run "sh fake.sh k.ptx" \
		--time 'time_ms=([0-9.]+)' --min-share 1 --runs 1 --qos 2.55e-4 --workdir "$T/tune/work" --keep >out 2>err)
	log=$T/tune/work/cache/log
	if ! grep -q 'winner: hot sfu lambda=32' "$T/tune/err"; then
		fail "the tune: $(tail -3 "$T/tune/err")"
	elif [ "$(grep -c '^miss [0-9a-f]* [^ ]*/cicc"* ' "$log")" != 2 ] ||
	     [ "$(grep -c '^hit [0-9a-f]* [^ ]*/cicc"* ' "$log")" -lt 10 ]; then
		fail "cicc: $(grep -o '^[a-z]* [0-9a-f]* [^ ]*/cicc' "$log" | cut -d' ' -f1 | sort | uniq -c | tr '\n' ' ')"
	else
		passed
	fi
fi

finish
