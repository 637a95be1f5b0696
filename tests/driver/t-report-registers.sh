#!/bin/sh
# The report gives nvcc's register count beside the transformed kernel's
# (registers_before), and mpcc warns once when the transform takes so many
# more registers that an SM holds fewer of the kernel's warps: half2 on a
# tiled matmul (each thread holds two threads' values) goes from 32
# registers a thread on sm_90, 64 warps an SM, to about twice that. sfu on
# BoxMuller keeps the count and says nothing. The figures are checked
# against ptxas -v on nvcc's own PTX of the same source. With
# --mpcc-report-no-ptxas the report has none, ptxas runs once, and the
# object is the same.
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

# build KERNEL RULE: k.cu from KERNEL under RULE, with a report; sets regs
# and before (the sm_90 figures, "-" where absent) and nvcc (nvccregs)
build() {
	regs=- before=-
	cp "$KERNELS/$1" k.cu
	policy "$2"
	rm -f r.jsonl
	"$MPCC" -arch=sm_90 -c k.cu -o k.o --mpcc-report=r.jsonl 2>err || return 1
	set -- $(figures r.jsonl)
	regs=$1 before=$2 nvcc=$(nvccregs)
}

testing "report gives the registers before and after half2, and warns of fewer warps"
if ! build matmul.cu "half2: {force: true}"; then
	fail "mpcc failed: $(cat err)"
else
	w=$(grep -c "on sm_90: $regs registers a thread, $nvcc as nvcc built it: an SM holds at most [0-9]* of its warps, not 64" err)
	if [ "$before" != "$nvcc" ] || [ "$regs" = - ] || [ "$regs" -le "$nvcc" ]; then
		fail "registers $regs, before $before, nvcc's $nvcc"
	elif [ "$w" != 1 ]; then
		fail "$w warnings: $(cat err)"
	else
		passed
	fi
fi

testing "report gives the registers before sfu; no warning when the warps stay"
if ! build boxmuller.cu "sfu: {lambda: 32}"; then
	fail "mpcc failed: $(cat err)"
elif [ "$before" != "$nvcc" ] || [ "$regs" = - ]; then
	fail "registers $regs, before $before, nvcc's $nvcc"
elif [ -s err ]; then
	fail "said: $(cat err)"
else
	passed
fi

testing "--mpcc-report-no-ptxas: no figures, no warning, and ptxas runs once (not -v)"
cp "$KERNELS/matmul.cu" k.cu
policy "half2: {force: true}"
rm -rf r.jsonl sc steps1.log steps2.log
MPCC_STEP_CACHE=$T/sc MPCC_STEP_LOG=$T/steps1.log "$MPCC" -arch=sm_90 -c k.cu -o k1.o --mpcc-report=r1.jsonl 2>err1
MPCC_STEP_CACHE=$T/sc2 MPCC_STEP_LOG=$T/steps2.log "$MPCC" -arch=sm_90 -c k.cu -o k2.o --mpcc-report=r2.jsonl \
	--mpcc-report-no-ptxas 2>err2
set -- $(figures r2.jsonl)
if [ "$1 $2" != "- -" ] || [ -s err2 ] || ! grep -q '"applied":true' r2.jsonl; then
	fail "figures '$1 $2', said: $(cat err2)"
elif [ "$(grep -c '^ptxas' steps2.log)" != 1 ] || [ "$(grep -c '^ptxas' steps1.log)" != 3 ]; then
	fail "ptxas steps: $(grep -c '^ptxas' steps2.log) with it, $(grep -c '^ptxas' steps1.log) without"
elif ! cmp -s k1.o k2.o; then
	fail "the objects differ"
else
	passed
fi

testing "no registers_before where the transform left the PTX as it was"
build matmul.cu "fiset: {sets: all}"
if [ "$before" != - ]; then
	fail "registers $regs, before $before (the kernel has no f64)"
else
	passed
fi
finish
