#!/bin/sh
# make drives mpcc the ways real projects drive nvcc: `make NVCC=mpcc` (the
# shipped example), `CC=mpcc make` (make's built-in rules then send .c files
# and the link through mpcc too), a literal `nvcc` in the recipes with mpcc
# masquerading first on PATH, and `make -j8` over 16 files. Every object
# must be nvcc's, but for the kernels the shipped example's policy selects:
# their machine code must differ from nvcc's (tests/driver/sass.py reads it).
. "$MPCC_SRC/tests/driver/lib.sh"
command -v make >/dev/null 2>&1 || { echo "no make: skipped"; exit 77; }

# objects A B: the .o files of A and B are the same
objects() {
	for o in "$1"/*.o; do
		same "$o" "$2/$(basename "$o")" || { echo "$(basename "$o") differs"; return 1; }
	done
}

# tree NAME SETUP MAKEARGS...: copy the project made by SETUP to NAME.n and
# NAME.m; make NAME.n with nvcc and NAME.m with the arguments given, with
# $MPATH for PATH when set
tree() {
	name=$1 setup=$2
	shift 2
	mkdir -p "$T/$name.n"
	(cd "$T/$name.n" && $setup)
	cp -r "$T/$name.n" "$T/$name.m"
	make -C "$T/$name.n" -j4 >"$T/$name.n.log" 2>&1 || { cat "$T/$name.n.log"; exit 1; }
	PATH=${MPATH:-$PATH} make -C "$T/$name.m" "$@" >"$T/$name.m.log" 2>&1 ||
		{ tail -5 "$T/$name.m.log"; return 1; }
	objects "$T/$name.n" "$T/$name.m"
}

# the example as the README's main job builds it, with its .mpcc.yaml
example() { cp -r "$MPCC_SRC"/examples/make-project/. .; }

# kernels A B: the kernels of object B whose SASS differs from A's, sorted
# ("sm_90 _Z9BoxMullerPfij"); every kernel of A must be in B
kernels() {
	python3 "$MPCC_SRC/tests/driver/sass.py" "$1" | sort >"$T/.ka"
	python3 "$MPCC_SRC/tests/driver/sass.py" "$2" | sort >"$T/.kb"
	[ -s "$T/.ka" ] && [ "$(cut -d' ' -f1,2 "$T/.ka")" = "$(cut -d' ' -f1,2 "$T/.kb")" ] ||
		{ echo "not the same kernels: $1 $2"; return 1; }
	LC_ALL=C comm -13 "$T/.ka" "$T/.kb" | cut -d' ' -f1,2
}

testing make-NVCC=mpcc-example-transforms-its-policys-kernels
mkdir -p "$T/ex.n" "$T/ex.m"
(cd "$T/ex.n" && example) && (cd "$T/ex.m" && example) || exit 1
if ! command -v python3 >/dev/null; then
	echo "skipped (no python3)"
elif ! make -C "$T/ex.n" app >"$T/ex.n.log" 2>&1; then
	fail "nvcc's build: see $T/ex.n.log"
elif ! make -C "$T/ex.m" NVCC="$MPCC" run >"$T/ex.m.log" 2>&1; then
	fail "mpcc's build: $(tail -5 "$T/ex.m.log")"
elif ! grep -q '^\./app' "$T/ex.m.log" || ! grep -q "$MPCC" "$T/ex.m.log"; then
	fail "make did not build through mpcc and run the app"
elif ! same "$T/ex.n/main.o" "$T/ex.m/main.o" || ! same "$T/ex.n/saxpy.o" "$T/ex.m/saxpy.o"; then
	fail "main.o or saxpy.o (no rule) differs from nvcc's"
elif [ "$(kernels "$T/ex.n/gauss.o" "$T/ex.m/gauss.o" | tr '\n' ' ')" != "sm_80 _Z9BoxMullerPfij sm_90 _Z9BoxMullerPfij " ]; then
	fail "BoxMuller's SASS is not transformed on both targets: $(kernels "$T/ex.n/gauss.o" "$T/ex.m/gauss.o")"
elif [ "$(kernels "$T/ex.n/nbody.o" "$T/ex.m/nbody.o" | wc -l)" != 2 ]; then
	fail "bodyForce's SASS is not transformed on both targets"
else
	passed
fi

testing make-NVCC=mpcc-example-accurate-profile
rm -rf "$T"/ex.*
MPCC_PROFILE=accurate tree ex example NVCC="$MPCC" && passed || fail "objects differ"

testing make-NVCC=mpcc-example-forced
rm -rf "$T"/ex.*
MPCC_PROFILE=accurate MPCC_FORCE_PIPELINE=1 tree ex example NVCC="$MPCC" && passed ||
	fail "objects differ"

ccproject() {
	cp "$KERNELS/saxpy.cu" k1.cu
	cp "$KERNELS/math.cu" k2.cu
	printf 'int main(void) { return 0; }\n' >prog.c
	printf 'prog: prog.o k1.o k2.o\n%%.o: %%.cu\n\t$(CC) -c $< -o $@\n' >Makefile
	printf 'CC = nvcc\n' >>Makefile
}

testing CC=mpcc-make
# CC given on make's command line beats the Makefile's, as users do it
tree cc ccproject CC="$MPCC" && [ -x "$T/cc.m/prog" ] &&
	grep -q "^$MPCC .*-c -o prog.o prog.c" "$T/cc.m.log" &&
	grep -q "^$MPCC .*prog.o k1.o k2.o.* -o prog" "$T/cc.m.log" && passed || fail "see $T/cc.m.log"

testing CC=mpcc-make-forced
rm -rf "$T"/cc.*
MPCC_FORCE_PIPELINE=1 tree cc ccproject CC="$MPCC" && [ -x "$T/cc.m/prog" ] && passed ||
	fail "see $T/cc.m.log"

literal() {
	cp "$KERNELS/saxpy.cu" "$KERNELS/reduce.cu" .
	printf 'all: saxpy.o reduce.o\n%%.o: %%.cu\n\tnvcc -c $< -o $@\n' >Makefile
}
mkdir "$T/bin"
ln -s "$MPCC" "$T/bin/nvcc"

testing literal-nvcc-masquerade
MPATH="$T/bin:$PATH" MPCC_FORCE_PIPELINE=1 tree lit literal && passed || fail "objects differ"

sixteen() {
	i=0
	for cu in "$KERNELS"/*.cu; do
		i=$((i + 1))
		[ $i -le 16 ] && cp "$cu" .
	done
	printf 'OBJS = $(patsubst %%.cu,%%.o,$(wildcard *.cu))\nall: $(OBJS)\n' >Makefile
	printf '%%.o: %%.cu\n\t$(NVCC) -c -arch=sm_90 $< -o $@\nNVCC = nvcc\n' >>Makefile
}

testing make-j8-16-files-forced
MPCC_FORCE_PIPELINE=1 tree j8 sixteen -j8 NVCC="$MPCC" &&
	[ "$(ls "$T"/j8.m/*.o | wc -l)" = 16 ] && passed || fail "see $T/j8.m.log"
finish
