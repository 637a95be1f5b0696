#!/bin/sh
# The shape the tree keeps (doc/DESIGN.md, "Layers"; doc/STYLE.md, "Size
# and comments"): files of transforms/ and tune/ that call each other in a
# circle, or run past 1,000 lines, are rooms that grew into each other; a
# function past 80 lines is a loop that grew a case per option; liveness
# belongs to ptx/ (one analysis every pass asks).
: "${MPCC_SRC:?set MPCC_SRC to the source tree}"
: "${MPCC_BUILD:?set MPCC_BUILD to the build tree}"
cd "$MPCC_SRC" || exit 1
T=$(mktemp -d "${TMPDIR:-/tmp}/mpcc-structure.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
failures=0

check() {   # NAME FILE-OF-PROBLEMS
	if [ -s "$2" ]; then
		echo failed
		sed 's/^/  /' "$2"
		failures=$((failures + 1))
	else
		echo passed
	fi
}

printf 'testing no file of transforms/ or tune/ is over 1000 lines ... '
wc -l transforms/*.[ch] tune/*.[ch] tune/*/*.[ch] | awk '$2 != "total" && $1 > 1000 { print $2 ": " $1 " lines" }' >"$T/long"
check files "$T/long"

printf 'testing no function is over 80 lines ... '
# a body opens with "{" and closes with "}" at the start of a line
for f in common/*.c ptx/*.c model/*.c policies/*.c transforms/*.c driver/*.c tune/*.c tune/*/*.c; do
	awk -v F="$f" '
	/^[A-Za-z_].*\(/ && !/;[ \t]*$/ { sig = $0; at = FNR }
	/^\{/ { start = FNR; name = sig }
	/^\}/ && start {
		if (FNR - start + 1 > 80) {
			match(name, /[A-Za-z_0-9]+\(/)
			print F ":" at ": " substr(name, RSTART, RLENGTH - 1) " is " FNR - start + 1 " lines"
		}
		start = 0
	}' "$f"
done >"$T/fn"
check functions "$T/fn"

printf 'testing no files of transforms/ or tune/ call each other in a circle ... '
# file -> file edges from the objects: a symbol one object uses and another defines
: >"$T/edges"
for dir in transforms tune; do
	for o in $(find "$MPCC_BUILD/$dir" -name '*.c.o'); do
		f=$dir/$(echo "$o" | sed 's|.*\.dir/||; s|\.o$||')
		[ -f "$f" ] || continue   # an object left by a build of an older tree
		nm "$o" | awk -v f="$f" '$1 == "U" { print "U", $2, f } NF == 3 && $2 ~ /^[TDBR]$/ { print "D", $3, f }'
	done
done >"$T/syms"
awk '$1 == "D" { def[$2] = $3 } $1 == "U" { use[++n] = $2 " " $3 }
     END { for (i = 1; i <= n; i++) { split(use[i], u, " "); if (u[1] in def && def[u[1]] != u[2]) print u[2], def[u[1]] } }' \
	"$T/syms" | sort -u >"$T/edges"
if [ ! -s "$T/syms" ]; then
	echo "no objects under $MPCC_BUILD/transforms: build first" >"$T/cycle"
else
	tsort "$T/edges" >/dev/null 2>"$T/cycle"
fi
check circles "$T/cycle"

printf 'testing liveness is computed in ptx/ only ... '
grep -n '^[a-z_]*live[a-z_]*(' transforms/*.c model/*.c tune/*.c tune/*/*.c driver/*.c policies/*.c >"$T/live"
check liveness "$T/live"

[ "$failures" = 0 ] || exit 1
