#!/bin/sh
# The pass contract seen from mpcc-tune (issue 24; doc/DESIGN.md, "Adding a
# pass"): tune/ learns the passes from their table, so no string literal of
# tune/ (or of policies/ and scripts/sweep.sh) names a pass; and tune/'s
# files call only those after them in the list of tune/tune.h, so none call
# each other in a circle; and mpcc-tune(1) documents its options.
: "${MPCC_SRC:?set MPCC_SRC to the source tree}"
: "${MPCC_BUILD:?set MPCC_BUILD to the build tree}"
: "${MPCC_OPT:?set MPCC_OPT to mpcc-opt}"
command -v python3 >/dev/null || { echo "no python3: skipped"; exit 77; }
cd "$MPCC_SRC" || exit 1
T=$(mktemp -d "${TMPDIR:-/tmp}/mpcc-contract.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
failures=0

check() {   # FILE-OF-PROBLEMS
	if [ -s "$1" ]; then
		echo failed
		sed 's/^/  /' "$1"
		failures=$((failures + 1))
	else
		echo passed
	fi
}

"$MPCC_OPT" --params | cut -f1 | sort -u >"$T/names"
"$MPCC_OPT" --stats | cut -f1 | sort -u >>"$T/names"

printf 'testing no string literal of tune/, policies/ or sweep.sh names a pass ... '
# a literal that is a pass's name, or names one as a setting does (NAME: or NAME=)
python3 - "$T/names" tune/*.[ch] tune/*/*.[ch] policies/*.[ch] scripts/sweep.sh >"$T/names.bad" <<'EOF'
import re, sys
names = sorted(set(l.strip() for l in open(sys.argv[1]) if l.strip()))
for path in sys.argv[2:]:
    text = open(path).read()
    if path.endswith('.sh'):
        code = [(i + 1, l) for i, l in enumerate(text.split('\n')) if not l.lstrip().startswith('#')]
        lits = [(n, w) for n, l in code for w in re.findall(r'[A-Za-z0-9_:=,.-]+', l)]
    else:
        text = re.sub(r'/\*.*?\*/', lambda m: '\n' * m.group(0).count('\n'), text, flags=re.S)
        text = re.sub(r'//[^\n]*', '', text)
        lits = []
        for m in re.finditer(r'"((?:[^"\\\n]|\\.)*)"', text):
            lits.append((text.count('\n', 0, m.start()) + 1, m.group(1)))
    for n, lit in lits:
        for name in names:
            if lit == name or re.search(r'(^|[^A-Za-z0-9_-])' + re.escape(name) + r'[:=]', lit):
                print('%s:%d: "%s" names the pass %s' % (path, n, lit, name))
EOF
check "$T/names.bad"

printf 'testing tune/ files call only those after them in tune.h ... '
# the list of tune.h: "ROOM/  a.c b.c: words", each file named from tune/
sed -n '/^ \* Files call only files later/,/^ \*$/p' tune/tune.h | awk '
	$2 ~ /\/$/ { room = $2 } $2 == "." || $2 ~ /\.c$/ { room = "" }
	{ for (i = 2; i <= NF; i++) { w = $i; sub(/[:,]$/, "", w); if (w ~ /^[a-z]+\.c$/) print room w } }' >"$T/order"
for o in $(find "$MPCC_BUILD/tune" -name '*.c.o'); do
	f=$(echo "$o" | sed 's|.*\.dir/||; s|\.o$||')
	[ -f "tune/$f" ] || continue   # an object left by a build of an older tree
	nm "$o" | awk -v f="$f" '$1 == "U" { print "U", $2, f } NF == 3 && $2 ~ /^[TDBR]$/ { print "D", $3, f }'
done >"$T/syms"
if [ ! -s "$T/syms" ] || [ ! -s "$T/order" ]; then
	echo "no objects under $MPCC_BUILD/tune, or no list in tune.h" >"$T/calls"
else
	awk 'NR == FNR { rank[$1] = FNR; next }
	     $1 == "D" { def[$2] = $3 } $1 == "U" { use[++n] = $2 " " $3 }
	     END {
		for (i = 1; i <= n; i++) {
			split(use[i], u, " ")
			if (!(u[1] in def) || def[u[1]] == u[2])
				continue
			if (!(u[2] in rank) || !(def[u[1]] in rank))
				print u[2] " or " def[u[1]] " is not in the list of tune.h"
			else if (rank[def[u[1]]] < rank[u[2]])
				print u[2] " calls " def[u[1]] " (" u[1] "), which comes before it"
		}
	     }' "$T/order" "$T/syms" | sort -u >"$T/calls"
fi
check "$T/calls"

printf 'testing every option of mpcc-tune --help is in mpcc-tune(1), and back ... '
if [ -z "$MPCC_TUNE" ]; then
	echo "MPCC_TUNE is not set" >"$T/opts"
else
	"$MPCC_TUNE" --help | grep -oE '^  --[a-z-]+|   --[a-z-]+' | tr -d ' ' | sort -u >"$T/help"
	sed -n '/^\.SH OPTIONS/,/^\.SH /p' man/mpcc-tune.1 | sed 's/\\-/-/g' |
		grep -oE '^\.B[IR]? +"?--[a-z-]+|\\fP--[a-z-]+' | grep -oE -- '--[a-z-]+' | sort -u >"$T/man"
	{ comm -23 "$T/help" "$T/man" | sed 's/$/: not in mpcc-tune(1)/'
	  comm -13 "$T/help" "$T/man" | sed 's/$/: in mpcc-tune(1), not in --help/'; } >"$T/opts"
	[ -s "$T/help" ] || echo "no options in mpcc-tune --help" >>"$T/opts"
fi
check "$T/opts"

[ "$failures" = 0 ] || exit 1
