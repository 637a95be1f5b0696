#!/bin/sh
# sfu-nvcc.sh SRC MPCC_OPT WORKDIR: sfu's merge of every test kernel with
# its fast-math twin, as a build makes it. Each .cu of SRC/tests/kernels and
# SRC/tests/ptx/Inputs/kernels is compiled with nvcc -ptx -arch=sm_90, plain
# and -use_fast_math; sfu merges the two at lambda 32, the result must
# verify (mpcc-opt --verify) and assemble with ptxas. Prints the count of
# kernels and of merged ones.
src=$1 opt=$2 work=$3
command -v nvcc >/dev/null || PATH=/usr/local/cuda/bin:$PATH
command -v nvcc >/dev/null || { echo "FAIL sfu-nvcc: no nvcc"; exit 1; }
mkdir -p "$work" && cd "$work" || exit 1
n=0 merged=0 fail=0
for cu in "$src"/tests/kernels/*.cu "$src"/tests/ptx/Inputs/kernels/*.cu; do
	[ -f "$cu" ] || continue
	b=$(basename "$cu" .cu)
	nvcc -ptx -arch=sm_90 "$cu" -o "$b.ptx" 2>nvcc.err \
		&& nvcc -ptx -arch=sm_90 -use_fast_math "$cu" -o "$b.fast.ptx" 2>>nvcc.err \
		|| { echo "sfu-nvcc: nvcc failed on $cu (not counted)"; continue; }
	n=$((n + 1))
	"$opt" "$b.ptx" -p sfu:lambda=32,fast="$b.fast.ptx" --verify -o "$b.sfu.ptx" 2>sfu.err \
		|| { echo "FAIL verify $b"; cat sfu.err; fail=1; continue; }
	grep -q "kernel .* applied" sfu.err && merged=$((merged + 1))
	ptxas -arch=sm_90 "$b.sfu.ptx" -o "$b.cubin" || { echo "FAIL ptxas $b"; fail=1; }
done
echo "sfu-nvcc: $n kernels, $merged merged with their fast-math PTX"
[ $n -gt 0 ] || { echo "FAIL no kernels"; exit 1; }
exit $fail
