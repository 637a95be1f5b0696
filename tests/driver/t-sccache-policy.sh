#!/bin/sh
# sccache must not return objects built under another policy either. It has
# no compiler_check, but it hashes the environment variable
# SCCACHE_C_CUSTOM_CACHE_BUSTER into every C/C++/CUDA compile: set it to
# 'mpcc --mpcc-policy-hash' when the build starts (mpcc.yaml(5)). First the
# naive run (no variable) must return the stale object after a policy edit;
# then, with the variable, every policy edit and MPCC_PROFILE change misses.
name=sccache-policy
: "${MPCC:?}"
export PATH="$PATH:/usr/local/cuda/bin"
command -v nvcc >/dev/null || { echo "testing $name ... skipped (no nvcc)"; exit 77; }
command -v sccache >/dev/null || { echo "testing $name ... skipped (no sccache)"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-sccache.XXXXXX")
fail() { echo "testing $name ... FAILED: $*"; exit 1; }
unset MPCC_POLICY MPCC_PROFILE MPCC_REPORT SCCACHE_C_CUSTOM_CACHE_BUSTER RUSTC_WRAPPER

# a private server: its own port, cache and log, stopped on exit
export SCCACHE_DIR="$tmp/cache" SCCACHE_SERVER_PORT=$((20000 + $$ % 20000)) SCCACHE_NO_DAEMON=0
export SCCACHE_IDLE_TIMEOUT=120 SCCACHE_ERROR_LOG="$tmp/server.log"
trap 'sccache --stop-server >/dev/null 2>&1; rm -rf "$tmp"' EXIT
sccache --start-server >/dev/null 2>&1 || { echo "testing $name ... skipped (sccache server does not start)"; exit 77; }

mkdir -p "$tmp/proj"
top="$tmp/proj"
printf '__global__ void BoxMuller(float *x) { x[threadIdx.x] = sinf(x[threadIdx.x]); }\n' > "$top/k.cu"
policy() {
	printf 'version: 1\nroot: true\ndefault_profile: fast\nprofiles:\n  accurate: {}\n  fast:\n    rules: [{kernels: ["BoxMuller*"], sfu: {lambda: %s}}]\n' "$1" > "$top/.mpcc.yaml"
}
stat() { sccache --show-stats 2>/dev/null | awk -v k="$1" '$1 == "Cache" && $2 == k && NF == 3 { print $3 }'; }
build() { (cd "$top" && sccache "$MPCC" -arch=sm_90 -c k.cu -o k.o) 2>"$tmp/err"; }
# what a Makefile does once per make run: export SCCACHE_C_CUSTOM_CACHE_BUSTER := $(shell mpcc --mpcc-policy-hash)
busted() { (cd "$top" && SCCACHE_C_CUSTOM_CACHE_BUSTER=$("$MPCC" --mpcc-policy-hash) sccache "$MPCC" -arch=sm_90 -c k.cu -o k.o) 2>"$tmp/err"; }

policy 16
build || fail "first build: $(cat "$tmp/err")"
[ "$(stat misses)" = 1 ] || fail "sccache did not cache the compile: $(sccache --show-stats 2>&1)"
policy 48
h=$(stat hits)
build || fail "naive rebuild"
[ "$(stat hits)" -gt "$h" ] || fail "the naive setting did not hit the cache: this test proves nothing"

busted || fail "busted 48: $(cat "$tmp/err")"
h=$(stat hits)
busted || fail "busted 48 again"
[ "$(stat hits)" -gt "$h" ] || fail "an unchanged policy must hit"
policy 16
m=$(stat misses)
busted || fail "busted 16"
[ "$(stat misses)" -gt "$m" ] || fail "a policy edit must miss"
m=$(stat misses)
MPCC_PROFILE=accurate busted || fail "MPCC_PROFILE=accurate"
[ "$(stat misses)" -gt "$m" ] || fail "a change of MPCC_PROFILE must miss"
policy 99
busted && fail "a broken policy must fail the build"
echo "testing $name ... passed"
