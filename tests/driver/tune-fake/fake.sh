#!/bin/sh
# fake.sh PTX: the fake program of the mpcc-tune tests. It "runs" the
# kernels that the build put into PTX: lambda is read from the sfu
# partition of kernel 'hot' (64 for the fast body alone, 0 for none), the
# sets fiset lowered from the f64-to-f32 conversions of kernel 'multi'
# (sets.cu: one a set), and the program prints a figure of merit and eight
# numbers that are known functions of them:
#   time_ms = 10 * (1 - lambda / 128) * (1 - 0.12 sets)     (faster with both;
#             FAKE_KTIME=slow: 1 + 0.12 sets)
#   every number off by E = 1e-3 * (lambda/64)^2 + 1e-6 sets (relative,
#   alternating sign)
# so that mean-rel = max-rel = E. With the shadow pass's timers in the PTX it
# prints the lines a timed build would ("mpcc-time KERNEL LAUNCHES NS") for
# each kernel of the PTX: hot, multi and big 20 ms, cold 100 ns. With its
# error shadows in the PTX's kernel (sets.cu or big.cu) it prints the lines
# a shadow build would ("mpcc-shadow KERNEL INS LAUNCHES TOTAL"), one for
# each instruction shadowed, the k-th (from 1) with TOTAL k * 1e-6.
# FAKE_FAIL=nan|crash|count|sleep|words makes every lambda >= 48 fail that way
# (words: the run prints "check: PASS", there and with 3 sets "check: FAIL");
# FAKE_FAIL=base makes the program with no transform (the baseline's
# build, not timed) exit 3.
# FAKE_LOG=FILE appends "CUDA_VISIBLE_DEVICES=... lambda=... slurm_job=... timed=yes|no
# dir=... start=..." per run (timed: the timing build's; dir: the last name
# of $MPCC_TUNE_DIR, the trial's; start: when it started, seconds since 1970).
# FAKE_NOGPU=1: prints what a CUDA program prints without a GPU, no number.
# FAKE_BASENAN=1: the fourth number is nan whatever the setting.
# FAKE_NOISE=P: time_ms is 10 +- P% at random, whatever the setting.
# FAKE_JITTER=P: time_ms is its setting's +- P% at random.
# FAKE_OUTLIER=FILE: the third run of the program with no transform (the
# baseline's build, not timed) takes 3x the others' time_ms; FILE gets the
# time_ms of each of those runs, a line each.
# FAKE_SLEEP=S: sleeps S seconds first (a run its kernels are a small part of).
# FAKE_BANNER=1: prints a line before the figure of merit (a pattern's ^ must
# match at a line that is not the first).
# FAKE_STAGES=1: prints the time of each of three stages instead, "stage N
# time_ms=X", X = time_ms N/3 (timers a pattern names one of).
# FAKE_HOST=1: prints "on host hNNNN", another at each run.
# FAKE_RATE=1: prints "Performance: MLUPS" and, on a line of its own, a rate
# that varies +-3% at random from run to run whatever the setting (as
# HeCBench's d3q19-bgk does).
# FAKE_TRIPS=1: a timed build's run also prints the trip counts of multi's
# three loops (loops.cu), "mpcc-trips KERNEL LAUNCHES LOOP HEADS ENTRIES" at
# launches 1 and 2: 64, 1.5 and 0 trips per entry.
# Kernels flat (flat.cu, lowratio.cu) and flt (mixed.cu) are timed (20 ms)
# and change nothing else: no setting of theirs makes the program faster.
# FAKE_STREAMS=side|after: the timed lines are a launch each, with its
# shape and its span by %globaltimer, "mpcc-time KERNEL LAUNCH NS 67584 256
# 132 START END" (NS: the total so far); side: the kernels run side by
# side, each on a stream of its own from the same instant; after: one
# after another, as on one stream, each starting the ns the last ended.
# FAKE_KTIME=fast|slow|misled: in a timed build, multi's time is 12% shorter
# (fast) or longer (slow, misled) for each f64-to-f32 conversion in it (a
# kernel fiset's model misjudges); slow makes time_ms longer by as much
# (the plain build agrees), misled leaves it shorter (the timing build's
# own code misleads, as on a kernel bound by latency) and makes multi 100x
# as long in the timed lines: all of the run's wall time.
ptx=$1
# FAKE_FLIP="KERNEL:PARAM ...": where store made clones and
# MPCC_STORE_REPORT is set, the run appends what the runtime would report:
# each clone's kernel launched 10 times, and each PARAM of it converted to
# the narrow form at every one of them (another reader wants it as it was)
if [ -n "${MPCC_STORE_REPORT:-}" ] && grep -q '_mpcc_store(' "$ptx"; then
	for k in $(sed -n 's/^\.visible \.entry \([A-Za-z0-9_$]*\)_mpcc_store(.*/\1/p' "$ptx"); do
		echo "{\"kernel\":\"$k\",\"clone\":\"${k}_mpcc_store\",\"launches\":{\"clone\":10,\"original\":0},\"why_original\":{}}"
		for f in ${FAKE_FLIP:-}; do
			[ "${f%%:*}" = "$k" ] && echo "{\"kernel\":\"$k\",\"param\":${f#*:},\"type\":\"f64>f32\",\"to_narrow\":10,\"to_narrow_bytes\":80,\"back\":0,\"back_bytes\":0}"
		done
	done >>"$MPCC_STORE_REPORT"
