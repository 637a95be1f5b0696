#!/bin/sh
# mpcc's own options and variables, the note for what it cannot follow, and
# the fallback to nvcc's PTX when ptxas rejects the hook's
. "$MPCC_SRC/tests/driver/lib.sh"

cd "$T"
cp "$KERNELS/saxpy.cu" a.cu
nvcc -c a.cu -o n.o

testing mpcc-version
out=$("$MPCC" --mpcc-version) && case $out in "mpcc "[0-9]*) passed ;; *) fail "$out" ;; esac

testing version-is-nvccs
"$MPCC" --version >m.txt && nvcc --version >n.txt && cmp -s m.txt n.txt && passed || fail "differs"

testing unknown-mpcc-option
if "$MPCC" --mpcc-frobnicate -c a.cu 2>err.txt; then fail "exit 0"
elif grep -qxF "mpcc: error: unknown option '--mpcc-frobnicate' (mpcc --mpcc-help lists mpcc's options)" err.txt &&
	[ ! -e a.o ]; then passed
else fail "$(cat err.txt)"; fi

# a near miss names the option meant, as a policy key's does; 'man mpcc'
# finds nothing until the package is installed, --mpcc-help always works
testing unknown-mpcc-option-did-you-mean
"$MPCC" --mpcc-summry -c a.cu 2>err.txt && fail "exit 0" ||
	{ [ "$(cat err.txt)" = "mpcc: error: unknown option '--mpcc-summry'; did you mean '--mpcc-summary'?" ] &&
	[ ! -e a.o ] && passed || fail "$(cat err.txt)"; }

testing unknown-mpcc-option-with-value-did-you-mean
"$MPCC" --mpcc-profle=fast -c a.cu 2>err.txt && fail "exit 0" ||
	{ [ "$(cat err.txt)" = "mpcc: error: unknown option '--mpcc-profle'; did you mean '--mpcc-profile'?" ] &&
	passed || fail "$(cat err.txt)"; }

testing mpcc-option-needs-value
"$MPCC" --mpcc-profile -c a.cu 2>err.txt && fail "exit 0" ||
	{ grep -q "needs a value" err.txt && passed || fail "$(cat err.txt)"; }

testing policy-hash
out=$("$MPCC" --mpcc-policy-hash) && [ -n "$out" ] && [ "$(echo "$out" | wc -l)" = 1 ] && passed || fail "'$out'"

testing mpcc-dryrun-shows-the-hook
"$MPCC" --mpcc-force-pipeline --mpcc-dryrun -c -gencode arch=compute_80,code=sm_80 \
	-gencode arch=compute_90,code=sm_90 a.cu -o d.o 2>err.txt
if [ -e d.o ]; then fail "built d.o"
elif [ "$(grep -c '^#\$ mpcc-pipeline --src "a.cu" --arch compute_[89]0' err.txt)" = 2 ] &&
	grep -B1 '^#\$ mpcc-pipeline' err.txt | grep -q 'cicc'; then passed
else fail "$(grep -c mpcc-pipeline err.txt) hook lines"; fi

testing mpcc-dryrun-without-policy-is-nvccs
"$MPCC" --mpcc-dryrun -c a.cu 2>err.txt && grep -q '^#\$ .*cicc' err.txt &&
	! grep -q mpcc-pipeline err.txt && passed || fail "$(head -3 err.txt)"

testing explain-builds-nothing
"$MPCC" --mpcc-explain -c a.cu -o e.o >out.txt 2>err.txt && [ ! -e e.o ] && [ ! -e a.ptx ] &&
	"$MPCC" --mpcc-explain -ptx a.cu -o e.ptx >>out.txt 2>>err.txt && [ ! -e e.ptx ] &&
	passed || fail "$(cat err.txt)"

testing force-pipeline-variable
MPCC_FORCE_PIPELINE=1 MPCC_DEBUG_BREAK_PTX=1 "$MPCC" -c a.cu -o v.o 2>err.txt
# the broken PTX proves the pipeline ran; the object proves the fallback
grep -q "ptxas rejected" err.txt && same n.o v.o && passed || fail "$(cat err.txt)"

testing ptxas-fallback-warns-once
MPCC_DEBUG_BREAK_PTX=1 "$MPCC" --mpcc-force-pipeline -c -gencode arch=compute_80,code=sm_80 \
	-gencode arch=compute_90,code=sm_90 a.cu -o f.o 2>err.txt
nvcc -c -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 a.cu -o n2.o
[ "$(wc -l <err.txt)" = 1 ] && grep -q "^mpcc: warning: ptxas rejected" err.txt && same n2.o f.o &&
	passed || fail "$(cat err.txt)"

