#!/bin/sh
# mpcc's temporaries: private to each compile, removed on success, failure,
# SIGINT and SIGTERM; kept beside nvcc's under --keep
. "$MPCC_SRC/tests/driver/lib.sh"

cd "$T"
cp "$KERNELS/dmath.cu" a.cu
printf '__global__ void k() { int x = ; }\n' >bad.cu
mkdir tmp
export TMPDIR="$T/tmp"
# empty: nothing left in TMPDIR (emptied for the next test either way)
empty() { [ -z "$(ls -A "$T/tmp")" ] || { ls "$T/tmp"; rm -rf "$T/tmp"/*; false; }; }

testing removed-on-success
"$MPCC" --mpcc-force-pipeline -c a.cu -o a.o && empty && passed || fail "$(ls "$T/tmp")"

testing removed-on-failure
"$MPCC" --mpcc-force-pipeline -c bad.cu -o bad.o 2>/dev/null
[ $? = 2 ] && empty && passed || fail "$(ls "$T/tmp")"

for sig in INT TERM; do
	testing "removed-on-SIG$sig"
	# python resets SIGINT, which sh leaves ignored in background jobs
	python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execv(sys.argv[1], sys.argv[1:])' "$MPCC" --mpcc-force-pipeline -c -arch=all a.cu -o s.o &
	pid=$!
	for i in 1 2 3 4 5 6 7 8 9 10; do
		[ -n "$(ls -A "$T/tmp")" ] && break
		sleep 0.2
	done
	sleep 1
	kill -$sig $pid
	wait $pid
	st=$?
	sleep 1    # children killed with mpcc finish dying
	if [ $st -gt 128 ] && empty && [ ! -e s.o ]; then passed; else fail "status $st, left $(ls "$T/tmp")"; fi
done

# a reader that stops early (| grep -q, | head) kills mpcc with SIGPIPE
# while it prints: its directory goes too
testing removed-on-SIGPIPE
"$MPCC" --mpcc-force-pipeline --mpcc-dryrun -c a.cu -o p.o 2>&1 | head -c 1 >/dev/null
sleep 1
empty && passed || fail "left $(ls "$T/tmp")"

testing parallel-compiles-share-nothing
nvcc -c a.cu -o n.o
for i in 1 2 3 4; do "$MPCC" --mpcc-force-pipeline -c a.cu -o p$i.o & done
wait
ok=1
for i in 1 2 3 4; do same n.o p$i.o || ok=0; done
[ $ok = 1 ] && empty && passed || fail "objects differ"

testing keep-keeps-original-ptx-beside
mkdir kd
"$MPCC" --mpcc-force-pipeline --keep --keep-dir kd -c -arch=sm_90 a.cu -o k.o &&
	[ -e kd/a.ptx ] && [ -e kd/a.orig.ptx ] && cmp -s kd/a.ptx kd/a.orig.ptx && empty &&
	passed || fail "$(ls kd)"
finish
