#!/bin/sh
# CMake takes mpcc for nvcc: -DCMAKE_CUDA_COMPILER=mpcc identifies the same
# compiler (version, toolkit, architectures) as nvcc does, with and without
# the forced pipeline, and the sample project (an architecture list,
# separable compilation, a device link) builds, links and gives nvcc's objects
. "$MPCC_SRC/tests/driver/lib.sh"
command -v cmake >/dev/null 2>&1 || { echo "no cmake: skipped"; exit 77; }

src="$MPCC_SRC/tests/driver/cmake-project"
build() {  # build DIR COMPILER
	cmake -S "$src" -B "$T/$1" -DCMAKE_CUDA_COMPILER="$2" >"$T/$1.log" 2>&1 &&
	cmake --build "$T/$1" -j4 >>"$T/$1.log" 2>&1
}
ident() { sed 1d "$T/$1"/CMakeFiles/*/CMakeCUDACompiler.cmake; }
objects() {
	for o in saxpy.cu.o scale.cu.o; do
		same "$T/$1/CMakeFiles/kern.dir/$o" "$T/$2/CMakeFiles/kern.dir/$o" || return 1
	done
}

build nvcc "$(command -v nvcc)" || { cat "$T/nvcc.log"; exit 1; }

testing cmake-pass-through
if build pass "$MPCC" && "$T/pass/demo" >/dev/null; then
	[ "$(ident pass)" = "$(ident nvcc)" ] && objects nvcc pass && passed || fail "differs from nvcc"
else fail "$(tail -5 "$T/pass.log")"; fi

testing cmake-forced-pipeline
export MPCC_FORCE_PIPELINE=1
if build forced "$MPCC" && "$T/forced/demo" >/dev/null; then
	[ "$(ident forced)" = "$(ident nvcc)" ] && objects nvcc forced && passed || fail "differs from nvcc"
else fail "$(tail -5 "$T/forced.log")"; fi
finish
