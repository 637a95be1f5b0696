#!/bin/sh
# run.sh [SECONDS]: build the libFuzzer target with clang and fuzz the PTX
# parser, printer and analyses for SECONDS (default 600) with one job.
# New inputs go to a work corpus outside the tree; crashes land in
# ./fuzz-crash-*: fix them, then copy each into tests/fuzz/corpus, which CI
# replays through tests/unit/u-ptx-fuzz.c.
set -e
top=$(cd "$(dirname "$0")/../.." && pwd)
secs=${1:-600}
work=${FUZZ_WORK:-/tmp/mpcc-fuzz}
mkdir -p "$work/corpus"
clang=$(command -v clang-14 || command -v clang)
"$clang" -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	-I"$top" "$top"/tests/fuzz/fuzz-parse.c "$top"/ptx/[a-z]*.c "$top"/common/util.c \
	-lstdc++ -o "$work/fuzz-parse"
"$work/fuzz-parse" -max_total_time="$secs" -dict="$top/tests/fuzz/ptx.dict" \
	-artifact_prefix=./fuzz- "$work/corpus" "$top/tests/fuzz/corpus"
