#!/bin/sh
# fake.sh PTX: the fake program of the mpcc-tune tests. It "runs" the
# kernels that the build put into PTX: lambda is read from the sfu
# partition of kernel 'hot' (64 for the fast body alone, 0 for none), and the program prints a figure of
# merit and eight numbers that are known functions of lambda:
#   time_ms = 10 * (1 - lambda / 128)             (faster with lambda)
#   every number off by E = 1e-3 * (lambda/64)^2 (relative, alternating sign)
# so that mean-rel = max-rel = E. With the shadow pass's timers in the PTX it
# prints the lines a timed build would ("mpcc-time KERNEL LAUNCHES NS").
# FAKE_FAIL=nan|crash|count|sleep makes every lambda >= 48 fail that way.
# FAKE_LOG=FILE appends "CUDA_VISIBLE_DEVICES=..." per run.
ptx=$1
lambda=$(grep -A1 'mov.u32.*%warpid' "$ptx" | sed -n 's/.*setp\.lt\.u32.*, \([0-9][0-9]*\);.*/\1/p' | head -1)
# at lambda 64 every warp of an sm_90 takes the fast body, and sfu keeps it
# alone: approximations and no partition
[ -z "$lambda" ] && grep -q 'rcp\.approx\.ftz\.f64' "$ptx" && lambda=64
: "${lambda:=0}"
[ -n "$FAKE_LOG" ] && echo "CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES-unset} lambda=$lambda" >>"$FAKE_LOG"
if grep -q '__mpcc_sh[0-9]*_enter' "$ptx"; then
	echo "mpcc-time _Z3hotiPKdPd 3 20000000"
	echo "mpcc-time _Z4coldiPd 1 100"
fi
if [ "$lambda" -ge 48 ]; then
	case $FAKE_FAIL in
	crash) exit 3 ;;
	sleep) sleep 2 ;;
	esac
fi
awk -v l="$lambda" -v f="${FAKE_FAIL:-}" 'BEGIN {
	e = 1e-3 * (l / 64) ^ 2
	printf "time_ms=%.6f\n", 10 * (1 - l / 128)
	n = (f == "count" && l >= 48) ? 9 : 8
	for (i = 0; i < n; i++) {
		v = (i + 1) * 1.5 * (1 + (i % 2 ? -e : e))
		if (f == "nan" && l >= 48 && i == 3)
			printf "nan\n"
		else
			printf "%.17g\n", v
	}
}'
