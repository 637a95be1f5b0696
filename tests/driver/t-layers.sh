#!/bin/sh
# Includes point one way, down the layers (doc/DESIGN.md, "Layers"):
#   tune -> driver -> transforms -> policies -> model -> ptx -> common
# and no header includes itself through others. runtime/, which runs
# inside users' programs, is a room of its own: it includes none of the
# compiler's headers, and none of the compiler's files includes one of it. A file may include its own
# layer and those below; policies/ knows the passes only through the
# schemas registered at startup (policies/param.h). Inside tune/ the same
# holds of its rooms, in the order the map of tune/tune.h gives. Each
# header's opening comment says where it sits.
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
           tune/*.[ch] tune/*/*.[ch] 2>/dev/null); do
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

printf 'testing runtime/ is a room of its own ... '
{ sed -n 's/^#include "\([^"]*\)".*/\1/p' runtime/*.[ch] | grep -v '^runtime/' | sed 's/^/runtime includes /'
  grep -l '^#include "runtime/' common/*.[ch] ptx/*.[ch] model/*.[ch] policies/*.[ch] transforms/*.[ch] \
	driver/*.[ch] tune/*.[ch] tune/*/*.[ch] 2>/dev/null | sed 's/$/ includes a header of runtime\//'
  ls runtime/*.c >/dev/null 2>&1 || echo "no runtime/*.c"; } >"$T/room"
if [ -s "$T/room" ]; then
	echo failed
	sed 's/^/  /' "$T/room"
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

printf 'testing each header says its place in the layers ... '
# doc/STYLE.md, "Headers are maps": each folder's header ends its opening
# comment with "Layers: A -> B -> ...": layers in the order above, and from
# its own folder down, every one (issue 50: ptx.h, policy.h, mpcc.h and
# util.h said none, tune.h left out model). So does any header that has one.
chain="tune driver transforms policies model ptx common"
: >"$T/said"
for h in common/util.h ptx/ptx.h model/model.h policies/policy.h transforms/pass.h driver/mpcc.h \
         tune/tune.h $(grep -l 'Layers:' */*.h tune/*/*.h 2>/dev/null | grep -v '^runtime/'); do
	# the words after "Layers:" in the comment that opens h, to a '.' or ';'
	said=$(sed -n '1,/\*\//p' "$h" | tr '\n' ' ' | sed -n 's/.*Layers: *\([a-z >-]*\).*/\1/p' |
	       sed 's/ *-> */ /g; s/ *$//')
	echo "$h" "$chain" | awk -v said="$said" '{
		n = split(said, s, " "); dir = $1; sub(/\/.*/, "", dir)
		for (i = 2; i <= NF; i++) rank[$i] = i
		if (!n) { print $1 ": no Layers: line in its opening comment"; exit }
		for (i = 1; i <= n; i++) {
			if (!(s[i] in rank)) { print $1 ": Layers: names \047" s[i] "\047, no layer"; exit }
			if (i > 1 && rank[s[i]] <= rank[s[i - 1]]) { print $1 ": Layers: out of order: " said; exit }
			if (s[i] == dir) at = i
		}
		if (!at) { print $1 ": Layers: leaves out its own, " dir; exit }
		for (j = rank[dir]; j <= NF; j++)
			if (s[at + j - rank[dir]] != $j) { print $1 ": Layers: leaves out " $j " below " dir ": " said; exit }
	}' >>"$T/said"
done
# runtime/ is no layer of the compiler's: a room of its own, below CUDA's
# runtime (its checks are the two-way ones above)
sed -n '1,/\*\//p' runtime/runtime.h | tr '\n' ' ' | grep -q 'Layers: runtime -> CUDA runtime' ||
	echo "runtime/runtime.h: its Layers: line does not say it is a room of its own" >>"$T/said"
if [ -s "$T/said" ]; then
	echo failed
	sort -u "$T/said" | sed 's/^/  /'
	failures=$((failures + 1))
else
	echo passed
fi

printf 'testing every cost is asked of model/ ... '
# doc/STYLE.md, "A pass": a pass asks model/ for costs and computes none
# itself (issue 49: half2's advice counted its packs, unpacks and prologue
# into model.h's struct pipes by hand). Outside model/, no file adds to a
# field of struct pipes (nor sets one where it names pipes), and no pass,
# policy or driver file has a function or table named for a cost.
fields=$(sed -n '/^struct pipes {/,/^};/p' model/model.h | sed -n 's/^\t[a-z ]*[ *]\([a-z0-9_]*\);.*/\1/p' | paste -sd'|' -)
[ -n "$fields" ] || echo "model/model.h: no struct pipes to read the fields of" >"$T/cost"
for f in common/*.[ch] ptx/*.[ch] policies/*.[ch] transforms/*.[ch] driver/*.[ch] tune/*.[ch] tune/*/*.[ch]; do
	grep -nE "(->|\.)($fields) *[-+*/]=" "$f" | sed "s|^|$f:|; s|\$|: work counted outside model/|"
	grep -q 'pipes' "$f" && grep -nE "(->|\.)($fields) *=[^=]" "$f" | sed "s|^|$f:|; s|\$|: work counted outside model/|"