fi
# FAKE_STORE=P: store's clones run as the runtime would run them: with a
# clone of every kernel of the PTX that has f64 arrays (f64 in its body)
# they stay narrow and time_ms is P% shorter; with clones of some of them
# only, the others convert the arrays back at each launch and time_ms is
# P% longer
sx=1
if [ -n "${FAKE_STORE:-}" ] && grep -q '_mpcc_store(' "$ptx"; then
	sx=$(awk -v p="$FAKE_STORE" '
		/^\.visible \.entry / { k = $3; c = sub(/_mpcc_store\($/, "(", k); if (c) clone[k] = 1 }
		/\.f64/ && k != "" && !c { f64[k] = 1 }
		END { for (k in f64) all += !(k in clone); print all ? 1 + p / 100 : 1 - p / 100 }' "$ptx")
fi
# store's clones run only under the runtime mpcc links into a program,
# which this fake has not: like such a program, it runs its kernels
if grep -q '_mpcc_store(' "$ptx"; then
	sed '/\.entry [A-Za-z0-9_$]*_mpcc_store(/,/^}/d' "$ptx" >"$ptx.kernels"
	ptx=$ptx.kernels
fi
if [ -n "$FAKE_NOGPU" ]; then
	echo "CUDA error: no CUDA-capable device is detected"
	exit 0
fi
started=$(date +%s.%N)
[ -n "$FAKE_SLEEP" ] && sleep "$FAKE_SLEEP"
lambda=$(grep -A1 'mov.u32.*%warpid' "$ptx" | sed -n 's/.*setp\.lt\.u32.*, \([0-9][0-9]*\);.*/\1/p' | head -1)
# at lambda 64 every warp of an sm_90 takes the fast body, and sfu keeps it
# alone: approximations and no partition
[ -z "$lambda" ] && grep -q 'rcp\.approx\.ftz\.f64' "$ptx" && lambda=64
: "${lambda:=0}"
sets=$(sed -n '/\.entry _Z5multi/,/^}/p' "$ptx" | grep -c 'cvt\.rn\.f32\.f64')
# an error shadow build's f32 twins (cvt, rcp.approx) lower nothing
grep -q '__mpcc_sh[0-9]*_ins\[' "$ptx" && lambda=0 sets=0
timed=no
grep -q '__mpcc_sh[0-9]*_enter' "$ptx" && timed=yes
[ -n "$FAKE_LOG" ] && echo "CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES-unset} lambda=$lambda slurm_job=${SLURM_JOB_ID-none} timed=$timed dir=$(basename "${MPCC_TUNE_DIR:-none}") start=$started" >>"$FAKE_LOG"
# timed KERNEL LAUNCHES NS: its timed lines, NS over the launches
clock=1000000000
timed() {
	if [ -z "$FAKE_STREAMS" ]; then
		echo "mpcc-time $1 $2 $3"
		return
	fi
	i=1 at=$clock
	while [ $i -le "$2" ]; do
		echo "mpcc-time $1 $i $(($3 * i / $2)) 67584 256 132 $at $((at + $3 / $2))"
		at=$((at + $3 / $2 + 1000)) i=$((i + 1))
	done
	[ "$FAKE_STREAMS" = after ] && clock=$((at - 1000))
	return 0
}
if [ $timed = yes ]; then
	grep -q '\.entry _Z3hotiPKdPd' "$ptx" && timed _Z3hotiPKdPd 3 20000000
	grep -q '\.entry _Z4coldiPd' "$ptx" && timed _Z4coldiPd 1 100
	mns=20000000
	case ${FAKE_KTIME:-} in
	fast) mns=$((mns * (100 - 12 * sets) / 100)) ;;
	slow) mns=$((mns * (100 + 12 * sets) / 100)) ;;
	# misled: 2 s and more, longer than any run of this script takes, so
	# multi's share of the run's wall time is all of it, however loaded
	misled) mns=$((mns * (100 + 12 * sets))) ;;
	esac
	grep -q '\.entry _Z5multi' "$ptx" && timed _Z5multiiPKdS0_S0_Pd 1 $mns
	grep -q '\.entry _Z3big' "$ptx" && timed _Z3bigiPKdPd 1 20000000
	grep -q '\.entry _Z4flat' "$ptx" && timed _Z4flatiPKdPd 1 20000000
	grep -q '\.entry _Z3flt' "$ptx" && timed _Z3fltiPf 1 20000000
	if [ -n "$FAKE_TRIPS" ] && grep -q '\.entry _Z5multi' "$ptx"; then
		for l in "1 1 64 1" "1 2 3 2" "1 3 0 0" "2 1 128 2" "2 2 6 4" "2 3 0 0"; do
			echo "mpcc-trips _Z5multiiPKdS0_S0_Pd $l"
		done
	fi
