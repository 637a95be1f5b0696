#!/bin/sh
# The fast-math cicc run of sfu costs no wall time where cores are free and
# none where it is not needed (issue 10, part 3): with a rule that
# approximates transcendentals it starts beside the accurate cicc (it begins
# before the accurate one ends, on every -gencode chain); with a rule that
# asks only for div/sqrt/rcp on a kernel whose only such operations are
# FP64 it never runs, and the kernel still gets its FP64 rewrites; with the
# same rule on a kernel with an f32 division it runs; a rule whose kernels
# globs name nothing in the source starts nothing. A cicc wrapper, put
# on the dryrun's CICC_PATH by an nvcc wrapper (MPCC_NVCC), logs when each
# cicc run starts and ends.
. "$MPCC_SRC/tests/driver/lib.sh"
REAL=$(command -v nvcc)
W=$T/w
mkdir -p "$W/bin" "$W/cicc"
cat >"$W/bin/nvcc" <<EOF
#!/bin/sh
"$REAL" "\$@" 2>"$W/dryrun.err"
st=\$?
sed 's|^#\\\$ CICC_PATH=\\(.*\\)|#\$ CICC_PATH=$W/cicc\\
#\$ REAL_CICC_PATH=\\1|' "$W/dryrun.err" >&2
exit \$st
EOF
cat >"$W/cicc/cicc" <<EOF
#!/bin/sh
case " \$* " in *" -fast-math "*|*" -prec_div=0 "*|*" -prec_sqrt=0 "*) k=fast ;; *) k=accurate ;; esac
echo "start \$k \$\$ \$(date +%s.%N)" >>"$W/log"
"\$REAL_CICC_PATH/cicc" "\$@"
st=\$?
echo "end \$k \$\$ \$(date +%s.%N)" >>"$W/log"
exit \$st
EOF
chmod +x "$W/bin/nvcc" "$W/cicc/cicc"
export MPCC_NVCC="$W/bin/nvcc"
cd "$W" || exit 1
cat >f32.cu <<'CU'
__global__ void bm(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] = sinf(x[i]) * logf(x[i] + 2.0f) / (x[i] + 3.0f);
}
CU
cat >f64.cu <<'CU'
__global__ void nb(const double *p, double *f, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		f[i] = 1.0 / sqrt(p[i] * p[i] + 1e-9) + p[i] / (p[i] + 3.0);
}
CU
policy() {   # policy APPROX
	printf 'version: 1\ndefault_profile: fast\nprofiles:\n  fast:\n    rules:\n      - kernels: ["*"]\n        sfu: {lambda: 32, approx: %s}\n' "$1" >.mpcc.yaml
}
G="-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90"
build() {   # build FILE: compile with a fresh log and report
	rm -f log report
	$MPCC --mpcc-report=report $G -c "$1" -o out.o 2>err || { cat err; return 1; }
	grep -q '"applied":true' report || { cat report err; return 1; }
}
runs() { grep -c "^start $1 " log; }

testing "fast-math cicc runs beside the accurate one"
policy '[transcendental, div, sqrt, rcp, ftz]'
if build f32.cu && [ "$(runs fast)" = 2 ] && [ "$(runs accurate)" = 2 ] &&
	awk '$1 == "start" && $2 == "fast" { fs[n++] = $4 }
	     $1 == "end" && $2 == "accurate" { ae[m++] = $4 }
	     END { for (i = 0; i < 2; i++) if (!(fs[i] < ae[i])) exit 1; exit n != 2 || m != 2 }' log; then
	passed
else
	fail "$(cat log)"
fi

testing "an FP64-only rule never runs the fast-math cicc"
policy '[div, sqrt, rcp]'
if build f64.cu && [ "$(runs fast)" = 0 ] && grep -q '"f64_rsqrt":1' report &&
	grep -q '"f64_div":1' report && [ ! -s err ]; then
	passed
else
	fail "$(cat log err report)"
fi

# the example's policy: a transcendental rule for kernels this file lacks
# beside the FP64 rule for its own (no kernel name in the source, no run)
testing "a rule for kernels the file does not have starts nothing"
printf 'version: 1\ndefault_profile: fast\nprofiles:\n  fast:\n    rules:\n      - kernels: ["BoxMuller*"]\n        sfu: {lambda: 32}\n      - kernels: ["nb*"]\n        sfu: {lambda: 32, approx: [div, sqrt, rcp]}\n' >.mpcc.yaml
if build f64.cu && [ "$(runs fast)" = 0 ] && grep -q '"f64_rsqrt":1' report; then
	passed
else
	fail "$(cat log report)"
fi
policy '[div, sqrt, rcp]'

# a name in the source that is no kernel: the run starts, nobody asks for
# it, it is stopped, and under --keep nothing of it is left
testing "a run nobody asked for is stopped and leaves nothing"
printf 'version: 1\ndefault_profile: fast\nprofiles:\n  fast:\n    rules:\n      - kernels: ["sqrt*"]\n        sfu: {lambda: 32}\n' >.mpcc.yaml
rm -rf log kd && mkdir kd
if $MPCC -arch=sm_90 --keep --keep-dir kd -c f64.cu -o out.o 2>err && [ "$(runs fast)" = 1 ] &&
	[ -z "$(ls kd | grep '\.mpcc\.fast')" ]; then
	passed
else
	fail "$(cat err log; ls kd)"
fi
policy '[div, sqrt, rcp]'

testing "the same rule runs it where an f32 division needs it"
if build f32.cu && [ "$(runs fast)" = 2 ] && grep -q '"div":[1-9]' report; then
	passed
else
	fail "$(cat log report)"
fi
finish
