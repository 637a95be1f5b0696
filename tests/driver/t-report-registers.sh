#!/bin/sh
# The report gives nvcc's register count beside the transformed kernel's
# (registers_before), and mpcc warns once when the transform takes so many
# more registers that an SM holds fewer of the kernel's warps: half2 on a
# tiled matmul (each thread holds two threads' values) goes from 32
# registers a thread on sm_90, 64 warps an SM, to about twice that. sfu on
# BoxMuller keeps the count and says nothing. The figures are checked
# against ptxas -v on nvcc's own PTX of the same source.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "no python3: skipped"; exit 77; }
cd "$T" || exit 1

policy() {
	cat >.mpcc.yaml <<EOF
version: 1
default_profile: p
profiles:
  p:
    rules:
      - kernels: ["*"]
        $1
EOF
}

# the sm_90 figures of the report's one line: "REGISTERS BEFORE"
figures() {
	python3 -c '
import json, sys
r = [json.loads(l) for l in open(sys.argv[1])]
f = (r[0].get("ptxas") or {}).get("sm_90", {}) if len(r) == 1 else {}
print(f.get("registers", "-"), f.get("registers_before", "-"))
' "$1"
}

# ptxas -v's register count of the kernel in nvcc's PTX of k.cu for sm_90
nvccregs() {
	nvcc -arch=sm_90 -ptx k.cu -o nvcc.ptx &&
		ptxas -arch=sm_90 -v nvcc.ptx -o /dev/null 2>&1 |
		sed -n 's/.*Used \([0-9]*\) registers.*/\1/p' | head -1
}

cp "$KERNELS/matmul.cu" k.cu
policy "half2: {force: true}"
testing "report gives the registers before and after half2, and warns of fewer warps"
rm -f r.jsonl
if ! "$MPCC" -arch=sm_90 -c k.cu -o k.o --mpcc-report=r.jsonl 2>err; then
	fail "mpcc failed: $(cat err)"
else
	set -- $(figures r.jsonl)
	n=$(nvccregs)
	w=$(grep -c "on sm_90: $1 registers a thread, $n as nvcc built it: an SM holds at most [0-9]* of its warps, not 64" err)
	if [ "$2" != "$n" ] || [ "$1" = - ] || [ "$1" -le "$n" ]; then
		fail "registers $1, before $2, nvcc's $n"
	elif [ "$w" != 1 ]; then
		fail "$w warnings: $(cat err)"
	else
		passed
	fi
fi

cp "$KERNELS/boxmuller.cu" k.cu
policy "sfu: {lambda: 32}"
testing "report gives the registers before sfu; no warning when the warps stay"
rm -f r.jsonl
if ! "$MPCC" -arch=sm_90 -c k.cu -o k.o --mpcc-report=r.jsonl 2>err; then
	fail "mpcc failed: $(cat err)"
else
	set -- $(figures r.jsonl)
	n=$(nvccregs)
	if [ "$2" != "$n" ] || [ "$1" = - ]; then
		fail "registers $1, before $2, nvcc's $n"
	elif [ -s err ]; then
		fail "said: $(cat err)"
	else
		passed
	fi
fi

testing "no registers_before where the transform left the PTX as it was"
cp "$KERNELS/matmul.cu" k.cu
policy "fiset: {sets: all}"
rm -f r.jsonl
"$MPCC" -arch=sm_90 -c k.cu -o k.o --mpcc-report=r.jsonl 2>err
set -- $(figures r.jsonl)
if [ "$2" != - ]; then
	fail "registers $1, before $2 (the kernel has no f64)"
else
	passed
fi
finish
