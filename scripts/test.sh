#!/bin/sh
# Install what the tests need, build mpcc with AddressSanitizer and UBSan
# and run the whole test suite.
# Usage: scripts/test.sh [ctest options]
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
# the test tools (clang, lit, Slurm, lintian...): nothing to do, and no
# apt-get, when they are all installed. The README promises that this
# command works on a fresh machine, where the tools need newer versions
# of a few installed packages (perl-base...): install-deps says which
# before apt upgrades them, and upgrades nothing else
sh "$top/scripts/install-deps.sh" --test --upgrade
build="$top/build-asan"
cmake -S "$top" -B "$build" -DMPCC_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build "$build" -j"$(nproc)"
cd "$build"
export ASAN_OPTIONS=detect_leaks=0
# ctest, and after its summary why each skipped test did not run
sh "$top/scripts/ctest.sh" --output-on-failure -j"$(nproc)" "$@"
