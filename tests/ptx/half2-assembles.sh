#!/bin/sh
# half2-assembles.sh IN.ptx PTXAS WORK MPCC-OPT...: pair every kernel of IN
# with every type, pairing and target (forced past the advice), assemble each
# result with ptxas. A kernel the pass refuses must come back unchanged.
# MPCC-OPT is a command with its options (lit's %mpcc-opt verifies).
in=$1 ptxas=$2 work=$3
shift 3
mkdir -p "$work" || exit 1
n=0
kernels=$(sed -n 's/^\.visible \.entry \([A-Za-z0-9_]*\)(.*/\1/p' "$in")
for sm in 90 80 75; do
	sed "s/^\.target sm_90/.target sm_$sm/" "$in" > "$work/in.ptx"
	for type in f16 bf16 f32; do
		[ $type = bf16 ] && [ $sm -lt 80 ] && continue
		for pairing in threads blocks; do
			for k in $kernels; do
				out="$work/$k-$type-$pairing-$sm.ptx"
				"$@" "$work/in.ptx" -p "half2:type=$type,pairing=$pairing,force=true,kernels=$k" \
					-o "$out" 2>"$work/note" || { echo "FAIL mpcc-opt $k $type $pairing sm_$sm"; continue; }
				if grep -q "left alone" "$work/note"; then
					cmp -s "$work/in.ptx" "$out" || echo "FAIL $k $type $pairing sm_$sm: refused but changed"
					continue
				fi
				"$ptxas" -arch=sm_$sm "$out" -o "$work/a.cubin" 2>"$work/err" ||
					{ echo "FAIL ptxas $k $type $pairing sm_$sm"; cat "$work/err"; continue; }
				n=$((n + 1))
			done
		done
	done
done
echo "half2 assembles: $n kernels"
