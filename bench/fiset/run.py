#!/usr/bin/env python3
"""Build, run and compare the fiset bench kernels (python3 stdlib only).

  run.py build DIR   compile every variant into DIR (no GPU needed)
  run.py run DIR     run them interleaved, compare with the f64 build, write
                     DIR/results.tsv and print the markdown tables
  run.py all DIR     both

Variants of each kernel K (K.cu, REAL = double unless said):
  f64        nvcc -O3 -arch=ARCH K.cu: the original
  f32        the same source with -DREAL=float: the all-f32 build (data in
             f32 too), the ideal of the paper's Eq. 3
  floatlit   (heat only) the source with its double literals written as floats
  auto, best, all
             mpcc-opt -p fiset:sets=S on nvcc -ptx K.cu, assembled by ptxas,
             launched from the f64 binary (BENCH_CUBIN, see ../bench.h)
  set=I      each set alone (sets=[I]), for every set mpcc-opt -d fiset lists
Each round runs every variant once, in turn; the speedup of a variant is the
median over ROUNDS (7) rounds of t(f64) / t(variant) of the same round, so
slow drifts of the clock cancel. Errors are against the f64 output: max and
mean relative error, and digits = -log10(max relative error).
The model's prediction for ARCH (and for PREDICT_ARCHS, default sm_86 sm_89)
comes from mpcc-opt's report of each variant.

Environment: NVCC, PTXAS, MPCC_OPT, ARCH (sm_90), KERNELS, ROUNDS (7),
SIZE_SCALE (divides each program's default size), SEED, FAST_MATH (1: every
nvcc run, the reference's and the PTX fiset reads, takes -use_fast_math: cicc
then writes the casts as cvt.ftz.f64.f32 and cvt.rn.ftz.f32.f64, issue 33).
"""
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import math

HERE = os.path.dirname(os.path.abspath(__file__))
KERNELS = ['nbody', 'lj', 'flux', 'divsqrt', 'axpy', 'heat', 'held', 'bounded']
DEFAULT_N = {'nbody': 32768, 'lj': 16384, 'flux': 1 << 22, 'divsqrt': 1 << 22,
             'axpy': 1 << 24, 'heat': 1 << 24, 'held': 1 << 20, 'bounded': 1 << 20}
KNAME = {'nbody': 'bodyForce', 'lj': 'ljForce'}


def env(name, default):
    v = os.environ.get(name)
    return v if v else default


def tool(name, var):
    return os.environ.get(var) or shutil.which(name) or '/usr/local/cuda/bin/' + name


NVCC = tool('nvcc', 'NVCC')
PTXAS = tool('ptxas', 'PTXAS')
ARCH = env('ARCH', 'sm_90')
PREDICT = env('PREDICT_ARCHS', 'sm_86 sm_89').split()
FAST = env('FAST_MATH', '') not in ('', '0')


