#!/bin/sh
# mpcc-tune on the sfu bench kernels, each built through the mpcc driver
# (so every candidate takes the MPCC_SET path and is checked in its
# report). For each kernel: an exhaustive search over lambda 0, 4, ..., 64
# gives the error and time curve; the QoS is then set at RATIO (0.6) of the
# error at lambda 64, and HEU must reach it in at most 5 trials and land
# within one step (4) of the exhaustive optimum at that QoS. Also: the
# timing build's kernel list and overhead, and the shadow build of the FP64
# kernel (output unchanged, one total per f64 operation).
# TUNE_OUT=DIR keeps the tables, logs and SVGs (tune.tsv is the summary);
# LINEAR=1 also runs the linear search (SMP) for its trial count.
. "$(dirname "$0")/gpu-lib.sh"
need_gpu
need_tune
RATIO=${RATIO:-0.6}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 4)}
printf 'kernel\tqos\texhaustive_best\texhaustive_speedup\theu_best\theu_speedup\theu_trials\tlinear_trials\ttiming_overhead\n' >"$O/tune.tsv"
failures=0

# the trials of a table: lambda, time, speedup, error, verdict (tab-separated)
rows() {
	python3 - "$1" <<'EOF'
import re, sys
for l in open(sys.argv[1]):
    m = re.match(r'\| t\d+ \| \S+ sfu lambda=(\d+) \| ([0-9.e+-]+) \| ([0-9.]+)x \| ([0-9.e+-]+) \| (.*) \|$', l)
    if m:
        print('\t'.join(m.groups()))
EOF
}

# tune K TYPE N NAME ARGS...: mpcc-tune on bench kernel K into $O/K.NAME.*
tune() {
	k=$1 ty=$2 n=$3 name=$4
	shift 4
	w=$d/$k
	rm -rf "$w" && mkdir -p "$w" && cp "$MPCC_SRC/bench/$k.cu" "$MPCC_SRC/bench/bench.h" "$w/"
	(cd "$w" && "$MPCC_TUNE" --build "$MPCC -O3 -arch=sm_90 -I . -o \$MPCC_TUNE_DIR/prog $k.cu" \
		--run "\$MPCC_TUNE_DIR/prog $n 12345 \$MPCC_TUNE_DIR/out.bin" \
		--output '$MPCC_TUNE_DIR/out.bin' --output-type "$ty" --time 'time_ms=([0-9.eE+-]+)' \
		--metric mean-rel --kernels "$k" --runs 1 --build-jobs "$JOBS" --dry-run \
		--svg "$O/$k.$name.svg" "$@" >"$O/$k.$name.out" 2>"$O/$k.$name.err")
}

for spec in boxmuller:f32:4194304 blackscholes:f32:4194304 coulomb:f32:262144 \
            bilateral:f32:8388608 fp64:f64:4194304; do
	k=${spec%%:*} rest=${spec#*:} ty=${rest%%:*} n=${rest#*:}
	echo "testing mpcc-tune on $k ..."
	tune "$k" "$ty" "$n" exhaustive --search exhaustive --qos 1
	rows "$O/$k.exhaustive.out" >"$O/$k.curve.tsv"
	e64=$(awk -F'\t' '$1 == 64 { print $4 }' "$O/$k.curve.tsv")
	[ -n "$e64" ] || { echo "FAILED: $k: no lambda 64 in the exhaustive search"; tail -5 "$O/$k.exhaustive.err"; failures=$((failures + 1)); continue; }
	qos=$(python3 -c "print('%.3g' % ($RATIO * $e64))")
	# the exhaustive optimum at that QoS: the fastest lambda whose error is within it
	ex=$(awk -F'\t' -v q="$qos" '$5 != "" && $4 + 0 <= q + 0 && (best == "" || $2 + 0 < bt) { best = $1; bt = $2 + 0; sp = $3 }
		END { print best "\t" sp }' "$O/$k.curve.tsv")
	tune "$k" "$ty" "$n" heu --search heu --qos "$qos"
	[ -n "$LINEAR" ] && tune "$k" "$ty" "$n" linear --search linear --qos "$qos"
	heu=$(sed -n "s/^| $k | sfu | heu | \([0-9]*\) | $k sfu lambda=\([0-9]*\) | .* |$/\2\t\1/p" "$O/$k.heu.out")
	lin=$([ -n "$LINEAR" ] && sed -n "s/^| $k | sfu | linear | \([0-9]*\) | .*/\1/p" "$O/$k.linear.out")
	hl=${heu%%	*} ht=${heu#*	}
	hs=$(awk -F'\t' -v l="$hl" '$1 == l { print $3 }' "$O/$k.curve.tsv")
	heusp=$(rows "$O/$k.heu.out" | awk -F'\t' -v l="$hl" '$1 == l { print $3 }')
	ov=$(sed -n 's/.*kernels (timing build.*, \([0-9.]*\)x the baseline.*/\1/p' "$O/$k.heu.err")
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$k" "$qos" "$ex" "$hl" "$heusp" "$ht" "$lin" "$ov" >>"$O/tune.tsv"
	el=${ex%%	*}
	if [ -z "$hl" ] || [ -z "$el" ]; then
		echo "FAILED: $k: heu '$heu', exhaustive '$ex'"; failures=$((failures + 1))
	elif [ "$ht" -gt 5 ] || [ $((hl - el)) -gt 4 ] || [ $((el - hl)) -gt 4 ]; then
		echo "FAILED: $k: heu lambda $hl in $ht trials, exhaustive $el (curve speedup at heu's: $hs)"
		failures=$((failures + 1))
	else
		echo "passed: $k: QoS $qos, heu lambda $hl in $ht trials, exhaustive $el"
	fi
done

echo "testing the shadow build of fp64 ..."
w=$d/shadow && mkdir -p "$w" && cp "$MPCC_SRC/bench/fp64.cu" "$MPCC_SRC/bench/bench.h" "$w/" && cd "$w" || exit 1
cc -O2 -o cmp "$MPCC_SRC/bench/cmp.c" -lm || fail "cmp"
"$NVCC" -O3 -arch=sm_90 -o plain fp64.cu || fail "nvcc"
MPCC_SET='shadow:measure=error' "$MPCC" -O3 -arch=sm_90 -o shadow fp64.cu --mpcc-report=r.json || fail "shadow build"
./plain 4194304 12345 plain.bin >plain.txt || fail "plain run"
./shadow 4194304 12345 shadow.bin >shadow.txt || fail "shadow run"
cp r.json "$O/shadow.report.json"
grep '^mpcc-shadow' shadow.txt | tail -40 >"$O/shadow.lines"
grep time_ms plain.txt shadow.txt >"$O/shadow.times"
ops=$(python3 -c "import json; print(len(json.loads(open('r.json').readline())['stats']['ops']))")
last=$(awk '/^mpcc-shadow/ { l[$3] = $0 } END { print length(l) }' shadow.txt)
same=$(./cmp d plain.bin shadow.bin)
echo "$same" >>"$O/shadow.times"
if [ "$last" != "$ops" ]; then
	echo "FAILED: shadow: $last instructions printed, the report has $ops"; failures=$((failures + 1))
elif ! echo "$same" | grep -q 'unwritten=0 '; then
	echo "FAILED: shadow output: $same"; failures=$((failures + 1))
else
	echo "passed: shadow: $ops f64 operations, totals printed; $(cat "$O/shadow.times" | tr '\n' ' ')"
fi
[ "$failures" = 0 ] || { echo "$failures failed"; exit 1; }
