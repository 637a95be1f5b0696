#!/bin/sh
# scripts/install-deps.sh (issue 39): alone it installs what building and
# using mpcc needs, and no test tool: no Slurm, munge or lintian (daemons
# and a hundred Perl libraries); --test adds those. It calls apt-get only
# for what dpkg-query says is missing, without recommends, and with a
# policy-rc.d that keeps services from starting. apt-get, dpkg-query, id
# and sudo are stubs here: nothing is installed.
: "${MPCC_SRC:?set MPCC_SRC to the source tree}"
T=$(mktemp -d "${TMPDIR:-/tmp}/mpcc-test.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
failures=0
testing() { printf 'testing %s ... ' "$1"; }
passed() { echo passed; }
fail() { echo "failed: $*"; failures=$((failures + 1)); }
deps="$MPCC_SRC/scripts/install-deps.sh"

testing "the build's packages name no test tool"
sh "$deps" --list >"$T/build" || fail "--list"
bad=$(grep -E 'slurm|munge|lintian|clang|llvm|valgrind|ccache' "$T/build")
if [ -z "$bad" ] && grep -qx libyaml-dev "$T/build" && grep -qx cmake "$T/build"; then
	passed
else
	fail "$(tr '\n' ' ' <"$T/build")"
fi

testing "--test adds the test tools"
sh "$deps" --test --list >"$T/test" || fail "--test --list"
miss=
for p in $(cat "$T/build") slurm-wlm munge lintian clang libclang-rt-14-dev llvm-14-tools groff-base; do
	grep -qx "$p" "$T/test" || miss="$miss $p"
done
[ -z "$miss" ] && passed || fail "missing:$miss"

# stubs: every package installed but those in $MISSING; a user, so that
# every privileged step goes through sudo, which only logs it
mkdir -p "$T/bin"
cat >"$T/bin/dpkg-query" <<'EOF'
#!/bin/sh
for p; do :; done
case " $MISSING " in *" $p "*) exit 1 ;; esac
printf 'install ok installed'
EOF
printf '#!/bin/sh\necho 1000\n' >"$T/bin/id"
printf '#!/bin/sh\necho "sudo $*" >>"$LOG"\n' >"$T/bin/sudo"
printf '#!/bin/sh\necho "apt-get $*" >>"$LOG"\n' >"$T/bin/apt-get"
chmod +x "$T"/bin/*

testing "nothing missing: no apt-get (a rerun offline works)"
: >"$T/log"
if MISSING= LOG=$T/log PATH=$T/bin:$PATH sh "$deps" --test 2>/dev/null && [ ! -s "$T/log" ]; then
	passed
else
	fail "$(cat "$T/log")"
fi

testing "what is missing is installed without recommends, no service started"
: >"$T/log"
MISSING="lintian munge" LOG=$T/log PATH=$T/bin:$PATH sh "$deps" --test 2>/dev/null || fail "exit status"
inst=$(grep 'apt-get install' "$T/log")
case $inst in
*DEBIAN_FRONTEND=noninteractive*"apt-get install -y -q --no-install-recommends munge lintian") ok=1 ;;
*) ok= ;;
esac
# a policy-rc.d saying 101 before apt-get install, unless one is there already
if [ ! -e /usr/sbin/policy-rc.d ]; then
	sed -n '/tee \/usr\/sbin\/policy-rc.d/,$p' "$T/log" | grep -q 'apt-get install' || ok=
	grep -q 'rm -f /usr/sbin/policy-rc.d' "$T/log" || ok=
fi
grep -q 'exit 101' "$deps" || ok=
[ -n "$ok" ] && passed || fail "$(cat "$T/log")"

[ "$failures" = 0 ] || { echo "$failures failed"; exit 1; }
