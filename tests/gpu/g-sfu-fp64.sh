#!/bin/sh
# The FP64 forms of the sfu pass on a GPU: a/b, 1/a, sqrt(a) and 1/sqrt(a)
# rewritten by mpcc-opt -p sfu:lambda=64 (no fast PTX: FP64 rewrites only),
# without and with a Newton step, against the correctly rounded operations on
# 2^20 random inputs of magnitudes 2^-500..2^500. Stated bounds on the max
# relative error: 1e-4 without Newton (the SFU's rcp/rsqrt seeds), 1e-12 with
# one Newton step. Needs nvcc, ptxas, mpcc-opt ($MPCC_OPT) and a GPU.
. "$(dirname "$0")/gpu-lib.sh"
need_gpu
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
src="$MPCC_SRC/tests/gpu/fp64forms.cu"
"$NVCC" -O3 -arch="$ARCH" -o "$d/fp64forms" "$src" || fail "nvcc failed"
"$NVCC" -O3 -arch="$ARCH" -ptx -o "$d/f.ptx" "$src" || fail "nvcc -ptx failed"
echo "testing fp64 forms: exact build ..."
"$d/fp64forms" 1048576 7 0 || fail "the plain build is not exact"
for newton in false true; do
	max=1e-4
	[ $newton = true ] && max=1e-12
	"$MPCC_OPT" "$d/f.ptx" -p "sfu:lambda=64,newton=$newton" -o "$d/n$newton.ptx" || fail "mpcc-opt failed"
	"$PTXAS" -arch="$ARCH" -o "$d/n$newton.cubin" "$d/n$newton.ptx" || fail "ptxas rejected the forms (newton=$newton)"
	# the rewrite really happened: the approximations are in the PTX
	[ "$(grep -c 'rcp.approx.ftz.f64\|rsqrt.approx.f64' "$d/n$newton.ptx")" -ge 4 ] ||
		fail "mpcc-opt rewrote fewer than the 4 forms (newton=$newton)"
	echo "testing fp64 forms, newton=$newton, max rel err <= $max ..."
	BENCH_CUBIN="$d/n$newton.cubin" "$d/fp64forms" 1048576 7 $max >"$d/out" ||
		fail "fp64 forms (newton=$newton): $(cat "$d/out")"
	cat "$d/out"
	# and they are approximations: without Newton the division and the
	# reciprocal cannot be exact (the plain build is, max 0)
	if [ $newton = false ]; then
		grep -E '^form (a/b|1/a) ' "$d/out" | grep -q 'max_rel=0\.000e+00' &&
			fail "the division or reciprocal is exact: the rewrite did not run"
	fi
done
echo "testing fp64 forms ... passed"
