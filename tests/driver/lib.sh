# lib.sh: shared by the driver tests (sourced, POSIX sh).
# Each test compares what mpcc makes with what the real nvcc makes on the
# same line, in the same directory (paths end up in objects), after masking
# the one thing nvcc itself changes run to run: the temporary name
# tmpxft_<8 hex>_<8 hex> embedded in -c/-dc objects.

: "${MPCC:?set MPCC to the mpcc executable}"
: "${MPCC_SRC:?set MPCC_SRC to the source tree}"
PATH="$PATH:/usr/local/cuda/bin"
export PATH
command -v nvcc >/dev/null 2>&1 || { echo "no nvcc: skipped"; exit 77; }
unset MPCC_FORCE_PIPELINE MPCC_POLICY MPCC_PROFILE MPCC_REPORT MPCC_NVCC MPCC_EXPLAIN MPCC_DRYRUN MPCC_SET MPCC_STEP_CACHE
unset NVCC_PREPEND_FLAGS NVCC_APPEND_FLAGS
# mpcc-tune stops before building where no GPU is visible; the fake
# program of tune-fake/ needs none (t-tune-no-gpu.sh tests the stop)
MPCC_TUNE_NO_GPU_CHECK=1
export MPCC_TUNE_NO_GPU_CHECK
KERNELS="$MPCC_SRC/tests/kernels"
T=$(mktemp -d "${TMPDIR:-/tmp}/mpcc-test.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
failures=0

testing() { printf 'testing %s ... ' "$1"; }
passed() { echo passed; }
fail() { echo "failed: $*"; failures=$((failures + 1)); }
finish() { [ "$failures" = 0 ] || { echo "$failures failed"; exit 1; }; exit 0; }

# mask FILE: print FILE with nvcc's temporary names blanked
mask() { perl -pe 's/tmpxft_[0-9a-f]{8}_[0-9a-f]{8}/tmpxft_XXXXXXXX_XXXXXXXX/g' "$1"; }

# same A B: A and B are equal after masking
same() {
	mask "$1" >"$T/.a" && mask "$2" >"$T/.b" && cmp -s "$T/.a" "$T/.b"
}

# snapshot DIR: the files under DIR, sorted
snapshot() { (cd "$1" && find . -type f | LC_ALL=C sort); }

# collect DIR BEFORE DEST: move the files made in DIR since BEFORE to DEST
collect() {
	snapshot "$1" >"$T/.after"
	LC_ALL=C comm -13 "$2" "$T/.after" | while read -r f; do
		mkdir -p "$3/$(dirname "$f")"
		mv "$1/$f" "$3/$f"
	done
}

# compare N M: every file of N is in M and the same; M may hold mpcc's own
# kept files (*.orig.ptx, *.mpcc*) besides
compare() {
	(cd "$1" && find . -type f | LC_ALL=C sort) >"$T/.nf"
	(cd "$2" && find . -type f | grep -v -e '\.orig\.ptx$' -e '\.mpcc\.' | LC_ALL=C sort) >"$T/.mf"
	if ! cmp -s "$T/.nf" "$T/.mf"; then
		echo "different files: $(diff "$T/.nf" "$T/.mf" | grep '^[<>]' | tr '\n' ' ')"
		return 1
	fi
	while read -r f; do
		case $f in
		./stdout|./stderr|*.cpp.ii)
			# diagnostics (and -cuda's output) name the temporaries, which
			# live in mpcc's own directory
			# and ptxas -v says how long it took
			sed -E -e 's#/mpcc-[A-Za-z0-9]{6}/#/#g' -e 's/Compile time = [0-9.]+ ms/Compile time = T ms/' "$2/$f" >"$T/.c"
			sed -E 's/Compile time = [0-9.]+ ms/Compile time = T ms/' "$1/$f" >"$T/.d"
			same "$T/.d" "$T/.c" || { echo "$f differs: $(diff "$1/$f" "$T/.c" | head -5)"; return 1; } ;;
		*)
			same "$1/$f" "$2/$f" || { echo "$f differs"; return 1; } ;;
		esac
	done <"$T/.nf"
}

# form NAME 'COMMANDS': run COMMANDS (a shell line using $NV for the
# compiler) with NV=nvcc and with NV=mpcc --mpcc-force-pipeline in $W, and
# compare outputs, stdout, stderr and exit status
form() {
	testing "$1"
	for who in n m; do
		rm -rf "$T/$who"
		mkdir -p "$T/$who"
		if [ $who = n ]; then NV=nvcc; else NV="$MPCC --mpcc-force-pipeline"; fi
		snapshot "$W" >"$T/.before"
		(cd "$W" && NV=$NV eval "$2") >"$T/$who.out" 2>"$T/$who.err"
		echo $? >"$T/$who.rc"
		collect "$W" "$T/.before" "$T/$who"
		mv "$T/$who.out" "$T/$who/stdout"
		mv "$T/$who.err" "$T/$who/stderr"
		mv "$T/$who.rc" "$T/$who/status"
	done
	if why=$(compare "$T/n" "$T/m"); then passed; else fail "$why"; fi
}
