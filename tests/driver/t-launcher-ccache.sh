#!/bin/sh
# ccache and sccache in the launcher slot with mpcc.
#
# "mpcc ccache NVCC ARGS" (CMAKE_CUDA_COMPILER_LAUNCHER="mpcc;ccache") must
# never hand back an object built under another policy, and must still
# cache: a compile no policy touches goes to ccache as nvcc's own; one a
# policy may transform goes to ccache with mpcc as its prefix_command and
# mpcc's policy hash (with the real nvcc's identity) as compiler_check.
# So: an unchanged rebuild hits, a policy edit, a profile change or a new
# nvcc misses, a cached object is the object mpcc builds without a cache, and
# a broken policy fails. "ccache mpcc NVCC ARGS" (ccache first) is correct
# but caches nothing: ccache takes NVCC for a second input file. With sccache
# ("mpcc sccache NVCC ARGS") only the compiles no policy touches are cached.
. "$MPCC_SRC/tests/driver/lib.sh"
command -v ccache >/dev/null 2>&1 || { echo "no ccache: skipped"; exit 77; }

real=$(command -v nvcc)
unset CCACHE_COMPILERCHECK CCACHE_PREFIX CCACHE_DISABLE CCACHE_RECACHE CCACHE_EXTRAFILES
export CCACHE_DIR="$T/cache" CCACHE_TEMPDIR="$T/cache-tmp" CCACHE_NOHASHDIR=1
ccache -C -z >/dev/null 2>&1
count() { ccache --print-stats | awk -v k="$1" '$1 == k { print $2 }'; }
hits() { echo $(($(count direct_cache_hit) + $(count preprocessed_cache_hit))); }
misses() { count cache_miss; }

