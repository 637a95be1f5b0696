#!/bin/sh
# cmake --install puts the executables, the store runtime (libmpccrt.a and
# its two lists, in lib/mpcc, where an installed mpcc finds them), the
# presets (their comments naming the prefix they went to), the gzipped man
# pages (mpcc(1), mpcc-opt(1), mpcc-tune(1), mpcc.yaml(5)), the copyright,
# the licence and the changelog under the prefix, and each page renders;
# cpack makes a tarball of the same files.
# A package build (libyaml shared, as Debian wants) makes a .deb of them,
# binaries stripped, that lintian passes without an error (issue 26, item 6).
: "${MPCC_BUILD:?}" "${MPCC_SRC:?}"
command -v cmake >/dev/null && command -v cpack >/dev/null || { echo "no cmake/cpack: skipped"; exit 77; }
T=$(mktemp -d "${TMPDIR:-/tmp}/t-install.XXXXXX")
trap 'rm -rf "$T"' EXIT
failures=0
fail() { echo "failed: $*"; failures=$((failures + 1)); }
want="bin/mpcc bin/mpcc-opt bin/mpcc-tune lib/mpcc/libmpccrt.a lib/mpcc/mpccrt.wrap lib/mpcc/mpccrt.syms
share/man/man1/mpcc.1.gz share/man/man1/mpcc-opt.1.gz
share/man/man1/mpcc-tune.1.gz share/man/man5/mpcc.yaml.5.gz share/mpcc/presets/sfu.yaml
share/doc/mpcc/copyright share/doc/mpcc/changelog.gz"
# the licence text: LICENSE in the tree and the tarball; a .deb carries it
# in its copyright file only (Debian Policy 12.5; lintian -I: extra-license-file)
lic=share/doc/mpcc/LICENSE

printf 'testing cmake --install ... '
cmake --install "$MPCC_BUILD" --prefix "$T/p" >"$T/log" 2>&1 || { fail "$(tail -3 "$T/log")"; exit 1; }
miss=
for f in $want $lic; do [ -f "$T/p/$f" ] || miss="$miss $f"; done
[ -z "$miss" ] && echo passed || fail "missing:$miss"

# MIT, as LICENSE says; the copyright file names it (Expat is its name in
# Debian's copyright format) with the same text, as Debian wants
printf 'testing the licence is MIT, named in the copyright file ... '
cp=$MPCC_SRC/packaging/copyright
sed -n '/^Permission is hereby granted/,$p' "$MPCC_SRC/LICENSE" >"$T/mit"
# the stand-alone License: Expat paragraph, unindented, its "." lines blank
awk 'p && !/^ / { p = 0 } p { print } prev == "" && /^License: Expat$/ { p = 1 } { prev = $0 }' "$cp" |
	sed 's/^ //; s/^\.$//' >"$T/cpmit"
if head -1 "$MPCC_SRC/LICENSE" | grep -qx 'MIT License' &&
	grep -qx 'Copyright (c) 2026 the mpcc authors' "$MPCC_SRC/LICENSE" &&
	grep -q 'THE SOFTWARE IS PROVIDED "AS IS"' "$T/mit" &&
	grep -qx 'Files: \*' "$cp" && grep -qx 'Copyright: 2026 the mpcc authors' "$cp" &&
	[ "$(grep -c '^License: Expat$' "$cp")" = 2 ] && grep -q 'LICENSE' "$cp" &&
	! grep -qi 'License: none' "$cp" && diff -b "$T/mit" "$T/cpmit" >"$T/d"; then
	echo passed
else
	fail "$(cat "$T/d" 2>/dev/null | head -5) $(grep '^License' "$cp" "$MPCC_SRC/LICENSE" 2>&1)"
fi

# the installed mpcc finds the installed runtime: a link of an object with
# the store table gets it (mpcc -dryrun shows nvcc's host link)
printf 'testing the installed mpcc links the installed runtime ... '
if command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ]; then
	printf '__attribute__((used, section("mpcc_store"), aligned(16)))\nstatic const void *t[2] = {0, "1 k - c 0"};\n' >"$T/st.c"
	printf 'int main(void) { return 0; }\n' >"$T/main.c"
	gcc -c "$T/st.c" -o "$T/st.o" && gcc -c "$T/main.c" -o "$T/main.o"
	PATH="$PATH:/usr/local/cuda/bin" "$T/p/bin/mpcc" -dryrun "$T/main.o" "$T/st.o" -o "$T/prog" >"$T/log" 2>&1
	grep '^#\$ g++' "$T/log" | grep -q "\"$T/p/lib/mpcc/libmpccrt.a\".*-Xlinker --wrap=cudaMalloc" &&
		! grep -q '^mpcc: ' "$T/log" && echo passed || fail "$(grep -e '^mpcc' -e g++ "$T/log" | cut -c1-200)"
else
	echo "skipped (no nvcc)"
fi

printf 'testing the presets name where they are ... '
grep -q "^#   MPCC_POLICY=$T/p/share/mpcc/presets/sfu.yaml " "$T/p/share/mpcc/presets/sfu.yaml" &&
	! grep -rq 'PREFIX\|/usr/local' "$T/p/share/mpcc/presets" && echo passed ||
	fail "$(grep -r 'presets/' "$T/p/share/mpcc/presets")"

