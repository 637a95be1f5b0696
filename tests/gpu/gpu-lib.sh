# shared by the tests/gpu scripts: tools, and skipping without a GPU (exit 77)
MPCC_SRC=${MPCC_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
MPCC_BUILD=${MPCC_BUILD:-$MPCC_SRC/build}
MPCC_OPT=${MPCC_OPT:-$MPCC_BUILD/mpcc-opt}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
PTXAS=${PTXAS:-$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)}
ARCH=${ARCH:-sm_90}
export MPCC_SRC MPCC_BUILD MPCC_OPT NVCC PTXAS ARCH

fail() {
	echo "FAILED: $*"
	exit 1
}

need_gpu() {
	if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L 2>/dev/null | grep -q GPU; then
		echo "skipped: no GPU (nvidia-smi finds none); $(basename "$0") needs one"
		exit 77
	fi
	[ -x "$NVCC" ] || { echo "skipped: no nvcc"; exit 77; }
	[ -x "$MPCC_OPT" ] || fail "no mpcc-opt at '$MPCC_OPT' (set MPCC_OPT or MPCC_BUILD)"
}