done >>"$T/cost"
grep -nE '^[a-z_0-9]*cost[a-z_0-9]*\(|cost[a-z_0-9]*\[[^]]*\] *=' common/*.c ptx/*.c policies/*.c \
	transforms/*.c driver/*.c | sed 's/$/: a cost outside model\//' >>"$T/cost"
if [ -s "$T/cost" ]; then
	echo failed
	sed 's/^/  /' "$T/cost"
	failures=$((failures + 1))
else
	echo passed
fi

printf 'testing each fact is listed once, in model/facts.h ... '
# Issue 49: a fact a run measures was listed in five places (a flag each in
# policies/param.h, fields of tune's struct kern, kern_facts()'s cases,
# fiset's parameters, kmodel()'s arguments). Now FACTS in model/facts.h
# lists each, FACT(ID, "key", kind), and every layer expands it. This fails
# on a fact listed twice there; on a record of facts of its own elsewhere
# (a field or variable named for a fact, of its kind's C type); on a
# parameter of a pass named for a fact, of its kind, without the flag PFACT
# alone; on an enum that numbers facts (F_ID, or two facts' keys in
# capitals on one line).
sed -n 's/^[[:space:]]*FACT(\(F_[A-Z0-9_]*\), *"\([a-z0-9_]*\)", *\(FK_[A-Z]*\)).*/\1 \2 \3/p' model/facts.h >"$T/facts"
: >"$T/twice"
[ -s "$T/facts" ] || echo "model/facts.h: no FACT(ID, \"key\", kind) lines to read" >>"$T/twice"
for col in 1 2; do
	cut -d' ' -f$col "$T/facts" | sort | uniq -d | sed 's/^/model\/facts.h: FACTS lists /; s/$/ twice/' >>"$T/twice"
done
srcs=$(ls common/*.[ch] ptx/*.[ch] model/*.[ch] policies/*.[ch] transforms/*.[ch] driver/*.[ch] tune/*.[ch] \
       tune/*/*.[ch] | grep -v '^model/facts\.[ch]$')
while read -r id key kind; do
	KEY=$(echo "$key" | tr a-z A-Z)
	case $kind in
	FK_INT) ctype='(int|long)[[:space:]]+' pkind=PINT ;;
	FK_NUMS) ctype='double[[:space:]]*\*[[:space:]]*|int[[:space:]]+n' pkind=PNUMS ;;
	*) ctype='char[[:space:]]*\*[[:space:]]*' pkind=PSTR ;;
	esac
	grep -nE "^[[:space:]]+(const[[:space:]]+)?($ctype)$key(\[[^]]*\])?;" $srcs |
		sed "s/\$/: a record of the fact '$key' of its own (model\/facts.h's struct facts keeps it)/" >>"$T/twice"
	grep -nE "\{\"$key\", *$pkind, *[^,]*," $srcs | grep -vE "\{\"$key\", *$pkind, *PFACT," |
		sed "s/\$/: the fact '$key' taken without the flag PFACT/" >>"$T/twice"
	grep -nE "(^|[^A-Za-z0-9_])$id([^A-Za-z0-9_]|\$)[[:space:]]*(=[^=]|,|\$)" $srcs | grep -vE "$id[[:space:]]*\]" |
		grep -E 'enum|^[^:]*:[0-9]+:[[:space:]]+[A-Z_]+[[:space:]]*(=[^=]|,|$)' |
		sed "s/\$/: an enum of facts besides FACTS/" >>"$T/twice"
	echo "$KEY"
done <"$T/facts" >"$T/keys"
# an enum line naming two facts' keys in capitals
for f in $srcs; do
	grep -n 'enum' "$f" | awk -v f="$f" -v keys="$(cat "$T/keys")" '
		BEGIN { n = split(keys, k, "\n") }
		{ c = 0; for (i = 1; i <= n; i++) if ($0 ~ ("[^A-Z0-9_]" k[i] "[^A-Z0-9_]")) c++
		  if (c >= 2) print f ":" $0 ": an enum of facts besides FACTS" }'
done >>"$T/twice"
if [ -s "$T/twice" ]; then
	echo failed
	sed 's/^/  /' "$T/twice"
	failures=$((failures + 1))
else
	echo passed
fi

# tune.h's map, the highest room first: "ROOM/  a.c b.c: words" lines, where
# the room of main.c is itself and that of tune.h's own files is "."
sed -n '/^ \* Files call only files later/,/^ \*$/p' tune/tune.h | awk '
	$2 ~ /\/$/ { room = $2; print "room", room } $2 == "." { room = "."; print "room ." }
	$2 ~ /\.c$/ { room = $2; print "room", room }
	{ for (i = 2; i <= NF; i++) { w = $i; sub(/[:,]$/, "", w); if (w ~ /^[a-z]+\.c$/) print "file", (room == "." || room == w ? "" : room) w } }' >"$T/map"

