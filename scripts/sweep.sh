#!/bin/sh
# Every pass over PTX of real code, as users will meet the passes.
# Usage: scripts/sweep.sh MPCC_OPT DIR [JOBS]
# For each .ptx under DIR (nvcc -ptx output of any CUDA code: samples,
# benchmark suites, your own) and each pass setting that `mpcc-opt
# --settings` lists (every pass's own from its table entry, then the
# transforms chained), runs
# "MPCC_OPT --verify FILE -p SETTING", then ptxas (for the PTX's own
# .target) on every output that differs from its input. A line a run:
#   OK SETTING FILE          changed, verified, assembled
#   SAME SETTING FILE        unchanged: no kernel, or each left alone with
#                            a reason (mpcc-opt's notes are in OUT/*.err)
#   FAIL-OPT SETTING FILE    mpcc-opt failed: a parse error, a pass's output
#                            the verifier rejects, a crash
#   FAIL-PTXAS SETTING FILE  ptxas rejected the output, or ran over 300 s
# then a count of each. Outputs and messages go to $OUT (default: a
# temporary folder, kept when a run failed). Exit status 1 if any failed.
set -u
if [ "${1:-}" = --one ]; then
	opt=$2 out=$3 f=$4 p=$5
	n=$(echo "$f" | tr '/' '_').$(echo "$p" | tr ':;,=' '____')
	sm=$(sed -n 's/^\.target \(sm_[0-9a-z]*\).*/\1/p' "$f" | head -1)
	args=$(echo "$p" | tr ';' '\n' | sed 's/^/-p /' | tr '\n' ' ')
	# shellcheck disable=SC2086
	if ! timeout 120 "$opt" --verify "$f" $args -o "$out/$n.ptx" 2>"$out/$n.err"; then
		echo "FAIL-OPT $p $f"
	elif cmp -s "$f" "$out/$n.ptx"; then
		echo "SAME $p $f"
		rm -f "$out/$n.ptx"
	elif timeout 300 ptxas -arch="${sm:-sm_90}" "$out/$n.ptx" -o /dev/null 2>"$out/$n.ptxas"; then
		echo "OK $p $f"
		rm -f "$out/$n.ptx"
	else
		echo "FAIL-PTXAS $p $f"
	fi
	exit 0
fi
[ $# -ge 2 ] || { echo "usage: sweep.sh MPCC_OPT DIR [JOBS]" >&2; exit 2; }
opt=$(command -v "$1") || { echo "sweep.sh: no mpcc-opt '$1'" >&2; exit 2; }
dir=$2 jobs=${3:-$(nproc)}
command -v ptxas >/dev/null || PATH=$PATH:/usr/local/cuda/bin
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
self=$(cd "$(dirname "$0")" && pwd)/sweep.sh
settings=$("$opt" --settings) && [ -n "$settings" ] ||
	{ echo "sweep.sh: '$opt --settings' lists no setting" >&2; exit 2; }
find "$dir" -name '*.ptx' | sort | while read -r f; do
	for p in $settings; do
		printf '%s\n%s\n' "$f" "$p"
	done
done | tr '\n' '\0' | xargs -0 -n 2 -P "$jobs" sh "$self" --one "$opt" "$out" >"$out/sweep.txt"
cat "$out/sweep.txt"
echo "--"
cut -d' ' -f1 "$out/sweep.txt" | sort | uniq -c
if grep -q '^FAIL' "$out/sweep.txt"; then
	echo "outputs and messages: $out"
	exit 1
fi
[ -n "${OUT:-}" ] || rm -rf "$out"
