#!/bin/sh
# A policy edit rebuilds what it can change (issue 26, item 2). nvcc's
# dependency outputs (-M, -MM, -MD, -MMD, -MF, -MP) list the headers a
# compile read; mpcc adds every policy file it read for that compile: each
# .mpcc.yaml of the chain, or the --mpcc-policy file. Everything else is
# nvcc's, byte for byte. Then make (a Makefile of the test's, and the
# example's, as README.md tells), and CMake with the Makefile and Ninja
# generators, rebuild an object after its .mpcc.yaml changes, and only then.
. "$MPCC_SRC/tests/driver/lib.sh"

W=$T/w
mkdir -p "$W/sub"
cd "$W" || exit 1
cat >sub/k.cu <<'CU'
__global__ void wave(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] = sinf(x[i]);
}
CU
cat >.mpcc.yaml <<'YAML'
version: 1
default_profile: fast
profiles:
  fast:
    rules:
      - kernels: ["wave"]
        sfu: {lambda: 32}
YAML
cat >sub/.mpcc.yaml <<'YAML'
version: 1
inherit: true
YAML
cat >p.yaml <<'YAML'
version: 1
default_profile: none
profiles:
  none: {}
YAML
A=-arch=sm_90
top=$(cd "$W" && pwd -P)

# deps NAME FILE 'FLAGS' POLICYFILE...: mpcc FLAGS writes into FILE (- for
# stdout) what nvcc writes, with the policy files added to the target's
# prerequisites (and, with -MP, a phony rule each)
deps() {
	name=$1 file=$2 flags=$3
	shift 3
	testing "$name"
	rm -f n.out m.out n.d m.d
	eval "nvcc $flags" >n.out 2>n.err || { fail "nvcc $flags: $(cat n.err)"; return; }
	[ "$file" = - ] || mv "$file" n.d
	eval "\"$MPCC\" $flags" >m.out 2>m.err || { fail "mpcc $flags: $(cat m.err)"; return; }
	[ "$file" = - ] || mv "$file" m.d
	[ "$file" = - ] && cp n.out n.d && cp m.out m.d
	# nvcc's list, then the policy files in a continued line each
	python3 - n.d m.d "$@" <<'PY' && passed || fail "$(diff n.d m.d | head -8)"
import sys
n, m, extra = open(sys.argv[1]).read(), open(sys.argv[2]).read(), sys.argv[3:]
lines = n.split("\n")
end = next(i for i, l in enumerate(lines) if not l.endswith("\\"))
rule, phony = "\n".join(lines[:end + 1]), "\n".join(lines[end + 1:])
want = rule + "".join(" \\\n    " + f for f in extra) + "\n"
if phony.strip():
    want += phony + "".join("\n%s:\n" % f for f in extra)
else:
    want += phony
sys.exit(m != want)
PY
}

deps "-MD -MF lists the chain" k.d "$A -MD -MF k.d -c sub/k.cu -o k.o" \
	"$top/sub/.mpcc.yaml" "$top/.mpcc.yaml"
deps "-M lists the chain" - "-M sub/k.cu" "$top/sub/.mpcc.yaml" "$top/.mpcc.yaml"
deps "-MM -MT" - "-MM -MT obj sub/k.cu" "$top/sub/.mpcc.yaml" "$top/.mpcc.yaml"
deps "-MMD -MP" k.d "$A -MMD -MP -MF k.d -c sub/k.cu -o k.o" \
	"$top/sub/.mpcc.yaml" "$top/.mpcc.yaml"
deps "-MD without -MF" k.d "$A -MD -c sub/k.cu -o k.o" "$top/sub/.mpcc.yaml" "$top/.mpcc.yaml"
# a profile with no rules still made the choice: editing it may add one
export MPCC_POLICY=p.yaml
deps "MPCC_POLICY with no rule" - "-M sub/k.cu" p.yaml
unset MPCC_POLICY
printf '__global__ void other() {}\n' >o.cu
testing "two inputs, each its own chain"
nvcc -M sub/k.cu o.cu >n.out && "$MPCC" -M sub/k.cu o.cu >m.out &&
	python3 - n.out m.out "$top" <<'PY' && passed || fail "$(diff n.out m.out | head -8)"
