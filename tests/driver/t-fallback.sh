#!/bin/sh
# A fallback that names the source and keeps the rest (issue 26, item 11).
# A pass's output that does not verify is a bug in mpcc and is never
# shipped; the warning names the .cu file and the kernel (not mpcc's
# temporary PTX), nvcc's code is kept for that kernel only, and every other
# kernel keeps its transform; the report says which. And inline asm with
# SIMD byte selectors (%r1.b3210), which once sent the whole file back to
# nvcc, is read and transformed like the rest.
. "$MPCC_SRC/tests/driver/lib.sh"

W=$T/w
mkdir -p "$W"
cd "$W" || exit 1
cat >main.cu <<'CU'
__global__ void bytes(unsigned *x, const unsigned *y, float *f, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n) return;
	unsigned r, s;
	asm("vadd4.u32.u32.u32.sat %0.b3210, %1.b7654, %2.b3210, %3;" : "=r"(r) : "r"(x[i]), "r"(y[i]), "r"(0u));
	asm("vmax.u32.u32.u32 %0, %1.b2, %2.h1, %3;" : "=r"(s) : "r"(r), "r"(y[i]), "r"(1u));
	x[i] = s;
	f[i] = sinf(f[i]);
}
__global__ void other(float *f, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		f[i] = cosf(f[i]) * expf(f[i]);
}
CU
cat >.mpcc.yaml <<'YAML'
version: 1
default_profile: p
profiles:
  p:
    rules:
      - kernels: ["*"]
        sfu: {lambda: 32}
YAML
A=-arch=sm_90
# merged NAME FILE: the -ptx output FILE holds kernel NAME merged (%warpid)
merged() { sed -n "/\.entry $1(/,/^}/p" "$2" | grep -q '%warpid'; }

testing "byte selectors in inline asm: both kernels transformed"
rm -f r.json
if "$MPCC" $A -ptx main.cu -o m.ptx --mpcc-report=r.json 2>err && [ ! -s err ] &&
	merged _Z5bytesPjPKjPfi m.ptx && merged _Z5otherPfi m.ptx &&
	[ "$(grep -c '"applied":true' r.json)" = 2 ]; then
	passed
else
	fail "$(cat err)"
fi

testing "a kernel that does not verify: named, and only it falls back"
rm -f r.json
MPCC_DEBUG_BREAK_KERNEL=_Z5otherPfi "$MPCC" $A -ptx main.cu -o m.ptx --mpcc-report=r.json 2>err
want="mpcc: warning: main.cu: kernel 'other(float*, int)' (compute_90): the PTX that sfu made does not verify (a bug in mpcc): nvcc's code is kept for this kernel"
if [ "$(cat err)" = "$want" ] && merged _Z5bytesPjPKjPfi m.ptx && ! merged _Z5otherPfi m.ptx &&
	grep '"mangled":"_Z5otherPfi"' r.json | grep -q '"applied":false,"reason":"the transformed kernel did not verify' &&
	grep '"mangled":"_Z5bytesPjPKjPfi"' r.json | grep -q '"applied":true'; then
	passed
else
	fail "$(cat err)"
fi

testing "the same in an object, two chains"
MPCC_DEBUG_BREAK_KERNEL=_Z5otherPfi "$MPCC" -gencode arch=compute_80,code=sm_80 \
	-gencode arch=compute_90,code=sm_90 -c main.cu -o m.o 2>err
st=$?
if [ $st = 0 ] && [ "$(grep -c "main.cu: kernel 'other(float\*, int)' (compute_[89]0)" err)" = 2 ] &&
	[ "$(wc -l <err)" = 2 ]; then
	passed
else
	fail "status $st: $(cat err)"
fi
finish
