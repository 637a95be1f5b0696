#!/bin/sh
# The sfu transform through the mpcc driver on real nvcc command lines: a
# policy rule {sfu: {lambda: 32}} on the bench's Box-Muller kernel, built
# with two -gencode archs, with -rdc=true, with -G, with -lineinfo and with
# --keep. Each build must apply the transform on every arch (the report
# says so) and keep nvcc's own outputs; --keep must keep the accurate PTX,
# the fast PTX and the merged one. The builds need no GPU; with one, each
# binary then runs and its output is compared with a plain nvcc build's
# (every element written, mean relative error under 1e-6). Exit 77 (after
# the builds) without a GPU.
. "$(dirname "$0")/gpu-lib.sh"
MPCC=${MPCC:-$MPCC_BUILD/mpcc}
[ -x "$MPCC" ] || { echo "skipped: no mpcc at '$MPCC'"; exit 77; }
[ -x "$NVCC" ] || { echo "skipped: no nvcc"; exit 77; }
export PATH="$(dirname "$NVCC"):$PATH"
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
cp "$MPCC_SRC/bench/boxmuller.cu" "$MPCC_SRC/bench/bench.h" "$d/" && cd "$d" || exit 1
cat >.mpcc.yaml <<'YAML'
version: 1
default_profile: fast
profiles:
  fast:
    rules:
      - kernels: ["boxmuller"]
        sfu: {lambda: 32}
YAML
"$NVCC" -O3 -arch=sm_90 -o plain boxmuller.cu || fail "plain nvcc build"
cc -O2 -o cmp "$MPCC_SRC/bench/cmp.c" -lm || fail "cmp"

build() {   # name, expected applied report lines, nvcc flags...
	name=$1 want=$2
	shift 2
	echo "testing mpcc $* ..."
	"$MPCC" --mpcc-report="$name.json" "$@" -o "$name" boxmuller.cu >"$name.log" 2>&1 ||
		{ cat "$name.log"; fail "mpcc $*"; }
	if grep -q "warning" "$name.log"; then cat "$name.log"; fail "mpcc $* warned"; fi
	got=$(grep -c '"applied":true' "$name.json")
	[ "$got" = "$want" ] || { cat "$name.json"; fail "mpcc $*: $got applied, want $want"; }
}
build gencode 2 -O3 -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90
build rdc 1 -O3 -arch=sm_90 -rdc=true
build debug 1 -arch=sm_90 -G
build lineinfo 1 -O3 -arch=sm_90 -lineinfo
mkdir -p k
build keep 1 -O3 -arch=sm_90 --keep --keep-dir k
ls k/*.orig.ptx k/*.fast*.ptx k/boxmuller.ptx >/dev/null 2>&1 || { ls k; fail "--keep lost a variant"; }
grep -q 'SFU_FAST' k/boxmuller.ptx || fail "--keep: the kept PTX is not the merged one"
echo "testing mpcc builds (gencode, rdc, -G, -lineinfo, --keep) ... passed"

if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L 2>/dev/null | grep -q GPU; then
	echo "skipped: the builds passed; running them needs a GPU (nvidia-smi finds none)"
	exit 77
fi
n=1048576
./plain $n 5 plain.out >/dev/null || fail "plain run"
for b in gencode rdc debug lineinfo keep; do
	./$b $n 5 $b.out >/dev/null || fail "$b run"
	r=$(./cmp f plain.out $b.out)
	echo "$b: $r"
	# every element written, close on average, and none far off: Box-Muller's
	# outputs are O(1), so one wrong element shows as an absolute error
	echo "$r" | awk '{ split($1, u, "="); split($2, m, "="); split($5, a, "=");
		exit !(u[2] == 0 && m[2] < 1e-6 && m[2] > 0 && a[2] < 1e-3) }' || fail "$b output"
done
echo "testing mpcc-built binaries on the GPU ... passed"
