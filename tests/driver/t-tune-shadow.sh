#!/bin/sh
# mpcc-tune's shadow ranking of fiset's sets (--shadow, mode 1; issue 27).
# The shadow build instruments at most max_ops (512) f64 operations of a
# kernel, evenly spread; a kernel with more is shadowed in a sample, and a
# set none of whose instructions are in it has no total of its own: it must
# not pass for the set with no error. Against the fake program of
# t-tune-fake.sh (tune-fake/fake.sh: the k-th operation shadowed totals
# k * 1e-6), built by the real driver.
. "$(dirname "$0")/lib.sh"
: "${MPCC_TUNE:?set MPCC_TUNE to the mpcc-tune executable}"
FAKE="$MPCC_SRC/tests/driver/tune-fake"

# tune DIR SRC: mpcc-tune --shadow on fiset in a fresh copy of the fake
# program in $T/DIR, built from SRC; stderr in DIR/err, status in DIR/rc
tune() {
	d=$T/$1
	rm -rf "$d"
	mkdir -p "$d"
	cp "$FAKE/$2" "$FAKE/fake.sh" "$d/"
	(cd "$d" && "$MPCC_TUNE" --build "$MPCC -arch=sm_90 -ptx $2 -o k.ptx" --run "sh fake.sh k.ptx" \
		--time 'time_ms=([0-9.]+)' --qos 1e-4 --transform fiset --shadow --runs 1 --dry-run \
		>out 2>err)
	echo $? >"$d/rc"
}

# ranking DIR: the sets as ranked, each with its error ("0 1e-06 2 ...")
ranking() {
	sed -n 's/^mpcc-tune: fiset on .*: [0-9]* units, by shadow error, smallest first: //p' "$T/$1/err" |
		sed 's/ (error \([^,]*\), [^)]*)/ \1/g'
}

# big.cu: 1024 operations; sets 0 (1 op, shadowed first: 1e-6), 1 (1022
# ops, 511 of them shadowed: 2e-6 to 5.12e-4) and 2 (1 op, the last, not
# shadowed). Set 2 is estimated at the kernel's mean, 2.565e-4 an op, set 1
# at its own mean times 1022
testing "a sampled kernel: the shadow run says the errors are estimated"
tune big big.cu
if [ "$(cat "$T/big/rc")" != 0 ]; then
	fail "mpcc-tune failed: $(tail -5 "$T/big/err")"
elif ! grep -q "^mpcc-tune: shadow run of '_Z3bigiPKdPd': .*; errors estimated from a sample of 512 of 1024 ops$" \
	"$T/big/err"; then
	fail "$(grep 'shadow run' "$T/big/err")"
else
	passed
fi

testing "a sampled kernel: a set the sample missed is not ranked first with error 0"
if [ "$(ranking big)" != "0 1e-06 2 0.000257 1 0.263" ]; then
	fail "ranked: $(ranking big)"
else
	passed
fi

# sets.cu: 9 operations, all shadowed, 3 a set: 1e-6 + 2e-6 + 3e-6, ...
testing "a kernel shadowed whole: each set has the sum of its totals"
tune sets sets.cu
if [ "$(cat "$T/sets/rc")" != 0 ]; then
	fail "mpcc-tune failed: $(tail -5 "$T/sets/err")"
elif grep -q 'estimated from a sample' "$T/sets/err" || [ "$(ranking sets)" != "0 6e-06 1 1.5e-05 2 2.4e-05" ]; then
	fail "$(grep 'shadow run' "$T/sets/err"); ranked: $(ranking sets)"
else
	passed
fi
# many.cu: twelve sets; the log's order names ten of them, one by one
testing "a kernel of twelve sets: the order names the first ten and counts the rest"
tune many many.cu
order=$(sed -n 's/^mpcc-tune: fiset on .*: 12 units, by shadow error, smallest first: //p' "$T/many/err")
if [ "$(cat "$T/many/rc")" != 0 ]; then
	fail "mpcc-tune failed: $(tail -5 "$T/many/err")"
elif [ "$(printf '%s\n' "$order" | grep -o '(error' | wc -l)" != 10 ] || [ "${order%% and 2 more}" = "$order" ]; then
	fail "the order: '$order'"
else
	passed
fi
finish
