#!/bin/sh
# mpcc, mpcc-opt and mpcc-tune answer alike (issue 39, item 7): a mistyped
# option is named with the one meant, or with where the options are listed,
# not the whole usage, and so is a mistyped pass (issue 50); exit status 1 in all three. --version prints mpcc's
# version in each (mpcc's own --version is nvcc's: --mpcc-version). Needs
# no nvcc: nothing is compiled.
: "${MPCC:?set MPCC}" "${MPCC_OPT:?set MPCC_OPT}" "${MPCC_TUNE:?set MPCC_TUNE}"
T=$(mktemp -d "${TMPDIR:-/tmp}/t-tools-alike.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
failures=0
testing() { printf 'testing %s ... ' "$1"; }
passed() { echo passed; }
fail() { echo "failed: $*"; failures=$((failures + 1)); }

# says NAME WANT CMD...: CMD exits 1, prints nothing on stdout and exactly
# WANT on stderr
says() {
	name=$1 want=$2
	shift 2
	testing "$name"
	"$@" >"$T/out" 2>"$T/err"
	rc=$?
	if [ "$rc" != 1 ]; then fail "exit $rc: $(cat "$T/err")"
	elif [ -s "$T/out" ]; then fail "stdout: $(head -3 "$T/out")"
	elif [ "$(cat "$T/err")" != "$want" ]; then fail "$(cat "$T/err")"
	else passed; fi
}

says tune-did-you-mean "mpcc-tune: error: unknown option '--budjet'; did you mean '--budget'?" \
	"$MPCC_TUNE" --budjet 10m --build true --run true --qos 1
says tune-did-you-mean-with-value "mpcc-tune: error: unknown option '--budjet'; did you mean '--budget'?" \
	"$MPCC_TUNE" --budjet=10m
says tune-unknown "mpcc-tune: error: unknown option '--frobnicate' (mpcc-tune --help lists mpcc-tune's options)" \
	"$MPCC_TUNE" --frobnicate
says tune-needs-value "mpcc-tune: error: option '--budget' needs a value" "$MPCC_TUNE" --budget
says tune-takes-no-value "mpcc-tune: error: option '--keep' takes no value" "$MPCC_TUNE" --keep=1
says opt-did-you-mean "mpcc-opt: error: unknown option '--verfy'; did you mean '--verify'?" \
	"$MPCC_OPT" --verfy in.ptx
says opt-unknown "mpcc-opt: error: unknown option '--frobnicate' (mpcc-opt --help lists mpcc-opt's options)" \
	"$MPCC_OPT" --frobnicate in.ptx
# a value after '=' (mpcc-opt takes it as the next word), and LLVM opt's
# -passes=, which is mpcc-opt's -p (issue 50)
says opt-did-you-mean-with-value "mpcc-opt: error: unknown option '--arhc=sm_90'; did you mean '--arch sm_90'?" \
	"$MPCC_OPT" --arhc=sm_90 in.ptx
says opt-passes-is-p "mpcc-opt: error: unknown option '--pases=fiset'; did you mean '-p fiset'?" \
	"$MPCC_OPT" --pases=fiset in.ptx
says opt-llvm-passes-is-p "mpcc-opt: error: unknown option '-passes=fiset'; did you mean '-p fiset'?" \
	"$MPCC_OPT" -passes=fiset in.ptx
# a pass's name mistyped, as mpcc-opt -p and MPCC_SET answer it (issue 50)
says tune-transform-did-you-mean "mpcc-tune: error: unknown transform 'fisett' for --transform; did you mean 'fiset'?" \
	"$MPCC_TUNE" --transform fisett --build true --run true
says mpcc-did-you-mean "mpcc: error: unknown option '--mpcc-summry'; did you mean '--mpcc-summary'?" \
	"$MPCC" --mpcc-summry -c a.cu

# --help is asked for: the usage on stdout, exit 0
testing tune-help
"$MPCC_TUNE" --help >"$T/out" 2>"$T/err" && grep -q '^usage: mpcc-tune' "$T/out" && [ ! -s "$T/err" ] &&
	passed || fail "$(cat "$T/err")"

testing version-is-mpccs
v=$("$MPCC" --mpcc-version) || fail "mpcc --mpcc-version"
o=$("$MPCC_OPT" --version) && t=$("$MPCC_TUNE" --version)
case $v in "mpcc "[0-9]*) ;; *) fail "mpcc: '$v'" ;; esac
if [ "$o" = "mpcc-opt ${v#mpcc }" ] && [ "$t" = "mpcc-tune ${v#mpcc }" ]; then passed
else fail "mpcc '$v', mpcc-opt '$o', mpcc-tune '$t'"; fi

[ "$failures" = 0 ] || { echo "$failures failed"; exit 1; }
