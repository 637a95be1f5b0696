#!/bin/sh
# examples/profiles builds with mpcc through CMake and through make, and
# each build configuration runs under the profile it claims: CMake's Release
# under "fast" (CMAKE_CUDA_FLAGS_RELEASE), Debug under default_profile
# "accurate"; make under "accurate", MPCC_PROFILE=fast make under "fast",
# rebuilding every object when the profile changes. The profile of a compile
# is read from the '#$ mpcc-pipeline ... --profile NAME' step that
# --mpcc-dryrun prints for the very command the build ran and, when mpcc
# writes reports, from mpcc-report.jsonl.
name=policy-examples
: "${MPCC:?}" "${MPCC_SRC:?}"
export PATH="$PATH:/usr/local/cuda/bin"
command -v nvcc >/dev/null || { echo "testing $name ... skipped (no nvcc)"; exit 77; }
command -v python3 >/dev/null || { echo "testing $name ... skipped (no python3)"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-policy-examples.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "testing $name ... FAILED: $*"; exit 1; }
unset MPCC_POLICY MPCC_PROFILE MPCC_REPORT CCACHE_COMPILERCHECK

# the profile a compile line runs under, or "-" for pass-through: $1 = cwd, rest = the line
profile_of() {
	dir=$1
	shift
	(cd "$dir" && "$@" --mpcc-dryrun 2>&1) |
		sed -n 's/^#\$ mpcc-pipeline .*--profile \([^ ]*\).*/\1/p' | head -1 | grep . || echo -
}
# the sfu report lines as "kernel lambda", sorted; nothing if no report
sfu_lines() {
	[ -f "$1" ] || return 0
	python3 -c '
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    print(r["mangled"], r["transform"], r["params"].get("lambda"))
' "$1" | sort
}
checked=""

# --- CMake ---
if command -v cmake >/dev/null && command -v make >/dev/null; then
	cp -r "$MPCC_SRC/examples/profiles" "$tmp/cmake"
	for cfg in Release Debug; do
		b="$tmp/cmake/build-$cfg"
		cmake -S "$tmp/cmake" -B "$b" -DCMAKE_CUDA_COMPILER="$MPCC" -DCMAKE_BUILD_TYPE=$cfg \
			>"$tmp/log" 2>&1 || fail "cmake $cfg: $(tail -20 "$tmp/log")"
		make -C "$b" -j2 >"$tmp/log" 2>&1 || fail "make $cfg: $(tail -20 "$tmp/log")"
		[ -x "$b/boxmuller" ] || fail "$cfg: no executable"
		# replay each CUDA compile of compile_commands.json under --mpcc-dryrun
		python3 -c '
import json, shlex, sys
for c in json.load(open(sys.argv[1])):
    if c["file"].endswith(".cu"):
        print(c["directory"], c["file"].split("/src/", 1)[1], c["command"])
' "$b/compile_commands.json" > "$tmp/cmds"
		while read -r dir src cmd; do
			eval "set -- $cmd"
			got=$(profile_of "$dir" "$@")
			want=-
			[ $cfg = Release ] && [ "$src" = rng/boxmuller.cu ] && want=fast
			[ "$got" = "$want" ] || fail "cmake $cfg: $src runs under '$got', expected '$want'"
		done < "$tmp/cmds"
		[ "$(wc -l < "$tmp/cmds")" -eq 3 ] || fail "cmake $cfg: $(wc -l < "$tmp/cmds") CUDA compiles"
		sfu_lines "$b/mpcc-report.jsonl" > "$tmp/sfu-$cfg"
	done
	[ -s "$tmp/sfu-Debug" ] && fail "cmake Debug: the report names a transform: $(cat "$tmp/sfu-Debug")"
	echo "_Z9BoxMullerPfi sfu 48" | cmp -s - "$tmp/sfu-Release" ||
		fail "cmake Release report: $(cat "$tmp/sfu-Release")"
	checked="$checked cmake"
fi

