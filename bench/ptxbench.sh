#!/bin/sh
# ptxbench.sh [BUILD] [KERNELS] [UNROLL]: parse+print throughput of mpcc-opt
# on a large generated PTX file (bench/ptxgen.py), with peak memory.
#   bench/ptxbench.sh build 400 400     # ~107 MB, 3.7 M lines
# Checks first that ptxas accepts a small file from the same generator and
# that the large file round-trips byte for byte.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build} k=${2:-400} u=${3:-400}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 "$top/bench/ptxgen.py" --kernels 3 --unroll 12 -o "$tmp/small.ptx"
if command -v ptxas >/dev/null; then
	ptxas -arch=sm_80 "$tmp/small.ptx" -o "$tmp/small.cubin"
	echo "ptxas accepts the generator's output"
fi
python3 "$top/bench/ptxgen.py" --kernels "$k" --unroll "$u" -o "$tmp/big.ptx"
size=$(wc -c <"$tmp/big.ptx")
lines=$(wc -l <"$tmp/big.ptx")
cat "$tmp/big.ptx" >/dev/null   # in the page cache
/usr/bin/time -v "$build/mpcc-opt" "$tmp/big.ptx" -o "$tmp/out.ptx" 2>"$tmp/time"
cmp "$tmp/big.ptx" "$tmp/out.ptx"
secs=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$tmp/time" | awk -F: '{ print $(NF-1) * 60 + $NF }')
rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$tmp/time")
awk -v b="$size" -v l="$lines" -v s="$secs" -v r="$rss" 'BEGIN {
	printf "input %.1f MB, %d lines; parse+print %.2f s: %.1f MB/s; peak memory %.0f MB (%.1fx the input)\n",
	       b / 1e6, l, s, b / 1e6 / s, r / 1024, r * 1024 / b }'
