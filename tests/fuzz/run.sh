#!/bin/sh
# run.sh [TARGET] [SECONDS | -runs=N]: build the libFuzzer targets with clang
# and fuzz TARGET for SECONDS (default 600) with one job. TARGET (default
# parse) is one of
#   parse      the PTX library: parser, printer, analyses, verifier, clonebody
#   pass:NAME  the pass NAME of transforms/passes.c on every kernel of valid
#              PTX, its parameters drawn from the input through its schema
#              (sfu is short for pass:sfu)
#   policy     the .mpcc.yaml loader on any bytes
#   all        every one of them, one after the other: parse, policy and
#              pass:NAME for each pass of the table
# The targets are a CMake build (-DMPCC_FUZZ=ON, tests/fuzz/CMakeLists.txt)
# in $FUZZ_DIR/build (default /tmp/mpcc-fuzz/build), linked against the
# libraries the tools are made of, so a new source file is fuzzed as soon
# as the tools have it. New inputs go to a work corpus, $FUZZ_DIR/TARGET;
# crashes land in ./fuzz-TARGET-crash-*. To keep a crash: minimize it
# (run.sh TARGET -minimize CRASH), fix the bug, then copy the minimized
# input, named by its SHA-1, into the target's corpus (tests/fuzz/corpus for
# parse, tests/fuzz/corpus-NAME for pass:NAME, tests/fuzz/corpus-policy),
# which CI replays through tests/unit/u-ptx-fuzz.c, u-fuzz-pass.c and
# u-fuzz-policy.c.
# -runs=N is the check CI runs (ctest's fuzz/all): N inputs from the corpus
# and its mutations, from a fixed seed, keeping no new input; crashes go to
# $FUZZ_DIR. A check leaves $FUZZ_DIR as it found it: one it made (the
# suite names one in its TMPDIR) is removed when every target passed, and
# kept, crash and build, when one failed. Without clang and libFuzzer it
# exits 77 (skipped), or 1 when MPCC_REQUIRE_FUZZ is set (CI, which
# installs them).
set -e
top=$(cd "$(dirname "$0")/../.." && pwd)
dir=${FUZZ_DIR:-/tmp/mpcc-fuzz}
case $1 in
[0-9]*|-runs=*|"") target=parse ;;
sfu) target=pass:sfu; shift ;;
*) target=$1; shift ;;
esac
case $target in
parse|policy|all|pass:?*) ;;
*) echo "run.sh: unknown target '$target' (parse, pass:NAME, sfu, policy, all)" >&2; exit 2 ;;
esac

# no clang or no libFuzzer: skipped, unless CI requires them
missing() {
	echo "run.sh: skipped: $1 (scripts/install-deps.sh --test installs clang and libclang-rt-14-dev)"
	[ -z "$MPCC_REQUIRE_FUZZ" ] || exit 1
	exit 77
}

# the three targets, by CMake from the tools' own libraries
build() {
	clang=$(command -v clang-14 || command -v clang) || missing "no clang"
	clangxx=$(command -v clang++-14 || command -v clang++) || missing "no clang++"
	echo 'int LLVMFuzzerTestOneInput(const char *d, long n) { return 0; }' >"$dir/probe.c"
	"$clang" -fsanitize=fuzzer "$dir/probe.c" -o "$dir/probe" 2>/dev/null || missing "no libFuzzer in $clang"
	rm -f "$dir/probe" "$dir/probe.c"
	cmake -S "$top" -B "$dir/build" -DMPCC_FUZZ=ON -DBUILD_TESTING=OFF \
		-DCMAKE_C_COMPILER="$clang" -DCMAKE_CXX_COMPILER="$clangxx" \
		-DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG="-g -O1" >"$dir/cmake.log" 2>&1 ||
		{ cat "$dir/cmake.log" >&2; exit 1; }
	cmake --build "$dir/build" -j"$(nproc)" --target fuzz-parse fuzz-pass fuzz-policy >"$dir/build.log" 2>&1 ||
		{ tail -40 "$dir/build.log" >&2; exit 1; }
}

# the binary, corpus and dictionary of a target, into bin, corpus, dict, pass
what() {
	pass=
	case $1 in
	parse) bin=parse; corpus=$top/tests/fuzz/corpus; dict=ptx.dict ;;
	policy) bin=policy; corpus=$top/tests/fuzz/corpus-policy; dict=yaml.dict ;;
	pass:*) bin=pass; pass=${1#pass:}; corpus=$top/tests/fuzz/corpus-$pass; dict=ptx.dict
		[ -d "$corpus" ] || corpus=$top/tests/fuzz/corpus-sfu ;;
	esac
	bin=$dir/build/tests/fuzz/fuzz-$bin
}

# fuzz TARGET LIMIT...: one target under libFuzzer's LIMIT options; a check
# (-runs=N) starts from an empty work corpus and leaves none
fuzz() {
	what "$1"
	name=$(echo "$1" | tr : -)
	shift
	work=$dir/$name
	art=./fuzz-$name-
	if [ "$check" ]; then
		work=$dir/check-$name
		art=$dir/fuzz-$name-
		rm -rf "$work"
	fi
	mkdir -p "$work/corpus"
	MPCC_FUZZ_PASS=$pass "$bin" -dict="$top/tests/fuzz/$dict" -artifact_prefix="$art" "$@" \
		"$work/corpus" "$corpus"
	[ -z "$check" ] || rm -rf "$work"
}

# every target: parse, policy, then the passes of the table
targets() {
	echo parse
	echo policy
	MPCC_FUZZ_PASS=list "$dir/build/tests/fuzz/fuzz-pass" | sed 's/^/pass:/'
}

# what this run leaves of a $dir it made: nothing after a skip or a check
# that passed; all of it, said, after a check that failed
leave() {
	st=$?
	[ "$made" ] || return 0
	if [ "$st" = 77 ] || { [ "$check" ] && [ "$st" = 0 ]; }; then
		rm -rf "$dir"
	elif [ "$check" ]; then
		echo "run.sh: kept $dir for the failed check: its logs, build and any crash" >&2
	fi
}
made= check=
case $1 in -runs=*) check=1 ;; esac
[ -d "$dir" ] || made=1
trap leave EXIT
mkdir -p "$dir"
build
if [ "$1" = -minimize ]; then
	[ "$target" != all ] || { echo "run.sh: -minimize takes one target" >&2; exit 2; }
	what "$target"
	MPCC_FUZZ_PASS=$pass exec "$bin" -minimize_crash=1 -runs=100000 "$2"
fi
case $1 in
-runs=*) set -- "$1" -seed=1 ;;
*) set -- -max_total_time="${1:-600}" ;;
esac
list=$target
[ "$target" != all ] || list=$(targets)
for t in $list; do
	start=$(date +%s)
	fuzz "$t" "$@"
	echo "run.sh: $t: done in $(($(date +%s) - start)) s"
done
