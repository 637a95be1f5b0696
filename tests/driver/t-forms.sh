#!/bin/sh
# Every command-line form of issue 2 through the forced pipeline gives what
# nvcc gives: the same files (objects byte-identical once the temporary name
# is masked), the same stdout, stderr and exit status.
. "$MPCC_SRC/tests/driver/lib.sh"

W=$T/w
mkdir -p "$W/inc"
cp "$KERNELS/saxpy.cu" "$W/a.cu"
cp "$KERNELS/math.cu" "$W/b.cu"
cp "$KERNELS/noinline.cu" "$W/c.cu"
cp "$KERNELS/saxpy.cu" "$W/k.c"
printf '#define SCALE 2.0f\n' >"$W/inc/scale.h"
cat >"$W/d.cu" <<'CU'
#include "scale.h"
extern __device__ float ext(float);   /* defined in e.cu: needs -rdc */
__global__ void usext(float *x) { x[threadIdx.x] = ext(x[threadIdx.x]) * SCALE * NAME; }
CU
printf '__device__ float ext(float v) { return v * v + 1.0f; }\n' >"$W/e.cu"
printf 'int host(int x) { return x * 3; }\n' >"$W/h.c"
printf 'int hostpp(int x) { return x * 4; }\n' >"$W/p.cpp"
printf 'int main(void) { return 0; }\n' >"$W/main.c"
printf '__global__ void k() { int x = ; }\n' >"$W/bad.cu"
printf -- '-arch=sm_80 -lineinfo\n-DNAME=3 "-Iinc"\n' >"$W/opts.txt"
(cd "$W" && nvcc -ptx -arch=sm_80 a.cu -o k.ptx && nvcc -c h.c -o h.o)