# --- make ---
if command -v make >/dev/null; then
	m="$tmp/make"
	cp -r "$MPCC_SRC/examples/profiles" "$m"
	make -C "$m" NVCC="$MPCC" >"$tmp/log" 2>&1 || fail "make: $(tail -20 "$tmp/log")"
	[ -x "$m/boxmuller" ] || fail "make: no executable"
	[ "$(profile_of "$m" "$MPCC" -arch=sm_90 -O3 -Isrc -c src/rng/boxmuller.cu -o x.o)" = - ] ||
		fail "make: boxmuller.cu is not passed through"
	sfu_lines "$m/mpcc-report.jsonl" > "$tmp/sfu-plain"
	[ -s "$tmp/sfu-plain" ] && fail "make: the report names a transform: $(cat "$tmp/sfu-plain")"
	# the output, not only the report: the default profile builds nvcc's objects
	for o in main rng/boxmuller stats; do
		(cd "$m" && nvcc -arch=sm_90 -O3 -Isrc -c src/$o.cu -o "$tmp/nvcc-$(basename $o).o") ||
			fail "nvcc $o.cu"
		python3 "$MPCC_SRC/tests/driver/sass.py" "$m/build/$o.o" >"$tmp/m.sass"
		python3 "$MPCC_SRC/tests/driver/sass.py" "$tmp/nvcc-$(basename $o).o" >"$tmp/n.sass"
		cmp -s "$tmp/m.sass" "$tmp/n.sass" || fail "make: $o.o's SASS is not nvcc's"
	done
	MPCC_PROFILE=fast make -C "$m" NVCC="$MPCC" >"$tmp/log" 2>&1 || fail "MPCC_PROFILE=fast make: $(tail -20 "$tmp/log")"
	[ "$(grep -c -- ' -c src/' "$tmp/log")" -eq 3 ] || fail "switching the profile did not rebuild every object"
	got=$(MPCC_PROFILE=fast profile_of "$m" "$MPCC" -arch=sm_90 -O3 -Isrc -c src/rng/boxmuller.cu -o x.o)
	[ "$got" = fast ] || fail "MPCC_PROFILE=fast: boxmuller.cu runs under '$got'"
	got=$(MPCC_PROFILE=fast profile_of "$m" "$MPCC" -arch=sm_90 -O3 -Isrc -c src/stats.cu -o x.o)
	[ "$got" = - ] || fail "MPCC_PROFILE=fast: stats.cu runs under '$got'"
	sfu_lines "$m/mpcc-report.jsonl" > "$tmp/sfu-fast"
	echo "_Z9BoxMullerPfi sfu 48" | cmp -s - "$tmp/sfu-fast" || fail "make report: $(cat "$tmp/sfu-fast")"
	# and "fast" changes the SASS of BoxMuller and of nothing else
	for o in main rng/boxmuller stats; do
		python3 "$MPCC_SRC/tests/driver/sass.py" "$m/build/$o.o" | sort >"$tmp/m.sass"
		python3 "$MPCC_SRC/tests/driver/sass.py" "$tmp/nvcc-$(basename $o).o" | sort >"$tmp/n.sass"
		changed=$(LC_ALL=C comm -13 "$tmp/n.sass" "$tmp/m.sass" | cut -d' ' -f2 | tr '\n' ' ')
		want=
		[ $o = rng/boxmuller ] && want="_Z9BoxMullerPfi "
		[ "$changed" = "$want" ] || fail "MPCC_PROFILE=fast: $o.o changes the SASS of '$changed', expected '$want'"
	done
	MPCC_PROFILE=fast make -C "$m" NVCC="$MPCC" >"$tmp/log" 2>&1
	grep -q -- ' -c src/' "$tmp/log" && fail "a second MPCC_PROFILE=fast make rebuilt objects"
	touch "$m/src/rng/.mpcc.yaml"
	MPCC_PROFILE=fast make -C "$m" NVCC="$MPCC" >"$tmp/log" 2>&1
	[ "$(grep -c -- ' -c src/' "$tmp/log")" -eq 3 ] || fail "a policy edit did not rebuild every object"
	checked="$checked make"
fi
[ -n "$checked" ] || { echo "testing $name ... skipped (no make)"; exit 77; }
echo "testing $name ... passed (checked:$checked)"
