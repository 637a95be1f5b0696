#!/bin/sh
# run.sh [RUNS]: the store runtime's idle cost on a GPU. launch.cu built
# twice, with the store runtime linked (its table has a clone, never
# launched: no array is ever narrow) and as nvcc builds it; run A B A B...
# RUNS times each (default 7); each run prints its launches per second
# (the best of 3 rounds of 100,000 empty launches). Prints each pair, the
# medians and their ratio (without / with: the runtime's cost), and fails
# above the issue's bar, 1.01.
# Environment: MPCC_BUILD (default build), NVCC, ARCH (default sm_90).
here=$(cd "$(dirname "$0")" && pwd)
MPCC_BUILD=${MPCC_BUILD:-$here/../../build}
MPCC=${MPCC:-$MPCC_BUILD/mpcc}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
ARCH=${ARCH:-sm_90}
runs=${1:-7}
export MPCC NVCC
export PATH="$(dirname "$NVCC"):$PATH"
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
NVFLAGS="-O2 -arch=$ARCH" sh "$here/build.sh" "$here/launch.cu" "$d/with" \
	"1 empty - c 0" "1 scale scale_mpcc_store c 3 w:f64>f32 - -" || exit 1
"$NVCC" -O2 -arch="$ARCH" "$here/launch.cu" -o "$d/without" || exit 1
: >"$d/a"
: >"$d/b"
for i in $(seq "$runs"); do
	a=$("$d/with" 100000 3) && b=$("$d/without" 100000 3) || { echo "FAILED: a run failed"; exit 1; }
	echo "$a" >>"$d/a"
	echo "$b" >>"$d/b"
	echo "run $i: with the runtime $a launches/s, without $b"
done
python3 - "$d/a" "$d/b" <<'PY'
import statistics, sys
a = [float(l) for l in open(sys.argv[1])]
b = [float(l) for l in open(sys.argv[2])]
ma, mb = statistics.median(a), statistics.median(b)
r = mb / ma
print('store runtime, idle: median %.0f launches/s with, %.0f without: %.4fx (bar 1.01x)' % (ma, mb, r))
sys.exit(0 if r <= 1.01 else 1)
PY
