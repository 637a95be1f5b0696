#!/bin/sh
# cmake --install puts the executables, the presets and the man pages
# (mpcc(1), mpcc-opt(1), mpcc.yaml(5)) under the prefix, and each page
# renders; cpack makes a tarball and a .deb holding the same files.
: "${MPCC_BUILD:?}" "${MPCC_SRC:?}"
command -v cmake >/dev/null && command -v cpack >/dev/null || { echo "no cmake/cpack: skipped"; exit 77; }
T=$(mktemp -d "${TMPDIR:-/tmp}/t-install.XXXXXX")
trap 'rm -rf "$T"' EXIT
failures=0
fail() { echo "failed: $*"; failures=$((failures + 1)); }
want="bin/mpcc bin/mpcc-opt share/man/man1/mpcc.1 share/man/man1/mpcc-opt.1 share/man/man5/mpcc.yaml.5 share/mpcc/presets/sfu.yaml"

printf 'testing cmake --install ... '
cmake --install "$MPCC_BUILD" --prefix "$T/p" >"$T/log" 2>&1 || { fail "$(tail -3 "$T/log")"; exit 1; }
miss=
for f in $want; do [ -f "$T/p/$f" ] || miss="$miss $f"; done
[ -z "$miss" ] && echo passed || fail "missing:$miss"

printf 'testing the installed man pages render ... '
bad=
for f in "$T"/p/share/man/man*/*; do
	if command -v man >/dev/null; then
		MANWIDTH=80 man -l "$f" >"$T/page" 2>"$T/err" || bad="$bad $f"
	else
		groff -man -Tutf8 "$f" >"$T/page" 2>"$T/err" || bad="$bad $f"
	fi
	[ -s "$T/page" ] && ! grep -q 'warning' "$T/err" || bad="$bad $f"
done
[ -z "$bad" ] && echo passed || fail "$bad: $(head -3 "$T/err")"

printf 'testing cpack makes a tarball and a .deb ... '
(cd "$T" && cpack --config "$MPCC_BUILD/CPackConfig.cmake" -B "$T/pkg") >"$T/log" 2>&1 ||
	{ fail "cpack: $(tail -3 "$T/log")"; exit 1; }
tgz=$(ls "$T"/pkg/mpcc-*.tar.gz 2>/dev/null) deb=$(ls "$T"/pkg/mpcc_*.deb 2>/dev/null)
[ -n "$tgz" ] && [ -n "$deb" ] || { fail "packages: $(ls "$T/pkg")"; exit 1; }
tar tzf "$tgz" >"$T/tlist"
miss=
for f in $want; do grep -q "/$f\$" "$T/tlist" || miss="$miss tgz:$f"; done
if command -v dpkg-deb >/dev/null; then
	dpkg-deb -c "$deb" >"$T/dlist"
	for f in $want; do grep -q "\./usr/$f\$" "$T/dlist" || miss="$miss deb:$f"; done
fi
[ -z "$miss" ] && echo passed || fail "missing:$miss"
[ "$failures" = 0 ] || { echo "$failures failed"; exit 1; }
