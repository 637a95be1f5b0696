#!/bin/sh
# A skipped test says why in the suite's output (issue 33, item 9): ctest
# shows only "***Skipped" and "(Skipped)", so scripts/test.sh runs ctest
# through scripts/ctest.sh, which prints each skipped test's reason after
# ctest's summary. Checked on a project of four tests: one skips saying
# why, one says why and then "skipped", one skips saying nothing, one
# passes mentioning skips.
: "${MPCC_SRC:?}"
command -v cmake >/dev/null && command -v ctest >/dev/null && command -v python3 >/dev/null ||
	{ echo "skipped: no cmake, ctest or python3"; exit 77; }
T=$(mktemp -d "${TMPDIR:-/tmp}/t-skip-reasons.XXXXXX")
trap 'rm -rf "$T"' EXIT
failures=0
cat >"$T/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.20)
project(skips NONE)
enable_testing()
add_test(NAME gpu/says COMMAND sh -c "echo building; echo 'skipped: no GPU here'; exit 77")
add_test(NAME gpu/silent COMMAND sh -c "exit 77")
add_test(NAME slurm COMMAND sh -c "echo 'cannot start a Slurm here'; echo skipped; exit 77")
add_test(NAME runs COMMAND sh -c "echo 'nothing to skip'")
set_tests_properties(gpu/says gpu/silent slurm runs PROPERTIES SKIP_RETURN_CODE 77)
CM
cmake -S "$T" -B "$T/b" >/dev/null 2>&1 || { echo "cmake failed"; exit 1; }
(cd "$T/b" && sh "$MPCC_SRC/scripts/ctest.sh") >"$T/out" 2>&1
st=$?

printf 'testing a skipped test says why in the suite'"'"'s output ... '
if [ $st = 0 ] && grep -qxF "	gpu/says: skipped: no GPU here" "$T/out" &&
	grep -qxF "	gpu/silent: it gave no reason" "$T/out" && ! grep -q "	runs:" "$T/out" &&
	grep -qxF "	slurm: cannot start a Slurm here" "$T/out"; then
	echo passed
else
	echo "failed: status $st: $(cat "$T/out")"
	failures=1
fi

printf 'testing scripts/test.sh runs ctest through scripts/ctest.sh ... '
if grep -q 'scripts/ctest.sh' "$MPCC_SRC/scripts/test.sh" && ! grep -q '^[^#]*ctest --' "$MPCC_SRC/scripts/test.sh"; then
	echo passed
else
	echo "failed: $(grep ctest "$MPCC_SRC/scripts/test.sh")"
	failures=1
fi
exit $failures
