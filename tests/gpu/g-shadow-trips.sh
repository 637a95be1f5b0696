#!/bin/sh
# The timing build's trip counts (shadow, measure=time) are exact:
# tests/gpu/shadow-trips.cu built by nvcc and through mpcc with
# MPCC_SET=shadow:measure=time. Without a GPU: the build succeeds with no
# warning and the report says each kernel's loops are counted (trips: 3,
# spin: 1). With one: both programs run on the same arguments; the timing
# build's output file and its stdout (but the mpcc- lines) are the plain
# build's, it prints an mpcc-time line every launch (each launch's span
# after the last one's, on one stream, its length what the kernel's total
# grew by), and its mpcc-trips
# lines (at launches 1, 2, 4, not 3) hold exactly, per loop (numbered as
# their headers come in the PTX: trips's outer, inner, then the one only
# some threads enter; spin's), L times what one launch of COUNT threads
# runs: outer HEADS = COUNT * M, ENTRIES = COUNT; inner HEADS =
# COUNT * M * N, ENTRIES = COUNT * M; third HEADS = the sum of i % 7 + 1
# over the threads i with i % 4 == 0, ENTRIES = how many those are; spin
# HEADS = 32 * SPIN (past 2^32: the warp's sum is taken in 64 bits),
# ENTRIES = 32. trips's blocks of 80 threads end in a half warp, which adds
# its counts lane by lane; full warps add theirs by shfl.
. "$(dirname "$0")/gpu-lib.sh"
MPCC=${MPCC:-$MPCC_BUILD/mpcc}
[ -x "$MPCC" ] || { echo "skipped: no mpcc at '$MPCC'"; exit 77; }
[ -x "$NVCC" ] || { echo "skipped: no nvcc"; exit 77; }
command -v python3 >/dev/null || { echo "skipped: no python3"; exit 77; }
export PATH="$(dirname "$NVCC"):$PATH"
unset MPCC_POLICY MPCC_PROFILE MPCC_SET MPCC_REPORT
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
cp "$MPCC_SRC/tests/gpu/shadow-trips.cu" "$d/" && cd "$d" || exit 1

echo "testing the plain and timing builds ..."
"$NVCC" -O3 -arch="$ARCH" -o plain shadow-trips.cu || fail "nvcc"
MPCC_SET='shadow:measure=time' "$MPCC" -O3 -arch="$ARCH" --mpcc-report=r.json -o timed \
	shadow-trips.cu >log 2>&1 || { cat log; fail "mpcc"; }
[ ! -s log ] || { cat log; fail "mpcc said something"; }
for k in 'trips:3' 'spin:1'; do
	grep "\"demangled\":\"${k%:*}\"" r.json | grep -q "\"applied\":true.*\"loops\":${k#*:},\"counted\":true" ||
		{ cat r.json; fail "the report does not say ${k%:*}'s ${k#*:} loops are counted"; }
done
echo "testing the plain and timing builds ... passed"

need_gpu
COUNT=1000 N=5 M=3 L=4 SPIN=140000000
./plain $COUNT $N $M $L $SPIN plain.out >plain.txt || fail "the plain build did not run"
./timed $COUNT $N $M $L $SPIN timed.out >timed.txt || fail "the timing build did not run"
echo "testing the timing build computes what the plain one does ..."
cmp plain.out timed.out || fail "the output files differ"
grep -v '^mpcc-' timed.txt | diff plain.txt - || fail "stdout differs"
echo "testing the timing build computes what the plain one does ... passed"
echo "testing the mpcc-trips lines ..."
python3 - $COUNT $N $M $L $SPIN timed.txt <<'EOF' || fail "mpcc-trips lines"
import sys
count, n, m, launches, spin = map(int, sys.argv[1:6])
some = [i for i in range(count) if i % 4 == 0]
want = {('trips', 1): (count * m, count), ('trips', 2): (count * m * n, count * m),
        ('trips', 3): (sum(i % 7 + 1 for i in some), len(some)), ('spin', 1): (32 * spin, 32)}
times, got, spans = {}, {}, []
for line in open(sys.argv[6]):
    f = line.split()
    if f[:1] == ['mpcc-time']:
        times.setdefault(f[1], []).append(int(f[2]))
        spans.append((f[1], int(f[3]), int(f[7]), int(f[8])) if len(f) == 9 else None)
    if f[:1] == ['mpcc-trips']:
        got[(f[1], int(f[2]), int(f[3]))] = (int(f[4]), int(f[5]))
bad = 0
if times != {'trips': list(range(1, launches + 1)), 'spin': [1]}:
    print('mpcc-time lines: launches %s' % times)
    bad = 1
# one stream: each launch's span starts after the last one's ends, and
# adds itself to its kernel's total
total, last = {}, 0
for span in spans:
    k, ns, s, e = span or ('?', 0, 0, -1)
    if not last <= s <= e or ns - total.get(k, 0) != e - s:
        print('mpcc-time line of %s: total %d, span %d to %d after %d' % (k, ns, s, e, last))
        bad = 1
    total[k], last = ns, e
expect = {}
for (k, loop), (h, e) in want.items():
    for l in range(1, (launches if k == 'trips' else 1) + 1):
        if l & (l - 1) == 0 or l % 1024 == 0:
            expect[(k, l, loop)] = (l * h, l * e)
for key in sorted(set(expect) | set(got)):
    ok = expect.get(key) == got.get(key)
    bad |= not ok
    print('  %s launch %d loop %d: heads, entries %s%s' % (key + (got.get(key),) +
          ('' if ok else ', want %s' % (expect.get(key),),)))
sys.exit(bad)
EOF
echo "testing the mpcc-trips lines ... passed"
