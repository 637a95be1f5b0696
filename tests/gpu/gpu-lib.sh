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

# need_tune: what the mpcc-tune tests share: mpcc, mpcc-tune and python3;
# nvcc's folder on PATH; a work folder d (removed at exit) and O, where
# TUNE_OUT=DIR keeps the results
need_tune() {
	MPCC=${MPCC:-$MPCC_BUILD/mpcc}
	MPCC_TUNE=${MPCC_TUNE:-$MPCC_BUILD/mpcc-tune}
	[ -x "$MPCC_TUNE" ] || fail "no mpcc-tune at '$MPCC_TUNE'"
	command -v python3 >/dev/null || { echo "skipped: no python3"; exit 77; }
	PATH="$(dirname "$NVCC"):$PATH"
	export PATH
	d=$(mktemp -d)
	trap 'rm -rf "$d"' EXIT
	O=${TUNE_OUT:-$d/out}
	mkdir -p "$O"
}