form c-several-inputs '$NV -c a.cu b.cu c.cu'
form o '$NV -c a.cu -o out.o'
form arch-eq '$NV -c -arch=sm_80 a.cu'
form arch-sep '$NV -c -arch sm_90 a.cu'
form gpu-architecture '$NV -c --gpu-architecture=sm_90 b.cu'
form arch-code '$NV -c -arch=compute_80 -code=sm_80,compute_80 a.cu'
form gencode-two '$NV -c -gencode arch=compute_80,code=sm_80 -gencode=arch=compute_90,code=[sm_90,compute_90] b.cu'
form generate-code-cmake '$NV -c --generate-code=arch=compute_90,code=[compute_90,sm_90] a.cu -o a.o'
form arch-all-major '$NV -c -arch=all-major a.cu'
form arch-native '$NV -c -arch=native a.cu'
form rdc-true-dlink '$NV -rdc=true -c -DNAME=1 -Iinc d.cu e.cu && $NV -dlink d.o e.o -o dl.o'
form dc-dlink-link '$NV -dc -DNAME=1 -Iinc d.cu e.cu && $NV -dlink d.o e.o -o dl.o && $NV d.o e.o h.o main.c -o app'
form ptx '$NV -ptx b.cu'
form ptx-o '$NV -ptx -arch=sm_90 c.cu -o c90.ptx'
form cubin '$NV -cubin -arch=sm_80 c.cu'
form fatbin '$NV -fatbin -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=compute_90 a.cu'
form lib '$NV -lib a.cu b.cu -o libk.a'
form link-only '$NV a.cu -c && $NV a.o h.o main.c -o app2'
form c-input '$NV -c h.c -o h2.o'
form cpp-input '$NV -c p.cpp'
form o-input '$NV h.o main.c -o app3'
form ptx-input-cubin '$NV -cubin -arch=sm_80 k.ptx -o k.cubin'
form ptx-input-c '$NV -c -arch=sm_80 k.ptx -o kptx.o'
form x-cu '$NV -x cu -c k.c -o kc.o'
form Xcompiler-sep '$NV -c -Xcompiler -fPIC a.cu'
form Xcompiler-eq-comma '$NV -c -Xcompiler=-fPIC,-Wall a.cu'
form compiler-options '$NV -c --compiler-options -O2 a.cu'
form Xptxas '$NV -c -arch=sm_80 -Xptxas -v c.cu'
form Xptxas-eq '$NV -c -Xptxas=-O2,-v b.cu'
form Xlinker '$NV a.cu main.c -Xlinker --no-as-needed -Xlinker=-O1 -o app4'
form ccbin '$NV -c -ccbin g++ a.cu'
form ccbin-path '$NV -c -ccbin=/usr/bin/gcc b.cu'
form options-file '$NV -c --options-file opts.txt d.cu'
form optf '$NV -c -optf opts.txt d.cu -o d2.o'
form prepend-flags 'NVCC_PREPEND_FLAGS="-lineinfo -DNAME=2" $NV -c -Iinc d.cu'
form append-flags 'NVCC_APPEND_FLAGS=-DNAME=4 $NV -c -Iinc d.cu'
form threads '$NV -t 2 -c -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 b.cu'
form threads-long '$NV --threads=0 -c -arch=sm_90 a.cu -o a90.o'
form keep '$NV --keep -c a.cu'
form keep-dir 'mkdir -p kd && $NV --keep --keep-dir kd -c -arch=sm_90 c.cu'
form save-temps '$NV -save-temps -c b.cu -o bs.o'
form M '$NV -M -Iinc -DNAME=1 d.cu'
form M-o '$NV -M a.cu -o a.deps'
form MM '$NV -MM -Iinc -DNAME=1 d.cu'
form MD '$NV -MD -c a.cu'
form MD-o '$NV -MD -c b.cu -o sub.o'
form MD-MF-MT '$NV -MD -MF deps.d -MT target.o -c -Iinc -DNAME=1 d.cu'
form MMD '$NV -MMD -c a.cu c.cu'
form MP '$NV -M -MP -Iinc -DNAME=1 d.cu'
form MD-MP-MT '$NV -MD -MP -MT t.o -c b.cu'
form E '$NV -E a.cu'
form E-o '$NV -E -DNAME=1 -Iinc d.cu -o d.ii'
form G '$NV -G -cubin -arch=sm_80 b.cu'
form G-ptx '$NV -G -ptx c.cu'
form lineinfo '$NV -lineinfo -c -arch=sm_90 b.cu'
form use_fast_math '$NV --use_fast_math -c b.cu'
form O3-D-I-std '$NV -O3 -std=c++17 -DNAME=5 -I inc -c d.cu'
form verbose '$NV -v -c a.cu'
form verbose-missing-file-cmake '$NV -v nothere.cu'
form verbose-error '$NV -v -c bad.cu'
form rdc-one-line-link '$NV -rdc=true -DNAME=1 -Iinc d.cu e.cu main.c -o app5'
form Xnvlink '$NV -dc -DNAME=1 -Iinc d.cu e.cu && $NV -dlink -Xnvlink=--verbose d.o e.o -o dl2.o'
form dlink-arch '$NV -dc -arch=sm_90 -DNAME=1 -Iinc d.cu e.cu && $NV -dlink -arch=sm_90 d.o e.o -o dl3.o'
form shared-library '$NV -shared -Xcompiler -fPIC a.cu b.cu -o libk.so'
form cudart-static '$NV -cudart static a.cu main.c -o app6'
form odir 'mkdir -p od && $NV -c -odir od a.cu b.cu'
form cuda '$NV -cuda a.cu -o a.cu.cpp.ii'
form dw '$NV -dw -DNAME=1 -Iinc d.cu'
form lto '$NV -dc -gencode arch=compute_90,code=lto_90 -DNAME=1 -Iinc d.cu e.cu && $NV -dlto -dlink -arch=sm_90 d.o e.o -o dl4.o'
form res-usage '$NV -c -res-usage -arch=sm_90 c.cu'
form maxrregcount '$NV -c -maxrregcount=32 -arch=sm_80 b.cu'
form expt-relaxed-constexpr '$NV -c --expt-relaxed-constexpr --extended-lambda a.cu'
form rdc-false '$NV -c --relocatable-device-code=false a.cu'
form split-compile '$NV -c -split-compile=2 b.cu'
form arch-all '$NV -c -arch=all a.cu'
form ftz-prec '$NV -c -ftz=true -prec-div=false -prec-sqrt=false -fmad=false b.cu'
form diag-suppress '$NV -c -diag-suppress=177 -w a.cu'
form compile-error '$NV -c bad.cu'
form missing-input '$NV -c nothere.cu'
form Werror-host '$NV -c -Xcompiler -Werror -DNAME=1 -Iinc d.cu'
finish
