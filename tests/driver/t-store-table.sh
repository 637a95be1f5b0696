#!/bin/sh
# The store table in the host object (driver/table.c): where a store rule
# made a kernel's clone, the stub cicc wrote gets one line a kernel of the
# translation unit, which the host compile puts in the section mpcc_store
# (the runtime's to read); the line is the same for every -gencode chain
# that agrees, and a chain that did not make the clone (ptxas rejected the
# transformed PTX) takes it away; a -rdc compile gets none, with a note;
# a compile whose rules made no clone has no section.
. "$(dirname "$0")/lib.sh"
command -v objdump >/dev/null || { echo "no objdump: skipped"; exit 77; }

cat >"$T/k.cu" <<'EOF2'
__global__ void axpy(double *y, const double *x, double a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
__global__ void scale(double *y, double a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] *= a;
}
EOF2
cat >"$T/.mpcc.yaml" <<'EOF2'
version: 1
default_profile: narrow
profiles:
  plain: {}
  narrow:
    rules:
      - kernels: ["axpy"]
        store: {}
  bf16:
    rules:
      - kernels: ["axpy"]
        store: {type: bf16}
EOF2
cd "$T" || exit 1

# the table's lines in the stub kept by -keep
lines() { sed -n 's/^	{&__fatDeviceText, "\(.*\)"},$/\1/p' "$1"; }
# the size of section mpcc_store in an object, 0 if it has none
section() {
	s=$(objdump -h "$1" | awk '$2 == "mpcc_store" { print $3 }' | head -1)
	[ -z "$s" ] || printf '%d\n' "0x$s"
}

testing "a store rule's clone gives the stub one line a kernel, and the object the section"
mkdir -p one && cd one || exit 1
if ! "$MPCC" -arch=sm_90 -keep -c ../k.cu -o k.o 2>err; then
	fail "mpcc failed: $(cat err)"
elif [ "$(lines k.cudafe1.stub.c)" != "1 _Z4axpyPdPKddi _Z4axpyPdPKddi_mpcc_store c 4 w:f64>f32 r:f64>f32 - -
1 _Z5scalePddi - c 3 w - -" ]; then
	fail "lines: $(lines k.cudafe1.stub.c)"
elif [ "$(section k.o)" != 32 ]; then
	fail "section mpcc_store of k.o: '$(section k.o)' bytes, not two entries of 16"
else
	passed
fi
cd .. || exit 1

# each chain's cicc writes a stub of its own; the host compile reads the last
testing "two -gencode chains that agree give one line a kernel"
mkdir -p two && cd two || exit 1
if ! "$MPCC" -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 -keep -c ../k.cu -o k.o 2>err; then
	fail "mpcc failed: $(cat err)"
elif [ "$(lines k.compute_90.cudafe1.stub.c | wc -l)" != 2 ] ||
     ! lines k.compute_90.cudafe1.stub.c | grep -q "_mpcc_store c 4 w:f64>f32"; then
	fail "lines: $(lines k.compute_90.cudafe1.stub.c)"
else
	passed
fi
cd .. || exit 1

# bf16 needs sm_80: the compute_75 chain makes no clone, compute_90 does;
# the runtime finds none in the sm_75 code and launches the kernel there
testing "a chain that makes no clone leaves the line of the one that does"
mkdir -p none && cd none || exit 1
if ! "$MPCC" -gencode arch=compute_75,code=sm_75 -gencode arch=compute_90,code=sm_90 \
     --mpcc-profile=bf16 -keep -c ../k.cu -o k.o 2>err; then
	fail "mpcc failed: $(cat err)"
elif [ "$(lines k.compute_90.cudafe1.stub.c | head -1)" != \
       "1 _Z4axpyPdPKddi _Z4axpyPdPKddi_mpcc_store c 4 w:f64>bf16 r:f64>bf16 - -" ]; then
	fail "lines: $(lines k.compute_90.cudafe1.stub.c)"
else
	passed
fi
cd .. || exit 1

# an atomic add of bf16 needs sm_90: the compute_80 chain keeps only x
# narrow, compute_90 both arrays; the two clones differ, so the kernel's
# line has none, and says what either reads and writes
cat >acc.cu <<'EOF2'
__global__ void acc(double *sum, const double *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&sum[i % 16], x[i]);
}
EOF2
cat >acc.yaml <<'EOF2'
version: 1
default_profile: bf16
profiles:
  bf16:
    rules:
      - kernels: ["acc"]
        store: {type: bf16}
EOF2
testing "chains whose clones differ give a line without a clone"
mkdir -p differ && cd differ || exit 1
if ! "$MPCC" -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 \
     --mpcc-policy=../acc.yaml --mpcc-report=r.jsonl -keep -c ../acc.cu -o acc.o 2>err; then
	fail "mpcc failed: $(cat err)"
elif [ "$(grep -c '"applied":true' r.jsonl)" != 2 ]; then
	fail "not a clone on each chain: $(cat r.jsonl)"
elif [ -n "$(lines acc.compute_90.cudafe1.stub.c)" ] || [ -n "$(section acc.o)" ]; then
	fail "lines: $(lines acc.compute_90.cudafe1.stub.c)"
else
	passed
fi
cd .. || exit 1

testing "a chain whose transformed PTX ptxas rejected takes the clone away"
mkdir -p broken && cd broken || exit 1
if ! MPCC_DEBUG_BREAK_PTX=1 "$MPCC" -arch=sm_90 -keep -c ../k.cu -o k.o 2>err; then
	fail "mpcc failed: $(cat err)"
elif [ -n "$(lines k.cudafe1.stub.c)" ] || [ -n "$(section k.o)" ]; then
	fail "a table for nvcc's PTX: $(lines k.cudafe1.stub.c)"
else
	passed
fi
cd .. || exit 1

testing "a -rdc compile gets no table, and a note says why"
mkdir -p rdc && cd rdc || exit 1
if ! "$MPCC" -arch=sm_90 -rdc=true -keep -c ../k.cu -o k.o 2>err; then
	fail "mpcc failed: $(cat err)"
elif [ -n "$(section k.o)" ] || ! grep -q "store: a -rdc compile registers its kernels through the device link" err; then
	fail "section '$(section k.o)', said: $(cat err)"
else
	passed
fi
cd .. || exit 1

testing "a profile without store rules leaves the object as nvcc makes it"
mkdir -p plain && cd plain || exit 1
if ! "$MPCC" -arch=sm_90 --mpcc-profile=plain -c ../k.cu -o k.o 2>err ||
   ! nvcc -arch=sm_90 -c ../k.cu -o nv.o; then
	fail "a build failed: $(cat err)"
elif [ -n "$(section k.o)" ] || ! same k.o nv.o; then
	fail "not nvcc's object"
else
	passed
fi
cd .. || exit 1
finish