testing ptxas-fallback-for-ptx-output
MPCC_DEBUG_BREAK_PTX=1 "$MPCC" --mpcc-force-pipeline -ptx a.cu -o f.ptx 2>err.txt
nvcc -ptx a.cu -o n.ptx
cmp -s n.ptx f.ptx && grep -q "ptxas rejected" err.txt && passed || fail "$(cat err.txt)"

testing ptxas-fallback-for-ptx-only-fatbin
# -arch=compute_90: no ptxas step, fatbinary embeds the PTX as it is
MPCC_DEBUG_BREAK_PTX=1 "$MPCC" --mpcc-force-pipeline -c -arch=compute_90 a.cu -o c.o 2>err.txt
nvcc -c -arch=compute_90 a.cu -o n3.o
same n3.o c.o && grep -q "ptxas rejected" err.txt && passed || fail "$(cat err.txt)"

testing unsupported-goes-to-nvcc-with-one-note
"$MPCC" --mpcc-force-pipeline -time t.csv -c a.cu -o u.o 2>err.txt
if [ "$(cat err.txt)" = "mpcc: note: running nvcc unchanged: unsupported option '-time'" ] &&
	same n.o u.o && [ -s t.csv ]; then passed; else fail "$(cat err.txt)"; fi

testing no-note-without-pipeline
"$MPCC" -time t2.csv -c a.cu -o u3.o 2>err.txt && [ ! -s err.txt ] && passed || fail "$(cat err.txt)"

testing report-option-accepted
"$MPCC" --mpcc-force-pipeline --mpcc-report="$T/r.json" -c a.cu -o r.o && same n.o r.o &&
	passed || fail "status $?"

# the fast-math cicc run that sfu asks for (hook.fastptx), driven through
# MPCC_DEBUG_FASTPTX as a pass would: all of AX_TRANS|AX_DIV|AX_SQRT|AX_FTZ (23)
# must give exactly the PTX of -use_fast_math, AX_DIV (2) that of
# -prec-div=false, and the build must stay nvcc's
cp "$KERNELS/math.cu" m.cu
nvcc -ptx -use_fast_math m.cu -o fast.ptx
nvcc -ptx -prec-div=false m.cu -o div.ptx
mkdir kn km
nvcc --keep --keep-dir kn -c m.cu -o m.o && mv m.o mn.o

testing fastptx-is-use_fast_math
MPCC_DEBUG_FASTPTX=23 "$MPCC" --mpcc-force-pipeline --keep --keep-dir km -c m.cu -o m.o &&
	cmp -s km/m.mpcc.fast23.ptx fast.ptx && cmp -s m.o mn.o && cmp -s km/m.ptx kn/m.ptx &&
	passed || fail "$(ls km)"

testing fastptx-div-only
MPCC_DEBUG_FASTPTX=2 "$MPCC" --mpcc-force-pipeline --keep --keep-dir km -c m.cu -o m.o &&
	cmp -s km/m.mpcc.fast2.ptx div.ptx && cmp -s m.o mn.o && passed || fail "$(ls km)"

testing fastptx-for-ptx-output
MPCC_DEBUG_FASTPTX=23 "$MPCC" --mpcc-force-pipeline -ptx m.cu -o mp.ptx && nvcc -ptx m.cu -o np.ptx &&
	cmp -s mp.ptx np.ptx && passed || fail "status $?"

# -dryrun shows nvcc's steps as mpcc runs them: nvcc's lines (temporaries
# in mpcc's directory) with mpcc's step after each cicc
testing nvcc-dryrun-is-spliced-under-the-pipeline
"$MPCC" --mpcc-force-pipeline -dryrun -c a.cu 2>m.txt; nvcc -dryrun -c a.cu 2>n.txt
grep -v '^#\$ mpcc-pipeline' m.txt | sed -E 's#/mpcc-[A-Za-z0-9]{6}/#/#g; s/tmpxft_[^ "]*//g' >m2.txt
sed 's/tmpxft_[^ "]*//g' n.txt >n2.txt
cmp -s m2.txt n2.txt && [ "$(grep -c '^#\$ mpcc-pipeline' m.txt)" = 1 ] && [ ! -e a.o ] && passed ||
	fail "$(diff m2.txt n2.txt | head -3)"

testing nvcc-dryrun-without-pipeline-is-nvccs
"$MPCC" -dryrun -c a.cu 2>m.txt
sed 's/tmpxft_[^ "]*//g' m.txt >m2.txt
cmp -s m2.txt n2.txt && passed || fail "$(diff m2.txt n2.txt | head -3)"
finish
