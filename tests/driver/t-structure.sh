#!/bin/sh
# The shape the tree keeps (doc/DESIGN.md, "Layers"; doc/STYLE.md, "Size
# and comments"): files of a folder that call each other in a circle, or
# a file past 1,000 lines, are rooms that grew into each other; a function
# past 80 lines is a loop that grew a case per option; liveness belongs to
# ptx/ (one analysis every pass asks).
: "${MPCC_SRC:?set MPCC_SRC to the source tree}"
: "${MPCC_BUILD:?set MPCC_BUILD to the build tree}"
MPCC_BUILD=$(cd "$MPCC_BUILD" && pwd) || exit 1   # it may be relative to where we started
cd "$MPCC_SRC" || exit 1
DIRS="common ptx model policies transforms driver tune runtime"
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

printf 'testing no file is over 1000 lines ... '
wc -l common/*.[ch] ptx/*.[ch] model/*.[ch] policies/*.[ch] transforms/*.[ch] driver/*.[ch] \
	tune/*.[ch] tune/*/*.[ch] runtime/*.[ch] | awk '$2 != "total" && $1 > 1000 { print $2 ": " $1 " lines" }' >"$T/long"
check files "$T/long"

printf 'testing no function is over 80 lines ... '
# a body opens with "{" and closes with "}" at the start of a line
for f in common/*.c ptx/*.c model/*.c policies/*.c transforms/*.c driver/*.c tune/*.c tune/*/*.c \
	runtime/*.c; do
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

# Circles that ptx/ has and keeps, as "FROM TO" edges left out of the
# check: parse() is what print.c's modcopy() runs, and parse.c names a
# register the way the printer does (regstr()); table.c reads an
# immediate's constant expression with expr.c's cexpr(), which reads its
# numbers with table.c's numform(). Every other edge of ptx/ is checked.
KNOWN="ptx/print.c ptx/parse.c
ptx/table.c ptx/expr.c"

printf 'testing no files of a folder call each other in a circle ... '
# file -> file edges from the objects: a symbol one object uses and another
# of the same folder defines (a folder's objects are under its build folder,
# common's under the top one: CMakeFiles/mpcc_common.dir/common/util.c.o)
: >"$T/cycle"
for dir in $DIRS; do
	for o in $(find "$MPCC_BUILD/$dir" "$MPCC_BUILD/CMakeFiles" -name '*.c.o' 2>/dev/null); do
		f=$(echo "$o" | sed 's|.*\.dir/||; s|\.o$||')
		case $f in "$dir"/*) ;; *) f=$dir/$f ;; esac
		[ -f "$f" ] || continue   # another folder's, or left by a build of an older tree
		nm "$o" | awk -v f="$f" '$1 == "U" { print "U", $2, f } NF == 3 && $2 ~ /^[TDBR]$/ { print "D", $3, f }'
	done >"$T/syms"
	if [ ! -s "$T/syms" ]; then
		echo "no objects of $dir/ under $MPCC_BUILD: build first" >>"$T/cycle"
		continue
	fi
	awk '$1 == "D" { def[$2] = $3 } $1 == "U" { use[++n] = $2 " " $3 }
	     END { for (i = 1; i <= n; i++) { split(use[i], u, " "); if (u[1] in def && def[u[1]] != u[2]) print u[2], def[u[1]] } }' \
		"$T/syms" | sort -u | grep -vxF "$KNOWN" >"$T/edges"
	tsort "$T/edges" >/dev/null 2>>"$T/cycle"
done
check circles "$T/cycle"

printf 'testing only common/spawn.c starts processes ... '
# one place starts, waits for and signals children (common/spawn.h): the
# objects of every other file of the code folders call none of these
: >"$T/spawn"
for dir in $DIRS; do
	for o in $(find "$MPCC_BUILD/$dir" "$MPCC_BUILD/CMakeFiles" -name '*.c.o' 2>/dev/null); do
		f=$(echo "$o" | sed 's|.*\.dir/||; s|\.o$||')
		case $f in "$dir"/*) ;; *) f=$dir/$f ;; esac
		[ -f "$f" ] && [ "$f" != common/spawn.c ] || continue
		nm -u "$o" | awk -v f="$f" '$2 ~ /^(fork|vfork|clone|system|popen|posix_spawnp?|exec(l|le|lp|v|ve|vp|vpe)|fexecve)$/ {
			print f ": calls " $2 "(), not common/spawn.h" }'
	done
done | sort -u >"$T/spawn"
check spawn "$T/spawn"

printf 'testing liveness is computed in ptx/ only ... '
grep -n '^[a-z_]*live[a-z_]*(' transforms/*.c model/*.c tune/*.c tune/*/*.c driver/*.c policies/*.c >"$T/live"
check liveness "$T/live"

[ "$failures" = 0 ] || exit 1
