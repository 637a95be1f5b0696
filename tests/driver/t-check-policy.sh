#!/bin/sh
# mpcc --mpcc-check-policy=FILE validates a policy and the parents it
# inherits without compiling (no nvcc is needed): every broken fixture of
# tests/policy/bad gives exactly its .err and status 1, the good ones print
# "FILE: ok" and status 0, a broken parent fails its child, a child with
# root: true does not look up, and a missing file is an error.
: "${MPCC:?}" "${MPCC_SRC:?}"
T=$(mktemp -d "${TMPDIR:-/tmp}/t-check-policy.XXXXXX")
trap 'rm -rf "$T"' EXIT
unset MPCC_POLICY MPCC_PROFILE
export MPCC_NVCC=/nonexistent/nvcc PATH=/usr/bin:/bin
failures=0
fail() { echo "failed: $*"; failures=$((failures + 1)); }

printf 'testing bad fixtures ... '
n=0
cd "$MPCC_SRC/tests/policy/bad" || exit 1
for f in *.yaml; do
	"$MPCC" --mpcc-check-policy="$f" >"$T/out" 2>"$T/err"
	st=$?
	if [ $st != 1 ] || [ -s "$T/out" ] || ! cmp -s "$T/err" "${f%.yaml}.err"; then
		fail "$f: status $st: $(diff "${f%.yaml}.err" "$T/err" | head -3)"
		n=$((n + 1))
	fi
done
[ $n = 0 ] && echo passed

printf 'testing good fixtures ... '
cd "$MPCC_SRC/tests/policy/good" || exit 1
n=0
for f in *.yaml; do
	out=$("$MPCC" --mpcc-check-policy="$f" 2>&1)
	[ $? = 0 ] && [ "$out" = "$f: ok" ] || { fail "$f: $out"; n=$((n + 1)); }
done
[ $n = 0 ] && echo passed

mkdir -p "$T/p/sub"
printf 'version: 1\nprofiles:\n  fast:\n    rules:\n      - kernels: ["a"]\n        sfu: {lamda: 3}\n' >"$T/p/.mpcc.yaml"
printf 'version: 1\ndefault_profile: fast\nprofiles:\n  slow: {}\n' >"$T/p/sub/.mpcc.yaml"
printf 'testing a broken parent fails its child ... '
"$MPCC" --mpcc-check-policy="$T/p/sub/.mpcc.yaml" >"$T/out" 2>"$T/err"
st=$?
p=$(cd "$T/p" && pwd -P)
[ $st = 1 ] && grep -q "^$p/.mpcc.yaml:6:15: error: unknown key 'lamda'" "$T/err" && echo passed ||
	fail "status $st: $(cat "$T/err")"

printf 'testing root: true does not look up ... '
printf 'version: 1\nroot: true\ndefault_profile: slow\nprofiles:\n  slow: {}\n' >"$T/p/sub/.mpcc.yaml"
out=$("$MPCC" --mpcc-check-policy="$T/p/sub/.mpcc.yaml" 2>&1)
[ $? = 0 ] && [ "$out" = "$T/p/sub/.mpcc.yaml: ok" ] && echo passed || fail "$out"

printf 'testing a default_profile only a parent could have ... '
printf 'version: 1\nroot: true\ndefault_profile: fast\nprofiles:\n  slow: {}\n' >"$T/p/sub/.mpcc.yaml"
"$MPCC" --mpcc-check-policy="$T/p/sub/.mpcc.yaml" >/dev/null 2>"$T/err"
[ $? = 1 ] && grep -q "unknown profile 'fast' in 'default_profile'" "$T/err" && echo passed ||
	fail "$(cat "$T/err")"

printf 'testing a missing file ... '
"$MPCC" --mpcc-check-policy="$T/none.yaml" >/dev/null 2>"$T/err"
[ $? = 1 ] && grep -q "cannot open policy" "$T/err" && echo passed || fail "$(cat "$T/err")"

[ "$failures" = 0 ] || { echo "$failures failed"; exit 1; }