# the room of a file of tune/: its folder, or itself for main.c, or "."
roomof() {
	case $1 in
	tune/main.c) echo main.c ;;
	tune/*/*) d=${1#tune/}; echo "${d%%/*}/" ;;
	*) echo . ;;
	esac
}

printf 'testing the map of tune/tune.h names every room and file of tune/ ... '
awk '$1 == "file" { print "tune/" $2 }' "$T/map" | sort >"$T/listed"
ls tune/*.c tune/*/*.c | sort >"$T/present"
{ comm -23 "$T/present" "$T/listed" | sed 's/$/: not in the map of tune.h/'
  comm -13 "$T/present" "$T/listed" | sed 's/$/: in the map of tune.h, not in tune\//'
  for d in tune/*/; do
	grep -qx "room ${d#tune/}" "$T/map" || echo "$d: a folder of tune/ that the map does not name"
  done; } >"$T/unmapped"
if [ -s "$T/unmapped" ]; then
	echo failed
	sed 's/^/  /' "$T/unmapped"
	failures=$((failures + 1))
else
	echo passed
fi

printf 'testing includes between the rooms of tune/ point down ... '
# a room's rank: its place from the bottom of the map
awk '$1 == "room" { r[++n] = $2 } END { for (i = 1; i <= n; i++) print r[i], n - i }' "$T/map" >"$T/ranks"
rankof() { awk -v r="$1" '$1 == r { print $2 }' "$T/ranks"; }
: >"$T/uproom"
for f in tune/*.[ch] tune/*/*.[ch]; do
	from=$(roomof "$f")
	sed -n 's/^#include "\(tune\/[^"]*\)".*/\1/p' "$f" | while read -r inc; do
		to=$(roomof "$inc")
		if [ -z "$(rankof "$to")" ] || [ "$(rankof "$to")" -gt "$(rankof "$from")" ]; then
			echo "$f includes $inc, of a room above $from" >>"$T/uproom"
		fi
	done
done
if [ -s "$T/uproom" ]; then
	echo failed
	sed 's/^/  /' "$T/uproom"
	failures=$((failures + 1))
else
	echo passed
fi

printf 'testing tune/ waits for its builds and runs in one loop, in the pool ... '
# a wait that reads a status, common/spawn.h's (spawn_stop() only reaps
# what it stopped), and no wait of tune/'s own
grep -nE '(^|[^a-z_])(waitpid|wait|spawn_wait|spawn_poll|spawn_any|spawn_run)\(' tune/*.c tune/*/*.c >"$T/waits"
if [ "$(wc -l <"$T/waits")" = 1 ] && grep -q '^tune/pool/pool\.c:.*spawn_any(' "$T/waits"; then
	: >"$T/waits"
else
	sed -i 's/$/: not the one wait of pool\/pool.c/' "$T/waits"
	[ -s "$T/waits" ] || echo "tune/pool/pool.c: no wait" >"$T/waits"
fi
# and only the pool has builds and runs started (through trial/'s *_start())
grep -nE '(^|[^a-z_])(spawn_start|spawn_fork|run_start|build_start|trial_build|trial_launch)\(' tune/*.c tune/*/*.c |
	grep -vE '^tune/(pool|trial)/' | sed 's/$/: starts a process outside the pool/' >>"$T/waits"
# and none of tune/ forks or execs but through common/spawn.c
grep -nE '(^|[^a-z_])(fork|vfork|posix_spawnp?|exec[lv]p?e?)\(' tune/*.c tune/*/*.c |
	sed 's/$/: a process not started by common\/spawn.c/' >>"$T/waits"
if [ -s "$T/waits" ]; then
	echo failed
	sed 's/^/  /' "$T/waits"
	failures=$((failures + 1))
else
	echo passed
fi

printf 'testing only the pool of tune/ reads --jobs, beside the options ... '
grep -nE '(->|\.)jobs\b' tune/*.c tune/*/*.c | grep -vE '^tune/(main\.c|pool/)' >"$T/jobs"
if [ -s "$T/jobs" ]; then
	echo failed
	sed 's/^/  /' "$T/jobs"
	failures=$((failures + 1))
else
	echo passed
fi

printf 'testing only spent() of tune/ compares the time with the budget ... '
# a comparison of now() with the deadline, a search's share or --budget,
# in one expression ("->" is no comparison), outside spent()
grep -nE 'now\(\)[^;?&|]*[^-][<>][^;?&|]*(deadline|until|budget)|(deadline|until|budget)[^;?&|]*[^-][<>][^;?&|]*now\(\)' \
	tune/*.c tune/*/*.c >"$T/spent"
[ "$(grep -c '^spent(' tune/session/budget.c)" = 1 ] || echo "tune/session/budget.c: no spent()" >>"$T/spent"
if [ -s "$T/spent" ]; then
	echo failed
	sed 's/^/  /' "$T/spent"
	failures=$((failures + 1))
else
	echo passed
fi

[ "$failures" = 0 ] || exit 1
