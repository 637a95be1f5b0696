#!/bin/sh
# Finding the real nvcc: MPCC_NVCC, else the first nvcc on PATH that is not
# mpcc itself (a directory holding nvcc -> mpcc, first on PATH, must never
# recurse), else $CUDA_HOME/bin/nvcc, else /usr/local/cuda/bin/nvcc
. "$MPCC_SRC/tests/driver/lib.sh"

cd "$T"
cp "$KERNELS/saxpy.cu" a.cu
nvcc -c a.cu -o n.o
real=$(command -v nvcc)
mkdir -p mask fake/bin
ln -s "$MPCC" mask/nvcc
printf '#!/bin/sh\necho fake nvcc "$@"\n' >fake/bin/nvcc
chmod +x fake/bin/nvcc

testing symlink-named-nvcc-first-on-path
PATH="$T/mask:$PATH" nvcc -c a.cu -o m.o && same n.o m.o && passed || fail "status $?"

testing symlink-named-nvcc-forced
PATH="$T/mask:$PATH" MPCC_FORCE_PIPELINE=1 nvcc -c a.cu -o f.o && same n.o f.o && passed ||
	fail "status $?"

testing symlink-version
PATH="$T/mask:$PATH" nvcc --version >m.txt && "$real" --version >n.txt && cmp -s m.txt n.txt &&
	passed || fail "differs"

testing mpcc-nvcc-variable
out=$(MPCC_NVCC="$T/fake/bin/nvcc" "$MPCC" -c a.cu) && [ "$out" = "fake nvcc -c a.cu" ] &&
	passed || fail "'$out'"

testing mpcc-nvcc-strips-mpcc-options
out=$(MPCC_NVCC="$T/fake/bin/nvcc" "$MPCC" --mpcc-profile=x -c a.cu) &&
	[ "$out" = "fake nvcc -c a.cu" ] && passed || fail "'$out'"

testing mpcc-nvcc-is-self
if MPCC_NVCC="$T/mask/nvcc" "$MPCC" -c a.cu 2>err.txt; then fail "exit 0"
else grep -q "is mpcc itself" err.txt && passed || fail "$(cat err.txt)"; fi

testing mpcc-nvcc-missing
if MPCC_NVCC="$T/none/nvcc" "$MPCC" -c a.cu 2>err.txt; then fail "exit 0"
else grep -q "mpcc: error: MPCC_NVCC=.* is not an executable" err.txt && passed || fail "$(cat err.txt)"; fi

testing cuda-home-when-not-on-path
out=$(PATH="$T/mask:/usr/bin:/bin" CUDA_HOME="$T/fake" "$MPCC" -c a.cu) &&
	[ "$out" = "fake nvcc -c a.cu" ] && passed || fail "'$out'"

testing path-before-cuda-home
out=$(PATH="$T/fake/bin:$PATH" CUDA_HOME=/usr/local/cuda "$MPCC" --version) &&
	[ "$out" = "fake nvcc --version" ] && passed || fail "'$out'"
finish
