#!/bin/sh
# The report says "applied" only for code that reached the output: when
# ptxas rejects the transformed PTX and the driver falls back to nvcc's, the
# kernel's line says so (applied false, and why), for an object (-c) and a
# cubin; and for -ptx, which no ptxas reads. MPCC_DEBUG_BREAK_PTX makes the hook's output something ptxas
# rejects.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "no python3: skipped"; exit 77; }

cp "$KERNELS/boxmuller.cu" "$T/k.cu"
cat >"$T/.mpcc.yaml" <<'EOF'
version: 1
default_profile: fast
profiles:
  fast:
    rules:
      - kernels: ["BoxMuller*"]
        sfu: {lambda: 32}
EOF
cd "$T" || exit 1

# the applied field and reason of every report line: "true -" or "false WHY"
outcome() {
	python3 -c '
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    print(str(r["applied"]).lower(), r["reason"] or "-")
' "$1"
}

for form in "-c -o k.o" "-cubin -o k.cubin"; do
	testing "report says applied when the transform reached the output ($form)"
	rm -f r.jsonl
	# shellcheck disable=SC2086
	if ! "$MPCC" -arch=sm_90 $form k.cu --mpcc-report=r.jsonl 2>err; then
		fail "mpcc failed: $(cat err)"
	elif [ "$(outcome r.jsonl)" != "true -" ]; then
		fail "report: $(outcome r.jsonl)"
	else
		passed
	fi

	testing "report says not applied when nvcc's PTX replaced it ($form)"
	rm -f r.jsonl
	# shellcheck disable=SC2086
	if ! MPCC_DEBUG_BREAK_PTX=1 "$MPCC" -arch=sm_90 $form k.cu --mpcc-report=r.jsonl 2>err; then
		fail "mpcc failed: $(cat err)"
	elif ! grep -q "using nvcc's PTX" err; then
		fail "no fallback warning: $(cat err)"
	elif [ "$(outcome r.jsonl)" != "false ptxas rejected the transformed PTX: nvcc's PTX was used" ]; then
		fail "report: $(outcome r.jsonl)"
	else
		passed
	fi
done

# -ptx runs no ptxas: the line is written once the PTX is
testing "report says applied for -ptx"
rm -f r.jsonl
if ! "$MPCC" -arch=sm_90 -ptx k.cu -o k.ptx --mpcc-report=r.jsonl 2>err; then
	fail "mpcc failed: $(cat err)"
elif [ "$(outcome r.jsonl)" != "true -" ] || ! grep -q '%warpid' k.ptx; then
	fail "report: $(outcome r.jsonl)"
else
	passed
fi
finish
