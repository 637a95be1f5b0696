#!/bin/sh
# run.sh [TARGET] [SECONDS]: build a libFuzzer target with clang and fuzz it
# for SECONDS (default 600) with one job. TARGET (default parse) is one of
#   parse   the PTX library: parser, printer, analyses, verifier, clonebody
#   sfu     the sfu pass on every kernel of valid PTX, parameters from the input
#   policy  the .mpcc.yaml loader on any bytes
# New inputs go to a work corpus outside the tree ($FUZZ_WORK, default
# /tmp/mpcc-fuzz/TARGET); crashes land in ./fuzz-TARGET-crash-*. To keep a
# crash: minimize it (run.sh TARGET -minimize CRASH), fix the bug, then copy
# the minimized input into the target's corpus (tests/fuzz/corpus for parse,
# tests/fuzz/corpus-TARGET for the others), which CI replays through
# tests/unit/u-ptx-fuzz.c and u-fuzz-TARGET.c.
set -e
top=$(cd "$(dirname "$0")/../.." && pwd)
case $1 in
[0-9]*|"") target=parse ;;
*) target=$1; shift ;;
esac
case $target in
parse) src="$top/ptx/[a-z]*.c"; corpus=$top/tests/fuzz/corpus; dict=ptx.dict; libs= ;;
sfu) src="$top/ptx/[a-z]*.c $top/transforms/sfu.c"; corpus=$top/tests/fuzz/corpus-sfu
	dict=ptx.dict; libs= ;;
policy) src="$(ls "$top"/policies/*.c | grep -v /load.c) $(ls "$top"/transforms/*.c | grep -v /mpcc-opt.c) $top/ptx/[a-z]*.c"
	corpus=$top/tests/fuzz/corpus-policy
	dict=yaml.dict; libs=-lyaml ;;
*) echo "run.sh: unknown target '$target' (parse, sfu, policy)" >&2; exit 2 ;;
esac
work=${FUZZ_WORK:-/tmp/mpcc-fuzz/$target}
mkdir -p "$work/corpus"
clang=$(command -v clang-14 || command -v clang)
# shellcheck disable=SC2086
"$clang" -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	-I"$top" -DMPCC_VERSION=\"fuzz\" "$top/tests/fuzz/fuzz-$target.c" $src "$top/common/util.c" \
	$libs -lstdc++ -o "$work/fuzz-$target"
if [ "$1" = -minimize ]; then
	exec "$work/fuzz-$target" -minimize_crash=1 -runs=100000 "$2"
fi
secs=${1:-600}
"$work/fuzz-$target" -max_total_time="$secs" -dict="$top/tests/fuzz/$dict" \
	-artifact_prefix="./fuzz-$target-" "$work/corpus" "$corpus"
