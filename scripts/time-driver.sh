#!/bin/sh
# Median compile time of mpcc against plain nvcc on the same file:
# pass-through (no policy) and the forced pipeline (dryrun, replay, hook).
# Usage: scripts/time-driver.sh [MPCC [FILE.cu [RUNS [NVCC FLAGS...]]]]
# Runs are interleaved (nvcc, pass, forced, nvcc, ...) so load drifts
# evenly over the three.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
mpcc=${1:-$top/build/mpcc}
cu=${2:-$top/tests/kernels/math.cu}
runs=${3:-7}
[ $# -gt 3 ] && shift 3 || set --
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
now() { date +%s.%N; }
one() {  # one LABEL CMD...: append the seconds CMD takes to $t/LABEL
	label=$1
	shift
	s=$(now)
	"$@" >/dev/null 2>&1
	e=$(now)
	awk "BEGIN { print $e - $s }" >>"$t/$label"
}
for i in $(seq "$runs"); do
	one nvcc nvcc -c "$@" "$cu" -o "$t/n.o"
	one pass "$mpcc" -c "$@" "$cu" -o "$t/p.o"
	one forced "$mpcc" --mpcc-force-pipeline -c "$@" "$cu" -o "$t/f.o"
done
median() { sort -n "$t/$1" | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
n=$(median nvcc)
p=$(median pass)
f=$(median forced)
printf 'file %s, %s runs each, flags: %s\n' "$(basename "$cu")" "$runs" "${*:-(none)}"
printf 'nvcc            %.3f s\n' "$n"
printf 'pass-through    %.3f s  %.3fx\n' "$p" "$(awk "BEGIN { print $p / $n }")"
printf 'forced pipeline %.3f s  %.3fx\n' "$f" "$(awk "BEGIN { print $f / $n }")"
