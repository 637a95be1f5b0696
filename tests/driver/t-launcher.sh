#!/bin/sh
# The launcher form, "mpcc NVCC ARGS" (CMAKE_CUDA_COMPILER_LAUNCHER=mpcc,
# make NVCC="mpcc nvcc"): NVCC is the real nvcc and ARGS the line. Without a
# policy it gives nvcc's files, stdout, stderr and exit status for -c, -ptx,
# two -gencode and -dc + -dlink, through pass-through and the forced
# pipeline, whatever names the compiler (a path, a bare nvcc, a link, a
# wrapper); with a policy it gives what "mpcc ARGS" gives, transformed. mpcc
# named again, and wrappers that run mpcc, never loop.
. "$MPCC_SRC/tests/driver/lib.sh"

real=$(command -v nvcc)
W=$T/w
mkdir -p "$W" "$T/bin" "$T/mask" "$T/loop"
cp "$KERNELS/saxpy.cu" "$W/a.cu"
cat >"$W/d.cu" <<'CU'
extern __device__ float ext(float);   /* defined in e.cu: needs -rdc */
__global__ void usext(float *x) { x[threadIdx.x] = ext(x[threadIdx.x]) * 3.0f; }
CU
printf '__device__ float ext(float v) { return v * v + 1.0f; }\n' >"$W/e.cu"
ln -s "$MPCC" "$T/bin/mpcc"
ln -s "$MPCC" "$T/mask/nvcc"                 # masquerade: nvcc -> mpcc
ln -s "$real" "$T/bin/cuda-nvcc"             # a link to the real nvcc
printf '#!/bin/sh\nexec "%s" "$@"\n' "$real" >"$T/bin/cudacc"   # a wrapper
printf '#!/bin/sh\nexec "%s" "$@"\n' "$MPCC" >"$T/loop/nvcc"    # runs mpcc again
chmod +x "$T/bin/cudacc" "$T/loop/nvcc"

# pair NAME 'COMMANDS' A B: run COMMANDS (a shell line calling nv for the
# compiler) in $W with nv running A and with nv running B (shell words);
# compare files, stdout, stderr and exit status
nv() { eval "$NV \"\$@\""; }
pair() {
	testing "$1"
	for who in n m; do
		rm -rf "$T/$who"
		mkdir -p "$T/$who"
		if [ $who = n ]; then NV=$3; else NV=$4; fi
		snapshot "$W" >"$T/.before"
		(cd "$W" && eval "$2") >"$T/$who.out" 2>"$T/$who.err"
		echo $? >"$T/$who.rc"
		collect "$W" "$T/.before" "$T/$who"
		mv "$T/$who.out" "$T/$who/stdout"
		mv "$T/$who.err" "$T/$who/stderr"
		mv "$T/$who.rc" "$T/$who/status"
	done
	if why=$(compare "$T/n" "$T/m"); then passed; else fail "$why"; fi
}

c='nv -arch=sm_90 -c a.cu -o a.o'
ptx='nv -arch=sm_90 -ptx a.cu -o a.ptx'
gencode='nv -gencode arch=compute_80,code=sm_80 -gencode=arch=compute_90,code=[compute_90,sm_90] -c a.cu -o g.o'
dlink='nv -arch=sm_90 -dc d.cu -o d.o && nv -arch=sm_90 -dc e.cu -o e.o && nv -arch=sm_90 -dlink d.o e.o -o l.o'
bad='nv -arch=sm_90 -c missing.cu -o m.o'

# 1. no policy: nvcc's bytes, whatever names nvcc
for f in c ptx gencode dlink bad; do
	eval "line=\$$f"
	pair "no-policy-$f" "$line" nvcc "$MPCC $real"
	export MPCC_FORCE_PIPELINE=1
	pair "no-policy-$f-forced" "$line" nvcc "$MPCC $real"
	unset MPCC_FORCE_PIPELINE
