#!/bin/sh
# A trial builds device code only (driver/embed.c): with the step cache on,
# a host compile whose host code is one the cache has compiled before, and
# whose fatbinary alone is new, is not run again: its object is the cached
# one with the new fatbinary put in place of its fatbinary section. The
# object must be byte for byte what the host compiler makes (so its
# fatbinary section and .text are those of a clean build of the setting),
# and so must the program linked from it; a host compiler that logs its
# compiles, ahead on PATH, shows it did not run. One -gencode, -rdc=true
# (whose section is __nv_relfatbin), two -gencode and heavy host code at
# -O2 (sections aligned on 32 after the fatbinary's) are re-embedded; a
# host compile with -g, whose debug information records the fatbinary's
# size, and one by clang++ fall back to the host compiler, said once.
. "$(dirname "$0")/lib.sh"
command -v objcopy >/dev/null 2>&1 || { echo "no objcopy: skipped"; exit 77; }
GCC=$(command -v gcc) || { echo "no gcc: skipped"; exit 77; }

W=$T/w
mkdir -p "$W" "$T/bin"
cat >"$W/k.cu" <<'EOF'
#include <cstdio>
#include <string>
#include <vector>
__global__ void k(double *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] = x[i] * 1.5 + 2.0 / (x[i] + 1.0);
}
int main()
{
	std::vector<double> h(64, 1.0);
	double *d;
	cudaMalloc(&d, h.size() * sizeof h[0]);
	cudaMemcpy(d, h.data(), h.size() * sizeof h[0], cudaMemcpyHostToDevice);
	k<<<1, 64>>>(d, (int)h.size());
	cudaMemcpy(h.data(), d, h.size() * sizeof h[0], cudaMemcpyDeviceToHost);
	std::string s = "x[0] = " + std::to_string(h[0]);
	std::puts(s.c_str());
	return 0;
}
EOF
# nvcc runs "gcc" from PATH: this one logs each compile (-c) it runs
cat >"$T/bin/gcc" <<EOF
#!/bin/sh
case " \$* " in *" -c "*) echo "\$*" >>"$T/gcc.log" ;; esac
exec "$GCC" "\$@"
EOF
chmod +x "$T/bin/gcc"
PATH=$T/bin:$PATH
export PATH

A=off
B='off;fiset:sets=all,kernels=k*'

# build DIR OPTIONS SETTING CACHE: compile k.cu (and link it, as nvcc
# does) under MPCC_SET=SETTING with the step cache CACHE; keep the object,
# the program, mpcc's stderr and the host compiles it ran (gcc) in DIR
build() {
	rm -rf "$1"
	mkdir -p "$1"
	: >"$T/gcc.log"
	(cd "$W" && MPCC_SET=$3 MPCC_STEP_CACHE=$4 "$MPCC" $2 -c k.cu -o k.o 2>"$1/err") ||
		{ echo "compile failed: $(tail -3 "$1/err")"; return 1; }
	cp "$T/gcc.log" "$1/gcc"
	(cd "$W" && nvcc $2 k.o -o prog 2>"$1/link.err") || { echo "link failed: $(tail -3 "$1/link.err")"; return 1; }
	cp "$W/k.o" "$W/prog" "$1/"
}

# section FILE NAME: the bytes of section NAME of FILE, on stdout
section() {
	objcopy -O binary --only-section="$2" "$1" "$T/.sec" && cat "$T/.sec"
}

# sameas NEW CLEAN NAME: the object and program of NEW and CLEAN hold the
# same bytes in section NAME (the fatbinary) and .text, and are the same
# files
sameas() {
	for f in k.o prog; do
		for s in "$3" .text; do
			section "$1/$f" "$s" >"$T/.x" && section "$2/$f" "$s" >"$T/.y" && [ -s "$T/.x" ] ||
				{ echo "$f has no $s"; return 1; }
			cmp -s "$T/.x" "$T/.y" || { echo "$f: $s differs from a clean build's"; return 1; }
		done
		cmp -s "$1/$f" "$2/$f" || { echo "$f differs from a clean build's"; return 1; }
	done
}

# embeds NAME OPTIONS SECTION [SETTING]: build setting A then B (or
# SETTING) with one cache, and B with an empty one; B from A's cache must
# run no host compile
embeds() {
	testing "$1: a new setting's object is the cached one with its new fatbinary, with no host compile"
	C=$T/cache-$1
	b=${4:-$B}
	build "$T/$1-a" "$2" "$A" "$C" && build "$T/$1-b" "$2" "$b" "$C" &&
		build "$T/$1-clean" "$2" "$b" "$T/empty-$1" || { fail "build"; return; }
	section "$T/$1-a/k.o" "$3" >"$T/.a"
	section "$T/$1-b/k.o" "$3" >"$T/.b"
	if [ ! -s "$T/$1-a/gcc" ]; then
		fail "the logging gcc saw no compile: the test proves nothing"
	elif cmp -s "$T/.a" "$T/.b"; then
		fail "setting B did not change the device code: the test proves nothing"
	elif [ -s "$T/$1-b/gcc" ]; then
		fail "the host compiler ran: $(cut -c1-100 "$T/$1-b/gcc")"
	elif ! grep -q '^embed ' "$C/log"; then
		fail "the cache's log says no embed"
	elif why=$(sameas "$T/$1-b" "$T/$1-clean" "$3"); then
		passed
	else
		fail "$why"
	fi
}

