#!/bin/sh
# Install, from Debian's packages, what building and using mpcc needs
# (the README's first command: cmake, a C and C++ compiler, libyaml, and
# python3 for the example's table); with --test, also what its test suite
# needs (scripts/test.sh calls it so). --list prints the packages the
# options name, one a line, and installs nothing.
# Usage: scripts/install-deps.sh [--test] [--list] [--upgrade]
#
# CUDA itself (nvcc 13 in /usr/local/cuda) is not a Debian package: it must
# be on the machine already; the driver and PTX tests skip without it.
#
# Nothing is installed that is already there (dpkg-query says so), so a
# rerun offline does not reach apt-get. Recommends are not installed, and
# no service starts during the install (a policy-rc.d that says 101, as in
# Debian's containers, while apt runs); the daemons the Slurm test starts
# itself (munge, slurmd, slurmctld) are left disabled on a systemd host.
#
# Before installing, it says what apt will install: the packages it names
# and those they depend on, which on a minimal Debian 12 are over a hundred
# for --test (Perl's libraries for lintian, Slurm's). apt-get install
# upgrades an installed package when a new one needs a newer version of it
# (a new Perl module, perl-base), and no apt-get option stops that short of
# failing (--no-upgrade covers only the packages named). So the script asks
# apt first (apt-get install -s) and, where the install would upgrade an
# installed package, names them and installs nothing; --upgrade lets apt
# upgrade them. It never upgrades anything else.
set -e
# the build: cmake, make and a C/C++ compiler (mpcc links libstdc++ for
# __cxa_demangle), libyaml (linked statically by default); python3 runs
# the example's `make run` table (examples/make-project/show.py)
build="cmake make gcc g++ libyaml-dev python3"
# the tests: ninja-build, the CMake rebuild test (t-deps.sh); clang and
# libclang-rt-14-dev, the libFuzzer targets (tests/fuzz/run.sh); llvm-14-tools,
# lit and FileCheck (tests/ptx/); ccache and sccache, the cache tests;
# librsvg2-bin, rsvg-convert for mpcc-tune's plots (t-tune-plot.sh);
# slurm-wlm and munge, a one-node Slurm that t-tune-slurm.sh starts for
# --launcher; lintian, dpkg-dev (dpkg-shlibdeps) and file, cpack's .deb
# and its check (t-install.sh); groff-base, groff for the man pages'
# check (t-docs.sh), which minimal images leave out
test="ninja-build clang libclang-rt-14-dev llvm-14-tools ccache sccache librsvg2-bin
      slurm-wlm munge lintian dpkg-dev file groff-base"
# services those packages ship, which the tests start themselves
daemons="munge slurmd slurmctld"

pkgs=$build
list=
upgrade=
for a in "$@"; do
	case $a in
	--test) pkgs="$build $test" ;;
	--list) list=1 ;;
	--upgrade) upgrade=1 ;;
	*) echo "usage: scripts/install-deps.sh [--test] [--list] [--upgrade]" >&2; exit 2 ;;
	esac
done
if [ -n "$list" ]; then
	for p in $pkgs; do echo "$p"; done
	exit 0
fi

missing=
for p in $pkgs; do
	case $(dpkg-query -W -f='${Status}' "$p" 2>/dev/null) in
	*" ok installed") ;;
	*) missing="$missing $p" ;;
	esac
done
if [ -n "$missing" ]; then
	sudo=
	[ "$(id -u)" = 0 ] || sudo=sudo
	# no service starts while apt runs: invoke-rc.d and deb-systemd-invoke
	# ask /usr/sbin/policy-rc.d, and 101 means "not allowed"; one already
	# there (a container's) is left as it is
	rcd=
	if [ ! -e /usr/sbin/policy-rc.d ]; then
		rcd=/usr/sbin/policy-rc.d
		trap '$sudo rm -f "$rcd"' EXIT INT TERM
		printf '#!/bin/sh\n# scripts/install-deps.sh: no service starts during its install\nexit 101\n' |
			$sudo tee "$rcd" >/dev/null
		$sudo chmod 755 "$rcd"
	fi
	$sudo apt-get update -q
	# what apt would do: "Inst NAME (VERSION ...)" installs NAME, "Inst NAME
	# [OLD] (NEW ...)" upgrades it
	plan=$(LC_ALL=C apt-get install -s -q --no-install-recommends $missing) ||
		{ echo "install-deps: error: apt-get cannot install:$missing" >&2; exit 1; }
	new=$(echo "$plan" | awk '$1 == "Inst" && $3 !~ /^\[/ { n++ } END { print n + 0 }')
	up=$(echo "$plan" | awk '$1 == "Inst" && $3 ~ /^\[/ { gsub(/[][(]/, ""); printf " %s %s -> %s,", $2, $3, $4 }')
	echo "install-deps: installing$missing: $new packages with what they depend on" >&2
	if [ -n "$up" ] && [ -z "$upgrade" ]; then
		echo "install-deps: error: they need newer versions of installed packages:${up%,}; nothing installed (--upgrade lets apt upgrade those)" >&2
		exit 1
	fi
	[ -z "$up" ] || echo "install-deps: and upgrading, as they need (--upgrade):${up%,}" >&2
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing
	# packages' postinst enable their units for the next boot: not these
	if [ -d /run/systemd/system ] && command -v systemctl >/dev/null; then
		for d in $daemons; do
			case " $missing " in
			*" munge "* | *" slurm-wlm "*) $sudo systemctl disable --now "$d" >/dev/null 2>&1 || : ;;
			esac
		done
	fi
fi
if ! command -v nvcc >/dev/null 2>&1 && [ ! -x /usr/local/cuda/bin/nvcc ]; then
	echo "install-deps: note: no nvcc found (CUDA 13 expected in /usr/local/cuda); tests that need it will be skipped" >&2
fi
