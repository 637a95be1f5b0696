#!/bin/sh
# Includes point one way, down the layers (doc/DESIGN.md, "Layers"):
#   tune -> driver -> transforms -> policies -> model -> ptx -> common
# and no header includes itself through others. A file may include its own
# layer and those below; policies/ knows the passes only through the
# schemas registered at startup (policies/param.h).
: "${MPCC_SRC:?set MPCC_SRC to the source tree}"
cd "$MPCC_SRC" || exit 1
T=$(mktemp -d "${TMPDIR:-/tmp}/mpcc-layers.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
failures=0

rank() {
	case $1 in
	common) echo 0 ;; ptx) echo 1 ;; model) echo 2 ;; policies) echo 3 ;;
	transforms) echo 4 ;; driver) echo 5 ;; tune) echo 6 ;; *) echo -1 ;;
	esac
}

printf 'testing includes point down the layers ... '
bad=0
for f in $(ls common/*.[ch] ptx/*.[ch] model/*.[ch] policies/*.[ch] transforms/*.[ch] driver/*.[ch] \
           tune/*.[ch] 2>/dev/null); do
	from=${f%%/*}
	sed -n 's/^#include "\([a-z]*\)\/\([^"]*\)".*/\1 \1\/\2/p' "$f" | while read -r dir inc; do
		echo "$f $inc" >>"$T/edges"
		if [ "$(rank "$dir")" -lt 0 ] || [ "$(rank "$dir")" -gt "$(rank "$from")" ]; then
			echo "$f includes $inc, a layer above it" >>"$T/up"
		fi
	done
done
if [ -s "$T/up" ]; then
	echo failed
	sed 's/^/  /' "$T/up"
	failures=$((failures + 1))
else
	echo passed
fi

printf 'testing no headers include each other ... '
# tsort reports a cycle among the header -> header edges
grep '\.h .*\.h$' "$T/edges" | tsort >/dev/null 2>"$T/cycle"
if [ -s "$T/cycle" ]; then
	echo failed
	sed 's/^/  /' "$T/cycle"
	failures=$((failures + 1))
else
	echo passed
fi

[ "$failures" = 0 ] || exit 1
