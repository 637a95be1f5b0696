#!/bin/sh
# ccache must never hand back an object built under another policy.
#
# ccache cannot see .mpcc.yaml files or MPCC_PROFILE; mpcc.yaml(5) has it
# run 'mpcc --mpcc-policy-hash' as compiler_check. This test first shows
# that ccache's default setting does return a stale object after a policy
# edit (else it would prove nothing), then that with the documented setting
# every policy change is a cache miss and the object is the one mpcc builds
# without ccache, and that a broken policy fails the cached build too.
# Two layouts: a Makefile build compiling from the top of the source tree,
# and a CMake-like build compiling from a separate build directory.
name=ccache-policy
: "${MPCC:?}"
export PATH="$PATH:/usr/local/cuda/bin"
command -v nvcc >/dev/null || { echo "testing $name ... skipped (no nvcc)"; exit 77; }
command -v ccache >/dev/null || { echo "testing $name ... skipped (no ccache)"; exit 77; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-ccache.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "testing $name ... FAILED: $*"; exit 1; }

mkdir -p "$tmp/proj/src" "$tmp/proj/build"
cat > "$tmp/proj/src/k.cu" <<'EOF'
__global__ void BoxMuller(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] = sqrtf(-2.0f * logf(x[i])) * cosf(6.2831853f * x[i]) / (x[i] + 1.0f);
}
EOF
policy() {  # lambda
	printf 'version: 1\nroot: true\ndefault_profile: fast\nprofiles:\n  accurate: {}\n  fast:\n    rules:\n      - kernels: ["BoxMuller*"]\n        sfu: {lambda: %s}\n' "$1" > "$tmp/proj/src/.mpcc.yaml"
}
export CCACHE_DIR="$tmp/cache" CCACHE_NOHASHDIR=1 CCACHE_TEMPDIR="$tmp/cache-tmp"
unset CCACHE_COMPILERCHECK CCACHE_DISABLE CCACHE_RECACHE MPCC_PROFILE MPCC_POLICY MPCC_REPORT
ccache -C -z >/dev/null 2>&1
count() { ccache --print-stats | awk -v k="$1" '$1 == k { print $2 }'; }
hits() { echo $(($(count direct_cache_hit) + $(count preprocessed_cache_hit))); }

# cwd, source as seen from cwd, object; mpcc reports the lambda it compiled with
# (when it writes reports): a second witness that the compile really ran
export MPCC_REPORT="$tmp/report.jsonl"
build() { (cd "$1" && ccache "$MPCC" -arch=sm_90 -c "$2" -o k.o) 2>"$tmp/err"; }
lambdas() {
	if [ -f "$MPCC_REPORT" ]; then grep -c "\"lambda\":$1[,}]" "$MPCC_REPORT" || true; else echo 0; fi
}
direct() { (cd "$1" && "$MPCC" -arch=sm_90 -c "$2" -o direct.o) 2>"$tmp/err"; }
# objects differ run to run only in nvcc's temporary names
same() {
	LC_ALL=C sed -E 's/tmpxft_[0-9a-f]{8}_[0-9a-f]{8}/tmpxft/g' "$1" > "$tmp/a"
	LC_ALL=C sed -E 's/tmpxft_[0-9a-f]{8}_[0-9a-f]{8}/tmpxft/g' "$2" > "$tmp/b"
	cmp -s "$tmp/a" "$tmp/b"
}

top="$tmp/proj/src"
# 1. the naive setting: ccache's default compiler_check (mtime)
policy 16
build "$top" k.cu || fail "first build: $(cat "$tmp/err")"
cp "$top/k.o" "$tmp/k16.o"
policy 48
h=$(hits)
build "$top" k.cu || fail "naive rebuild: $(cat "$tmp/err")"
[ "$(hits)" -gt "$h" ] || fail "the naive setting did not hit the cache: this test proves nothing"
[ "$(lambdas 48)" -eq 0 ] || fail "naive: a cache hit cannot have compiled with lambda 48"
cp "$top/k.o" "$tmp/naive48.o"
policy 99   # broken, and still a hit
build "$top" k.cu || fail "naive: expected the stale object despite the broken policy"
direct "$top" k.cu && fail "mpcc accepted lambda 99"

