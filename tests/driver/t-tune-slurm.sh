#!/bin/sh
# mpcc-tune --launcher "srun ..." against a real Slurm (issue 27): a
# one-node cluster of Debian's slurm-wlm on localhost (munged, slurmctld,
# slurmd, started here as root, in a private directory, on free ports),
# running the fake program's trials (tune-fake/fake.sh). This is the
# recipe of mpcc-tune(1), SLURM. The node has four fake GPUs (a gres of
# four character devices that are not GPUs: Slurm gives each step one, as
# CUDA_VISIBLE_DEVICES) and says it has 8 CPUs, so that four steps run at
# once on two cores: --jobs 4 inside an allocation (issue 48) runs each
# trial as a step on one of its GPUs, and keeps what --jobs 4 keeps here.
# Skipped, with the reason, where the daemons cannot start (not root, no
# slurm-wlm or munge: install them with scripts/install-deps.sh --test);
# MPCC_REQUIRE_SLURM=1 (CI) makes that a failure.
. "$(dirname "$0")/lib.sh"
: "${MPCC_TUNE:?set MPCC_TUNE to the mpcc-tune executable}"
FAKE="$MPCC_SRC/tests/driver/tune-fake"

cannot() {
	echo "cannot start a Slurm here: $*"
	[ -n "$MPCC_REQUIRE_SLURM" ] && exit 1
	echo "skipped"
	exit 77
}
[ "$(id -u)" = 0 ] || cannot "munged and slurmd must run as root (CI runs as root)"
for p in /usr/sbin/munged /usr/sbin/slurmctld /usr/sbin/slurmd srun sinfo; do
	command -v "$p" >/dev/null || cannot "no $p (scripts/install-deps.sh --test installs slurm-wlm and munge)"
done

S=$T/slurm
mkdir -p "$S/state" "$S/spool"
chmod 755 "$T" "$S"
pids=
stop() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	for p in $pids; do wait "$p" 2>/dev/null; done
	rm -rf "$T"
}
trap stop EXIT INT TERM