embeds one "-arch=sm_90" .nv_fatbin
embeds rdc "-arch=sm_90 -rdc=true" __nv_relfatbin
embeds gencodes "-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=[sm_90,compute_90]" .nv_fatbin
# heavy host code at -O2: sections aligned on 32 follow the fatbinary's,
# and sfu's fatbinary is 3,472 bytes longer than nvcc's, not a multiple of
# 32: they are laid out again
cp "$W/k.cu" "$T/k.cu"
sed 's/\<step\>/kstep/g' "$MPCC_SRC/bench/trial/regex.cu" >"$W/k.cu"
embeds heavy "-arch=sm_90 -O2" .nv_fatbin 'off;sfu:lambda=32,kernels=k*'
sizes=$(for s in a b; do readelf -SW "$T/heavy-$s/k.o" | sed -n 's/.* \.nv_fatbin *PROGBITS *[0-9a-f]* [0-9a-f]* \([0-9a-f]*\) .*/\1/p'; done)
testing "heavy: the fatbinaries' sizes differ by no multiple of 32, and sections aligned on 32 follow"
set -- $sizes
if [ $# != 2 ] || [ $(((0x$2 - 0x$1) % 32)) = 0 ]; then
	fail "sizes: $sizes"
elif ! readelf -SW "$T/heavy-a/k.o" | awk '$2 ~ /^\.rodata\._ZTS/ && $NF == 32 { n++ } END { exit !n }'; then
	fail "no .rodata._ZTS* section aligned on 32"
else
	passed
fi
cp "$T/k.cu" "$W/k.cu"

testing "back to a setting built before: every step a hit, the same object"
C=$T/cache-one
build "$T/again" "-arch=sm_90" "$A" "$C" || fail "build"
if [ -s "$T/again/gcc" ]; then
	fail "the host compiler ran"
elif [ "$(tail -3 "$C/log" | grep -c '^hit ')" != 3 ]; then
	fail "not all hits: $(tail -3 "$C/log" | cut -c1-60)"
elif ! cmp -s "$T/again/k.o" "$T/one-a/k.o"; then
	fail "the object differs"
else
	passed
fi

# a trial's build names its objects in its own directory ($MPCC_TUNE_DIR):
# the host compile's -o is not in its key, so a compile into another
# directory hits (the same setting) or re-embeds (a new one), and writes
# the object where its own line says
testing "objects into other directories: the same setting hits, a new one re-embeds"
C=$T/cache-dirs
mkdir -p "$T/d1" "$T/d2" "$T/d3"
(cd "$W" && MPCC_SET=$A MPCC_STEP_CACHE=$C "$MPCC" -arch=sm_90 -c k.cu -o "$T/d1/k.o" &&
	: >"$T/gcc.log" && MPCC_SET=$A MPCC_STEP_CACHE=$C "$MPCC" -arch=sm_90 -c k.cu -o "$T/d2/k.o" &&
	MPCC_SET=$B MPCC_STEP_CACHE=$C "$MPCC" -arch=sm_90 -c k.cu -o "$T/d3/k.o") 2>"$T/dirs.err" ||
	fail "build: $(tail -3 "$T/dirs.err")"
host=$(awk '$3 == "gcc" && / -c / { printf "%s ", $1 }' "$C/log")
if [ -s "$T/gcc.log" ]; then
	fail "the host compiler ran: $(cut -c1-100 "$T/gcc.log")"
elif [ "$host" != "miss hit embed " ]; then
	fail "the host compiles: $host"
elif ! cmp -s "$T/d1/k.o" "$T/d2/k.o" || ! cmp -s "$T/d1/k.o" "$T/one-a/k.o" || cmp -s "$T/d3/k.o" "$T/d1/k.o" ||
     ! cmp -s "$T/d3/k.o" "$T/one-b/k.o"; then
	fail "the objects are not those of the builds in one place"
else
	passed
fi

# fallsback NAME OPTIONS WHY: a compile with OPTIONS falls back to the
# host compiler, with a note matching WHY once, and its object holds a
# clean build's fatbinary. (Objects with -g name the compile's temporary
# directory: the fatbinary section is compared.)
fallsback() {
	C=$T/cache-$1
	build "$T/$1-a" "$2" "$A" "$C" && build "$T/$1-b" "$2" "$B" "$C" &&
		build "$T/$1-clean" "$2" "$B" "$T/empty-$1" || { fail "build"; return; }
	notes=$(cat "$T/$1-a/err" "$T/$1-b/err" | grep -c "mpcc: note: .*$3")
	section "$T/$1-b/k.o" .nv_fatbin >"$T/.x"
	section "$T/$1-clean/k.o" .nv_fatbin >"$T/.y"
	if [ ! -s "$T/$1-b/gcc" ] && [ "$1" = g ]; then
		fail "the host compiler did not run"
	elif [ "$notes" != 1 ]; then
		fail "the note came $notes times: $(cat "$T/$1-a/err" "$T/$1-b/err")"
	elif grep -q '^embed ' "$C/log"; then
		fail "the cache's log says embed"
	elif ! grep -- '-o "k.o"' "$C/log" | tail -1 | grep -q '^miss '; then
		fail "the last host compile in the cache's log is no miss"
	elif [ ! -s "$T/.x" ] || ! cmp -s "$T/.x" "$T/.y"; then
		fail "its fatbinary differs from a clean build's"
	else
		passed
	fi
}

testing "-g falls back to the host compiler, and says so once"
fallsback g "-arch=sm_90 -g" "debug information"

testing "another host compiler (clang++) falls back, and says so once"
if ! command -v clang++ >/dev/null 2>&1; then
	echo "skipped (no clang++)"
else
	fallsback clang "-arch=sm_90 -ccbin clang++" "the host compiler is not gcc"
fi

finish