# 2. the documented setting, Makefile layout: compiles run from the top
export CCACHE_COMPILERCHECK='%compiler% --mpcc-policy-hash'
policy 16
build "$top" k.cu || fail "build 16: $(cat "$tmp/err")"
h=$(hits)
build "$top" k.cu || fail "rebuild 16"
[ "$(hits)" -gt "$h" ] || fail "an unchanged policy must hit the cache"
policy 48
m=$(count cache_miss)
build "$top" k.cu || fail "build 48: $(cat "$tmp/err")"
[ "$(count cache_miss)" -gt "$m" ] || fail "a policy edit must miss the cache"
[ "$(lambdas 48)" -eq 1 ] || fail "the rebuild did not compile with lambda 48: $(cat "$MPCC_REPORT")"
direct "$top" k.cu || fail "direct 48"
same "$top/k.o" "$top/direct.o" || fail "ccache's object differs from mpcc's own under lambda 48"
# the sfu transform changes the object: the naive run handed back the
# lambda-16 object for a lambda-48 build
same "$tmp/k16.o" "$top/direct.o" && fail "lambda 16 and 48 give the same object: this test proves nothing"
same "$tmp/naive48.o" "$tmp/k16.o" && ! same "$tmp/naive48.o" "$top/direct.o" ||
	fail "the naive object is neither stale nor wrong: this test proves nothing"
m=$(count cache_miss)
MPCC_PROFILE=accurate build "$top" k.cu || fail "MPCC_PROFILE=accurate: $(cat "$tmp/err")"
[ "$(count cache_miss)" -gt "$m" ] || fail "a change of MPCC_PROFILE must miss the cache"
policy 99
build "$top" k.cu && fail "a broken policy must fail the cached build"
grep -q "'lambda' must be between 0 and 64, not 99" "$tmp/err" || fail "no policy error: $(cat "$tmp/err")"

# 2b. a policy named on the command line (--mpcc-policy=FILE) is not seen by
# the hash, which ccache runs without the compile's arguments: it goes in
# extra_files_to_hash (CCACHE_EXTRAFILES)
printf 'version: 1\ndefault_profile: p\nprofiles:\n  p: {rules: [{kernels: ["*"], sfu: {lambda: 8}}]}\n' > "$tmp/named.yaml"
pbuild() { (cd "$top" && ccache "$MPCC" --mpcc-policy="$tmp/named.yaml" -arch=sm_90 -c k.cu -o k.o) 2>"$tmp/err"; }
pbuild || fail "--mpcc-policy build: $(cat "$tmp/err")"
sed -i 's/lambda: 8/lambda: 9/' "$tmp/named.yaml"
h=$(hits)
pbuild || fail "--mpcc-policy rebuild: $(cat "$tmp/err")"
[ "$(hits)" -gt "$h" ] || fail "compiler_check alone should not see a --mpcc-policy file"
export CCACHE_EXTRAFILES="$tmp/named.yaml"
pbuild || fail "--mpcc-policy with CCACHE_EXTRAFILES: $(cat "$tmp/err")"
sed -i 's/lambda: 9/lambda: 10/' "$tmp/named.yaml"
m=$(count cache_miss)
pbuild || fail "--mpcc-policy rebuild with CCACHE_EXTRAFILES: $(cat "$tmp/err")"
[ "$(count cache_miss)" -gt "$m" ] || fail "with CCACHE_EXTRAFILES an edit of the --mpcc-policy file must miss"
unset CCACHE_EXTRAFILES

# 3. CMake layout: compiles run in the build tree, which holds no policy,
# so the hash must be told where the sources are
b="$tmp/proj/build"
policy 16
build "$b" ../src/k.cu || fail "cmake layout build 16: $(cat "$tmp/err")"
policy 48
h=$(hits)
build "$b" ../src/k.cu || fail "cmake layout rebuild"
[ "$(hits)" -gt "$h" ] || fail "without DIR the hash should not see the sources' policy"
export CCACHE_COMPILERCHECK="%compiler% --mpcc-policy-hash=$top"
build "$b" ../src/k.cu || fail "cmake layout with DIR"
policy 16
m=$(count cache_miss)
build "$b" ../src/k.cu || fail "cmake layout with DIR, 16"
[ "$(count cache_miss)" -gt "$m" ] || fail "with DIR a policy edit must miss the cache"

echo "testing $name ... passed"
