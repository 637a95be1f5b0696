#!/bin/sh
# ctest.sh [ctest options]: ctest in the build directory it is run from,
# then why each skipped test did not run. ctest prints a skipped test's
# output only under -V, but keeps it in its JUnit file; the reason is the
# last line of it that says "skip" (tests/gpu/gpu-lib.sh's need_gpu:
# "skipped: no GPU (nvidia-smi finds none); ..."), else its last line.
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
    said = [l for l in out if 'skip' in l.lower()] or out
    why.append((t.get('name'), said[-1] if said else 'it gave no reason'))
if why:
    print('\nWhy they were skipped:')
    for name, reason in why:
        print(f'\t{name}: {reason}')
EOF
exit $st
