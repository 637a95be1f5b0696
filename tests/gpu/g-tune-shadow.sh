#!/bin/sh
# Does the shadow build rank FISets like their measured error? For each
# FP64 kernel of fiset's bench (bench/fiset/K.cu): mpcc-opt -d fiset lists
# the sets and the ordinals of their instructions; a build through mpcc with
# MPCC_SET=shadow gives each instruction's error total (the ordinals are the
# same: both count the instructions of nvcc's PTX); a set's shadow error is
# the sum over its instructions, divided by the launches and the threads.
# Each set is then lowered alone (mpcc-opt -p fiset:sets=[ID], ptxas, run
# through BENCH_CUBIN) and its output compared with the f64 one. Spearman's
# rank correlation between the two, over every set of every kernel and per
# kernel with 3 sets or more, must be at least 0.8. Also the shadow run's
# time against the plain one (its overhead).
# Needs fiset (bench/fiset and mpcc-opt's -d fiset): skipped (77) without.
# TUNE_OUT=DIR keeps shadow.tsv and the logs.
. "$(dirname "$0")/gpu-lib.sh"
need_gpu
MPCC=${MPCC:-$MPCC_BUILD/mpcc}
FISET_SRC=${FISET_SRC:-$MPCC_SRC}
FISET_OPT=${FISET_OPT:-$MPCC_OPT}
command -v python3 >/dev/null || { echo "skipped: no python3"; exit 77; }
[ -f "$FISET_SRC/bench/fiset/nbody.cu" ] || { echo "skipped: no bench/fiset (fiset is not in this tree)"; exit 77; }
export PATH="$(dirname "$NVCC"):$PATH"
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
O=${TUNE_OUT:-$d/out}
mkdir -p "$O"
cc -O2 -o "$d/cmp" "$MPCC_SRC/bench/cmp.c" -lm || fail "cmp"
cp -r "$FISET_SRC/bench/fiset" "$d/fiset" && cp "$FISET_SRC/bench/bench.h" "$d/" || fail "copy"
cd "$d/fiset" || exit 1
printf 'kernel\tset\tops\tshadow_total\tlaunches\tthreads\tshadow_norm\tmean_rel\tmax_rel\n' >"$O/shadow.tsv"
: >"$O/shadow.times"

for spec in nbody:32768 lj:16384 divsqrt:4194304 flux:4194304 axpy:16777216 heat:16777216; do
	k=${spec%%:*} n=${spec#*:}
	echo "testing the shadow ranking on $k ..."
	"$NVCC" -O3 -arch=sm_90 -o "$k.f64" "$k.cu" || fail "nvcc $k"
	"$NVCC" -O3 -arch=sm_90 -ptx -o "$k.ptx" "$k.cu" || fail "nvcc -ptx $k"
	"$FISET_OPT" "$k.ptx" -p fiset:sets=all -d fiset -o /dev/null >"$k.sets" 2>/dev/null
	grep -q '^set	' "$k.sets" || { echo "skipped: '$FISET_OPT' has no fiset dump"; exit 77; }
	MPCC_SET='shadow:measure=error' "$MPCC" -O3 -arch=sm_90 -o "$k.shadow" "$k.cu" || fail "shadow build $k"
	./"$k.f64" "$n" 12345 "$k.plain.out" >"$k.plain.txt" || fail "run $k"
	./"$k.shadow" "$n" 12345 "$k.shadow.out" >"$k.shadow.txt" || fail "shadow run $k"
	echo "$k plain $(grep -o 'time_ms=[0-9.]*' "$k.plain.txt") shadow $(grep -o 'time_ms=[0-9.]*' "$k.shadow.txt") $("$d/cmp" d "$k.plain.out" "$k.shadow.out")" >>"$O/shadow.times"
	for id in $(awk -F'\t' '$1 == "set" { print $3 }' "$k.sets"); do
		"$FISET_OPT" "$k.ptx" -p "fiset:sets=[$id]" -o "$k.s$id.ptx" 2>/dev/null &&
			"$PTXAS" -O3 -arch=sm_90 -o "$k.s$id.cubin" "$k.s$id.ptx" || fail "set $id of $k"
		BENCH_CUBIN=$k.s$id.cubin ./"$k.f64" "$n" 12345 "$k.s$id.out" >/dev/null || fail "run set $id of $k"
		"$d/cmp" d "$k.plain.out" "$k.s$id.out" >"$k.s$id.cmp"
	done
	python3 - "$k" "$n" >>"$O/shadow.tsv" <<'EOF' || fail "tables of $k"
import sys
k, n = sys.argv[1], int(sys.argv[2])
sets, ops = {}, {}
for l in open(k + '.sets'):
    f = l.rstrip('\n').split('\t')
    if f[0] == 'set':
        sets[int(f[2])] = int(f[3].split('=')[1])
    elif f[0] == 'op':
        ops[int(f[3])] = int(f[2])
tot, launches = {}, 1
for l in open(k + '.shadow.txt'):
    f = l.split()
    if len(f) == 5 and f[0] == 'mpcc-shadow':
        tot[int(f[2])] = float(f[4])
        launches = int(f[3])
for s in sorted(sets):
    t = sum(v for o, v in tot.items() if ops.get(o) == s)
    c = dict(x.split('=') for x in open('%s.s%d.cmp' % (k, s)).read().split())
    print('%s\t%d\t%d\t%.6g\t%d\t%d\t%.6g\t%s\t%s' % (k, s, sets[s], t, launches, n,
          t / launches / n, c['mean'], c['max']))
EOF
done
cp "$d"/fiset/*.sets "$O/" 2>/dev/null
python3 - "$O/shadow.tsv" >"$O/spearman.txt" <<'EOF'
import sys
rows = [l.rstrip('\n').split('\t') for l in open(sys.argv[1])][1:]
def ranks(v):
    order = sorted(range(len(v)), key=lambda i: v[i])
    r = [0.0] * len(v)
    i = 0
    while i < len(v):
        j = i
        while j + 1 < len(v) and v[order[j + 1]] == v[order[i]]:
            j += 1
        for q in range(i, j + 1):
            r[order[q]] = (i + j) / 2.0 + 1
        i = j + 1
    return r
def spearman(x, y):
    rx, ry = ranks(x), ranks(y)
    n = len(x)
    mx, my = sum(rx) / n, sum(ry) / n
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    vx = sum((a - mx) ** 2 for a in rx) ** 0.5
    vy = sum((b - my) ** 2 for b in ry) ** 0.5
    return cov / (vx * vy) if vx and vy else float('nan')
rho = spearman([float(r[6]) for r in rows], [float(r[7]) for r in rows])
print('all\t%d sets\tspearman %.3f' % (len(rows), rho))
for k in sorted(set(r[0] for r in rows)):
    rk = [r for r in rows if r[0] == k]
    if len(rk) >= 3:
        print('%s\t%d sets\tspearman %.3f' % (k, len(rk),
              spearman([float(r[6]) for r in rk], [float(r[7]) for r in rk])))
EOF
cat "$O/shadow.tsv" "$O/spearman.txt" "$O/shadow.times"
rho=$(awk -F'\t' '$1 == "all" { sub("spearman ", "", $3); print $3 }' "$O/spearman.txt")
python3 -c "import sys; sys.exit(0 if float('$rho') >= 0.8 else 1)" || fail "Spearman $rho < 0.8"
echo "passed: shadow ranking, Spearman $rho over every set"
