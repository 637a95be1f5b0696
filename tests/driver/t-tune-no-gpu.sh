#!/bin/sh
# mpcc-tune times the program's kernels on a GPU: where none is visible it
# stops before the first build, with one message that says it needs one
# (issue 50: a session learned it after a full build and run, 13 to 64 s,
# from a message about the output). CUDA_VISIBLE_DEVICES='' hides every
# GPU, so the stop is checked on any machine; on one without a GPU it is
# checked as found. With --launcher the runs go where it sends them, and
# MPCC_TUNE_NO_GPU_CHECK=1 (what the fake-program tests set, lib.sh) goes
# on without one: both build. Needs no nvcc: the builds are shell lines.
: "${MPCC_TUNE:?set MPCC_TUNE}"
T=$(mktemp -d "${TMPDIR:-/tmp}/t-tune-no-gpu.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
unset MPCC_TUNE_NO_GPU_CHECK
failures=0
testing() { printf 'testing %s ... ' "$1"; }
passed() { echo passed; }
fail() { echo "failed: $*"; failures=$((failures + 1)); }
cd "$T" || exit 1

# tune ARGS...: mpcc-tune on a build that leaves 'built' and fails, so
# that a session that got past the check ends at once
tune() {
	rm -f built
	"$MPCC_TUNE" --build 'touch built; exit 1' --run 'echo 1' --workdir "$T/w" "$@" >out 2>err
	echo $? >rc
	rm -rf "$T/w"
}

# stops ARGS...: the session stopped with one line that says why, before
# building
stops() {
	tune "$@"
	if [ "$(cat rc)" != 1 ] || [ -e built ] || [ "$(wc -l <err)" != 1 ]; then
		fail "status $(cat rc), $( [ -e built ] && echo built || echo 'not built'): $(cat err)"
	elif ! grep -q "^mpcc-tune: error: no GPU is visible" err || ! grep -q "needs one" err; then
		fail "$(cat err)"
	else
		passed
	fi
}

testing "CUDA_VISIBLE_DEVICES='' stops a search before its build"
CUDA_VISIBLE_DEVICES= stops --qos 0.1
testing "and --measure"
CUDA_VISIBLE_DEVICES= stops --measure
testing "CUDA_VISIBLE_DEVICES=-1 too"
CUDA_VISIBLE_DEVICES=-1 stops --qos 0.1
testing "the message names what hid them"
grep -q "CUDA_VISIBLE_DEVICES='-1'" err && passed || fail "$(cat err)"

testing "no GPU on this machine stops it"
if ls /dev/nvidia[0-9]* >/dev/null 2>&1 || [ -e /dev/dxg ] || [ -n "$(ls /proc/driver/nvidia/gpus 2>/dev/null)" ] ||
   nvidia-smi -L 2>/dev/null | grep -q GPU; then
	echo "skipped (this machine has a GPU; CUDA_VISIBLE_DEVICES='' above stands for none)"
else
	(unset CUDA_VISIBLE_DEVICES; stops --qos 0.1)
fi

# goes ARGS...: the session got past the check: it built
goes() {
	tune "$@"
	if [ -e built ] && ! grep -q "no GPU" err; then passed; else fail "$(cat err)"; fi
}
testing "--launcher sends the runs elsewhere: no check"
CUDA_VISIBLE_DEVICES= goes --qos 0.1 --launcher env
testing "MPCC_TUNE_NO_GPU_CHECK=1 goes on without a GPU"
CUDA_VISIBLE_DEVICES= MPCC_TUNE_NO_GPU_CHECK=1 goes --qos 0.1

[ "$failures" = 0 ] || { echo "$failures failed"; exit 1; }
