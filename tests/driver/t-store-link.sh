#!/bin/sh
# The store runtime at the link (issue 47; driver/link.c). A line that
# links an executable from an object or archive member holding the store
# table (section mpcc_store) gets libmpccrt.a and its wrap list (nvcc's
# own steps show them: -dryrun); without the table it is nvcc's line, byte
# for byte; where the runtime cannot see every reader of device memory, it
# is nvcc's line with one note saying why. Also: the runtime's table of
# entry points is every export of the CUDA runtime installed, and its wrap
# list is what the library defines.
. "$MPCC_SRC/tests/driver/lib.sh"
: "${MPCC_BUILD:?}"
RT=$MPCC_BUILD/runtime
[ -f "$RT/libmpccrt.a" ] || { echo "no $RT/libmpccrt.a (no CUDA headers at the build?): skipped"; exit 77; }
W=$T/w
mkdir -p "$W"
cd "$W" || exit 1

# a.o: a CUDA program; st.o: a store table; the others: calls of their own
cat >a.cu <<'CU'
#include <cstdio>
__global__ void scale(double *y, double a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) y[i] *= a;
}
int main()
{
	double *y;
	cudaMalloc(&y, 800);
	scale<<<1, 100>>>(y, 2.0, 100);
	printf("%d\n", (int)cudaDeviceSynchronize());
	return 0;
}
CU
nvcc -c a.cu -o a.o || { fail "nvcc -c"; finish; }
cat >st.c <<'C'
static const char fatbin[16];
__attribute__((used, section("mpcc_store"), aligned(16)))
static const struct { const void *fatbin; const char *spec; } table[] = {
	{fatbin, "1 _Z5scalePddi _Z5scalePddi_mpcc_store c 3 w:f64>f32 - -"},
};
C
printf 'extern int cuMemAlloc_v2(void *, unsigned long);\nint drv(void *p) { return cuMemAlloc_v2(p, 8); }\n' >drv.c
printf 'extern int cublasDdot_v2(void);\nint blas(void) { return cublasDdot_v2(); }\n' >blas.c
printf 'int plain(int x) { return x + 1; }\n' >plain.c
for f in st drv blas plain; do gcc -c $f.c -o $f.o || fail "gcc $f.c"; done
gcc -flto -c st.c -o lto.o 2>/dev/null
head -c 100 st.o >bad.o
ar rcs libst.a plain.o st.o && ar rcs libcublas_static.a plain.o

# dry LINE...: mpcc -dryrun and nvcc -dryrun of LINE, in m.* and n.*
dry() {
	"$MPCC" -dryrun "$@" >m.out 2>m.err
	echo $? >m.rc
	nvcc -dryrun "$@" >n.out 2>n.err
	echo $? >n.rc
}
# the host link line mpcc's -dryrun shows
linkline() { grep '^#\$ g++' m.err | tail -1; }
runtime_on_line() {
	linkline | grep -qF "\"$(cd "$RT" && pwd -P)/libmpccrt.a\"" &&
		[ "$(linkline | grep -o -- '-Xlinker --wrap=[A-Za-z_0-9]*' | wc -l)" = "$(wc -l <"$RT/mpccrt.wrap")" ]
}
# the same as nvcc's, but for the note (one line, mpcc's) when one is given
as_nvcc() {
	if [ -n "$1" ]; then
		[ "$(grep -c '^mpcc: ' m.err)" = 1 ] && grep -qxF "mpcc: note: store: not linking mpcc's runtime: $1: every kernel runs in its original form" m.err ||
			return 1
	fi
	grep -v '^mpcc: ' m.err >m.err2
	same n.out m.out && same n.err m.err2 && cmp -s n.rc m.rc
}

testing "an object with the store table links the runtime and its wraps"
dry a.o st.o -o prog
if runtime_on_line && [ ! -s m.out ] && ! grep -q '^mpcc: ' m.err; then passed; else fail "$(linkline | cut -c1-300) $(cat m.err | grep mpcc)"; fi

testing "the program links, and wraps the CUDA runtime"
if "$MPCC" a.o st.o -o prog 2>err && [ ! -s err ] && nm prog | grep -q ' T __wrap_cudaMalloc$' &&
	nm prog | grep -q ' T __wrap___cudaLaunchKernel$' && [ "$(nm prog | grep -c ' T __wrap_')" = "$(wc -l <"$RT/mpccrt.wrap")" ]; then
	passed
else
	fail "$(cat err)"
fi

testing "-v shows the runtime on nvcc's host link, and the shared runtime takes it too"
if "$MPCC" -v -cudart shared a.o st.o -o prog.so.exe 2>err && grep '^#\$ g++' err | grep -q libmpccrt.a &&
	nm -D prog.so.exe | grep -q ' U cudaMalloc' && nm prog.so.exe | grep -q ' T __wrap_cudaMalloc$'; then
	passed
else
	fail "$(grep -c libmpccrt err)"
fi

testing "a line that compiles and links: the pipeline's dryrun carries the runtime"
if "$MPCC" --mpcc-force-pipeline -v a.cu st.o -o prog2 2>err && grep '^#\$ g++' err | tail -1 | grep -q libmpccrt.a &&
	nm prog2 | grep -q ' T __wrap_cudaMalloc$'; then
	passed
else
	fail "$(tail -3 err)"
fi

testing "an archive member with the store table, and allowed libraries"
dry a.o libst.a -o prog -lm -lpthread -ldl
if runtime_on_line && ! grep -q '^mpcc: ' m.err; then passed; else fail "$(grep mpcc m.err)"; fi

