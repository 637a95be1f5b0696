#!/bin/sh
# MPCC_SET, the override that mpcc-tune builds candidates with, is a real
# rule of the policy layer: it wins over the profile's rules, works with no
# .mpcc.yaml at all, shows in --mpcc-explain and in the report's "rule",
# changes --mpcc-policy-hash, and its mistakes read like a policy's.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "no python3: skipped"; exit 77; }

mkdir -p "$T/none" "$T/pol"
cp "$KERNELS/boxmuller.cu" "$T/none/k.cu"
cp "$KERNELS/boxmuller.cu" "$T/pol/k.cu"
cat >"$T/pol/.mpcc.yaml" <<'EOF'
version: 1
root: true
default_profile: fast
profiles:
  fast:
    rules:
      - kernels: ["BoxMuller*"]
        sfu: {lambda: 32}
EOF

# field NAME FILE: that field of every report line, one a line
field() {
	python3 -c '
import json, sys
for l in open(sys.argv[2]):
    r = json.loads(l)
    v = r
    for k in sys.argv[1].split("."):
        v = v[k]
    print(json.dumps(v) if not isinstance(v, str) else v)
' "$1" "$2"
}

cd "$T/none" || exit 1
testing "MPCC_SET transforms a kernel with no .mpcc.yaml"
rm -rf r.jsonl kd && mkdir kd
if ! MPCC_SET='sfu:lambda=16,kernels=BoxMuller*' "$MPCC" -arch=sm_90 -c k.cu -o k.o \
     --keep --keep-dir kd --mpcc-report=r.jsonl 2>err; then
	fail "mpcc failed: $(cat err)"
elif ! grep -q '%warpid' kd/*.ptx; then
	fail "the PTX has no warp partition"
elif [ "$(field rule r.jsonl) $(field params.lambda r.jsonl) $(field applied r.jsonl)" != "MPCC_SET:1:1 16 true" ]; then
	fail "report: $(cat r.jsonl)"
else
	passed
fi

testing "without MPCC_SET the same line is nvcc's"
nvcc -arch=sm_90 -ptx k.cu -o n.ptx && "$MPCC" -arch=sm_90 -ptx k.cu -o m.ptx
if cmp -s n.ptx m.ptx && ! grep -q '%warpid' m.ptx; then passed; else fail "PTX differs"; fi

testing "MPCC_SET whose kernels match nothing leaves the PTX as nvcc's"
MPCC_SET='sfu:lambda=16,kernels=nosuch' "$MPCC" -arch=sm_90 -ptx k.cu -o m.ptx
if cmp -s n.ptx m.ptx; then passed; else fail "PTX differs"; fi

cd "$T/pol" || exit 1
testing "MPCC_SET wins over the profile's rule"
rm -f r.jsonl
MPCC_SET='sfu:lambda=8,kernels=BoxMuller*' "$MPCC" -arch=sm_90 -c k.cu -o k.o --mpcc-report=r.jsonl 2>err
got="$(field rule r.jsonl) $(field params.lambda r.jsonl) $(field profile r.jsonl)"
if [ "$got" = "MPCC_SET:1:1 8 fast" ]; then passed; else fail "report: $got $(cat err)"; fi

testing "the profile's rule applies without MPCC_SET"
rm -f r.jsonl
"$MPCC" -arch=sm_90 -c k.cu -o k.o --mpcc-report=r.jsonl 2>err
got="$(field rule r.jsonl) $(field params.lambda r.jsonl)"
case $got in
*/pol/.mpcc.yaml:7:9\ 32) passed ;;
*) fail "report: $got" ;;
esac

testing "MPCC_SET=off builds nvcc's PTX over a profile that transforms"
MPCC_SET=off "$MPCC" -arch=sm_90 -ptx k.cu -o m.ptx
nvcc -arch=sm_90 -ptx k.cu -o n.ptx
if cmp -s n.ptx m.ptx; then passed; else fail "PTX differs"; fi

testing "a later MPCC_SET item wins over an earlier one"
rm -f r.jsonl
MPCC_SET='off;sfu:lambda=40' "$MPCC" -arch=sm_90 -c k.cu -o k.o --mpcc-report=r.jsonl 2>err
got="$(field rule r.jsonl) $(field params.lambda r.jsonl)"
if [ "$got" = "MPCC_SET:1:5 40" ]; then passed; else fail "report: $got $(cat err)"; fi

testing "--mpcc-explain shows the override and its rule"
MPCC_SET='sfu:lambda=8,kernels=BoxMuller*' "$MPCC" --mpcc-explain -arch=sm_90 k.cu >ex 2>&1
if grep -q "override: MPCC_SET='sfu:lambda=8,kernels=BoxMuller\*'" ex &&
   grep -q "sfu: *rule at MPCC_SET:1:1: lambda=8" ex; then
	passed
else
	fail "$(cat ex)"
fi

testing "--mpcc-policy-hash changes with MPCC_SET"
h0=$("$MPCC" --mpcc-policy-hash)
h1=$(MPCC_SET='sfu:lambda=8' "$MPCC" --mpcc-policy-hash)
h2=$(MPCC_SET='sfu:lambda=9' "$MPCC" --mpcc-policy-hash)
if [ "$h0" != "$h1" ] && [ "$h1" != "$h2" ] && [ -n "$h0" ]; then passed; else fail "$h0 $h1 $h2"; fi

# error VALUE MESSAGE: the compile fails with MESSAGE and writes nothing
error() {
	testing "MPCC_SET='$1' is an error"
	rm -f e.o
	if MPCC_SET=$1 "$MPCC" -arch=sm_90 -c k.cu -o e.o 2>err; then
		fail "mpcc succeeded"
	elif [ -e e.o ]; then
		fail "an object was written"
	elif [ "$(head -1 err)" != "$2" ]; then
		fail "message: $(cat err)"
	else
		passed
	fi
}
error 'sfu:lambda=65' "MPCC_SET:1:5: error: 'lambda' must be between 0 and 64, not 65"
error 'off;sfu:lambda=6,newton=maybe' "MPCC_SET:1:18: error: 'newton' must be true or false, not 'maybe'"
error 'sfux:lambda=6' "MPCC_SET:1:1: error: unknown transform 'sfux'; did you mean 'sfu'?"
error 'sfu:approx=div' "MPCC_SET:1:1: error: 'sfu' needs 'lambda' (0 to 64)"
error 'sfu:lamda=3' "MPCC_SET:1:5: error: unknown key 'lamda' in 'sfu'; did you mean 'lambda'?"
error 'sfu:lambda=3,kernels=' "MPCC_SET:1:14: error: 'kernels' needs at least one glob"
error 'off,lambda=3' "MPCC_SET:1:1: error: 'off' takes only kernels= and files=, not 'lambda=3'"
finish
