#!/bin/sh
# Which profile a compile runs under, and pass-through when nothing applies.
# --mpcc-dryrun prints the steps mpcc would run: a compile that a rule can
# touch shows a '#$ mpcc-pipeline ... --profile NAME' step; a pass-through
# compile shows nvcc's own steps only. Discovery, inheritance, root: true,
# --mpcc-profile, MPCC_PROFILE, default_profile, --mpcc-policy, files globs,
# and a profile named for a tree without policies are checked that way, and
# a pass-through -ptx output is byte-identical to nvcc's.
name=policy-profiles
: "${MPCC:?}"
export PATH="$PATH:/usr/local/cuda/bin"
command -v nvcc >/dev/null || { echo "testing $name ... skipped (no nvcc)"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-policy-profiles.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "testing $name ... FAILED: $*"; exit 1; }
unset MPCC_POLICY MPCC_PROFILE MPCC_REPORT

printf '__global__ void k(float *x) { x[0] = 1; }\n' > "$tmp/probe.cu"
printf 'version: 1\ndefault_profile: p\nprofiles:\n  p:\n    rules: [{kernels: ["*"], sfu: {lambda: 8}}]\n' > "$tmp/.mpcc.yaml"
(cd "$tmp" && "$MPCC" --mpcc-dryrun -c probe.cu -o probe.o 2>&1) | grep -q '^#\$ mpcc-pipeline .*--profile p' ||
	fail "no '#\$ mpcc-pipeline' step under --mpcc-dryrun"
rm "$tmp/.mpcc.yaml" "$tmp/probe.cu"

mkdir -p "$tmp/proj/rng/deep" "$tmp/proj/other" "$tmp/proj/standalone" "$tmp/nopolicy"
cat > "$tmp/proj/.mpcc.yaml" <<'EOF'
version: 1
root: true
default_profile: accurate
profiles:
  accurate: {}
  fast:
    rules:
      - kernels: ["BoxMuller*"]
        files: ["rng/*.cu"]
        sfu: {lambda: 48}
  everything:
    rules:
      - kernels: ["*"]
        sfu: {lambda: 64}
EOF
cat > "$tmp/proj/rng/deep/.mpcc.yaml" <<'EOF'
version: 1
default_profile: fast
EOF
cat > "$tmp/proj/standalone/.mpcc.yaml" <<'EOF'
version: 1
root: true
default_profile: mine
profiles:
  mine:
    rules: [{kernels: ["*"], half2: {}}]
EOF
k='__global__ void BoxMuller(float *x, int n) { int i = threadIdx.x; if (i < n) x[i] = sinf(x[i]); }'
for f in proj/rng/a.cu proj/rng/deep/b.cu proj/other/c.cu proj/standalone/d.cu nopolicy/e.cu; do
	echo "$k" > "$tmp/$f"
done

# the profile a compile of $1 runs under (with the rest of the line), "-"
# for pass-through, or "failed(STATUS)" when mpcc failed: a failure is not a
# pass-through
profile() {
	src=$1
	shift
	(cd "$tmp" && "$@" --mpcc-dryrun -c "$src" -o x.o) >"$tmp/dry" 2>&1
	st=$?
	[ $st = 0 ] || { echo "failed($st)"; return; }
	sed -n 's/^#\$ mpcc-pipeline .*--profile \([^ ]*\).*/\1/p' "$tmp/dry" | head -1 | grep . || echo -
}
check() {  # want src cmd...
	want=$1
	shift
	got=$(profile "$@")
	[ "$got" = "$want" ] || fail "$*: profile '$got', expected '$want'"
}

check - proj/rng/a.cu "$MPCC"                            # default_profile accurate: no rules
check fast proj/rng/a.cu "$MPCC" --mpcc-profile=fast
check fast proj/rng/a.cu env MPCC_PROFILE=fast "$MPCC"
check - proj/other/c.cu "$MPCC" --mpcc-profile=fast      # files glob does not match
check everything proj/other/c.cu "$MPCC" --mpcc-profile=everything
check - proj/rng/deep/b.cu "$MPCC"                       # inherits fast, but rng/*.cu is one level
check everything proj/rng/deep/b.cu env MPCC_PROFILE=everything "$MPCC"
check mine proj/standalone/d.cu "$MPCC"                  # root: true hides the parent
check - nopolicy/e.cu env MPCC_PROFILE=fast "$MPCC"      # no policy: no error, pass-through
# files globs stay relative to the policy's directory: nopolicy/e.cu is not rng/*.cu
check - nopolicy/e.cu "$MPCC" --mpcc-policy="$tmp/proj/.mpcc.yaml" --mpcc-profile=fast
check - nopolicy/e.cu env MPCC_POLICY="$tmp/proj/.mpcc.yaml" "$MPCC" --mpcc-profile=fast
check everything nopolicy/e.cu env MPCC_POLICY="$tmp/proj/.mpcc.yaml" "$MPCC" --mpcc-profile=everything
# the line the pass-through runs is nvcc's: same -ptx output, byte for byte
(cd "$tmp" && "$MPCC" -ptx proj/rng/a.cu -o mpcc.ptx && nvcc -ptx proj/rng/a.cu -o nvcc.ptx) ||
	fail "-ptx builds"
cmp -s "$tmp/mpcc.ptx" "$tmp/nvcc.ptx" || fail "pass-through -ptx differs from nvcc's"

echo "testing $name ... passed"
