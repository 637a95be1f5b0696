#!/bin/sh
# The step cache keeps nvcc's preprocessing (gcc -E) by the files it read
# (driver/stepcache.c, as ccache's direct mode): its entry lists every file
# its output's line markers name with a hash of its bytes, and a later
# compile reuses it only while each of them hashes the same. A compile
# again preprocesses nothing; a header whose bytes changed (its size and
# mtime kept) is preprocessed again and builds what mpcc builds without a
# cache; a compile from another directory reuses the entry, and one whose
# relative -I. finds another header does not; a file that uses __TIME__ is
# never kept, said once. An entry cut short or naming more bytes than it
# holds is a miss, and the compile builds the same object.
. "$(dirname "$0")/lib.sh"

S=$T/src
mkdir -p "$S" "$T/x" "$T/y"
cat >"$S/k.cu" <<'EOF'
#include "h.h"
#include <cfg.h>
__global__ void k(double *x) { x[threadIdx.x] *= SCALE + CFG; }
EOF
printf '#include "g.h"\n' >"$S/h.h"
printf '#define SCALE 3.0\n' >"$S/g.h"
printf '#define CFG 1\n' >"$S/cfg.h"
printf '#define CFG 2\n' >"$T/y/cfg.h"
C=$T/cache

# compile DIR OBJ [CACHE]: k.cu's object from DIR with -I. (cfg.h), the
# cache's log lines of this compile in OBJ.log
compile() {
	n=0
	[ -f "${3-$C}/log" ] && n=$(wc -l <"${3-$C}/log")
	(cd "$1" && MPCC_STEP_CACHE=${3-$C} "$MPCC" -arch=sm_90 -I. -c "$S/k.cu" -o "$2" 2>"$2.err") ||
		{ echo "compile failed: $(cat "$2.err")"; return 1; }
	tail -n +$((n + 1)) "${3-$C}/log" >"$2.log" 2>/dev/null || :
}

# pre HOW OBJ: how many of the compile's preprocessing steps were HOW
pre() { grep -c "^$1 [0-9a-f]* .* -E " "$2.log"; }

testing "a second compile preprocesses nothing, and builds the same object"
if compile "$S" "$T/1.o" && compile "$S" "$T/2.o" && [ "$(pre miss "$T/1.o")" = 2 ] &&
   [ "$(pre hit "$T/2.o")" = 2 ] && ! grep -q '^miss' "$T/2.o.log" && cmp -s "$T/1.o" "$T/2.o"; then
	passed
else
	fail "first: $(pre miss "$T/1.o") preprocessing missed; second: $(pre hit "$T/2.o") hit, $(grep -c '^miss' "$T/2.o.log") steps ran"
fi

testing "a header included by a header, its bytes changed, size and mtime kept: preprocessed again"
touch -r "$S/g.h" "$T/stamp"
printf '#define SCALE 4.0\n' >"$S/g.h"
touch -r "$T/stamp" "$S/g.h"
compile "$S" "$T/3.o" "" && mv "$T/3.o" "$T/nocache.o"
if compile "$S" "$T/3.o" && [ "$(pre miss "$T/3.o")" = 2 ] && same "$T/3.o" "$T/nocache.o" &&
   ! cmp -s "$T/3.o" "$T/1.o"; then
	passed
else
	fail "$(pre miss "$T/3.o") preprocessing steps ran; the object is $(same "$T/3.o" "$T/nocache.o" && echo "mpcc's" || echo "not mpcc's without a cache")"
fi

testing "from another directory whose -I. finds the same bytes: reused"
cp "$S/cfg.h" "$T/x/cfg.h"
if compile "$T/x" "$T/4.o" && [ "$(pre hit "$T/4.o")" = 2 ] && cmp -s "$T/4.o" "$T/3.o"; then
	passed
else
	fail "$(pre hit "$T/4.o") hit"
fi

testing "from a directory whose -I. finds another cfg.h: preprocessed again, with it"
compile "$T/y" "$T/5n.o" ""
if compile "$T/y" "$T/5.o" && [ "$(pre miss "$T/5.o")" = 2 ] && same "$T/5.o" "$T/5n.o" &&
   ! cmp -s "$T/5.o" "$T/4.o"; then
	passed
else
	fail "$(pre miss "$T/5.o") preprocessing steps ran"
fi

testing "a file that uses __TIME__ is never kept, and the compile says so once"
printf '#define SCALE 3.0\nstatic const char *when = __TIME__;\n' >"$S/g.h"
compile "$S" "$T/6.o" && compile "$S" "$T/7.o"
n=$(cat "$T/6.o.err" "$T/7.o.err" | grep -c "does not keep the preprocessing of '$S/k.cu': it reads a file that uses __DATE__ or __TIME__")
if [ "$(pre miss "$T/7.o")" = 2 ] && [ "$n" = 1 ]; then
	passed
else
	fail "the second compile's preprocessing missed $(pre miss "$T/7.o") times; said $n times: $(cat "$T/6.o.err")"
fi

testing "entries cut in half, or naming a file past their end, are misses: the same object, nothing else written"
printf '#define SCALE 3.0\n' >"$S/g.h"
compile "$S" "$T/8.o" || fail "compile"
for f in "$C"/*; do
	case $f in */log | */note-* | *.host) ;;
	*) n=$(wc -c <"$f"); head -c $((n / 2)) "$f" >"$f.cut" && mv "$f.cut" "$f" ;;
	esac
done
compile "$S" "$T/9.o" || fail "compile"
for f in "$C"/*; do
	case $f in */log | */note-* | *.host) ;;
	*) printf 'mpcc-step 2\nfile 99999999999999999999 %s\n' "$T/planted" >"$f" ;;
	esac
done
compile "$S" "$T/10.o" || fail "compile"
if cmp -s "$T/9.o" "$T/8.o" && cmp -s "$T/10.o" "$T/8.o" && [ "$(grep -c '^hit' "$T/9.o.log")" = 0 ] &&
   [ "$(grep -c '^hit' "$T/10.o.log")" = 0 ] && [ ! -e "$T/planted" ]; then
	passed
else
	fail "hits: $(grep -c '^hit' "$T/9.o.log") and $(grep -c '^hit' "$T/10.o.log"); objects $(cmp "$T/9.o" "$T/8.o"; cmp "$T/10.o" "$T/8.o")"
fi

finish
