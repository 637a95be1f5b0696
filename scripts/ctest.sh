#!/bin/sh
# ctest.sh [ctest options]: ctest in the build directory it is run from,
# then why each skipped test did not run. ctest prints a skipped test's
# output only under -V, but keeps it in its JUnit file; the reason is the
# last line of it that says "skip" (tests/gpu/gpu-lib.sh's need_gpu:
# "skipped: no GPU (nvidia-smi finds none); ..."), or the line before a
# bare "skipped", else its last line.
# Exits with ctest's status.
junit=$PWD/Testing/ctest-junit.xml
rm -f "$junit"
st=0
ctest --output-junit "$junit" "$@" || st=$?
[ ! -f "$junit" ] || python3 - "$junit" <<'EOF'
import sys
import xml.etree.ElementTree as ET

why = []
for t in ET.parse(sys.argv[1]).getroot().iter('testcase'):
    skip = t.find('skipped')
    if t.get('status') != 'notrun' or skip is None or skip.get('message') == 'Disabled':
        continue
    out = [l.strip() for l in (t.findtext('system-out') or '').splitlines() if l.strip()]
    said = [i for i, l in enumerate(out) if 'skip' in l.lower()] or [len(out) - 1]
    i = said[-1]
    if i > 0 and out[i].lower().strip('.:') == 'skipped':
        i -= 1   # a bare "skipped" after the line that says why
    why.append((t.get('name'), out[i] if out else 'it gave no reason'))
if why:
    print('\nWhy they were skipped:')
    for name, reason in why:
        print(f'\t{name}: {reason}')
EOF
exit $st
