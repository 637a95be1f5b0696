#!/bin/sh
# run.sh [TARGET] [SECONDS]: build a libFuzzer target with clang and fuzz it
# for SECONDS (default 600) with one job. TARGET (default parse) is one of
#   parse      the PTX library: parser, printer, analyses, verifier, clonebody
#   pass:NAME  the pass NAME of transforms/passes.c on every kernel of valid
#              PTX, its parameters drawn from the input through its schema
#              (sfu is short for pass:sfu)
#   policy     the .mpcc.yaml loader on any bytes
# New inputs go to a work corpus outside the tree ($FUZZ_WORK, default
# /tmp/mpcc-fuzz/TARGET); crashes land in ./fuzz-TARGET-crash-*. To keep a
# crash: minimize it (run.sh TARGET -minimize CRASH), fix the bug, then copy
# the minimized input, named by its SHA-1, into the target's corpus
# (tests/fuzz/corpus for parse, tests/fuzz/corpus-NAME for pass:NAME,
# tests/fuzz/corpus-policy), which CI replays through tests/unit/u-ptx-fuzz.c,
# u-fuzz-pass.c and u-fuzz-policy.c.
set -e
top=$(cd "$(dirname "$0")/../.." && pwd)
case $1 in
[0-9]*|"") target=parse ;;
sfu) target=pass:sfu; shift ;;
*) target=$1; shift ;;
esac
# everything but the mains and the fuzz target's own includes
lib="$top/ptx/[a-z]*.c $top/common/[a-z]*.c"
xf=$(ls "$top"/transforms/*.c | grep -v /mpcc-opt.c)
pol=$(ls "$top"/policies/*.c | grep -v /load.c)
case $target in
parse) src="$lib"; file=parse; corpus=$top/tests/fuzz/corpus; dict=ptx.dict; libs= ;;
pass:*) pass=${target#pass:}; src="$lib $xf $pol $top/policies/load.c"; file=pass
	corpus=$top/tests/fuzz/corpus-$pass; dict=ptx.dict; libs=-lyaml
	[ -d "$corpus" ] || corpus=$top/tests/fuzz/corpus-sfu
	export MPCC_FUZZ_PASS=$pass ;;
policy) src="$lib $xf $pol"; file=policy; corpus=$top/tests/fuzz/corpus-policy
	dict=yaml.dict; libs=-lyaml ;;
*) echo "run.sh: unknown target '$target' (parse, pass:NAME, sfu, policy)" >&2; exit 2 ;;
esac
name=$(echo "$target" | tr : -)
work=${FUZZ_WORK:-/tmp/mpcc-fuzz/$name}
mkdir -p "$work/corpus"
clang=$(command -v clang-14 || command -v clang)
# shellcheck disable=SC2086
"$clang" -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	-I"$top" -DMPCC_VERSION=\"fuzz\" "$top/tests/fuzz/fuzz-$file.c" $src \
	$libs -lstdc++ -o "$work/fuzz-$name"
if [ "$1" = -minimize ]; then
	exec "$work/fuzz-$name" -minimize_crash=1 -runs=100000 "$2"
fi
secs=${1:-600}
"$work/fuzz-$name" -max_total_time="$secs" -dict="$top/tests/fuzz/$dict" \
	-artifact_prefix="./fuzz-$name-" "$work/corpus" "$corpus"
