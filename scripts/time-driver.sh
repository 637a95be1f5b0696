#!/bin/sh
# Median compile time of mpcc against plain nvcc on the same file:
# pass-through (no rule applies), the forced pipeline (dryrun, replay, hook)
# and a build with a policy's rules (the file's own .mpcc.yaml, or
# POLICY=FILE; PROFILE=NAME picks its profile); with BASE=MPCC also the
# rule build by another mpcc (an older one, to compare).
# Usage: [POLICY=F] [PROFILE=P] [BASE=MPCC] scripts/time-driver.sh [MPCC [FILE.cu [RUNS [NVCC FLAGS...]]]]
# Runs are interleaved (nvcc, pass, forced, rule, base, nvcc, ...) so load
# drifts evenly over them; the load average is printed before and after.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
mpcc=${1:-$top/build/mpcc}
cu=${2:-$top/tests/kernels/math.cu}
runs=${3:-7}
[ $# -gt 3 ] && shift 3 || set --
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
unset MPCC_POLICY MPCC_PROFILE MPCC_REPORT MPCC_FORCE_PIPELINE
printf 'version: 1\ndefault_profile: none\nprofiles:\n  none: {}\n' >"$t/none.yaml"
none="--mpcc-policy=$t/none.yaml"
rp=${POLICY:+--mpcc-policy=$POLICY}
pp=${PROFILE:+--mpcc-profile=$PROFILE}
now() { date +%s.%N; }
one() {  # one LABEL CMD...: append the seconds CMD takes to $t/LABEL
	label=$1
	shift
	s=$(now)
	"$@" >/dev/null 2>"$t/$label.err" || { cat "$t/$label.err"; exit 1; }
	e=$(now)
	awk "BEGIN { print $e - $s }" >>"$t/$label"
}
load() { cut -d' ' -f1-3 /proc/loadavg; }
l0=$(load)
"$mpcc" ${rp:+"$rp"} ${pp:+"$pp"} --mpcc-report="$t/report" -c "$@" "$cu" -o "$t/r.o"
applied=$(grep -c '"applied":true' "$t/report" 2>/dev/null || true)
for i in $(seq "$runs"); do
	one nvcc nvcc -c "$@" "$cu" -o "$t/n.o"
	one pass "$mpcc" "$none" -c "$@" "$cu" -o "$t/p.o"
	one forced "$mpcc" "$none" --mpcc-force-pipeline -c "$@" "$cu" -o "$t/f.o"
	one rule "$mpcc" ${rp:+"$rp"} ${pp:+"$pp"} -c "$@" "$cu" -o "$t/r.o"
	[ -z "$BASE" ] || one base "$BASE" ${rp:+"$rp"} ${pp:+"$pp"} -c "$@" "$cu" -o "$t/b.o"
done
median() { sort -n "$t/$1" | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
n=$(median nvcc)
printf 'file %s, %s runs each, flags: %s\n' "$(basename "$cu")" "$runs" "${*:-(none)}"
printf 'load average %s before, %s after; %s cores\n' "$l0" "$(load)" "$(nproc)"
printf 'nvcc            %.3f s\n' "$n"
row() { m=$(median "$2"); printf '%-15s %.3f s  %.3fx\n' "$1" "$m" "$(awk "BEGIN { print $m / $n }")"; }
row pass-through pass
row 'forced pipeline' forced
row "rule" rule
[ -z "$BASE" ] || row "rule (BASE)" base
printf '(rule: %s transforms applied per compile, policy %s)\n' "${applied:-0}" "${POLICY:-found from the file}"
