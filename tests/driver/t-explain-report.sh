#!/bin/sh
# --mpcc-explain says what the build's report will say (issue 33, item 3).
# For every kernel of tests/kernels and every setting of `mpcc-opt
# --settings` (given as MPCC_SET, sfu's fast code from the driver's own
# fast-math cicc; -arch=sm_90, and half2's defaults on sm_80), explain's
# verdict for each pass on each kernel (applied, or left alone and why)
# must be the report's: explain runs the chain the build runs. Explain
# once analysed each kernel before any pass ran (with sfu and fiset in one
# rule it counted one body's f64 operations, the build two), and half2's
# words said "pays" where the build left the kernel alone. So the words are
# checked too: fiset's count of f64 operations and sets is the report's,
# half2 says "pays" on no target of a kernel the build leaves alone, and
# warns of f16's range (+-65504) only where the build pairs instructions in
# f16.
# --job CU SETTING ARCH DIR: one kernel file under one setting, explained
# and built for ARCH in DIR (explain, report.json); run by xargs below
if [ "${1:-}" = --job ]; then
	mkdir -p "$5" && cp "$2" "$5/" && cd "$5" || exit 0
	k=$(basename "$2")
	MPCC_SET=$3 "$MPCC" --mpcc-explain -arch="$4" -ptx "$k" -o k.ptx >explain 2>err &&
	MPCC_SET=$3 "$MPCC" --mpcc-report=report.json -arch="$4" -ptx "$k" -o k.ptx 2>>err ||
		echo "FAIL $k [$3 $4]: mpcc failed: $(cat err)"
	exit 0
fi
. "$MPCC_SRC/tests/driver/lib.sh"
command -v python3 >/dev/null || { echo "no python3: skipped"; exit 77; }

cd "$T"
"$MPCC_OPT" --settings >settings || { echo "mpcc-opt --settings failed"; exit 1; }
# and half2's defaults on sm_80, where f16x2 lanes gain nothing over f32
# ones on a memory-bound kernel (explain once said "pays" there)
sed 's/$/ sm_90/' settings >jobs
echo "half2 sm_80" >>jobs
i=0
for cu in "$KERNELS"/*.cu; do
	while read -r s arch; do
		i=$((i + 1))
		printf '%s\n%s\n%s\n%s\n' "$cu" "$s" "$arch" "$T/j$i"
	done <jobs
done | tr '\n' '\0' |
	xargs -0 -n 4 -P "$(nproc)" sh "$MPCC_SRC/tests/driver/t-explain-report.sh" --job >fails

python3 - "$T" >>fails <<'EOF'
import json, os, re, sys
t = sys.argv[1]
n = kernels = 0
for j in sorted(os.listdir(t)):
    d = os.path.join(t, j)
    if not j.startswith('j') or not os.path.exists(os.path.join(d, 'report.json')):
        continue
    said, words, kernel, ps = {}, {}, None, None
    for line in open(os.path.join(d, 'explain')):
        m = re.match(r"^\S+: kernel '(.*?)'(?: \((\S+)\))?$", line)
        if m:
            kernel, ps = m.group(2) or m.group(1), None
            continue
        m = re.match(r'^  (\w+): +(rule at|off)', line)
        if m:
            ps = m.group(1)
        if ps:
            words.setdefault((kernel, ps), []).append(line)
        m = re.match(r'^           verdict: (.*)$', line)
        if m and ps:
            said[(kernel, ps)] = m.group(1)
        m = re.match(r'^  verdict: (.*)$', line)   # the kernel's fallback to nvcc's code
        if m:
            for k in [k for k in said if k[0] == kernel and said[k] == 'applied']:
                said[k] = m.group(1)
    built, stats = {}, {}
    for line in open(os.path.join(d, 'report.json')):
        r = json.loads(line)
        built[(r['mangled'], r['transform'])] = \
            'applied' if r['applied'] else 'left alone: ' + r['reason']
        stats[(r['mangled'], r['transform'])] = r.get('stats') or {}
    src = open(os.path.join(d, 'explain')).readline().split(':')[0]
    for k, ws in sorted(words.items()):
        text, st, n = ''.join(ws), stats.get(k, {}), n + 1
        m = re.search(r'(\d+) f64 operations? in (\d+) sets?', text)
        if k[1] == 'fiset' and m and 'sets' in st and \
                (int(m.group(1)), int(m.group(2))) != (st['f64_ops'], st['sets']):
            print('FAIL %s %s: fiset: explain counts %s f64 operations in %s sets, the '
                  'report %d in %d' % (src, k[0], m.group(1), m.group(2), st['f64_ops'],
                                       st['sets']))
        if k[1] == 'half2' and built.get(k) != 'applied' and \
                re.search(r'sm_\d+: the kernel is bound .*: pays$', text, re.M):
            print('FAIL %s %s: half2: explain says it pays, the report %r' %
                  (src, k[0], built.get(k)))
        if k[1] == 'half2' and 'must stay within +-65504' in text and not st.get('x2'):
            print('FAIL %s %s: half2: explain warns of f16 range, and the build pairs no '
                  'f16 instruction' % (src, k[0]))
    kernels += len({k for k, _ in built})
    for k in sorted(set(said) | set(built)):
        n += 1
        if said.get(k) != built.get(k):
            print('FAIL %s %s: %s: explain says %r, the report %r' %
                  (src, k[0], k[1], said.get(k), built.get(k)))
print('explain-report: %d verdicts compared over %d kernel builds' % (n, kernels))
EOF
tail -1 fails
testing "explain says the report's verdicts"
if grep -q '^FAIL' fails; then
	fail "$(grep -c '^FAIL' fails) differ:
$(grep '^FAIL' fails | head -40)"
else
	passed
fi
finish
