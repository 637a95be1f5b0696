#!/bin/sh
# The store transform end to end (issue 47): tests/gpu/store-app.cu, a
# program of many kernels (arrays from cudaMalloc and from a caching pool
# of doubles and ints side by side, two streams ordered by events, every
# kind of copy and set between launches, an atomic sum, a zeroing kernel,
# a vector kernel, an int gather store leaves alone, a kernel of another
# translation unit built by nvcc, which the runtime does not know), built
# by mpcc with `store: {}` on every kernel, plain and -use_fast_math.
# Without a GPU: each build says which kernels got a clone and links the
# runtime. With one: on random inputs, its outputs against nvcc's build of
# the same flags: the ints bit for bit, the double arrays within 1e-5
# (rel-fro; f32 storage rounds each value to 6e-8: seen 1.6e-7 on an
# H200), the atomic sums within 1e-4 (f32 atomics add 330,000 terms a
# bin: seen 1.0e-5); with MPCC_STORE=off, nvcc's
# outputs bit for bit (the kernels themselves are nvcc's), but the sums,
# which f64 atomics add in another order each run (1e-12); under
# MPCC_STORE_CHECK=1, no clone's output differs from its kernel's beyond
# the narrowing (but sum's: f32 atomics add in another order); and
# MPCC_STORE_REPORT says the clones ran.
. "$(dirname "$0")/gpu-lib.sh"
MPCC=${MPCC:-$MPCC_BUILD/mpcc}
[ -x "$MPCC" ] || { echo "skipped: no mpcc at '$MPCC'"; exit 77; }
[ -x "$NVCC" ] || { echo "skipped: no nvcc"; exit 77; }
command -v python3 >/dev/null || { echo "skipped: no python3"; exit 77; }
export PATH="$(dirname "$NVCC"):$PATH"
unset MPCC_POLICY MPCC_PROFILE MPCC_SET MPCC_REPORT MPCC_STORE MPCC_STORE_CHECK MPCC_STORE_REPORT
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
for f in store-app.cu store-other.cu store-cmp.py; do cp "$MPCC_SRC/tests/gpu/$f" "$d/"; done
cd "$d" || exit 1
cat >.mpcc.yaml <<'YAML'
version: 1
default_profile: narrow
profiles:
  narrow:
    rules:
      - kernels: ["*"]
        store: {}
YAML
"$NVCC" -O3 -arch="$ARCH" -c store-other.cu -o other.o || fail "nvcc store-other.cu"
for m in plain fast; do
	f=
	[ $m = fast ] && f=-use_fast_math
	echo "testing nvcc and mpcc builds ($m) ..."
	"$NVCC" -O3 -arch="$ARCH" $f -o nvcc.$m store-app.cu other.o || fail "nvcc $f"
	"$MPCC" -O3 -arch="$ARCH" $f --mpcc-report=$m.json -c store-app.cu -o app.$m.o >$m.log 2>&1 &&
		"$MPCC" -O3 -arch="$ARCH" -o mpcc.$m app.$m.o other.o >>$m.log 2>&1 ||
		{ cat $m.log; fail "mpcc $f"; }
	[ ! -s $m.log ] || { cat $m.log; fail "mpcc $f said something"; }
	for k in axpy smooth gather sum zero vec2; do
		grep "\"demangled\":\"$k(" $m.json | grep -q '"applied":true' ||
			{ grep "\"demangled\":\"$k(" $m.json; fail "mpcc $f: $k has no clone"; }
	done
	grep "\"demangled\":\"bump(" $m.json | grep -q '"applied":false' || fail "mpcc $f: bump (ints) narrowed"
	nm mpcc.$m | grep -q ' T __wrap___cudaLaunchKernel$' || fail "mpcc $f: the runtime is not linked"
done
echo "testing the builds ... passed"
need_gpu
for m in plain fast; do
	for seed in 1 2; do
		echo "testing store-app ($m, seed $seed) ..."
		./nvcc.$m 1048576 20 $seed nv.out >nv.txt || fail "nvcc.$m did not run"
		MPCC_STORE_REPORT=$m.rep ./mpcc.$m 1048576 20 $seed st.out >st.txt 2>st.err ||
			{ cat st.err; fail "mpcc.$m did not run"; }
		[ ! -s st.err ] || { cat st.err; fail "mpcc.$m said something"; }
		python3 store-cmp.py nv.out st.out 1048576 1e-5 1e-4 || fail "mpcc.$m's outputs differ from nvcc's"
		grep -q '"launches":{"clone":[1-9]' $m.rep || { cat $m.rep; fail "no clone ran"; }
		MPCC_STORE=off ./mpcc.$m 1048576 20 $seed off.out >/dev/null || fail "MPCC_STORE=off did not run"
		python3 store-cmp.py nv.out off.out 1048576 0 1e-12 >/dev/null ||
			fail "MPCC_STORE=off: not nvcc's outputs bit for bit (but the f64 atomic sums)"
		MPCC_STORE_CHECK=1 ./mpcc.$m 1048576 4 $seed chk.out >/dev/null 2>chk.err ||
			{ cat chk.err; fail "MPCC_STORE_CHECK=1 did not run"; }
		# f32 atomics add in another order than f64 ones: sum's may differ more
		grep -v '_Z3sumPdPKdi' chk.err >chk.other
		[ ! -s chk.other ] || { cat chk.err; fail "the check found a clone's output beyond the narrowing"; }
		echo "passed"
	done
done
