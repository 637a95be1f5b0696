#!/bin/sh
# A broken policy fails the compile with status 1 before nvcc runs and
# writes no output; stderr is exactly the fixture's .err file, whether the
# policy comes from --mpcc-policy, MPCC_POLICY or discovery (where the
# file is named by its absolute path). An unknown profile lists the known
# ones.
name=policy-errors
: "${MPCC:?}" "${MPCC_SRC:?}"
export PATH="$PATH:/usr/local/cuda/bin"
command -v nvcc >/dev/null || { echo "testing $name ... skipped (no nvcc)"; exit 77; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-policy-errors.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "testing $name ... FAILED: $*"; exit 1; }
unset MPCC_POLICY MPCC_PROFILE MPCC_REPORT MPCC_NVCC  # the fake nvcc below must be found

printf '__global__ void k(float *x) { x[0] = sinf(x[0]); }\n' > "$tmp/k.cu"
bad="$MPCC_SRC/tests/policy/bad"
n=0
for yaml in "$bad"/*.yaml; do
	f=$(basename "$yaml")
	want="$bad/${f%.yaml}.err"
	# --mpcc-policy, named relative to the working directory
	(cd "$bad" && "$MPCC" --mpcc-policy="$f" -c "$tmp/k.cu" -o "$tmp/k.o") 2>"$tmp/err"
	st=$?
	[ $st -eq 1 ] || fail "$f: status $st"
	[ -e "$tmp/k.o" ] && fail "$f: wrote an output file"
	cmp -s "$tmp/err" "$want" || fail "$f: stderr differs:
$(diff "$want" "$tmp/err")"
	# MPCC_POLICY
	(cd "$bad" && MPCC_POLICY="$f" "$MPCC" -c "$tmp/k.cu" -o "$tmp/k.o") 2>"$tmp/err"
	[ $? -eq 1 ] && cmp -s "$tmp/err" "$want" || fail "$f: MPCC_POLICY: $(cat "$tmp/err")"
	# discovery
	mkdir -p "$tmp/d/src"
	cp "$yaml" "$tmp/d/.mpcc.yaml"
	cp "$tmp/k.cu" "$tmp/d/src/k.cu"
	(cd "$tmp/d/src" && "$MPCC" -ptx k.cu -o k.ptx) 2>"$tmp/err"
	[ $? -eq 1 ] || fail "$f: discovery: status not 1"
	[ -e "$tmp/d/src/k.ptx" ] && fail "$f: discovery: wrote an output file"
	d=$(cd "$tmp/d" && pwd -P)
	sed "s|^$f|$d/.mpcc.yaml|" "$want" > "$tmp/want"
	cmp -s "$tmp/err" "$tmp/want" || fail "$f: discovery: stderr differs:
$(diff "$tmp/want" "$tmp/err")"
	rm -rf "$tmp/d"
	n=$((n + 1))
done
[ $n -ge 15 ] || fail "only $n bad policies"

# unknown profiles
mkdir -p "$tmp/p"
printf 'version: 1\nprofiles:\n  accurate: {}\n  fast: {}\n' > "$tmp/p/.mpcc.yaml"
cp "$tmp/k.cu" "$tmp/p/k.cu"
p=$(cd "$tmp/p" && pwd -P)
(cd "$tmp/p" && "$MPCC" --mpcc-profile=fats -c k.cu -o k.o) 2>"$tmp/err"
[ $? -eq 1 ] || fail "--mpcc-profile=fats: status not 1"
echo "$p/.mpcc.yaml: error: unknown profile 'fats' from --mpcc-profile (did you mean 'fast'?); known profiles: accurate, fast" > "$tmp/want"
cmp -s "$tmp/err" "$tmp/want" || fail "unknown profile: $(cat "$tmp/err")"
(cd "$tmp/p" && MPCC_PROFILE=turbo "$MPCC" -c k.cu -o k.o) 2>"$tmp/err"
[ $? -eq 1 ] || fail "MPCC_PROFILE=turbo: status not 1"
echo "$p/.mpcc.yaml: error: unknown profile 'turbo' from MPCC_PROFILE; known profiles: accurate, fast" > "$tmp/want"
cmp -s "$tmp/err" "$tmp/want" || fail "unknown MPCC_PROFILE: $(cat "$tmp/err")"
[ -e "$tmp/p/k.o" ] && fail "unknown profile: wrote an output file"

# a missing policy file
"$MPCC" --mpcc-policy="$tmp/none.yaml" -c "$tmp/k.cu" -o "$tmp/k.o" 2>"$tmp/err"
[ $? -eq 1 ] || fail "missing policy: status not 1"
grep -q "cannot open policy '$tmp/none.yaml': No such file or directory" "$tmp/err" || fail "missing policy: $(cat "$tmp/err")"

# "before nvcc runs": an nvcc first on PATH that leaves a mark when run
mkdir -p "$tmp/fake"
printf '#!/bin/sh\ntouch "%s/ran"\nexit 1\n' "$tmp" > "$tmp/fake/nvcc"
chmod +x "$tmp/fake/nvcc"
(cd "$bad" && PATH="$tmp/fake:$PATH" "$MPCC" --mpcc-policy=lambda-out-of-range.yaml -c "$tmp/k.cu" -o "$tmp/k.o") 2>/dev/null
[ -e "$tmp/ran" ] && fail "nvcc ran despite a broken policy"
# and the fake is the nvcc mpcc runs: a compile with no policy reaches it
(cd "$tmp" && PATH="$tmp/fake:$PATH" "$MPCC" -c k.cu -o k.o) >/dev/null 2>&1
[ -e "$tmp/ran" ] || fail "the fake nvcc never ran, so 'nvcc did not run' proves nothing"

echo "testing $name ... passed ($n bad policies, 3 ways each; nvcc not run)"
