#!/bin/sh
# The man pages document exactly the parameters the passes' schemas have
# (mpcc-opt --params), each with its range or words and its default:
# mpcc.yaml(5) the ones a policy takes, mpcc-opt(1) those and the tool ones.
# A pass's entry is ".TP/.B NAME" followed by ".RS", its parameters
# ".TP/.B PARAM" paragraphs, and ".RE".
. "$(dirname "$0")/lib.sh"

command -v python3 >/dev/null || skip "no python3"
"$MPCC_OPT" --params > "$T/params.tsv" || fail "mpcc-opt --params failed"
[ -s "$T/params.tsv" ] || fail "mpcc-opt --params printed nothing"

check() {  # MANPAGE WHICH(policy|all)
	python3 - "$T/params.tsv" "$1" "$2" <<'EOF'
import re, sys
tsv, page, which = sys.argv[1:]
schema = {}
for line in open(tsv):
    p, name, kind, rng, default, scope, help_ = line.rstrip('\n').split('\t')
    if which == 'all' or scope == 'policy':
        schema.setdefault(p, {})[name] = (kind, rng, default)

def plain(lines):
    t = ' '.join(re.sub(r'^\.[A-Z]{1,2} ?', '', l) for l in lines)
    t = re.sub(r'\\f[BIRP]', '', t).replace('\\-', '-').replace('\\&', '')
    return re.sub(r'\s+', ' ', t)

lines = open(page).read().split('\n')
documented, bad = {}, []
i = 0
while i < len(lines) - 2:
    if lines[i] == '.TP' and lines[i + 1].startswith('.B ') and \
       lines[i + 1][3:] in schema:
        p = lines[i + 1][3:]
        j = i + 2
        while j < len(lines) and lines[j] != '.RS' and lines[j] != '.TP':
            j += 1
        if j >= len(lines) or lines[j] != '.RS':
            i += 1
            continue
        params, cur = {}, None
        j += 1
        while j < len(lines) and lines[j] != '.RE':
            if lines[j] == '.TP' and lines[j + 1].startswith('.B '):
                cur = lines[j + 1][3:].strip()
                params[cur] = []
                j += 2
                continue
            if cur:
                params[cur].append(lines[j])
            j += 1
        documented[p] = {k: plain(v) for k, v in params.items()}
        i = j
    i += 1

for p, params in schema.items():
    if p not in documented:
        bad.append("pass '%s' has no entry" % p)
        continue
    for name, (kind, rng, default) in params.items():
        text = documented[p].get(name)
        if text is None:
            bad.append("'%s' of '%s' is not documented" % (name, p))
            continue
        want = []
        if default == 'required':
            want.append('required')
        elif default != 'none':
            want.append('default')
            want += default.split('+')
        if kind in ('int', 'sets'):
            r = rng.split('|')[0]
            want.append('positive integer' if r == '1 to 1e+06' else r)
        if kind == 'number':
            want.append(rng.split(',')[0])
        if kind in ('enum', 'set', 'sets'):
            want += [w for w in rng.split('|')[1 if kind == 'sets' else 0:]]
        for w in want:
            if w.lower() not in text.lower():
                bad.append("'%s' of '%s': no '%s' in: %s" % (name, p, w, text[:200]))
    for name in documented[p]:
        if name not in params:
            bad.append("'%s' of '%s' is documented but the schema has no such parameter" % (name, p))
for b in bad:
    print('  ' + page.split('/')[-1] + ': ' + b)
sys.exit(1 if bad else 0)
EOF
}

testing "mpcc.yaml(5) documents every policy parameter"
if check "$MPCC_SRC/man/mpcc.yaml.5" policy; then passed; else fail "mpcc.yaml.5 and the schemas differ"; fi

testing "mpcc-opt(1) documents every parameter"
if check "$MPCC_SRC/man/mpcc-opt.1" all; then passed; else fail "mpcc-opt.1 and the schemas differ"; fi

finish
