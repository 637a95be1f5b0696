#!/bin/sh
# The documentation and the programs agree on their options (issue 10,
# part 4): every --mpcc-* option and MPCC_* variable named in README.md,
# doc/*.md, the man pages and the examples' READMEs is one mpcc has (mpcc
# --mpcc-help lists its option table), and every one mpcc has is in
# README.md and man/mpcc.1; every MPCC_* variable the sources read with
# getenv() is listed by --mpcc-help (the store runtime's too: runtime/ reads
# them inside the programs it is linked into). Every option in mpcc-opt(1) is one
# mpcc-opt accepts, and every option of its usage line is in mpcc-opt(1).
# Every man page formats without a warning from groff (issue 50: a raw
# form feed where `\f` belonged garbled mpcc(1), and lintian said nothing).
: "${MPCC:?set MPCC}" "${MPCC_OPT:?set MPCC_OPT}" "${MPCC_SRC:?set MPCC_SRC}"
T=$(mktemp -d "${TMPDIR:-/tmp}/mpcc-test.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
failures=0
testing() { printf 'testing %s ... ' "$1"; }
check() {  # check WHAT: passed when $T/bad is empty
	if [ -s "$T/bad" ]; then
		echo "failed: $1: $(tr '\n' ' ' <"$T/bad")"
		failures=$((failures + 1))
	else
		echo passed
	fi
}
cd "$MPCC_SRC" || exit 1

# words DOC...: the --mpcc-* options and MPCC_* variables the files name
words() { sed 's/\\-/-/g' "$@" | grep -oE -- '--mpcc-[a-z][a-z-]*[a-z]|MPCC_[A-Z][A-Z_]*[A-Z]' | sort -u; }
"$MPCC" --mpcc-help >"$T/help" || { echo "mpcc --mpcc-help failed"; exit 1; }
# the program's words: option names and variables in its help, with the
# variables the sources read
awk '$1 ~ /^--mpcc-/ { sub(/[[=].*/, "", $1); print $1 } $2 ~ /^MPCC_/ { print $2 } $1 ~ /^MPCC_/ { print $1 }' \
	"$T/help" | sort -u >"$T/prog"
# mpcc-tune's variables (MPCC_TUNE_DIR) and the build's CMake options
# (-DMPCC_STATIC_YAML=OFF) may be named in the docs too
{
	if [ -n "$MPCC_TUNE" ]; then
		"$MPCC_TUNE" --help 2>&1 | grep -oE 'MPCC_TUNE_[A-Z_]*[A-Z]'
	fi
	sed -n 's/^option(\(MPCC_[A-Z_]*\).*/\1/p; s/^set(\(MPCC_[A-Z_]*\) .*CACHE.*/\1/p' CMakeLists.txt
} | sort -u - "$T/prog" >"$T/known"
grep -rhoE 'getenv\("MPCC_[A-Z_]+"' driver policies transforms common runtime | sed 's/.*"\(.*\)"/\1/' |
	sort -u >"$T/getenv"

testing "every variable the sources read is in --mpcc-help"
comm -23 "$T/getenv" "$T/prog" >"$T/bad"
check "read but not listed"

docs="README.md $(ls doc/*.md) man/mpcc.1 man/mpcc.yaml.5 man/mpcc-opt.1 $(ls examples/*/README.md 2>/dev/null)"
for d in $docs; do
	testing "$d names only what mpcc has"
	words "$d" | comm -23 - "$T/known" >"$T/bad"
	check "not in mpcc"
done
for d in README.md man/mpcc.1; do
	testing "$d documents everything mpcc has"
	words "$d" | comm -13 - "$T/prog" >"$T/bad"
	check "undocumented"
done

# groff -ww: every warning; -z: no output. groff-base is in
# install-deps.sh --test, so CI never skips this
for m in man/*.[1-8]; do
	testing "$m formats without a warning"
	if ! command -v groff >/dev/null; then
		echo "skipped (no groff: scripts/install-deps.sh --test installs groff-base)"
		continue
	fi
	LC_ALL=C groff -man -ww -z "$m" >"$T/bad" 2>&1
	check "groff"
done

# mpcc-opt: the options of its man page's OPTIONS section, and of its usage
printf '.version 8.0\n.target sm_80\n.address_size 64\n' >"$T/in.ptx"
# the tags of the OPTIONS section: the line after each .TP
sed -n '/^\.SH OPTIONS/,/^\.SH /p' man/mpcc-opt.1 | sed 's/\\-/-/g' | awk 'tag { print } { tag = /^\.TP/ }' |
	grep -oE '^\.B[IR]? +-[-a-z]+|,[ "]+-[-a-z]+' | grep -oE -- '-[-a-z]+' | sort -u >"$T/manopt"
"$MPCC_OPT" --help 2>&1 | grep -oE -- '\[-[-a-z]+' | tr -d '[' | sort -u >"$T/usage"
testing "mpcc-opt(1) lists options"
[ -s "$T/manopt" ] && [ -s "$T/usage" ] && : >"$T/bad" || echo "none found" >"$T/bad"
check "parse"
testing "every option in mpcc-opt(1) is one mpcc-opt takes"
: >"$T/bad"
while read -r o; do
	"$MPCC_OPT" "$T/in.ptx" "$o" "$T/x" >/dev/null 2>"$T/err"
	! grep -q "unknown option" "$T/err" || echo "$o" >>"$T/bad"
done <"$T/manopt"
check "unknown to mpcc-opt"
testing "every option of mpcc-opt's usage is in mpcc-opt(1)"
comm -23 "$T/usage" "$T/manopt" >"$T/bad"
check "undocumented"

[ "$failures" = 0 ] || { echo "$failures failed"; exit 1; }
