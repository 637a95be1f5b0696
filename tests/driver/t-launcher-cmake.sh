#!/bin/sh
# CMake with the compiler left as the real nvcc and mpcc as
# CMAKE_CUDA_COMPILER_LAUNCHER (tests/driver/launcher-project: two
# architectures, separable compilation, a device link). Without a policy the
# objects are nvcc's; with one, the Debug build (profile accurate) is nvcc's
# and the Release build (--mpcc-profile=fast through a generator expression
# in the launcher) has BoxMuller transformed, in the objects' PTX, exactly
# as a CMAKE_CUDA_COMPILER=mpcc build has it, and still device-links.
. "$MPCC_SRC/tests/driver/lib.sh"
command -v cmake >/dev/null 2>&1 || { echo "no cmake: skipped"; exit 77; }

real=$(command -v nvcc)
fast='$<$<CONFIG:Release>:--mpcc-profile=fast>'
cp -r "$MPCC_SRC/tests/driver/launcher-project" "$T/src"
cp -r "$T/src" "$T/nopolicy"
rm "$T/nopolicy/.mpcc.yaml"
export MPCC_REPORT="$T/report.jsonl"

# build NAME SRC CONFIG [CMAKE ARGS]: configure and build SRC, verbose, then
# keep the tree as $T/NAME; every build runs in $T/b, since objects may hold
# the build directory's path
build() {
	name=$1 src=$2 config=$3
	shift 3
	rm -rf "$T/b"
	cmake -S "$T/$src" -B "$T/b" -DCMAKE_BUILD_TYPE="$config" "$@" >"$T/$name.log" 2>&1 &&
		cmake --build "$T/b" -j2 -v >>"$T/$name.log" 2>&1 && [ -x "$T/b/demo" ] &&
		mv "$T/b" "$T/$name" || { echo "build $name failed: $(tail -5 "$T/$name.log")"; return 1; }
}
obj() { echo "$T/$1/CMakeFiles/kern.dir/$2.cu.o"; }
# objects A B FILES...: the objects of FILES are the same in builds A and B
objects() {
	a=$1 b=$2
	shift 2
	for f; do
		same "$(obj "$a" "$f")" "$(obj "$b" "$f")" || { echo "$f.cu.o differs"; return 1; }
	done
}
launched() { grep -q "$MPCC .*$real .*-c .*rng.cu" "$T/$1.log" || { echo "mpcc did not launch nvcc"; return 1; }; }

testing launcher-no-policy
if why=$(build np-nvcc nopolicy Release -DCMAKE_CUDA_COMPILER="$real" &&
	build np-mpcc nopolicy Release -DCMAKE_CUDA_COMPILER="$real" -DCMAKE_CUDA_COMPILER_LAUNCHER="$MPCC" &&
	launched np-mpcc && objects np-nvcc np-mpcc rng saxpy scale); then passed; else fail "$why"; fi

testing launcher-no-policy-forced
export MPCC_FORCE_PIPELINE=1
if why=$(build np-forced nopolicy Release -DCMAKE_CUDA_COMPILER="$real" -DCMAKE_CUDA_COMPILER_LAUNCHER="$MPCC" &&
	objects np-nvcc np-forced rng saxpy scale); then passed; else fail "$why"; fi
unset MPCC_FORCE_PIPELINE

testing launcher-debug-profile-accurate
# Debug without -g: nvcc's -g objects order .debug_str by a hash of its
# temporary names, so two nvcc runs of one line differ half the time
debug=-DCMAKE_CUDA_FLAGS_DEBUG=-DDEBUG
if why=$(build d-nvcc src Debug -DCMAKE_CUDA_COMPILER="$real" $debug &&
	build d-mpcc src Debug -DCMAKE_CUDA_COMPILER="$real" "-DCMAKE_CUDA_COMPILER_LAUNCHER=$MPCC;$fast" $debug &&
	launched d-mpcc && objects d-nvcc d-mpcc rng saxpy scale); then passed; else fail "$why"; fi

testing launcher-release-profile-fast
rm -f "$MPCC_REPORT"
if ! why=$(build r-nvcc src Release -DCMAKE_CUDA_COMPILER="$real" &&
	build r-mpcc src Release -DCMAKE_CUDA_COMPILER="$real" "-DCMAKE_CUDA_COMPILER_LAUNCHER=$MPCC;$fast" &&
	launched r-mpcc && objects r-nvcc r-mpcc saxpy scale); then
	fail "$why"
elif same "$(obj r-nvcc rng)" "$(obj r-mpcc rng)"; then
	fail "rng.cu.o is nvcc's: nothing transformed"
elif ! grep -q '%warpid' "$(obj r-mpcc rng)" || grep -q '%warpid' "$(obj r-nvcc rng)"; then
	fail "no %warpid in the PTX of rng.cu.o"
elif [ "$(grep -c '"mangled":"_Z9BoxMullerPfi".*"transform":"sfu".*"applied":true' "$MPCC_REPORT")" != 2 ]; then
	fail "the report does not say BoxMuller was transformed for both archs: $(cat "$MPCC_REPORT")"
elif same "$T/r-nvcc/CMakeFiles/demo.dir/cmake_device_link.o" "$T/r-mpcc/CMakeFiles/demo.dir/cmake_device_link.o"; then
	fail "the device link did not take the transformed objects"
else
	passed
fi

testing launcher-release-same-as-compiler-mpcc
if why=$(build r-cc src Release -DCMAKE_CUDA_COMPILER="$MPCC" -DCMAKE_CUDA_FLAGS_RELEASE="-O3 -DNDEBUG --mpcc-profile=fast" &&
	objects r-cc r-mpcc rng saxpy scale); then passed; else fail "$why"; fi
finish