printf 'testing the installed man pages render ... '
bad=
for f in "$T"/p/share/man/man*/*; do
	if command -v man >/dev/null; then
		MANWIDTH=80 man -l "$f" >"$T/page" 2>"$T/err" || bad="$bad $f"
	else
		gzip -dc "$f" | groff -man -Tutf8 >"$T/page" 2>"$T/err" || bad="$bad $f"
	fi
	[ -s "$T/page" ] && ! grep -q 'warning' "$T/err" || bad="$bad $f"
done
[ -z "$bad" ] && echo passed || fail "$bad: $(head -3 "$T/err")"

printf 'testing the man pages carry one version ... '
v=$(sed -n 's/^project(mpcc VERSION \([0-9.]*\) .*/\1/p' "$MPCC_SRC/CMakeLists.txt")
heads=$(sed -n 1p "$MPCC_SRC"/man/*.[15] | sed -E 's/^\.TH [^ ]+ [0-9] //' | sort -u)
[ "$(echo "$heads" | wc -l)" = 1 ] && echo "$heads" | grep -q "\"mpcc $v\"" && echo passed ||
	fail "$heads"

printf 'testing cpack makes a tarball ... '
(cd "$T" && cpack --config "$MPCC_BUILD/CPackConfig.cmake" -B "$T/pkg") >"$T/log" 2>&1 ||
	{ fail "cpack: $(tail -3 "$T/log")"; exit 1; }
tgz=$(ls "$T"/pkg/mpcc-*.tar.gz 2>/dev/null)
[ -n "$tgz" ] || { fail "packages: $(ls "$T/pkg")"; exit 1; }
tar tzf "$tgz" >"$T/tlist"
miss=
for f in $want $lic; do grep -q "/$f\$" "$T/tlist" || miss="$miss tgz:$f"; done
[ -z "$miss" ] && echo passed || fail "missing:$miss"

# the .deb as doc/PACKAGING.md says to make it: libyaml shared, a release build
printf 'testing a package build makes a .deb ... '
b=$T/deb
if ! { cmake -S "$MPCC_SRC" -B "$b" -DCMAKE_BUILD_TYPE=Release -DMPCC_STATIC_YAML=OFF \
	-DBUILD_TESTING=OFF && cmake --build "$b" -j2 && (cd "$b" && cpack -G DEB); } >"$T/log" 2>&1; then
	fail "$(tail -5 "$T/log")"
	exit 1
fi
deb=$(ls "$b"/mpcc_*.deb 2>/dev/null)
[ -n "$deb" ] || { fail "no .deb: $(ls "$b")"; exit 1; }
miss=
if command -v dpkg-deb >/dev/null; then
	dpkg-deb -c "$deb" >"$T/dlist"
	for f in $want; do grep -q "\./usr/$f\$" "$T/dlist" || miss="$miss deb:$f"; done
	grep -q "\./usr/$lic\$" "$T/dlist" && miss="$miss deb-has:$lic"
	dpkg-deb -x "$deb" "$T/x"
	grep -q '^#   MPCC_POLICY=/usr/share/mpcc/presets/sfu.yaml ' "$T/x/usr/share/mpcc/presets/sfu.yaml" ||
		miss="$miss presets-not-/usr"
	cmp -s "$T/x/usr/share/doc/mpcc/copyright" "$MPCC_SRC/packaging/copyright" || miss="$miss copyright"
	for e in mpcc mpcc-opt mpcc-tune; do
		readelf -S "$T/x/usr/bin/$e" | grep -q '\.debug_\|\.symtab' && miss="$miss unstripped:$e"
	done
fi
[ -z "$miss" ] && echo passed || fail "$miss"

# doc/PACKAGING.md's install line, run as it is written with apt, sudo and id
# stubbed (nothing is installed): as root, where there may be no sudo (CI
# machines, containers), apt runs itself; as a user, through sudo
printf "testing doc/PACKAGING.md's install line works as root and as a user ... "
line=$(grep -E '^[^#]*apt install ./build-deb/mpcc_' "$MPCC_SRC/doc/PACKAGING.md")
mkdir -p "$T/readme/build-deb" "$T/root" "$T/user"
: >"$T/readme/build-deb/mpcc_1.0_amd64.deb"
printf '#!/bin/sh\necho "$*" >>"$LOG"\n' >"$T/root/apt"
printf '#!/bin/sh\necho 0\n' >"$T/root/id"
printf '#!/bin/sh\necho "sudo: not found" >&2; exit 127\n' >"$T/root/sudo"
cp "$T/root/apt" "$T/user/apt"
printf '#!/bin/sh\necho 1000\n' >"$T/user/id"
printf '#!/bin/sh\necho sudo >>"$LOG"; exec "$@"\n' >"$T/user/sudo"
chmod +x "$T"/root/* "$T"/user/*
for who in root user; do
	(cd "$T/readme" && LOG=$T/$who.log PATH=$T/$who:/usr/bin:/bin sh -c "$line") >"$T/$who.out" 2>&1
done
want="install ./build-deb/mpcc_1.0_amd64.deb"
if [ -n "$line" ] && [ "$(cat "$T/root.log" 2>/dev/null)" = "$want" ] &&
	[ "$(cat "$T/user.log" 2>/dev/null)" = "$(printf 'sudo\n%s' "$want")" ]; then
	echo passed
else
	fail "'$line': root: $(cat "$T/root.log" "$T/root.out" 2>&1); user: $(cat "$T/user.log" "$T/user.out" 2>&1)"
fi

# errors fail; warnings are printed, since a newer lintian may add some
printf 'testing lintian finds no error in the .deb ... '
if command -v lintian >/dev/null; then
	# (lintian leaves an mldbm-elf-* file in TMPDIR: give it one that goes)
	TMPDIR=$T lintian --tag-display-limit 0 "$deb" >"$T/lintian" 2>&1
	grep '^W:' "$T/lintian" >&2
	if grep -q '^E:' "$T/lintian"; then fail "$(grep '^E:' "$T/lintian")"; else echo passed; fi
else
	echo "skipped (no lintian: scripts/install-deps.sh --test installs it)"
fi
[ "$failures" = 0 ] || { echo "$failures failed"; exit 1; }
