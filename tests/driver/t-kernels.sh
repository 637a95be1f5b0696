#!/bin/sh
# Every kernel of tests/kernels, through mpcc, gives nvcc's bytes:
#   -c (default arch): pass-through and forced pipeline objects
#   -c -lineinfo with sm_80 and sm_90 (two -gencode): forced pipeline objects
#   -G: nvcc's own -G objects differ run to run throughout the fatbin, so
#       the comparable output is compared: the -cubin (it records ptxas's
#       command line, so both are written under the same name)
. "$MPCC_SRC/tests/driver/lib.sh"

cd "$T"
two="-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=[sm_90,compute_90]"
for cu in "$KERNELS"/*.cu; do
	k=$(basename "$cu" .cu)
	cp "$cu" "$k.cu"
	testing "$k"
	why=
	nvcc -c "$k.cu" -o n.o 2>/dev/null &&
	"$MPCC" -c "$k.cu" -o p.o 2>/dev/null &&
	"$MPCC" --mpcc-force-pipeline -c "$k.cu" -o f.o 2>/dev/null || why="$why compile"
	same n.o p.o || why="$why pass-through"
	same n.o f.o || why="$why forced"
	nvcc -c -lineinfo $two "$k.cu" -o n.o 2>/dev/null &&
	"$MPCC" --mpcc-force-pipeline -c -lineinfo $two "$k.cu" -o f.o 2>/dev/null || why="$why compile-lineinfo"
	same n.o f.o || why="$why lineinfo-sm80-sm90"
	nvcc -G -cubin -arch=sm_90 "$k.cu" -o k.cubin 2>/dev/null && mv k.cubin n.cubin &&
	"$MPCC" --mpcc-force-pipeline -G -cubin -arch=sm_90 "$k.cu" -o k.cubin 2>/dev/null &&
	mv k.cubin f.cubin || why="$why compile-G"
	same n.cubin f.cubin || why="$why G-cubin"
	if [ -z "$why" ]; then passed; else fail "$why"; fi
	rm -f n.o p.o f.o n.cubin f.cubin "$k.cu"
done
finish
