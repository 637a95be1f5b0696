#!/bin/sh
# --mpcc-report under make -j8: eight compiles append to one file at once.
# Every line must be one whole JSON object, and each (source, kernel,
# transform) must appear exactly once. (tests/unit/u-policy.c hammers
# report_append itself with 8 writers x 200 lines of 5 KB.)
name=report-concurrent
: "${MPCC:?}"
export PATH="$PATH:/usr/local/cuda/bin"
command -v nvcc >/dev/null || { echo "testing $name ... skipped (no nvcc)"; exit 77; }
command -v make >/dev/null || { echo "testing $name ... skipped (no make)"; exit 77; }
command -v python3 >/dev/null || { echo "testing $name ... skipped (no python3)"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-report.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "testing $name ... FAILED: $*"; exit 1; }
unset MPCC_POLICY MPCC_PROFILE MPCC_REPORT

cat > "$tmp/.mpcc.yaml" <<'EOF'
version: 1
root: true
default_profile: all
on_unsupported: silent
profiles:
  all:
    rules:
      - kernels: ["*"]
        sfu: {lambda: 32}
        fiset: {}
        half2: {}
EOF
J=8 K=12
i=0
while [ $i -lt $J ]; do
	k=0
	while [ $k -lt $K ]; do
		echo "__global__ void kern${k}(float *x) { x[threadIdx.x] = sinf(x[threadIdx.x]) + $k; }"
		k=$((k + 1))
	done > "$tmp/f$i.cu"
	i=$((i + 1))
done
# one compile first: a report must exist before the concurrent run means anything
(cd "$tmp" && "$MPCC" --mpcc-report=probe.jsonl -arch=sm_90 -c f0.cu -o probe.o) 2>"$tmp/err" ||
	fail "probe compile: $(cat "$tmp/err")"
[ -s "$tmp/probe.jsonl" ] || fail "--mpcc-report wrote no line"
rm -f "$tmp/probe.jsonl" "$tmp/probe.o"

printf 'all:' > "$tmp/Makefile"
i=0
while [ $i -lt $J ]; do printf ' f%s.o' $i >> "$tmp/Makefile"; i=$((i + 1)); done
printf '\n%%.o: %%.cu\n\t$(NVCC) -arch=sm_90 -c $< -o $@\n' >> "$tmp/Makefile"
(cd "$tmp" && MPCC_REPORT="$tmp/report.jsonl" make -s -j$J NVCC="$MPCC") >"$tmp/out" 2>&1 ||
	fail "make -j$J: $(cat "$tmp/out")"

python3 - "$tmp/report.jsonl" $J $K <<'EOF' || fail "the report is corrupt"
import json, sys
path, j, k = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
seen = {}
for n, line in enumerate(open(path), 1):
    r = json.loads(line)          # raises on a torn or interleaved line
    key = (r["src"], r["mangled"], r["transform"])
    seen[key] = seen.get(key, 0) + 1
    assert r["arch"] == "compute_90" and isinstance(r["applied"], bool), line
want = {("f%d.cu" % i, "_Z%dkern%dPf" % (len("kern%d" % c), c), t)
        for i in range(j) for c in range(k) for t in ("sfu", "fiset", "half2")}
missing, extra = want - seen.keys(), seen.keys() - want
dup = [key for key, c in seen.items() if c > 1]
if missing or extra or dup:
    print("missing", sorted(missing)[:5], "extra", sorted(extra)[:5], "twice", dup[:5])
    sys.exit(1)
EOF
lines=$(wc -l < "$tmp/report.jsonl")
echo "testing $name ... passed ($lines lines from $J concurrent compiles)"