fi
[ -n "$FAKE_BANNER" ] && echo 'fake program, one run'
[ -n "$FAKE_HOST" ] && echo "on host h$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')"
if [ "${FAKE_FAIL:-}" = words ]; then
	if [ "$lambda" -ge 48 ] || [ "$sets" -ge 3 ]; then echo 'check: FAIL'; else echo 'check: PASS'; fi
fi
# FAKE_TIMEDX=N: a timed build's time_ms is N times the plain build's (its
# instrumentation's cost); FAKE_NONUM=1: the run prints time_ms and no number
[ $timed = yes ] && [ -n "${FAKE_TIMEDX:-}" ] && sx=$(awk -v a="$sx" -v b="$FAKE_TIMEDX" 'BEGIN { print a * b }')
if grep -q '__mpcc_sh[0-9]*_ins\[' "$ptx"; then
	k=$(sed -n 's/^\.visible \.entry \([A-Za-z0-9_]*\)(.*/\1/p' "$ptx" | head -1)
	sed -n 's/^\.global .* __mpcc_sh[0-9]*_ins\[[0-9]*\] = {\(.*\)};$/\1/p' "$ptx" | tr -d ' ' | tr ',' '\n' |
		awk -v k="$k" '{ printf "mpcc-shadow %s %s 1 %.9e\n", k, $1, NR * 1e-6 }'
fi
[ "${FAKE_FAIL:-}" = base ] && [ "$lambda$sets$timed" = 00no ] && exit 3
if [ "$lambda" -ge 48 ]; then
	case $FAKE_FAIL in
	crash) exit 3 ;;
	sleep) sleep 2 ;;
	esac
fi
slow=1 tf=
if [ -n "$FAKE_OUTLIER" ] && [ "$lambda$sets$timed" = 00no ]; then
	tf=$FAKE_OUTLIER
	[ "$(cat "$tf" 2>/dev/null | wc -l)" = 2 ] && slow=3
fi
# mawk's srand() takes seeds of 2^31 and over as one: below it
seed=$(($(od -An -N4 -tu4 /dev/urandom) % 2147483647))
awk -v l="$lambda" -v s="$sets" -v f="${FAKE_FAIL:-}" -v noise="${FAKE_NOISE:-}" -v sx="$sx" \
    -v jitter="${FAKE_JITTER:-0}" -v slow="$slow" -v tf="$tf" -v bn="${FAKE_BASENAN:-}" \
    -v seed="$seed" -v kt="${FAKE_KTIME:-}" -v nonum="${FAKE_NONUM:-}" -v stages="${FAKE_STAGES:-}" 'BEGIN {
	e = 1e-3 * (l / 64) ^ 2 + 1e-6 * s
	srand(seed)
	t = noise != "" ? 10 * (1 + noise / 100 * (2 * rand() - 1)) : 10 * (1 - l / 128) * (kt == "slow" ? 1 + 0.12 * s : 1 - 0.12 * s)
	t *= sx * slow * (1 + jitter / 100 * (2 * rand() - 1))
	for (i = 1; i <= 3 && stages != ""; i++)
		printf "stage %d time_ms=%.6f\n", i, t * i / 3
	if (stages == "")
		printf "time_ms=%.6f\n", t
	if (tf != "")
		printf "%.6f\n", t >>tf
	n = (f == "count" && l >= 48) ? 9 : nonum != "" ? 0 : 8
	for (i = 0; i < n; i++) {
		v = (i + 1) * 1.5 * (1 + (i % 2 ? -e : e))
		if ((f == "nan" && l >= 48 && i == 3) || (bn != "" && i == 3))
			printf "nan\n"
		else
			printf "%.17g\n", v
	}
}'
if [ -n "${FAKE_RATE:-}" ]; then
	echo 'Performance: MLUPS'
	awk -v seed="$seed" 'BEGIN { srand(seed + 1); printf "%.4f\n", 6600 * (1 + 0.03 * (2 * rand() - 1)) }'
fi