def sh(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode:
        sys.stderr.write('$ %s\n%s%s' % (' '.join(cmd), r.stdout, r.stderr))
        raise SystemExit('run.py: error: %s failed (exit %d)' % (cmd[0], r.returncode))
    return r


def mpcc_opt():
    p = os.environ.get('MPCC_OPT')
    if p:
        return p
    for c in ('../../build/mpcc-opt', '../../build-release/mpcc-opt'):
        c = os.path.join(HERE, c)
        if os.path.exists(c):
            return c
    raise SystemExit('run.py: error: set MPCC_OPT to the mpcc-opt to use')


def kernels():
    ks = env('KERNELS', ' '.join(KERNELS)).split()
    for k in ks:
        if k not in KERNELS:
            raise SystemExit("run.py: error: unknown kernel '%s'" % k)
    return ks


def setids(ptx):
    """the set ids of the kernel, from mpcc-opt -d fiset"""
    r = sh([mpcc_opt(), ptx, '-p', 'fiset', '-d', 'fiset', '--arch', ARCH])
    return [int(l.split('\t')[2]) for l in r.stdout.splitlines() if l.startswith('set\t')]


def opt(d, k, v, sets):
    """mpcc-opt with sets=S on K.ptx into K.V.cubin; the report's predictions"""
    src = os.path.join(d, k + '.ptx')
    t = os.path.join(d, k + '.' + v.replace('=', ''))
    rep = t + '.report.json'
    if os.path.exists(rep):
        os.remove(rep)
    archs = ['--arch', ARCH] + sum((['--arch', a] for a in PREDICT), [])
    sh([mpcc_opt(), src, '-p', 'fiset:sets=' + sets, '--report', rep, '-o', t + '.ptx'] + archs)
    sh([PTXAS, '-O3', '-arch=' + ARCH, '-o', t + '.cubin', t + '.ptx'])


def build(d):
    os.makedirs(d, exist_ok=True)
    sh([env('CC', 'cc'), '-O2', '-o', os.path.join(d, 'cmp'), os.path.join(HERE, '..', 'cmp.c'), '-lm'])
    vj = os.path.join(d, 'variants.json')
    var = json.load(open(vj)) if os.path.exists(vj) else {}
    for k in kernels():
        src = os.path.join(HERE, k + '.cu')
        base = [NVCC, '-O3', '-arch=' + ARCH, '-I', HERE] + (['-use_fast_math'] if FAST else [])
        out = os.path.join(d, k)
        sh(base + ['-o', out + '.f64', src])
        if k == 'heat':
            sh(base + ['-DFLOATLIT', '-o', out + '.floatlit', src])
        else:
            sh(base + ['-DREAL=float', '-o', out + '.f32', src])
        sh(base + ['-ptx', '-o', out + '.ptx', src])
        vs = ['auto', 'best', 'all']
        for v in vs:
            opt(d, k, v, v)
        ids = setids(out + '.ptx')
        for i in ids:
            opt(d, k, 'set=%d' % i, '[%d]' % i)
        var[k] = ['f64', 'floatlit' if k == 'heat' else 'f32'] + vs + ['set=%d' % i for i in ids]
        print('built', k, var[k], flush=True)
    with open(os.path.join(d, 'variants.json'), 'w') as f:
        json.dump(var, f)


def run_one(d, k, v, seed):
    out = os.path.join(d, k)
    e = dict(os.environ)
    e.pop('BENCH_CUBIN', None)
    if v in ('f64', 'f32', 'floatlit'):
        exe = out + '.' + v
    else:
        exe = out + '.f64'
        e['BENCH_CUBIN'] = out + '.' + v.replace('=', '') + '.cubin'
    n = DEFAULT_N[k] // int(env('SIZE_SCALE', '1'))
    res = out + '.' + v.replace('=', '') + '.out'
    r = subprocess.run([exe, str(n), str(seed), res], capture_output=True, text=True, env=e)
    if r.returncode:
        raise SystemExit('run.py: error: %s %s failed:\n%s%s' % (k, v, r.stdout, r.stderr))
    return float(re.search(r'time_ms=([0-9.eE+-]+)', r.stdout).group(1)), res


def compare(d, ref, res):
    out = sh([os.path.join(d, 'cmp'), 'd', ref, res]).stdout
    m = dict(kv.split('=') for kv in out.split())
    return int(m['unwritten']), float(m['mean']), float(m['max'])


def predicted(d, k, v):
    """the model's kernel prediction per arch from the report, or {}"""
    rep = os.path.join(d, k + '.' + v.replace('=', '') + '.report.json')
    if not os.path.exists(rep):
        return {}, None
    for line in open(rep):
        j = json.loads(line)
        st = j.get('stats') or {}
        return st.get('predicted', {}), st
    return {}, None


def run(d):
    seed = int(env('SEED', '12345'))
    var = json.load(open(os.path.join(d, 'variants.json')))
    rows = []
    for k in kernels():
        times = {v: [] for v in var[k]}
        outs = {}
        for r in range(int(env('ROUNDS', '7'))):
            for v in var[k]:
                ms, outs[v] = run_one(d, k, v, seed)
                times[v].append(ms)
        ideal = None
        for v in var[k]:
            ratio = statistics.median(a / b for a, b in zip(times['f64'], times[v]))
            if v in ('f32', 'floatlit'):
                ideal = ratio
            bad, mean, mx = compare(d, outs['f64'], outs[v])
            pred, st = predicted(d, k, v)
            sets = st.get('set', []) if st else []
            low = [s for s in sets if s.get('lowered')]
            ops = sum(s['ops'] for s in low)
            casts = sum(s['casts'] for s in low)
            rac = (ops / casts) if casts else (float('inf') if ops else float('nan'))
            pct = (100 * (ratio - 1) / (ideal - 1)) if ideal and ideal != 1 and k != 'heat' else float('nan')
            digits = -math.log10(mx) if mx > 0 else float('inf')
            rows.append(dict(kernel=k, variant=v, ms=statistics.median(times[v]), speedup=ratio,
                             ideal_pct=pct, unwritten=bad, mean=mean, max=mx, digits=digits,
                             sets=','.join(str(s['id']) for s in low), ops=ops, casts=casts, rac=rac,
                             pred=pred))
            print('%s\t%s\t%.4f\t%.3f\t%.2e\t%.2e\t%d\t%s' % (k, v, rows[-1]['ms'], ratio, mean, mx, bad,
                                                         json.dumps(pred)), flush=True)
    with open(os.path.join(d, 'results.tsv'), 'w') as f:
        f.write('kernel\tvariant\ttime_ms\tspeedup\tideal_pct\tunwritten\tmean_rel\tmax_rel\tdigits\t'
                'sets\tops\tcasts\tr_ac\tpredicted\n')
        for r in rows:
            f.write('%s\t%s\t%.4f\t%.4f\t%.1f\t%d\t%.3e\t%.3e\t%.2f\t%s\t%d\t%d\t%.2f\t%s\n' % (
                r['kernel'], r['variant'], r['ms'], r['speedup'], r['ideal_pct'], r['unwritten'],
                r['mean'], r['max'], r['digits'], r['sets'], r['ops'], r['casts'], r['rac'],
                json.dumps(r['pred'])))
    table(rows)


def table(rows):
    a = ARCH.replace('sm_', 'sm_')
    print('\n| kernel | variant | sets | ops | casts | r_ac | predicted %s | measured | %% of ideal | digits | max rel err | mean rel err | %s |'
          % (a, ' | '.join('predicted ' + p for p in PREDICT)))
    print('|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|%s' % ('---:|' * len(PREDICT)))
    for r in rows:
        p = r['pred']
        f = lambda x: ('%.3fx' % x) if isinstance(x, (int, float)) else '-'
        print('| %s | %s | %s | %d | %d | %s | %s | %.3fx | %s | %.1f | %.2e | %.2e | %s |%s' % (
            r['kernel'], r['variant'], r['sets'] or '-', r['ops'], r['casts'],
            '%.2f' % r['rac'] if not math.isnan(r['rac']) else '-', f(p.get(ARCH)), r['speedup'],
            '%.0f%%' % r['ideal_pct'] if not math.isnan(r['ideal_pct']) else '-', r['digits'],
            r['max'], r['mean'], ' | '.join(f(p.get(x)) for x in PREDICT),
            ' UNWRITTEN=%d' % r['unwritten'] if r['unwritten'] else ''))


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ('build', 'run', 'all'):
        sys.stderr.write(__doc__)
        return 2
    d = os.path.abspath(sys.argv[2])
    if sys.argv[1] in ('build', 'all'):
        build(d)
    if sys.argv[1] in ('run', 'all'):
        run(d)
    return 0


if __name__ == '__main__':
    sys.exit(main())
