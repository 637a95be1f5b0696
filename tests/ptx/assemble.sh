#!/bin/sh
# assemble.sh DIR MPCC_OPT PTXAS WORK: every hand-written test PTX under
# DIR/syntax and DIR/analysis assembles (ptxas -c for its .target), and its canonical
# print (-p reprint) gives the same cubin. debug-info.ptx is left out: its
# DWARF is a sketch that ptxas cannot assemble.
dir=$1 opt=$2 ptxas=$3 work=$4
mkdir -p "$work" || exit 1
n=0 fail=0
for x in "$dir"/syntax/*.ptx "$dir"/analysis/*.ptx; do
	case $x in */debug-info.ptx) continue;; esac
	n=$((n + 1))
	arch=$(sed -n 's/^\.target \(sm_[0-9a-z]*\).*/\1/p' "$x")
	"$ptxas" -c -arch=$arch "$x" -o "$work/a.cubin" || { echo "FAIL ptxas $x"; fail=1; continue; }
	"$opt" "$x" -p reprint -o "$work/r.ptx" || { echo "FAIL reprint $x"; fail=1; continue; }
	"$ptxas" -c -arch=$arch "$work/r.ptx" -o "$work/b.cubin" && cmp -s "$work/a.cubin" "$work/b.cubin" \
		|| { echo "FAIL cubin $x"; fail=1; }
done
echo "assemble: $n files"
exit $fail
