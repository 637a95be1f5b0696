#!/bin/sh
# One GPU session, everything in one call: the GPU tests and the bench.
#   sh bench/gpu-session.sh BENCHDIR BUILDDIR OUTDIR
# BENCHDIR was filled by "run.py build" (on a machine with nvcc, no GPU
# needed) with the same LAMBDAS* and DRIVER_LAMBDAS as below; BUILDDIR
# holds mpcc-opt. Logs and results.tsv go to OUTDIR.
B=$(cd "$1" && pwd) BUILD=$(cd "$2" && pwd) O=$3
cd "$(dirname "$0")/.." || exit 1
mkdir -p "$O"
export PATH=/usr/local/cuda/bin:$PATH MPCC_OPT=$BUILD/mpcc-opt MPCC_BUILD=$BUILD MPCC_SRC=$(pwd)
export LAMBDAS=${LAMBDAS:-"0 8 16 24 32 40 48 56 64"} LAMBDAS_C0=${LAMBDAS_C0:-0} LAMBDAS_C2=${LAMBDAS_C2:-64} LAMBDAS_NEWTON=${LAMBDAS_NEWTON:-"32 64"}
export DRIVER_LAMBDAS=${DRIVER_LAMBDAS:-"0 32 64"} MPCC=${MPCC:-$BUILD/mpcc}
{
	date -u
	nvidia-smi -L
	nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
	nvcc --version | tail -2
} 2>&1 | tee "$O/env.log"
sh tests/gpu/g-sfu-fp64.sh 2>&1 | tee "$O/tests.log"
python3 bench/run.py run "$B" 2>&1 | tee "$O/bench.log"
cp "$B/results.tsv" "$O/" 2>/dev/null
BENCH_DIR=$B sh tests/gpu/g-sfu-bench.sh 2>&1 | tee -a "$O/tests.log"
sh tests/gpu/g-sfu-driver.sh 2>&1 | tee -a "$O/tests.log"
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,power.draw --format=csv 2>&1 | tee -a "$O/env.log"
