#!/bin/sh
# scripts/install-deps.sh (issue 39): alone it installs what building and
# using mpcc needs, and no test tool: no Slurm, munge or lintian (daemons
# and a hundred Perl libraries); --test adds those. It calls apt-get only
# for what dpkg-query says is missing, without recommends, and with a
# policy-rc.d that keeps services from starting. It says what it installs,
# and upgrades no installed package unless --upgrade (issue 50: the test
# command installed 143 packages without a word, 6 of them upgrades, among
# them perl-base). apt-get, dpkg-query, id and sudo are stubs here:
# nothing is installed.
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
# apt-get -s answers with $PLAN, what apt would do
cat >"$T/bin/apt-get" <<'EOF'
#!/bin/sh
case " $* " in *" -s "*) printf '%b' "$PLAN"; exit 0 ;; esac
echo "apt-get $*" >>"$LOG"
EOF
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
MISSING="lintian munge" PLAN= LOG=$T/log PATH=$T/bin:$PATH sh "$deps" --test 2>/dev/null || fail "exit status"
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

# the plan of the test above, and one that upgrades an installed package
new='Inst munge (0.5.15-2 Debian:12 [amd64])\nInst libmunge2 (0.5.15-2 Debian:12 [amd64])\nInst lintian (2.116.3 Debian:12 [all])\n'
up='Inst perl-base [5.36.0-7+deb12u1] (5.36.0-7+deb12u2 Debian:12 [amd64])\n'

testing "it says what it installs, dependencies counted"
: >"$T/log"
MISSING="lintian munge" PLAN=$new LOG=$T/log PATH=$T/bin:$PATH sh "$deps" --test 2>"$T/err" &&
	grep -q '^install-deps: installing munge lintian: 3 packages with what they depend on$' "$T/err" &&
	! grep -q upgrad "$T/err" && grep -q 'apt-get install -y' "$T/log" && passed || fail "$(cat "$T/err")"

testing "an install that would upgrade an installed package installs nothing"
: >"$T/log"
if MISSING="lintian munge" PLAN=$new$up LOG=$T/log PATH=$T/bin:$PATH sh "$deps" --test 2>"$T/err"; then
	fail "exit 0: $(cat "$T/err")"
elif grep -q 'apt-get install' "$T/log" ||
     ! grep -q "^install-deps: error: .* perl-base 5.36.0-7+deb12u1 -> 5.36.0-7+deb12u2; nothing installed (--upgrade" "$T/err"; then
	fail "$(cat "$T/err" "$T/log")"
else
	passed
fi

testing "--upgrade lets apt upgrade it, and says so"
: >"$T/log"
MISSING="lintian munge" PLAN=$new$up LOG=$T/log PATH=$T/bin:$PATH sh "$deps" --test --upgrade 2>"$T/err" &&
	grep -q 'apt-get install -y' "$T/log" &&
	grep -q '^install-deps: and upgrading, as they need (--upgrade): perl-base 5.36.0-7+deb12u1 -> 5.36.0-7+deb12u2$' "$T/err" &&
	passed || fail "$(cat "$T/err")"

[ "$failures" = 0 ] || { echo "$failures failed"; exit 1; }
