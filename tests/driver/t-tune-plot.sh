#!/bin/sh
# mpcc-tune's plots are for a person to read (issue 27): ticks at round
# values (1, 2 or 5 times a power of ten), the error on a log axis with
# zero errors at its floor, labelled so, the QoS line, the baseline, the
# winner and a legend. The SVG of a session on the fake program
# (tune-fake/fake.sh) must render with librsvg's rsvg-convert, so that a
# drawing that is not valid SVG fails here.
. "$(dirname "$0")/lib.sh"
: "${MPCC_TUNE:?set MPCC_TUNE to the mpcc-tune executable}"
command -v rsvg-convert >/dev/null || { echo "no rsvg-convert (librsvg2-bin: scripts/install-deps.sh --test): skipped"; exit 77; }
command -v python3 >/dev/null || { echo "no python3: skipped"; exit 77; }
FAKE="$MPCC_SRC/tests/driver/tune-fake"

d=$T/plot
mkdir -p "$d" && cp "$FAKE/k.cu" "$FAKE/fake.sh" "$d/"
(cd "$d" && "$MPCC_TUNE" --build "$MPCC -arch=sm_90 -ptx k.cu -o k.ptx" --run "sh fake.sh k.ptx" \
	--time 'time_ms=([0-9.]+)' --qos 2.55e-4 --runs 1 --min-share 1 --transform auto --dry-run \
	--svg plot.svg >out 2>err)

testing "the plots render as SVG (rsvg-convert to PNG)"
if [ ! -s "$d/plot.svg" ]; then
	fail "no plot.svg: $(tail -3 "$d/err")"
elif ! rsvg-convert "$d/plot.svg" -o "$d/plot.png" 2>"$d/rsvg.err" ||
     [ "$(head -c 4 "$d/plot.png" | od -An -c | tr -d ' ')" != '211PNG' ]; then
	fail "rsvg-convert: $(cat "$d/rsvg.err")"
else
	passed
fi

testing "the plots' ticks are round, zero errors are labelled, and they carry a legend"
python3 - "$d/plot.svg" >"$d/problems" <<'EOF'
import math, re, sys
import xml.etree.ElementTree as ET
ns = '{http://www.w3.org/2000/svg}'
root = ET.parse(sys.argv[1]).getroot()
texts = [(t.text or '') for t in root.iter(ns + 'text')]
bad = []
# the numeric tick labels of each axis: those at one x in a panel (a y
# axis; panels are 350 high) or at one y (an x axis); a log axis's are 1eN
axes = {}
for t in root.iter(ns + 'text'):
    s = t.text or ''
    if re.fullmatch(r'-?[0-9]+(\.[0-9]+)?', s):
        panel = int(float(t.get('y')) // 350)
        key = ('y', t.get('x'), panel) if t.get('text-anchor') != 'middle' else ('x', t.get('y'))
        axes.setdefault(key, []).append(float(s))
if not axes:
    bad.append('no tick labels')
for key, v in axes.items():
    v = sorted(v)
    steps = [round(b - a, 9) for a, b in zip(v, v[1:])]
    if len(set(steps)) > 1:
        bad.append('ticks %s are not evenly spaced' % v)
        continue
    if not steps:
        continue
    e = math.floor(math.log10(steps[0]) + 1e-9)
    m = round(steps[0] / 10 ** e, 6)
    if m not in (1, 2, 5) or any(abs(x / steps[0] - round(x / steps[0])) > 1e-6 for x in v):
        bad.append('ticks %s are not multiples of a 1-2-5 step' % v)
for want in ['0 (exact)', 'winner', 'QoS', 'baseline and its noise', 'speed-up', 'error',
             'Pareto front', 'error (log)', 'lambda (warps on the fast path)']:
    if want not in texts:
        bad.append('no "%s" in the plot' % want)
if not any(s.startswith('QoS 0.000255') or s.startswith('QoS 2.55e-') for s in texts):
    bad.append('the QoS line is not labelled with its value')
rings = [c for c in root.iter(ns + 'circle') if c.get('stroke') == '#06c' and c.get('r') == '9']
if not rings:
    bad.append('the winner is not marked')
if bad:
    print('\n'.join(bad))
EOF
if [ -s "$d/problems" ]; then fail "$(cat "$d/problems")"; else passed; fi
finish
