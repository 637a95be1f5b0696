#!/bin/bash
# build-time.sh MPCC [LABEL]: a trial's build against a full build, without
# a GPU (OPTS: nvcc's options, -arch=sm_90 if unset; SETTING: B). bench/trial/regex.cu (one FP64 kernel, host code with <regex> and
# <iostream>) built by MPCC as mpcc-tune builds a trial: setting A
# (MPCC_SET=off) fills a step cache, then setting B (fiset on the kernel),
# which changes device code only, is built with a copy of that cache
# ("trial") and with an empty one ("full"), three times each; the two
# programs must be the same bytes.
M=${1:?usage: build-time.sh MPCC [LABEL]}
L=${2:-mpcc}
case $M in /*) ;; */*) M=$PWD/$M ;; esac
D=$(mktemp -d "${TMPDIR:-/tmp}/trial-build.XXXXXX")
trap 'rm -rf "$D"' EXIT
cp "$(dirname "$0")/regex.cu" "$D/h.cu"
cd "$D" || exit 1
A=off
B=${SETTING:-'off;fiset:sets=all,kernels=step*'}
O=${OPTS:--arch=sm_90}
PATH=/usr/local/cuda/bin:$PATH
t() {
	local s e
	s=$(date +%s.%N)
	"$@" >/dev/null 2>&1 || echo FAIL
	e=$(date +%s.%N)
	echo "$e - $s" | bc
}
MPCC_SET=$A MPCC_STEP_CACHE=$D/warm "$M" $O h.cu -o prog-a >/dev/null 2>&1
for i in 1 2 3; do
	rm -rf full trial
	full=$(MPCC_SET=$B MPCC_STEP_CACHE=$D/full t "$M" $O h.cu -o prog-full)
	cp -r warm trial
	trial=$(MPCC_SET=$B MPCC_STEP_CACHE=$D/trial t "$M" $O h.cu -o prog-trial)
	echo "$L run $i: full $full s, trial $trial s, ratio $(echo "scale=3; $trial / $full" | bc)"
done
cmp -s prog-full prog-trial && echo "$L: the trial's program is the full build's, byte for byte"
echo "$L: host objects re-embedded in the last trial: $(grep -c '^embed' trial/log)"
