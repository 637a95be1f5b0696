#!/bin/sh
# build.sh SRC.cu OUT SPEC...: SRC built as mpcc will build it once a
# store rule gives its kernels clones: its host code (nvcc -cuda) with the
# store table appended, one entry per SPEC ("1 MANGLED CLONE OPEN N P..."),
# each naming the unit's fatbinary, as mpcc's driver appends it to the
# stub; then linked through mpcc, which links the store runtime (the link
# fails here if it does not). Until the compiler's side writes the table,
# this is how the runtime's GPU test and bench get one.
# Environment: MPCC (the driver), NVCC, NVFLAGS (e.g. "-O2 -arch=sm_90").
set -e
src=$1 out=$2
shift 2
: "${MPCC:?}" "${NVCC:=nvcc}"
"$NVCC" $NVFLAGS -cuda "$src" -o "$out.ii"
{
	echo '/* the store table, as mpcc writes it into the stub */'
	echo '__attribute__((used, section("mpcc_store"), aligned(16)))'
	echo 'static const struct { const void *fatbin; const char *spec; } __mpcc_store_table[] = {'
	for spec in "$@"; do
		echo "	{&__fatDeviceText, \"$spec\"},"
	done
	echo '};'
} >>"$out.ii"
g++ -O2 -c -x c++ -m64 "$out.ii" -o "$out.o"
"$MPCC" $NVFLAGS "$out.o" -o "$out" 2>"$out.err"
rm -f "$out.ii" "$out.o"
if [ -s "$out.err" ] || ! nm "$out" | grep -q ' T __wrap___cudaLaunchKernel$'; then
	cat "$out.err" >&2
	echo "build.sh: $out: mpcc did not link its runtime" >&2
	exit 1
fi
rm -f "$out.err"
