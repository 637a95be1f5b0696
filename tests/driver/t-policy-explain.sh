#!/bin/sh
# mpcc --mpcc-explain FILE.cu [nvcc flags] prints, per kernel, the policy
# files, the profile and how it was chosen, and for each transform the
# winning rule with its parameters; it builds no output.
name=policy-explain
: "${MPCC:?}"
export PATH="$PATH:/usr/local/cuda/bin"
command -v nvcc >/dev/null || { echo "testing $name ... skipped (no nvcc)"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-policy-explain.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "testing $name ... FAILED: $*"; exit 1; }
unset MPCC_POLICY MPCC_PROFILE MPCC_REPORT

mkdir -p "$tmp/proj/rng"
top=$(cd "$tmp/proj" && pwd -P)
cat > "$top/.mpcc.yaml" <<'EOF'
version: 1
root: true
default_profile: accurate
profiles:
  accurate: {}
  fast:
    rules:
      - kernels: ["*"]
        fiset: {min_ratio: 2}
EOF
cat > "$top/rng/.mpcc.yaml" <<'EOF'
version: 1
profiles:
  fast:
    rules:
      - kernels: ["BoxMuller*"]
        sfu: {lambda: 48, approx: [transcendental, div, sqrt]}
      - kernels: ["exact"]
        fiset: off
EOF
cat > "$top/rng/gen.cu" <<'EOF'
__global__ void BoxMuller(float *x, int n) { int i = threadIdx.x; if (i < n) x[i] = sinf(x[i]); }
extern "C" __global__ void exact(double *x) { x[0] = x[0] / 3.0; }
EOF
(cd "$top" && "$MPCC" --mpcc-explain --mpcc-profile=fast -arch=sm_90 -c rng/gen.cu -o gen.o) >"$tmp/out" 2>"$tmp/err" ||
	fail "status $?: $(cat "$tmp/err")"
grep -q "kernel '" "$tmp/out" || fail "--mpcc-explain printed no kernel: $(cat "$tmp/out")"
[ -e "$top/gen.o" ] && fail "--mpcc-explain wrote an output file"
cat > "$tmp/want" <<EOF
rng/gen.cu: kernel 'BoxMuller(float*, int)' (_Z9BoxMullerPfi)
  policy:  $top/rng/.mpcc.yaml (inherits $top/.mpcc.yaml)
  profile: fast (--mpcc-profile)
  sfu:     rule at $top/rng/.mpcc.yaml:5:9: lambda=48 approx=[transcendental, div, sqrt] newton=false
           warps with %warpid < 48 run the fast path (transcendental, div, sqrt), the others the accurate one
           verdict: applied
  fiset:   rule at $top/.mpcc.yaml:8:9: sets=auto min_ratio=2 max_sets=64 warps=0
           lowers to f32 the sets of f64 operations that the cost model predicts to pay on each target
           1 f64 operation in 1 set; cost model for sm_90
           measured facts: none
           loop 1: depth 1, 6 trips per entry (counted)
           set 0: 1 op, 1 cast (r_ac 1.00), 1 conversion folded, loop depth 0
           predicted 1.001x on sm_90; left in f64: predicted 1.001x on sm_90: does not pay
           verdict: left alone: no set chosen: set 0 (the best) predicted 1.001x on sm_90: does not pay
rng/gen.cu: kernel 'exact'
  policy:  $top/rng/.mpcc.yaml (inherits $top/.mpcc.yaml)
  profile: fast (--mpcc-profile)
  fiset:   off, by the rule at $top/rng/.mpcc.yaml:7:9
EOF
diff "$tmp/want" "$tmp/out" >"$tmp/diff" || fail "explain output differs:
$(cat "$tmp/diff")"
# several inputs: the first one's host compile comes before the last cicc
# in nvcc's steps, and must not run either
cp "$top/rng/gen.cu" "$top/rng/gen2.cu"
(cd "$top/rng" && "$MPCC" --mpcc-explain --mpcc-profile=fast -arch=sm_90 -c gen.cu gen2.cu) \
	>"$tmp/out2" 2>"$tmp/err" || fail "two inputs: status $?: $(cat "$tmp/err")"
[ "$(grep -c "kernel 'BoxMuller" "$tmp/out2")" -eq 2 ] || fail "two inputs: $(cat "$tmp/out2")"
ls "$top/rng"/*.o >/dev/null 2>&1 && fail "--mpcc-explain with two inputs wrote $(ls "$top/rng"/*.o)"
# a compile-and-link line (two .cu and a .c): explain needs cicc's PTX
# only; no host compile, fatbinary or link may run (issue 26, item 3)
printf 'int main(void) { return 0; }\n' >"$top/rng/main.c"
(cd "$top/rng" && "$MPCC" --mpcc-explain --mpcc-profile=fast -arch=sm_90 gen.cu gen2.cu main.c -o app) \
	>"$tmp/out3" 2>"$tmp/err" || fail "compile and link: status $?: $(cat "$tmp/err")"
[ "$(grep -c "kernel 'BoxMuller" "$tmp/out3")" -eq 2 ] && [ ! -s "$tmp/err" ] ||
	fail "compile and link: $(cat "$tmp/out3" "$tmp/err")"
[ -e "$top/rng/app" ] && fail "--mpcc-explain on a link line wrote app"
rm "$top/rng/gen2.cu" "$top/rng/main.c"
# the default profile has no rules
(cd "$top/rng" && "$MPCC" --mpcc-explain -arch=sm_90 gen.cu) >"$tmp/out" 2>"$tmp/err" || fail "default profile: $(cat "$tmp/err")"
[ "$(grep -c "no rule applies: nvcc's code is kept" "$tmp/out")" -eq 2 ] || fail "default profile: $(cat "$tmp/out")"
grep -q "profile: accurate (default_profile at $top/.mpcc.yaml:3:18)" "$tmp/out" || fail "default profile: $(cat "$tmp/out")"
echo "testing $name ... passed"