testing "without the table: nvcc's line, byte for byte"
ok=1
for line in "a.o -o prog" "a.o plain.o -o prog -lcublas" "a.o libcublas_static.a -o prog" "a.o -shared -o x.so"; do
	# shellcheck disable=SC2086
	dry $line
	as_nvcc "" || { ok=0; fail "$line: $(diff m.err n.err | head -3)"; }
done
[ $ok = 1 ] && passed

testing "a line that builds no executable: nvcc's line, without a note"
ok=1
for line in "-lib st.o -o libx.a" "-c a.cu -o a2.o" "-dlink a.o st.o -o dl.o" "-ptx a.cu -o a.ptx"; do
	# shellcheck disable=SC2086
	dry $line
	as_nvcc "" || { ok=0; fail "$line: $(diff m.err n.err | head -3)"; }
done
[ $ok = 1 ] && passed

# refused LINE -- WHY: the note, and nvcc's line otherwise
refused() {
	why=$1
	shift
	testing "refused: $why"
	dry "$@"
	if as_nvcc "$why"; then passed; else fail "$(grep mpcc m.err) | $(diff m.out n.out | head -3)"; fi
}
refused "the program links 'cublas', which takes device pointers mpcc cannot follow" a.o st.o -o prog -lcublas
refused "the program links 'cufft', which takes device pointers mpcc cannot follow" a.o st.o -o prog -l cufft
refused "the program links 'nccl', which takes device pointers mpcc cannot follow" a.o st.o -o prog --library=m,nccl
refused "the program links 'mpi_cxx', which takes device pointers mpcc cannot follow" a.o st.o -o prog -Xlinker -lmpi_cxx
refused "the program links 'cuda', the driver API, which takes device pointers mpcc cannot follow" a.o st.o -o prog -lcuda
refused "the program links 'cublas_static', which takes device pointers mpcc cannot follow" a.o st.o libcublas_static.a -o prog
refused "the program links 'foo', a library mpcc does not know" a.o st.o -o prog -lfoo
refused "the program links 'plain', a library mpcc does not know" a.o st.o -o prog "$W/libplain.so"
refused "the line makes a shared library (-shared), and the runtime goes into executables only" a.o st.o -shared -o x.so
refused "the line makes a shared library (-shared), and the runtime goes into executables only" a.o st.o -Xcompiler -shared -o x.so
refused "the line links no CUDA runtime (-cudart none)" a.o st.o -cudart none -o prog
refused "'drv.o' calls 'cuMemAlloc_v2', which mpcc's runtime does not account for" a.o st.o drv.o -o prog
refused "'blas.o' calls 'cublasDdot_v2', of a library that takes device pointers mpcc cannot follow" a.o st.o blas.o -o prog
refused "the line wraps 'cudaMalloc' itself (--wrap)" a.o st.o -o prog -Xlinker --wrap=cudaMalloc
refused "'bad.o' is not a 64-bit relocatable ELF object, whose calls mpcc cannot read" a.o st.o bad.o -o prog
if [ -s lto.o ]; then
	refused "'lto.o' holds LTO IR, whose calls mpcc cannot read" a.o st.o lto.o -o prog
fi

testing "refused through NVCC_APPEND_FLAGS too"
NVCC_APPEND_FLAGS=-lcublas dry a.o st.o -o prog
NVCC_APPEND_FLAGS=-lcublas as_nvcc "the program links 'cublas', which takes device pointers mpcc cannot follow" && passed ||
	fail "$(grep mpcc m.err)"

testing "refused where the runtime is not found"
mkdir -p alone && cp "$MPCC" alone/mpcc
if alone/mpcc -dryrun a.o st.o -o prog >m.out 2>m.err; echo $? >m.rc; nvcc -dryrun a.o st.o -o prog >n.out 2>n.err; echo $? >n.rc
	as_nvcc "mpcc's runtime is not installed (libmpccrt.a, mpccrt.wrap and mpccrt.syms, in runtime/ beside mpcc or in PREFIX/lib/mpcc)"; then
	passed
else
	fail "$(grep mpcc m.err)"
fi

testing "the runtime's table is every export of the CUDA runtime"
so=$(ls /usr/local/cuda/lib64/libcudart.so 2>/dev/null || ls "$(dirname "$(command -v nvcc)")"/../lib64/libcudart.so 2>/dev/null)
sed -n 's/^X(\([A-Za-z_0-9]*\), [WNR]).*/\1/p' "$MPCC_SRC/runtime/syms.h" | sort >table
if [ -z "$so" ]; then
	echo "skipped (no libcudart.so)"
else
	nm -D --defined-only "$so" | awk '$2 == "T" { sub(/@.*/, "", $3); print $3 }' | sort -u >exports
	comm -23 exports table >missing
	[ "$(sort table | uniq -d)" = "" ] && [ ! -s missing ] && passed || fail "not in runtime/syms.h: $(cat missing)"
fi

testing "the wrap list is what the library wraps, and the symbols list what it accounts for"
nm "$RT/libmpccrt.a" | awk '$2 == "T" && $3 ~ /^__wrap_/ { sub(/^__wrap_/, "", $3); print $3 }' | sort >defined
sed 's/^--wrap=//' "$RT/mpccrt.wrap" | sort >listed
sed -n 's/^X(\([A-Za-z_0-9]*\), [WN]).*/\1/p' "$MPCC_SRC/runtime/syms.h" | sort >accounted
nm "$RT/libmpccrt.a" | awk 'NF == 3 && $2 ~ /^[A-Z]$/ && $2 != "U" && $3 !~ /^__wrap_/' >others
if cmp -s defined listed && [ -s defined ] && sort "$RT/mpccrt.syms" | cmp -s - accounted && [ ! -s others ]; then
	passed
else
	fail "$(diff defined listed | head -5) $(head -3 others)"
fi
finish
