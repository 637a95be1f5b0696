#!/bin/sh
# roundtrip.sh SRC MPCC_OPT WORKDIR: the round trip over every test kernel.
# Each .cu of SRC/tests/kernels (the driver's test kernels) and of
# SRC/tests/ptx/Inputs/kernels is compiled with nvcc -ptx for sm_80 and sm_90,
# each plain, with -G and with -lineinfo. For each PTX file x:
#   print(parse(x)) == x, textually
#   ptxas gives the same cubin for x and print(parse(x))
#   without debug info, the canonical printer (-p reprint) gives the same cubin
#   and reprint is idempotent: print(parse(reprint(x))) == reprint(x)
#   x verifies (mpcc-opt --verify), and so does sfu's merge of x with its
#   own copy (the FP64 rewrites); sfu-nvcc.sh merges with -use_fast_math PTX
# -G and -lineinfo cubins embed the PTX text (.nv_debug_ptx_txt), so only the
# byte-exact print keeps them identical; the canonical print is checked on
# the plain builds. Prints the number of files and lines.
src=$1 opt=$2 work=$3
command -v nvcc >/dev/null || PATH=/usr/local/cuda/bin:$PATH
command -v nvcc >/dev/null || { echo "FAIL roundtrip: no nvcc"; exit 1; }
mkdir -p "$work" && cd "$work" || exit 1
files=0 lines=0 fail=0
for cu in "$src"/tests/kernels/*.cu "$src"/tests/ptx/Inputs/kernels/*.cu; do
	[ -f "$cu" ] || continue
	b=$(basename "$cu" .cu)
	for arch in 80 90; do
		for flag in plain -G -lineinfo; do
			x=${b}_${arch}$flag.ptx
			f=$flag; [ "$f" = plain ] && f=
			if ! nvcc -ptx -arch=sm_$arch $f "$cu" -o "$x" 2>nvcc.err; then
				echo "roundtrip: nvcc failed on $cu $f (not counted)"; cat nvcc.err; continue
			fi
			files=$((files + 1))
			lines=$((lines + $(wc -l <"$x")))
			if ! "$opt" "$x" -o "rt.ptx"; then
				echo "FAIL parse $x"; fail=1; continue
			fi
			"$opt" --verify "$x" -o /dev/null || { echo "FAIL verify $x"; fail=1; }
			"$opt" "$x" -p sfu:lambda=32 --verify -o sfu.ptx 2>sfu.err \
				|| { echo "FAIL sfu verify $x"; cat sfu.err; fail=1; }
			cmp -s "$x" rt.ptx || { echo "FAIL text $x"; fail=1; }
			ptxas -arch=sm_$arch "$x" -o a.cubin && ptxas -arch=sm_$arch rt.ptx -o b.cubin \
				&& cmp -s a.cubin b.cubin || { echo "FAIL cubin $x"; fail=1; }
			[ "$flag" = plain ] || continue
			"$opt" "$x" -p reprint -o rp.ptx && "$opt" rp.ptx -p reprint -o rp2.ptx \
				&& cmp -s rp.ptx rp2.ptx || { echo "FAIL reprint idempotence $x"; fail=1; }
			ptxas -arch=sm_$arch rp.ptx -o c.cubin && cmp -s a.cubin c.cubin \
				|| { echo "FAIL reprint cubin $x"; fail=1; }
		done
	done
done
echo "roundtrip: $files files, $lines lines, sm_80 and sm_90, plain/-G/-lineinfo"
[ $files -gt 0 ] || { echo "FAIL no kernels"; exit 1; }
exit $fail
