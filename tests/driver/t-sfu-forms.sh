#!/bin/sh
# Every output form carries the sfu transform when a rule applies (issue 10,
# part 1): -ptx, -cubin, -fatbin, -c, -dc, -lib and a link line. The -ptx
# output must hold the merged kernel (%warpid and the fast body's
# sin.approx); every other form must hold the cubin that ptxas makes from
# that PTX (ptxas output depends on the PTX text only), and not the cubin of
# nvcc's PTX. As a control, nvcc's own outputs hold nvcc's cubin. No form
# may print a note or warning (the -ptx form once fell back to "FP64
# rewrites only" because the fast-math cicc run could not read a module id
# file that only cudafe++ writes).
. "$MPCC_SRC/tests/driver/lib.sh"
command -v python3 >/dev/null 2>&1 || { echo "no python3: skipped"; exit 77; }

W=$T/w
mkdir -p "$W"
cd "$W" || exit 1
cat >k.cu <<'CU'
namespace { __device__ float scale[4] = {1, 2, 3, 4}; }
static __device__ float bias = 0.5f;
__global__ void bm(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] = sinf(x[i]) * logf(x[i] + 2.0f) / sqrtf(x[i] + 1.0f) * scale[i & 3] + bias;
}
CU
printf 'int main(void) { return 0; }\n' >main.cu
cat >.mpcc.yaml <<'YAML'
version: 1
default_profile: fast
profiles:
  fast:
    rules:
      - kernels: ["bm*"]
        sfu: {lambda: 32}
YAML
A=-arch=sm_90

# has FILE CUBIN: the bytes of CUBIN occur in FILE
has() { python3 -c 'import sys; sys.exit(open(sys.argv[2], "rb").read() not in open(sys.argv[1], "rb").read())' "$1" "$2"; }
quiet() { [ ! -s "$1" ] || { echo "it said: $(head -3 "$1")"; return 1; }; }

testing "ptx carries the merged kernel"
$MPCC $A -ptx k.cu -o m.ptx 2>m.err && nvcc $A -ptx k.cu -o n.ptx &&
	grep -q '%warpid' m.ptx && grep -q 'sin\.approx' m.ptx && ! grep -q '%warpid' n.ptx &&
	quiet m.err && passed || fail "no merged kernel in the -ptx output"

# nvcc takes any output name for -ptx: the driver finds cicc's PTX by its
# step, not by a .ptx suffix (issue 26, item 1)
for out in k.x k; do
	testing "ptx -o $out carries the merged kernel and its report"
	rm -f "$out" r.json
	$MPCC $A -ptx k.cu -o $out --mpcc-report=r.json 2>x.err && cmp -s "$out" m.ptx &&
		grep -q '"applied":true' r.json && quiet x.err && passed ||
		fail "no merged kernel or report line in -ptx -o $out"
done

# cicc names module variables after the module id: both runs must agree,
# so the two bodies share one copy of each
testing "ptx -rdc shares the module's variables"
$MPCC $A -rdc=true -ptx k.cu -o mr.ptx 2>mr.err && nvcc $A -rdc=true -ptx k.cu -o nr.ptx &&
	grep -q '%warpid' mr.ptx &&
	[ "$(grep -c '^\.global' mr.ptx)" = "$(grep -c '^\.global' nr.ptx)" ] &&
	quiet mr.err && passed || fail "the -rdc PTX has other variables than nvcc's"

ptxas $A -m64 m.ptx -o m.ref && ptxas $A -m64 n.ptx -o n.ref &&
	ptxas $A -m64 --compile-only mr.ptx -o mr.ref && ptxas $A -m64 --compile-only nr.ptx -o nr.ref ||
	{ fail "ptxas on the reference PTX"; finish; }

# carries NAME REF NREF 'COMMAND' OUT: $NV COMMAND writes OUT; mpcc's OUT
# holds REF and not NREF, nvcc's holds NREF
carries() {
	testing "$1 carries the transform"
	name=$1 ref=$2 nref=$3 out=$5
	(NV="$MPCC" && eval "$4") 2>"$name.err" && mv "$out" "m.$name" || { fail "mpcc $4"; return; }
	(NV=nvcc && eval "$4") 2>/dev/null && mv "$out" "n.$name" || { fail "nvcc $4"; return; }
	if ! has "n.$name" "$nref"; then
		fail "control: nvcc's output does not hold nvcc's cubin"
	elif ! has "m.$name" "$ref" || has "m.$name" "$nref"; then
		fail "mpcc's output does not hold the merged kernel's cubin"
	elif why=$(quiet "$name.err"); then
		passed
	else
		fail "$why"
	fi
}
carries cubin m.ref n.ref '$NV $A -cubin k.cu -o out' out
carries fatbin m.ref n.ref '$NV $A -fatbin k.cu -o out' out
carries c m.ref n.ref '$NV $A -c k.cu -o out' out
# fatbinary compresses relocatable images: -dc shows its cubin uncompressed
carries dc mr.ref nr.ref '$NV $A -dc -Xfatbin=-compress=false k.cu -o out' out
carries lib m.ref n.ref '$NV $A -lib k.cu -o out' out
carries link m.ref n.ref '$NV $A k.cu main.cu -o out' out

# -dlto: cicc writes the PTX (-o) and NVVM IR (-olto) the device link
# compiles from; the fast-math run must not write over nvcc's IR
testing "dlto keeps nvcc's NVVM IR"
rm -rf kn km && mkdir kn km &&
	nvcc $A -dlto -c k.cu -o dn.o --keep --keep-dir kn &&
	$MPCC $A -dlto -c k.cu -o dm.o --keep --keep-dir km 2>dl.err &&
	cmp -s kn/k.ltoir km/k.ltoir && quiet dl.err && passed || fail "the .ltoir is not nvcc's"

# a PTX-only embedding: with compression off, the PTX text is in the fatbin
testing "fatbin of compute_90 PTX carries the transform"
$MPCC -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=compute_90 \
	-Xfatbin=-compress=false -fatbin k.cu -o p.fatbin 2>p.err &&
	grep -a -q '%warpid' p.fatbin && quiet p.err && passed || fail "no merged kernel in the PTX image"

finish