done
path=$PATH
PATH="$T/bin:$path"
pair bare-nvcc "$c" nvcc "$MPCC nvcc"
# nvcc run through a link elsewhere does not find its tree: the same error
pair link-to-nvcc "$c" "$T/bin/cuda-nvcc" "$MPCC $T/bin/cuda-nvcc"
pair wrapper-script "$c" nvcc "$MPCC $T/bin/cudacc"
pair mpcc-options-before-the-compiler "$c" nvcc "$MPCC --mpcc-profile=x --mpcc-force-pipeline $real"
# CMake turns an empty generator expression in the launcher into ""
pair empty-argument-before-the-compiler "$c" nvcc "$MPCC '' $real"
pair empty-argument-without-compiler "$c" "nvcc ''" "$MPCC ''"

# 2. mpcc named again, or found where nvcc should be: never runs itself
pair mpcc-mpcc "$c" nvcc "$MPCC mpcc"
pair launcher-and-compiler-both-mpcc "$c" nvcc "$MPCC $MPCC"
pair mpcc-mpcc-nvcc "$c" nvcc "$MPCC $T/bin/mpcc $real"
pair compiler-is-the-masquerade-link "$c" nvcc "$MPCC $T/mask/nvcc"
PATH="$T/mask:$T/bin:$path"
pair bare-nvcc-behind-masquerade "$c" "$real" "$MPCC nvcc"
export MPCC_FORCE_PIPELINE=1
pair bare-nvcc-behind-masquerade-forced "$c" "$real" "$MPCC nvcc"
unset MPCC_FORCE_PIPELINE
PATH="$T/bin:$path"

testing wrapper-named-nvcc-that-runs-mpcc-is-a-loop
# first on PATH, the script is "the real nvcc" for mpcc, and runs mpcc
if (cd "$W" && PATH="$T/loop:$PATH" timeout 120 "$MPCC" -arch=sm_90 -c a.cu -o loop.o) 2>"$T/err"; then
	fail "exit 0"
else
	grep -q "mpcc: error: mpcc is running itself in a loop" "$T/err" && passed || fail "$(tail -3 "$T/err")"
fi

testing wrapper-that-runs-mpcc-as-the-launchers-compiler
# not on PATH: the inner mpcc finds the real nvcc, no loop
(cd "$W" && "$MPCC" "$T/loop/nvcc" -arch=sm_90 -c a.cu -o wl.o && nvcc -arch=sm_90 -c a.cu -o wn.o) &&
	same "$W/wl.o" "$W/wn.o" && passed || fail "differs"

testing bare-nvcc-not-on-path
if (cd "$W" && PATH="$T/mask:/usr/bin:/bin" "$MPCC" nvcc -c a.cu) 2>"$T/err"; then fail "exit 0"
else grep -q "mpcc: error: cannot find 'nvcc' on PATH" "$T/err" && passed || fail "$(cat "$T/err")"; fi

testing launcher-names-nvcc-over-MPCC_NVCC
out=$(cd "$W" && MPCC_NVCC=/nonexistent/nvcc "$MPCC" "$T/bin/cudacc" --version) &&
	[ "$out" = "$(nvcc --version)" ] && passed || fail "'$out'"

if command -v ccache >/dev/null 2>&1; then
	testing cache-without-compiler
	if (cd "$W" && "$MPCC" ccache -c a.cu) 2>"$T/err"; then fail "exit 0"
	else grep -q "mpcc: error: '.*ccache' must be followed by the nvcc it runs" "$T/err" && passed || fail "$(cat "$T/err")"; fi
fi

# 3. inputs whose names hold "nvcc" stay inputs, executable or not
cp "$KERNELS/saxpy.cu" "$W/nvcc_k.cu"
chmod +x "$W/nvcc_k.cu"
pair input-named-nvcc 'nv nvcc_k.cu -arch=sm_90 -c -o nk.o' nvcc "$MPCC"
pair input-path-named-nvcc 'nv ./nvcc_k.cu -arch=sm_90 -c -o nk.o' nvcc "$MPCC"

# 4. a policy: the launcher form is "mpcc ARGS", transformed
P=$T/p
mkdir -p "$P"
cat >"$P/k.cu" <<'CU'
__global__ void BoxMuller(double *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		x[i] = sqrt(x[i]) / (x[i] + 1.0);
		y[i] = sqrtf(-2.0f * logf(y[i])) * cosf(6.2831853f * y[i]);
	}
}
CU
printf 'version: 1\nroot: true\ndefault_profile: fast\nprofiles:\n  fast:\n    rules:\n      - kernels: ["BoxMuller*"]\n        sfu: {lambda: 32}\n' >"$P/.mpcc.yaml"

