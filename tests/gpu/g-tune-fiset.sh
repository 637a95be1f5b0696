#!/bin/sh
# mpcc-tune --transform fiset on fiset's FP64 bench kernels (nbody, lj),
# every candidate built through the mpcc driver: GPUMixer's modes 1, 2 and
# 3 (paper 003, 4.5) with the shadow build's ranking. For each:
#   mode 1  the sets are added in ascending shadow error while the QoS
#           holds; the answer (the fastest trial within the QoS: a set
#           list, all or auto) meets the QoS and runs faster than the
#           baseline;
#   mode 2  the same order; the search stops where --perf-threshold 50% of
#           the ideal speed-up is reached (the all-f32 build of the same
#           source, -DREAL=float, through --ideal-build);
#   mode 3  the sets are added by r_ac, largest first; the same thresholds.
# The QoS is a mean relative error of 1e-4 (every set of these kernels
# alone is within it on the H100: bench/results/2026-11-23-h100-tune.md).
# TUNE_OUT=DIR keeps the logs and fiset-modes.tsv.
. "$(dirname "$0")/gpu-lib.sh"
need_gpu
need_tune
cp -r "$MPCC_SRC/bench/fiset" "$d/fiset" && cp "$MPCC_SRC/bench/bench.h" "$d/" || fail "copy"
printf 'kernel\tmode\ttrials\torder\tanswer\tspeedup\terror\tof_ideal\n' >"$O/fiset-modes.tsv"
failures=0

# check K MODE: the order the sets were tried in, and the answer
check() {
	python3 - "$O/$1.m$2.err" "$O/$1.m$2.out" "$2" "$1" >>"$O/fiset-modes.tsv" <<'EOF'
import re, sys
err, out, mode, k = open(sys.argv[1]).read(), open(sys.argv[2]).read(), int(sys.argv[3]), sys.argv[4]
m = re.search(r"fiset on '[^']*': (\d+) units, by ([^:]*): (.*)", err)
if not m:
    sys.exit("no order of sets in the log")
tried = [(int(a), float(b), float(c)) for a, b, c, _ in
         re.findall(r'(\d+) \(error ([0-9.e+-]+|inf), r_ac ([0-9.e+-]+|inf), predicted ([0-9.e+-]+|inf)x\)', m.group(3))]
key = [t[2] for t in tried] if mode == 3 else [t[1] for t in tried]
want = sorted(key, reverse=(mode == 3))
if key != want:
    sys.exit('sets tried out of order: %s' % m.group(3))
a = re.search(r'^\| [^|]* \| fiset \| mode %d \| (\d+) \| ([^|]*) \| ([^|]*) \|$' % mode, out, re.M)
if not a or 'fiset sets=' not in a.group(2):
    sys.exit('no answer: %s' % (a.group(2) if a else 'no row'))
t = re.search(re.escape(a.group(2)) + r': time [0-9.e+-]+ \(([0-9.]+)x\), error ([0-9.e+-]+)(?:, (-?[0-9.]+)% of the ideal)?: meets', err)
if not t:
    sys.exit('the answer %s has no trial that meets the QoS' % a.group(2))
if float(t.group(1)) <= 1.0:
    sys.exit('the answer runs at %sx' % t.group(1))
ideal = t.group(3) or ''
if mode >= 2 and 'perf-threshold' in a.group(3) and ideal and float(ideal) < 50:
    sys.exit('the search stopped at --perf-threshold, but its answer reaches %s%% of the ideal' % ideal)
print('%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s' % (k, mode, a.group(1), ' '.join(str(x[0]) for x in tried),
      a.group(2), t.group(1), t.group(2), ideal))
EOF
}

for spec in nbody:32768 lj:16384; do
	k=${spec%%:*} n=${spec#*:}
	for mode in 1 2 3; do
		echo "testing mpcc-tune fiset mode $mode on $k ..."
		(cd "$d/fiset" && "$MPCC_TUNE" --build "$MPCC -O3 -arch=sm_90 -o \$MPCC_TUNE_DIR/prog $k.cu" \
			--ideal-build "$NVCC -O3 -arch=sm_90 -DREAL=float -o \$MPCC_TUNE_DIR/prog $k.cu" \
			--run "\$MPCC_TUNE_DIR/prog $n 12345 \$MPCC_TUNE_DIR/out.bin" \
			--output '$MPCC_TUNE_DIR/out.bin' --output-type f64 --time 'time_ms=([0-9.eE+-]+)' \
			--metric mean-rel --qos 1e-4 --transform fiset --shadow-errors --mode "$mode" \
			--perf-threshold 50 --runs 3 --dry-run --svg "$O/$k.m$mode.svg" \
			>"$O/$k.m$mode.out" 2>"$O/$k.m$mode.err")
		if why=$(check "$k" "$mode" 2>&1); then
			echo "passed: $(tail -1 "$O/fiset-modes.tsv")"
		else
			echo "FAILED: $k mode $mode: $why"; tail -5 "$O/$k.m$mode.err"
			failures=$((failures + 1))
		fi
	done
done
[ "$failures" = 0 ] || { echo "$failures failed"; exit 1; }
