#!/bin/sh
# The README's main job, `make -C examples/make-project NVCC=mpcc run`,
# shows what mpcc did (issue 10, part 4): a table with, per transformed
# kernel, the transform, its parameters and the archs it was applied on
# (from the report); ref/app, the policy's accurate profile, is nvcc's own
# build. Without a GPU the run is said to be skipped; on a GPU (or with
# outputs made up here, to check the table without one) each kernel gets
# its time against the nvcc build and the output error.
. "$MPCC_SRC/tests/driver/lib.sh"
command -v make >/dev/null && command -v python3 >/dev/null || { echo "no make/python3: skipped"; exit 77; }
cp -r "$MPCC_SRC/examples/make-project" "$T/p"
rm -rf "$T/p/ref" "$T/p/out" "$T/p"/*.o "$T/p/app" "$T/p/report.jsonl"
cd "$T/p" || exit 1

testing "make run prints what was transformed"
make NVCC="$MPCC" run >log 2>&1 || { tail -5 log; fail "make run"; finish; }
sed -n '/^what mpcc did/,$p' log >table
if grep -q '^BoxMuller  *sfu  *lambda=32 approx=\[transcendental,div,sqrt,rcp,ftz\] newton=false  *sm_80, sm_90' table &&
	grep -q '^bodyForce  *sfu  *lambda=32 approx=\[div,sqrt,rcp\] newton=false  *sm_80, sm_90' table; then
	passed
else
	fail "$(cat table)"
fi

testing "the table says whether it ran"
if grep -q 'no CUDA device' out/mpcc.txt; then
	grep -q '^run skipped: no CUDA device' table && ! grep -q 'mpcc ms' table
else
	grep -q 'nvcc ms  *mpcc ms  *speedup' table && grep -q '^saxpy  *none' table
fi && passed || fail "$(cat table)"

testing "ref/app is nvcc's build"
for k in saxpy gauss nbody; do
	nvcc -O2 -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=[sm_90,compute_90] \
		-c $k.cu -o n.$k.o && same n.$k.o ref/$k.o || { fail "ref/$k.o differs"; break; }
done && passed

# the GPU columns, from outputs made up here: BoxMuller 2x faster with
# one element off by 0.5 of 2.0, bodyForce as nvcc's
testing "the table's run columns"
rm -rf out && mkdir -p out/mpcc out/nvcc
printf 'time saxpy 0.0100\ntime BoxMuller 0.0500\ntime bodyForce 1.0000\n' >out/mpcc.txt
printf 'time saxpy 0.0100\ntime BoxMuller 0.1000\ntime bodyForce 1.0000\n' >out/nvcc.txt
python3 -c '
import array, sys
d = sys.argv[1]
array.array("f", [2.0, 4.0, 1.0, 1.0]).tofile(open(d + "/nvcc/BoxMuller.f32", "wb"))
array.array("f", [2.5, 4.0, 1.0, 1.0]).tofile(open(d + "/mpcc/BoxMuller.f32", "wb"))
for w in ("mpcc", "nvcc"):
    array.array("d", [1.0, -3.0]).tofile(open(d + "/" + w + "/bodyForce.f64", "wb"))
    array.array("f", [1.0]).tofile(open(d + "/" + w + "/saxpy.f32", "wb"))
' out
python3 show.py report.jsonl out/mpcc out/nvcc >table2
if grep -q '^BoxMuller  *sfu .* sm_80, sm_90  *0\.1000  *0\.0500  *2\.00x  *0\.5  *0\.0625$' table2 &&
	grep -q '^bodyForce  *sfu .* 1\.0000  *1\.0000  *1\.00x  *0  *0$' table2 &&
	grep -q '^saxpy  *none  *-  *-  *0\.0100' table2; then
	passed
else
	fail "$(cat table2)"
fi
finish
