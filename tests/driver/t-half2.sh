#!/bin/sh
# The driver applies a half2 rule on the usual command-line forms: an
# object, a cubin, PTX, an executable, two -gencode chains. The report says
# applied for every chain whose PTX ptxas accepted, and why not for a chain
# the type cannot run on (bf16x2 before sm_80: that chain is built exactly
# as nvcc builds it); --mpcc-explain gives the cost model's prediction.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "no python3: skipped"; exit 77; }

cat >"$T/k.cu" <<'EOF2'
#include <cstdio>
extern "C" __global__ void polyk(const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float v = x[i], a = 0.5f;
#pragma unroll
		for (int k = 0; k < 128; k++)
			a = fmaf(a, v, 0.5f + 0.0078125f * (k & 15));
		y[i] = a;
	}
}
extern "C" __global__ void other(float *y) { y[threadIdx.x] = 1.0f; }
int main() { std::printf("%p\n", (void *)polyk); return 0; }
EOF2
policy() {
	cat >"$T/.mpcc.yaml" <<EOF2
version: 1
default_profile: p
profiles:
  p:
    rules:
      - kernels: ["polyk"]
        half2: {type: $1}
EOF2
}
cd "$T" || exit 1

# the arch, kernel, applied and reason of every report line
outcome() {
	python3 -c '
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    print(r["arch"], r["demangled"], r["transform"], str(r["applied"]).lower(), r["reason"] or "-")
' "$1"
}

policy f16
for form in "-c -o k.o" "-cubin -o k.cubin" "-o k" "-ptx -o k.ptx"; do
	testing "half2 on $form"
	rm -f r.jsonl
	# shellcheck disable=SC2086
	if ! "$MPCC" -arch=sm_90 $form k.cu --mpcc-report=r.jsonl 2>err; then
		fail "mpcc failed: $(cat err)"
	elif [ "$(outcome r.jsonl)" != "compute_90 polyk half2 true -" ]; then
		fail "report: $(outcome r.jsonl)"
	else
		passed
	fi
done

testing "the PTX of -ptx holds the pairs"
if ! grep -q "fma.rn.f16x2" k.ptx || grep -q "fma.rn.f32" k.ptx; then
	fail "no f16x2 chain in k.ptx"
else
	passed
fi

testing "the other kernel has no rule and is untouched"
nvcc -arch=sm_90 -ptx -o n.ptx k.cu 2>/dev/null
if ! python3 - n.ptx k.ptx <<'EOF2'
import re, sys
body = lambda f: re.search(r'\.entry other\(.*?\n\}', open(f).read(), re.S).group(0)
sys.exit(body(sys.argv[1]) != body(sys.argv[2]))
EOF2
then
	fail "'other' differs from nvcc's"
else
	passed
fi

policy bf16
testing "bf16 on two -gencode chains: applied on sm_90, refused on sm_75"
rm -f r.jsonl
if ! "$MPCC" -gencode arch=compute_75,code=sm_75 -gencode arch=compute_90,code=sm_90 -c -o k2.o k.cu \
	--mpcc-report=r.jsonl 2>err; then
	fail "mpcc failed: $(cat err)"
elif [ "$(outcome r.jsonl | sort)" != "$(printf '%s\n' \
	"compute_75 polyk half2 false bf16x2 arithmetic needs sm_80; this PTX is for sm_75 (type f16 needs sm_53)" \
	"compute_90 polyk half2 true -" | sort)" ]; then
	fail "report: $(outcome r.jsonl)"
else
	passed
fi

testing "--mpcc-explain gives the prediction per target"
policy f16
if ! "$MPCC" -arch=sm_90 -c -o k3.o k.cu --mpcc-explain >out 2>&1; then
	fail "mpcc failed: $(cat out)"
elif ! grep -q "sm_90: the kernel is bound by .*predicted [0-9.]*x (from the PTX and the target's rates): pays" out; then
	fail "no prediction: $(cat out)"
else
	passed
fi
finish