import re, sys
n, m, top = open(sys.argv[1]).read(), open(sys.argv[2]).read(), sys.argv[3]
k, o = re.split(r"(?<=[^\\])\n(?=o\.o :)", n)
want = (k + " \\\n    %s/sub/.mpcc.yaml \\\n    %s/.mpcc.yaml\n" % (top, top) +
        o.rstrip("\n") + " \\\n    %s/.mpcc.yaml\n" % top)
sys.exit(m != want)
PY

testing "no policy file, nvcc's dependencies"
cd "$T" && cp "$W/sub/k.cu" lone.cu && nvcc -M lone.cu >n.out && "$MPCC" -M lone.cu >m.out &&
	cmp -s n.out m.out && passed || fail "$(diff n.out m.out | head -5)"
cd "$W" || exit 1

# edit FILE: change the policy as a user would (its time moves on)
edit() { sleep 1; sed -i 's/lambda: [0-9]*/lambda: 16/' "$1"; echo "# edited" >>"$1"; }

testing "make rebuilds after a policy edit"
cat >Makefile <<MK
k.o: sub/k.cu
	"$MPCC" $A -MD -MP -c sub/k.cu -o k.o
-include k.d
MK
rm -f k.o k.d
if make -s >make.log 2>&1 && make -q && edit .mpcc.yaml && ! make -q &&
	make -s >>make.log 2>&1 && make -q; then passed; else fail "$(tail -3 make.log)"; fi

# the README's way (issue 50: the example's Makefile answered "up to
# date" after its policy changed): nvcc's -MMD -MP in the example's own
# Makefile, its .d files included; each names the policy the compile read
testing "the example's Makefile rebuilds after its policy changes"
cp -r "$MPCC_SRC/examples/make-project" "$T/ex"
rm -f "$T/ex"/*.o "$T/ex"/*.d
ex=$(cd "$T/ex" && pwd -P)
if make -C "$T/ex" -s NVCC="$MPCC" saxpy.o >ex.log 2>&1 && grep -q "^ *$ex/.mpcc.yaml" "$T/ex/saxpy.d" &&
	make -C "$T/ex" -q NVCC="$MPCC" saxpy.o && edit "$T/ex/.mpcc.yaml" &&
	! make -C "$T/ex" -q NVCC="$MPCC" saxpy.o; then
	passed
else
	fail "$(tail -3 ex.log; cat "$T/ex/saxpy.d" 2>&1 | tail -3)"
fi

command -v cmake >/dev/null 2>&1 || { echo "no cmake: CMake rebuilds skipped"; finish; }
cat >CMakeLists.txt <<'CM'
cmake_minimum_required(VERSION 3.20)
project(deps LANGUAGES CUDA)
set(CMAKE_CUDA_ARCHITECTURES 90)
add_library(k STATIC sub/k.cu)
CM

# rebuilt GEN: CMake with generator GEN builds, rebuilds nothing when
# nothing changed, and rebuilds the object after a policy edit
rebuilt() {
	b="$T/b-$(echo "$1" | tr -d ' ')"
	cmake -G "$1" -S "$W" -B "$b" -DCMAKE_CUDA_COMPILER="$MPCC" >"$b.log" 2>&1 &&
		cmake --build "$b" >>"$b.log" 2>&1 || { echo "build: $(tail -3 "$b.log")"; return 1; }
	o=$(find "$b" -name 'k.cu.o')
	touch "$T/mark"
	sleep 1
	cmake --build "$b" >>"$b.log" 2>&1 && [ ! "$o" -nt "$T/mark" ] || { echo "rebuilt unchanged"; return 1; }
	edit sub/.mpcc.yaml
	cmake --build "$b" >>"$b.log" 2>&1 && [ "$o" -nt "$T/mark" ] || { echo "not rebuilt after the edit"; return 1; }
}
testing "cmake (Unix Makefiles) rebuilds after a policy edit"
why=$(rebuilt "Unix Makefiles") && passed || fail "$why"
if command -v ninja >/dev/null 2>&1; then
	testing "cmake (Ninja) rebuilds after a policy edit"
	why=$(rebuilt Ninja) && passed || fail "$why"
else
	echo "no ninja (scripts/install-deps.sh --test installs ninja-build): Ninja skipped"
fi
finish