# two free TCP ports for slurmctld and slurmd
ports=$(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(" ".join(str(x.getsockname()[1]) for x in s))' 2>/dev/null) || ports="$((20000 + $$ % 20000)) $((20001 + $$ % 20000))"
set -- $ports
node=$(hostname -s)

dd if=/dev/urandom of="$S/munge.key" bs=1024 count=1 2>/dev/null && chmod 400 "$S/munge.key"
cat >"$S/slurm.conf" <<EOF
ClusterName=mpcctest
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$1
SlurmdPort=$2
AuthType=auth/munge
AuthInfo=socket=$S/munge.sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool
SlurmctldPidFile=$S/slurmctld.pid
SlurmdPidFile=$S/slurmd.pid
SlurmctldLogFile=$S/slurmctld.log
SlurmdLogFile=$S/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SlurmdParameters=config_overrides
GresTypes=gpu
NodeName=$node NodeAddr=127.0.0.1 CPUs=8 Gres=gpu:4 State=UNKNOWN
PartitionName=mpcc Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
cat >"$S/gres.conf" <<EOF
AutoDetect=off
NodeName=$node Name=gpu File=/dev/null,/dev/zero,/dev/full,/dev/urandom
EOF
SLURM_CONF=$S/slurm.conf
export SLURM_CONF

/usr/sbin/munged -F --force --key-file="$S/munge.key" --socket="$S/munge.sock" \
	--pid-file="$S/munged.pid" --seed-file="$S/munged.seed" --log-file="$S/munged.log" >"$S/munged.out" 2>&1 &
pids="$pids $!"
/usr/sbin/slurmctld -D -f "$S/slurm.conf" >"$S/slurmctld.out" 2>&1 &
pids="$pids $!"
/usr/sbin/slurmd -D -f "$S/slurm.conf" -N "$node" >"$S/slurmd.out" 2>&1 &
pids="$pids $!"
i=0
until [ "$(sinfo -h -N -o %t 2>/dev/null)" = idle ]; do
	i=$((i + 1))
	if [ "$i" -gt 60 ]; then
		cannot "the node did not come up in 30 s: $(sinfo -N 2>&1 | tail -1);" \
			"$(tail -3 "$S/slurmctld.log" "$S/slurmd.log" "$S/slurmctld.out" "$S/slurmd.out" "$S/munged.out" 2>&1)"
	fi
	sleep 0.5
done

testing "srun runs a job on the one-node cluster"
if out=$(srun -N1 -n1 sh -c 'echo "job $SLURM_JOB_ID"' 2>&1) && echo "$out" | grep -q '^job [0-9]'; then
	passed
else
	fail "$out"
fi

testing "mpcc-tune --launcher srun runs every trial as a Slurm job (--jobs 2)"
d=$T/tune
mkdir -p "$d" && cp "$FAKE/k.cu" "$FAKE/fake.sh" "$d/"
(cd "$d" && FAKE_LOG=$d/runs.log "$MPCC_TUNE" \
	--build "mkdir -p \$MPCC_TUNE_DIR && $MPCC -arch=sm_90 -ptx k.cu -o \$MPCC_TUNE_DIR/k.ptx" \
	--run "sh fake.sh \$MPCC_TUNE_DIR/k.ptx" --time 'time_ms=([0-9.]+)' --qos 2.55e-4 --runs 1 \
	--min-share 1 --search exhaustive --step 16 --jobs 2 --build-jobs 2 --dry-run --slow 20 \
	--launcher "srun -N1 -n1 --job-name=mpcc-tune" >out 2>err)
runs=$(wc -l <"$d/runs.log" 2>/dev/null)
jobs=$(grep -c 'slurm_job=[0-9]' "$d/runs.log" 2>/dev/null)
if ! grep -q '^| hot(int, double const\*, double\*) | sfu | exhaustive | [0-9]* | hot sfu lambda=32 |' "$d/out"; then
	fail "no lambda 32: $(tail -5 "$d/err")"
elif [ -z "$runs" ] || [ "$runs" != "$jobs" ] || [ "$runs" -lt 20 ]; then
	fail "$jobs of $runs runs were Slurm jobs: $(head -3 "$d/runs.log")"
elif ! grep -q '^confirmation: 7 interleaved rounds .*: confirmed$' "$d/out"; then
	fail "$(grep -e confirm "$d/err" | tail -3)"
else
	passed
fi
# the three kernels of t-tune-gpus.sh, each trial in its own directory
FAKE3="mkdir -p \$MPCC_TUNE_DIR && $MPCC -arch=sm_90 -ptx three.cu -o \$MPCC_TUNE_DIR/k.ptx"
three() {
	d=$T/$1
	shift
	mkdir -p "$d" && cp "$FAKE/fake.sh" "$d/" && cat "$FAKE/k.cu" "$FAKE/sets.cu" "$FAKE/flat.cu" >"$d/three.cu"
	(cd "$d" && FAKE_SLEEP=0.5 FAKE_LOG=$d/runs.log "$@" "$MPCC_TUNE" --build "$FAKE3" \
		--run "sh fake.sh \$MPCC_TUNE_DIR/k.ptx" --time 'time_ms=([0-9.]+)' --qos 2.55e-4 --runs 1 \
		--min-share 1 --build-jobs 4 --transform auto --jobs 4 --slow 20 >out 2>err)
}
# rules DIR: the profile's rules, one line
rules() { grep -v '^ *#' "$T/$1/.mpcc.yaml" 2>/dev/null | tr -s ' \n' ' '; }

# salloc: the session inside an allocation of the four GPUs, no --launcher
three alloc salloc --quiet -N1 -n4 --gpus=4
three here env -u SLURM_JOB_ID

testing "--jobs 4 inside an allocation: every run a step on one of its GPUs, the same answer as here"
runs=$(wc -l <"$T/alloc/runs.log" 2>/dev/null)
steps=$(grep -c 'slurm_job=[0-9]' "$T/alloc/runs.log" 2>/dev/null)
gpus=$(cut -d' ' -f1 "$T/alloc/runs.log" 2>/dev/null | sort -u | tr '\n' ' ')
if ! grep -q "^mpcc-tune: note: Slurm job [0-9]*: each run is a step of its own on one GPU of the allocation" "$T/alloc/err" ||
   ! grep -q '^mpcc-tune: 3 kernels searched side by side' "$T/alloc/err"; then
	fail "$(head -3 "$T/alloc/err"; tail -3 "$T/alloc/err")"
elif [ -z "$runs" ] || [ "$runs" != "$steps" ] || [ "$gpus" != "CUDA_VISIBLE_DEVICES=0 CUDA_VISIBLE_DEVICES=1 CUDA_VISIBLE_DEVICES=2 CUDA_VISIBLE_DEVICES=3 " ]; then
	fail "$steps of $runs runs were steps, on $gpus"
elif [ -z "$(rules here)" ] || [ "$(rules alloc)" != "$(rules here)" ]; then
	fail "inside: $(rules alloc); here: $(rules here)"
else
	passed
fi

# rounds 1-4 at once, then 5-7: each round's two runs, in the copies of
# the two programs made for it (the trials' own for the first), on one GPU
testing "--jobs 4 inside an allocation: four rounds of the confirmation at once, each on one GPU"
tail -14 "$T/alloc/runs.log" >"$T/alloc/confirm.log"
bad= gpus=
for b in "1 8" "9 14"; do
	set -- $b
	sed -n "$1,$2p" "$T/alloc/confirm.log" >"$T/alloc/batch"
	for slot in t p1-t p2-t p3-t; do
		g=$(grep " dir=$slot[0-9]* " "$T/alloc/batch" | cut -d' ' -f1 | sort -u)
		[ -z "$g" ] && continue
		[ "$(echo "$g" | wc -l)" = 1 ] || bad="$bad $slot:$(echo $g)"
		[ "$1" = 1 ] && gpus="$gpus $g"
	done
done
if [ -z "$bad" ] && [ "$(echo $gpus | tr ' ' '\n' | sort -u | wc -l)" = 4 ] &&
   grep -q 'interleaved rounds (each in its own directory; 4 rounds at once, each its two runs in turn as one command of the launcher, on one GPU' "$T/alloc/err"; then
	passed
else
	fail "rounds on more than one GPU:$bad; the first four on$gpus; $(grep 'interleaved rounds' "$T/alloc/err")"
fi
finish