top=$T/src
mkdir -p "$top" "$T/fake"
cat >"$top/k.cu" <<'CU'
__global__ void BoxMuller(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] = sqrtf(-2.0f * logf(x[i])) * cosf(6.2831853f * x[i]) / (x[i] + 1.0f);
}
CU
policy() {  # lambda
	printf 'version: 1\nroot: true\ndefault_profile: fast\nprofiles:\n  accurate: {}\n  fast:\n    rules:\n      - kernels: ["BoxMuller*"]\n        sfu: {lambda: %s}\n' "$1" >"$top/.mpcc.yaml"
}
flags='-arch=sm_90 -compress-mode=none -c k.cu'
# cached [NVCC] [MPCC OPTIONS]: compile k.o through "mpcc ccache NVCC"
cached() {
	nv=${1:-$real}
	shift $(($# > 0))
	(cd "$top" && rm -f k.o && "$MPCC" "$@" ccache "$nv" $flags -o k.o) 2>"$T/err"
}
# fresh: k.fresh.o from mpcc without a cache, as it would build now
fresh() { (cd "$top" && "$MPCC" "$real" $flags -o k.fresh.o) 2>"$T/err"; }
plain() { (cd "$top" && nvcc $flags -o k.nvcc.o) 2>"$T/err"; }
# hit|miss COMMAND...: COMMAND adds one to ccache's hits (misses)
hit() { h=$(hits) && "$@" && [ "$(hits)" -gt "$h" ]; }
miss() { m=$(misses) && "$@" && [ "$(misses)" -gt "$m" ]; }
transformed() { grep -q '%warpid' "$top/k.o"; }

plain
testing mpcc-ccache-no-policy-caches-nvccs-object
rm -f "$top/.mpcc.yaml"
miss cached && hit cached && same "$top/k.o" "$top/k.nvcc.o" && passed || fail "$(cat "$T/err")"

testing mpcc-ccache-policy-miss-then-hit
policy 16
if miss cached && transformed && cp "$top/k.o" "$T/k16.o" && hit cached && transformed && fresh; then
	same "$top/k.o" "$top/k.fresh.o" && passed || fail "the cached object differs from mpcc's own"
else fail "$(cat "$T/err")"; fi

testing mpcc-ccache-policy-edit-misses
policy 48
if miss cached && fresh && same "$top/k.o" "$top/k.fresh.o"; then
	same "$top/k.o" "$T/k16.o" && fail "lambda 16 and 48 give one object: this test proves nothing" || passed
else fail "stale or different object: $(cat "$T/err")"; fi

testing mpcc-ccache-profile-without-rules-gives-nvccs-object
# no rule can apply: nvcc's own compile, under nvcc's key (cached above)
export MPCC_PROFILE=accurate
cached && same "$top/k.o" "$top/k.nvcc.o" && passed || fail "$(cat "$T/err")"
unset MPCC_PROFILE

testing mpcc-ccache-profile-option-hits-nvccs-object
hit cached '' --mpcc-profile=accurate && same "$top/k.o" "$top/k.nvcc.o" && passed || fail "$(cat "$T/err")"

testing mpcc-ccache-policy-back-hits
hit cached && fresh && same "$top/k.o" "$top/k.fresh.o" && transformed && passed || fail "$(cat "$T/err")"

testing mpcc-ccache-broken-policy-fails
policy 99
if cached; then fail "exit 0"
elif [ -e "$top/k.o" ]; then fail "an object was written"
else grep -q "'lambda' must be between 0 and 64, not 99" "$T/err" && passed || fail "$(cat "$T/err")"; fi
policy 48

testing mpcc-ccache-named-policy-edit-misses
printf 'version: 1\ndefault_profile: p\nprofiles:\n  p: {rules: [{kernels: ["*"], sfu: {lambda: 8}}]}\n' >"$T/named.yaml"
if miss cached '' --mpcc-policy="$T/named.yaml" && hit cached '' --mpcc-policy="$T/named.yaml"; then
	sed -i 's/lambda: 8/lambda: 9/' "$T/named.yaml"
	miss cached '' --mpcc-policy="$T/named.yaml" && passed || fail "an edit of the --mpcc-policy file must miss"
else fail "$(cat "$T/err")"; fi

testing mpcc-ccache-new-nvcc-misses
printf '#!/bin/sh\nexec "%s" "$@"\n' "$real" >"$T/fake/nvcc"
chmod +x "$T/fake/nvcc"
if miss cached "$T/fake/nvcc" && hit cached "$T/fake/nvcc"; then
	touch -d '2001-01-01' "$T/fake/nvcc"   # what an upgrade in place changes
	miss cached "$T/fake/nvcc" && passed || fail "a changed nvcc must miss"
else fail "$(cat "$T/err")"; fi

testing ccache-compiler-mpcc-policy-hash-sees-a-new-nvcc
# the settings of mpcc.yaml(5) for CMAKE_CUDA_COMPILER=mpcc: the hash holds
# the identity of the nvcc behind mpcc too
viamake() { (cd "$top" && rm -f k.o && MPCC_NVCC="$T/fake/nvcc" CCACHE_COMPILERCHECK='%compiler% --mpcc-policy-hash' \
	ccache "$MPCC" $flags -o k.o) 2>"$T/err"; }
if miss viamake && hit viamake; then
	touch -d '2002-02-02' "$T/fake/nvcc"
	miss viamake && passed || fail "a changed nvcc must miss"
else fail "$(cat "$T/err")"; fi

testing ccache-mpcc-caches-nothing-and-is-correct
# ccache first: it takes NVCC for a second input and runs the line uncached
ms=$(count multiple_source_files)
if (cd "$top" && rm -f k.o && ccache "$MPCC" "$real" $flags -o k.o) 2>"$T/err" && fresh; then
	[ "$(count multiple_source_files)" -gt "$ms" ] && same "$top/k.o" "$top/k.fresh.o" && passed ||
		fail "ccache cached it, or the object differs"
else fail "$(cat "$T/err")"; fi

# CMake: "mpcc;ccache" as the launcher, the compiler the real nvcc
if command -v cmake >/dev/null 2>&1; then
	cp -r "$MPCC_SRC/tests/driver/launcher-project" "$T/proj"
	launch="$MPCC;\$<\$<CONFIG:Release>:--mpcc-profile=fast>;ccache"
	cmakebuild() {  # NAME LAUNCHER: a Release build, kept as $T/NAME
		rm -rf "$T/b"
		cmake -S "$T/proj" -B "$T/b" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_COMPILER="$real" \
			-DCMAKE_CUDA_COMPILER_LAUNCHER="$2" >"$T/$1.log" 2>&1 &&
			cmake --build "$T/b" -j2 >>"$T/$1.log" 2>&1 && rm -rf "$T/$1" && mv "$T/b" "$T/$1" ||
			{ tail -5 "$T/$1.log"; return 1; }
	}
	objs() {
		for f in rng saxpy scale; do
			same "$T/$1/CMakeFiles/kern.dir/$f.cu.o" "$T/$2/CMakeFiles/kern.dir/$f.cu.o" ||
				{ echo "$f.cu.o differs"; return 1; }
		done
	}
	rng() { echo "$T/$1/CMakeFiles/kern.dir/rng.cu.o"; }

	testing cmake-mpcc-ccache-rebuild-hits
	if why=$(cmakebuild fresh "$MPCC;\$<\$<CONFIG:Release>:--mpcc-profile=fast>" &&
		cmakebuild c1 "$launch"); then
		h=$(hits)
		if why=$(cmakebuild c2 "$launch"); then
			[ "$(hits)" -ge $((h + 3)) ] && why=$(objs fresh c2) && grep -q '%warpid' "$(rng c2)" &&
				passed || fail "hits $h -> $(hits); $why"
		else fail "$why"; fi
	else fail "$why"; fi

	testing cmake-mpcc-ccache-policy-edit-misses
	sed -i 's/lambda: 32/lambda: 48/' "$T/proj/.mpcc.yaml"
	m=$(misses)
	if why=$(cmakebuild c3 "$launch" && cmakebuild fresh48 "$MPCC;\$<\$<CONFIG:Release>:--mpcc-profile=fast>"); then
		[ "$(misses)" -ge $((m + 1)) ] && why=$(objs fresh48 c3) && ! same "$(rng c2)" "$(rng c3)" &&
			passed || fail "misses $m -> $(misses); $why"
	else fail "$why"; fi
fi

# sccache: a private server, as t-sccache-policy.sh runs it
if command -v sccache >/dev/null 2>&1; then
	unset RUSTC_WRAPPER SCCACHE_C_CUSTOM_CACHE_BUSTER
	export SCCACHE_DIR="$T/scache" SCCACHE_SERVER_PORT=$((20000 + ($$ + 7) % 20000)) SCCACHE_NO_DAEMON=0
	export SCCACHE_IDLE_TIMEOUT=120 SCCACHE_ERROR_LOG="$T/sccache.log"
	trap 'sccache --stop-server >/dev/null 2>&1; rm -rf "$T"' EXIT INT TERM
	if sccache --start-server >/dev/null 2>&1; then
		shits() { sccache --show-stats 2>/dev/null | awk '$1 == "Cache" && $2 == "hits" && NF == 3 { print $3 }'; }
		sbuild() { (cd "$top" && rm -f k.o && "$MPCC" sccache "$real" $flags -o k.o) 2>"$T/err"; }

		testing mpcc-sccache-no-policy-hits
		rm -f "$top/.mpcc.yaml"
		sbuild && h=$(shits) && sbuild && [ "$(shits)" -gt "$h" ] && same "$top/k.o" "$top/k.nvcc.o" &&
			passed || fail "$(cat "$T/err")"

		testing mpcc-sccache-policy-runs-uncached
		policy 16
		h=$(shits)
		sbuild && fresh && same "$top/k.o" "$top/k.fresh.o" && transformed && policy 48 && sbuild &&
			fresh && same "$top/k.o" "$top/k.fresh.o" && [ "$(shits)" = "$h" ] && passed ||
			fail "$(cat "$T/err")"
	else
		echo "sccache server does not start: sccache tests skipped"
	fi
fi
finish
