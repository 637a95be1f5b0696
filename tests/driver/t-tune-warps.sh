#!/bin/sh
# mpcc-tune tells fiset's cost model how many warps an SM holds in a
# kernel's launches (issue 27: the model took every launch to fill the GPU
# and mispredicted an n-body kernel of 16 warps an SM, 0.96x for 1.15x
# measured): the timing build's lines carry each launch's threads, a
# block's and %nsmid; the kernel table shows the warps, and every fiset
# trial of that kernel, and the rule written, carry warps=N. Against the
# fake program of t-tune-fake.sh, its timing lines given a launch shape.
. "$(dirname "$0")/lib.sh"
: "${MPCC_TUNE:?set MPCC_TUNE to the mpcc-tune executable}"
FAKE="$MPCC_SRC/tests/driver/tune-fake"

# tune DIR SHAPE: mpcc-tune --transform fiset on sets.cu, the fake's
# mpcc-time lines followed by SHAPE ("THREADS BLOCK NSMID", or nothing)
tune() {
	d=$T/$1
	rm -rf "$d" && mkdir -p "$d" && cp "$FAKE/sets.cu" "$FAKE/fake.sh" "$d/"
	(cd "$d" && "$MPCC_TUNE" --build "$MPCC -arch=sm_90 -ptx sets.cu -o k.ptx" \
		--run "sh fake.sh k.ptx | sed 's/^mpcc-time .*/& $2/'" --time 'time_ms=([0-9.]+)' \
		--qos 1e-4 --transform fiset --runs 1 --workdir "$d/work" >out 2>err)
	echo $? >"$d/rc"
}

testing "264 blocks of 256 threads on 132 SMs: 16 warps an SM, in every fiset trial and the rule"
tune w16 "67584 256 132"
d=$T/w16
if [ "$(cat "$d/rc")" != 0 ]; then
	fail "mpcc-tune failed: $(tail -5 "$d/err")"
elif ! grep -q '^ *100.0%  *[0-9.]*%  *[0-9.]*  *[0-9]*  *16  *[^ ]*  multi(' "$d/err"; then
	fail "no 16 warps/SM in the kernel table: $(grep -A3 'kernels (timing' "$d/err")"
elif grep 'multi fiset' "$d/out" | grep -v -q 'warps=16'; then
	fail "a fiset trial without warps=16: $(grep 'multi fiset' "$d/out" | grep -v 'warps=16')"
elif ! grep -q 'fiset: {sets: all.*warps: 16' "$d/.mpcc.yaml"; then
	fail "the rule has no warps: 16: $(grep -A3 'kernels:' "$d/.mpcc.yaml")"
else
	passed
fi

# shape DIR W: the kernel table shows W warps/SM for multi, the rule warps: W
shape() {
	if ! grep -q "^ *100.0%  *[0-9.]*%  *[0-9.]*  *[0-9]*  *$2  *[^ ]*  multi(" "$T/$1/err" ||
	   ! grep -q "warps: $2" "$T/$1/.mpcc.yaml"; then
		fail "$(grep -A3 'kernels (timing' "$T/$1/err"; grep -A3 'kernels:' "$T/$1/.mpcc.yaml")"
	else
		passed
	fi
}

testing "a launch that fills the GPU (8 blocks of 256 an SM) is 64 warps; more are still 64"
tune w64 "4000000 256 132"
shape w64 64

testing "blocks of one warp: an SM holds 32 of them at most, 32 warps"
tune w32 "4000000 32 132"
shape w32 32

testing "timing lines without a launch shape: no warps is made up (the rule keeps the default, 0)"
tune none ""
if [ "$(cat "$T/none/rc")" != 0 ] || grep -q 'warps=' "$T/none/out" ||
   ! grep -q 'fiset: {sets: all.*warps: 0}' "$T/none/.mpcc.yaml" ||
   ! grep -q '^ *100.0%  *[0-9.]*%  *[0-9.]*  *[0-9]*  *-  *[^ ]*  multi(' "$T/none/err"; then
	fail "$(grep -A3 'kernels (timing' "$T/none/err"; grep warps "$T/none/out" "$T/none/.mpcc.yaml")"
else
	passed
fi
finish