# policy NAME SUFFIX 'ARGS': ARGS (writing to out.SUFFIX) through nvcc,
# mpcc and mpcc NVCC; the launcher form must equal mpcc and differ from nvcc
policy() {
	testing "policy-$1"
	(cd "$P" && rm -f ./*.o ./*.ptx && eval "nvcc $3" && for f in out.*; do mv "$f" "n.$f"; done &&
		eval "$MPCC $3" 2>/dev/null && for f in out.*; do mv "$f" "m.$f"; done &&
		eval "$MPCC $real $3" 2>/dev/null) >"$T/log" 2>&1 || { fail "$(tail -3 "$T/log")"; return; }
	for f in "$P"/out.*; do
		b=$(basename "$f")
		same "$f" "$P/m.$b" || { fail "$b differs from mpcc's"; return; }
		same "$f" "$P/n.$b" && { fail "$b is nvcc's: nothing transformed"; return; }
	done
	[ -z "$2" ] || grep -q '%warpid' "$P/out.$2" || { fail "no %warpid in out.$2"; return; }
	passed
}
policy c '' '-arch=sm_90 -c k.cu -o out.o'
policy c-uncompressed o '-arch=sm_90 -compress-mode=none -c k.cu -o out.o'
policy ptx ptx '-arch=sm_90 -ptx k.cu -o out.ptx'
policy gencode-two o '-gencode arch=compute_80,code=sm_80 -gencode=arch=compute_90,code=[compute_90,sm_90] -compress-mode=none -c k.cu -o out.o'
printf '__global__ void other(float *x) { x[0] = 1.0f; }\n' >"$P/o.cu"
policy dc-dlink o '-arch=sm_90 -compress-mode=none -dc k.cu -o out.o && nvcc -arch=sm_90 -dc o.cu -o o.o && nvcc -arch=sm_90 -dlink out.o o.o -o out.dl.o'

testing policy-profile-before-the-compiler
printf 'version: 1\nroot: true\ndefault_profile: accurate\nprofiles:\n  accurate: {}\n  fast:\n    rules:\n      - kernels: ["BoxMuller*"]\n        sfu: {lambda: 32}\n' >"$P/.mpcc.yaml"
(cd "$P" && "$MPCC" --mpcc-profile=fast "$real" -arch=sm_90 -ptx k.cu -o f.ptx && "$MPCC" "$real" -arch=sm_90 -ptx k.cu -o a.ptx) 2>"$T/err" &&
	grep -q '%warpid' "$P/f.ptx" && ! grep -q '%warpid' "$P/a.ptx" && passed || fail "$(cat "$T/err")"

# 5. make NVCC="mpcc nvcc"
command -v make >/dev/null 2>&1 || { finish; }
mk() {  # DIR NVCC: a Makefile compiling with $(NVCC), as projects write it
	mkdir -p "$1"
	cp "$KERNELS/saxpy.cu" "$P/k.cu" "$1"
	printf 'all: saxpy.o k.o\n%%.o: %%.cu\n\t$(NVCC) -arch=sm_90 -c $< -o $@\n' >"$1/Makefile"
	make -C "$1" NVCC="$2" >"$1.log" 2>&1
}
testing make-NVCC=mpcc-nvcc
mk "$T/mn" nvcc && mk "$T/mm" "$MPCC nvcc" && same "$T/mn/saxpy.o" "$T/mm/saxpy.o" &&
	same "$T/mn/k.o" "$T/mm/k.o" && grep -q "^$MPCC nvcc -arch" "$T/mm.log" && passed || fail "see $T/mm.log"

testing make-NVCC=mpcc-nvcc-with-policy
cp "$P/.mpcc.yaml" "$T/.mpcc.yaml"
sed -i 's/default_profile: accurate/default_profile: fast/' "$T/.mpcc.yaml"
mk "$T/pn" nvcc && mk "$T/pm" "$MPCC nvcc" && mk "$T/pd" "$MPCC" &&
	same "$T/pn/saxpy.o" "$T/pm/saxpy.o" && same "$T/pd/k.o" "$T/pm/k.o" &&
	! same "$T/pn/k.o" "$T/pm/k.o" && passed || fail "see $T/pm.log"
finish
