#!/bin/sh
# A pass that crashes costs its kernel the transform, never the build
# (issue 38). The driver runs the PTX hook in a child process with limits;
# MPCC_DEBUG_CRASH=PASS:KERNEL[:HOW] makes PASS die on KERNEL as a bug
# would (BUG, SIGSEGV, out of memory, a loop that meets the CPU limit). The
# build goes on with nvcc's PTX for that kernel, the other kernels keep
# their transforms, and one warning names the pass, the kernel and the
# internal error.
. "$MPCC_SRC/tests/driver/lib.sh"

W=$T/w
mkdir -p "$W"
cd "$W" || exit 1
cat >main.cu <<'CU'
__global__ void k(const float *x, double *y)
{
	double a = (double)x[threadIdx.x];
	double b = a + 1.0, c;
	asm("selp.f64 %0, %1, %2, 3;" : "=d"(c) : "d"(a), "d"(b));
	y[threadIdx.x] = c * 2.0 + a;
}
__global__ void j(const double *x, double *y)
{
	double a = x[threadIdx.x];
	y[threadIdx.x] = a * a * 2.0 + a * 3.0 + 1.0;
}
__global__ void l(const double *x, double *y)
{
	double a = x[threadIdx.x];
	y[threadIdx.x] = a * a * a - 0.5 * a;
}
CU
policy() {
	cat >.mpcc.yaml <<YAML
version: 1
default_profile: p
on_unsupported: $1
profiles:
  p:
    rules:
      - kernels: ["*"]
        fiset: {sets: all}
YAML
}
policy warn
A=-arch=sm_90
J=_Z1jPKdPd
# body NAME FILE: kernel NAME's function in the PTX file FILE
body() { sed -n "/\.entry $1(/,/^}/p" "$2"; }
nvcc $A -ptx main.cu -o n.ptx || exit 1

testing "the issue's inline PTX under fiset: {sets: all}: built, at most one word"
if "$MPCC" $A -c main.cu -o m.o 2>err && [ -s m.o ] && [ "$(wc -l <err)" -le 1 ] &&
	"$MPCC" $A -ptx main.cu -o m.ptx 2>/dev/null && ptxas $A m.ptx -o /dev/null; then
	passed
else
	fail "$(cat err)"
fi

# crashes HOW WANT: with j's fiset dying by HOW, -ptx exits 0, says one
# line naming fiset, j and WANT (a pattern), keeps nvcc's code for j, and
# lowers l; the report says why j was left
crashes() {
	rm -f r.json
	MPCC_DEBUG_HOOK_SECONDS=1 MPCC_DEBUG_CRASH=fiset:$J:$1 "$MPCC" $A -ptx main.cu -o m.ptx \
		--mpcc-report=r.json 2>err
	st=$?
	grep -v "kernel 'k(" err >err.j
	want="mpcc: warning: main.cu: kernel 'j(double const\*, double\*)' (compute_90): fiset hit an internal error ($2.*): nvcc's PTX is kept for this kernel"
	body $J n.ptx >n.j
	body $J m.ptx >m.j
	if [ $st = 0 ] && [ "$(wc -l <err.j)" = 1 ] && grep -q "^$want\$" err.j && cmp -s n.j m.j &&
		ptxas $A m.ptx -o /dev/null &&
		grep "\"mangled\":\"$J\"" r.json | grep -q '"applied":false,"reason":"fiset hit an internal error' &&
		grep '"mangled":"_Z1lPKdPd"' r.json | grep -q '"applied":true'; then
		passed
	else
		fail "status $st: $(cat err)"
	fi
}
testing "a BUG in a pass"
crashes bug "BUG at .*pipeline.c:[0-9]*: MPCC_DEBUG_CRASH: fiset on '$J'"
testing "a segmentation fault in a pass"
crashes segv "killed by signal 11\\|AddressSanitizer: SEGV"
testing "a pass out of memory"
crashes oom "out of memory\|AddressSanitizer"
testing "a pass out of CPU time"
crashes hang "out of CPU time"

testing "on_unsupported: error does not make a crash an error"
policy error
if MPCC_DEBUG_CRASH=fiset:$J "$MPCC" $A -c main.cu -o m.o 2>err && [ -s m.o ] &&
	grep -q "kernel 'j(double const\*, double\*)' (compute_90): fiset hit an internal error" err; then
	passed
else
	fail "$(cat err)"
fi
policy warn

testing "two chains: built, said once"
if MPCC_DEBUG_CRASH=fiset:$J "$MPCC" -gencode arch=compute_80,code=sm_80 \
	-gencode arch=compute_90,code=sm_90 -c main.cu -o m.o 2>err &&
	[ "$(grep -c "kernel 'j(" err)" = 1 ]; then
	passed
else
	fail "$(cat err)"
fi

testing "the one kernel of a rule crashing: the PTX is nvcc's, byte for byte"
cat >.mpcc.yaml <<'YAML'
version: 1
default_profile: p
profiles:
  p:
    rules:
      - kernels: ["j"]
        fiset: {sets: all}
YAML
if MPCC_DEBUG_CRASH=fiset:$J "$MPCC" $A -ptx main.cu -o m.ptx 2>err && cmp -s n.ptx m.ptx &&
	[ "$(wc -l <err)" = 1 ]; then
	passed
else
	fail "$(cat err)"
fi
policy warn

testing "explain says what the build does"
if MPCC_DEBUG_CRASH=fiset:$J "$MPCC" $A -c main.cu -o m.o --mpcc-explain >out 2>err &&
	sed -n "/kernel 'j(/,/kernel 'l(/p" out | grep -q "verdict: left alone: fiset hit an internal error (BUG at" &&
	sed -n "/kernel 'l(/,\$p" out | grep -q "verdict: applied"; then
	passed
else
	fail "$(cat out err)"
fi
finish
