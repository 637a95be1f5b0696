#!/bin/sh
# Install what building and testing mpcc needs, from Debian's packages.
# CUDA itself (nvcc 13 in /usr/local/cuda) is not a Debian package: it must be
# on the machine already; the driver and PTX tests skip without it.
set -e
# librsvg2-bin: rsvg-convert renders mpcc-tune's plots in a test; slurm-wlm
# and munge: a one-node Slurm that t-tune-slurm.sh starts for --launcher;
# ninja-build: the CMake rebuild test; lintian: the package test
pkgs="cmake make ninja-build gcc g++ clang libyaml-dev llvm-14-tools python3 ccache sccache
      libclang-rt-14-dev librsvg2-bin slurm-wlm munge lintian"
missing=
for p in $pkgs; do
	dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
if [ -n "$missing" ]; then
	sudo=
	[ "$(id -u)" = 0 ] || sudo=sudo
	$sudo apt-get update -q
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q $missing
fi
if ! command -v nvcc >/dev/null 2>&1 && [ ! -x /usr/local/cuda/bin/nvcc ]; then
	echo "install-deps: note: no nvcc found (CUDA 13 expected in /usr/local/cuda); tests that need it will be skipped" >&2
fi
