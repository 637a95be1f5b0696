#!/usr/bin/env python3
"""Build, check and time the half2 bench kernels (python3 stdlib only).

  run.py build DIR   compile every kernel and pair it with mpcc-opt (no GPU needed)
  run.py check DIR   every variant on every launch shape: error against the
                     original on random inputs, every output written
                     (DIR/check.tsv)
  run.py time DIR    interleaved timing, ROUNDS rounds of every variant in
                     turn; medians and ratios against the original cubin
                     (DIR/time.tsv, and a markdown table on stdout)
  run.py all DIR     the three

Variants of each kernel K (original PTX from nvcc -O3 -arch=ARCH -ptx):
  plain     the program as nvcc built it
  orig      the original PTX assembled by ptxas, loaded at run time: the
            baseline of every ratio (the variants are loaded the same way)
  f16 bf16 f32 f16-blocks ...
            mpcc-opt -p half2:type=T[,pairing=blocks],force=true, assembled
            by ptxas; the advice without force is recorded beside it (does
            the pass apply it, and why not)

Environment: NVCC, PTXAS, MPCC_OPT, ARCH (sm_90), KERNELS, VARIANTS,
ROUNDS (7), SEED, SIZE_SCALE (divides each program's default size).
"""
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.dirname(HERE)

# name: (source, nvcc flags, the launch shapes checked; the first is the timed one)
KERNELS = {
    'poly128': ('poly.cu', ['-DDEG=128'], ['256', '255', '97', '1024', '1']),
    'poly32': ('poly.cu', ['-DDEG=32'], ['256', '255', '33']),
    'bsl': ('bsl.cu', [], ['256', '255', '33']),
    'saxpy': ('saxpy.cu', [], ['256', '255', '33']),
    'conv2d': ('conv2d.cu', [], ['32,8', '31,7', '16,16', '8,8,2']),
    'tail': ('tail.cu', [], ['100', '33', '255', '8,4,3', '1']),
    'shm': ('shm.cu', [], ['256', '255', '97', '1024', '33']),
    'scoped': ('scoped.cu', [], ['256', '255', '97', '1024', '33']),
}
# pairs written by hand (hand.cu), timed against poly128's original: what
# pairing can reach with the launch kept as it is
HAND = {
    'hand-f16-grid': ['-DHAND=1'],
    'hand-f32-grid': ['-DHAND=2'],
    'hand-f16-block': ['-DHAND=3'],
    'hand-f16-blocks': ['-DHAND=4'],
}
PAIRS = {
    'f16': 'type=f16',
    'bf16': 'type=bf16',
    'f32': 'type=f32',
    'f16-blocks': 'type=f16,pairing=blocks',
    'f32-blocks': 'type=f32,pairing=blocks',
}


def env(name, default):
    v = os.environ.get(name)
    return v if v else default


def tool(name, var):
    return os.environ.get(var) or shutil.which(name) or '/usr/local/cuda/bin/' + name


NVCC = tool('nvcc', 'NVCC')
PTXAS = tool('ptxas', 'PTXAS')
ARCH = env('ARCH', 'sm_90')


def mpcc_opt():
    p = os.environ.get('MPCC_OPT')
    if p:
        return p
    for c in ('../../build/mpcc-opt', '../../build-release/mpcc-opt'):
        c = os.path.join(HERE, c)
        if os.path.exists(c):
            return c
    raise SystemExit('run.py: error: set MPCC_OPT to the mpcc-opt to use')


def sh(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode:
        sys.stderr.write('$ %s\n%s%s' % (' '.join(cmd), r.stdout, r.stderr))
        raise SystemExit('run.py: error: %s failed (exit %d)' % (cmd[0], r.returncode))
    return r


def kernels():
    ks = env('KERNELS', ' '.join(KERNELS)).split()
    for k in ks:
        if k not in KERNELS:
            raise SystemExit("run.py: error: unknown kernel '%s'" % k)
    return ks


def hands():
    return env('HANDS', ' '.join(HAND)).split()


def variants():
    vs = env('VARIANTS', 'f16 bf16 f32 f16-blocks').split()
    for v in vs:
        if v not in PAIRS:
            raise SystemExit("run.py: error: unknown variant '%s'" % v)
    return vs


def note(stderr):
    """the pass's note on the kernel: 'applied: {...}' or 'left alone: why'"""
    m = re.search(r"half2: kernel '[^']*' (applied|left alone): (.*)", stderr)
    return (m.group(1), m.group(2).strip()) if m else ('?', stderr.strip())


def build(d):
    os.makedirs(d, exist_ok=True)
    sh([env('CC', 'cc'), '-O2', '-o', os.path.join(d, 'h2cmp'), os.path.join(HERE, 'h2cmp.c'), '-lm'])
    for k in hands():
        sh([NVCC, '-O3', '-arch=' + ARCH, '-I', HERE] + HAND[k] + ['-o', os.path.join(d, k + '.plain'),
                                                              os.path.join(HERE, 'hand.cu')])
    advice = {}
    for k in kernels():
        src, flags, _ = KERNELS[k]
        src = os.path.join(HERE, src)
        base = [NVCC, '-O3', '-arch=' + ARCH, '-I', HERE] + flags
        out = os.path.join(d, k)
        sh(base + ['-o', out + '.plain', src])
        sh(base + ['-ptx', '-o', out + '.ptx', src])
        sh([PTXAS, '-O3', '-arch=' + ARCH, '-o', out + '.orig.cubin', out + '.ptx'])
        for v in variants():
            p = 'half2:' + PAIRS[v]
            r = sh([mpcc_opt(), '-v', out + '.ptx', '-p', p, '-o', os.devnull])
            advice[k + '.' + v] = note(r.stderr)
            r = sh([mpcc_opt(), '-v', out + '.ptx', '-p', p + ',force=true', '-o', out + '.' + v + '.ptx'])
            advice[k + '.' + v + '!'] = note(r.stderr)
            sh([PTXAS, '-O3', '-arch=' + ARCH, '-o', out + '.' + v + '.cubin', out + '.' + v + '.ptx'])
        print('built', k, flush=True)
    with open(os.path.join(d, 'advice.json'), 'w') as f:
        json.dump(advice, f, indent=1, sort_keys=True)


def size(k):
    n = {'bsl': 1 << 22, 'tail': (1 << 24) - 37, 'scoped': (1 << 24) - 37}.get(k, 1 << 24)
    return str(n // int(env('SIZE_SCALE', '1')))


def run1(d, k, v, shape, seed, check, res):
    """run variant v of kernel k; its output goes to res; the time in ms"""
    e = dict(os.environ)
    e.pop('BENCH_CUBIN', None)
    e.pop('CHECK', None)
    e['BLOCK'] = shape
    if check:
        e['CHECK'] = '1'
    if v != 'plain':
        e['BENCH_CUBIN'] = os.path.join(d, k + '.' + v + '.cubin')
    cmd = [os.path.join(d, k + '.plain'), size(k), str(seed), res]
    r = subprocess.run(cmd, capture_output=True, text=True, env=e)
    if r.returncode:
        return None, (r.stderr or r.stdout).strip().splitlines()[-1:]
    m = re.search(r'time_ms=([0-9.]+)', r.stdout)
    return float(m.group(1)) if m else None, None


def cmp(d, ref, out):
    r = subprocess.run([os.path.join(d, 'h2cmp'), ref, out], capture_output=True, text=True)
    if r.returncode:
        return None
    return dict(kv.split('=') for kv in r.stdout.split())


def check(d):
    seed = int(env('SEED', '7'))
    rows = []
    bad = 0
    for k in kernels():
        for shape in KERNELS[k][2]:
            ref = os.path.join(d, 'ref.out')
            t, err = run1(d, k, 'plain', shape, seed, True, ref)
            if err:
                print('%s %s plain: %s' % (k, shape, err))
                bad += 1
                continue
            for v in ['orig'] + variants():
                out = os.path.join(d, 'v.out')
                t, err = run1(d, k, v, shape, seed, True, out)
                c = cmp(d, ref, out) if not err else None
                if not c:
                    rows.append([k, v, shape, 'FAILED', '', '', '', '', str(err)])
                    bad += 1
                    continue
                rows.append([k, v, shape, c['unwritten'], c['mean'], c['max'], c['l2'], c['identical'], ''])
                bad += c['unwritten'] != '0'
            print('checked', k, shape, flush=True)
    if 'poly128' in kernels():
        ref = os.path.join(d, 'ref.out')
        run1(d, 'poly128', 'plain', '256', seed, True, ref)
        for k in hands():
            out = os.path.join(d, 'v.out')
            t, err = run1(d, k, 'plain', '256', seed, True, out)
            c = cmp(d, ref, out) if not err else None
            if not c:
                rows.append([k, 'plain', '256', 'FAILED', '', '', '', '', str(err)])
                bad += 1
                continue
            rows.append([k, 'plain', '256', c['unwritten'], c['mean'], c['max'], c['l2'], c['identical'], ''])
    with open(os.path.join(d, 'check.tsv'), 'w') as f:
        f.write('kernel\tvariant\tblock\tunwritten\tmean_rel\tmax_rel\tl2_rel\tidentical\terror\n')
        for r in rows:
            f.write('\t'.join(r) + '\n')
    for r in rows:
        print('%-8s %-11s %-7s unwritten=%s mean=%s max=%s l2=%s identical=%s %s' % tuple(r))
    return bad


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2] if xs else None


def timing(d):
    seed = int(env('SEED', '7'))
    rounds = int(env('ROUNDS', '7'))
    vs = ['orig'] + variants()
    times = {}
    for r in range(rounds):
        for k in kernels():
            shape = KERNELS[k][2][0]
            for v in vs:
                t, err = run1(d, k, v, shape, seed, False, os.devnull)
                if t is not None:
                    times.setdefault((k, v), []).append(t)
        for k in hands():
            t, err = run1(d, k, 'plain', '256', seed, False, os.devnull)
            if t is not None:
                times.setdefault((k, 'plain'), []).append(t)
        print('round', r + 1, 'of', rounds, flush=True)
    advice = json.load(open(os.path.join(d, 'advice.json')))
    lines = ['kernel\tvariant\tblock\tmedian_ms\tmin_ms\tmax_ms\truns\tspeedup\tadvice']
    for k in kernels():
        base = median(times.get((k, 'orig'), []))
        for v in vs:
            ts = times.get((k, v), [])
            if not ts:
                continue
            m = median(ts)
            a = advice.get(k + '.' + v, ('', ''))
            adv = '' if v == 'orig' else ('applied' if a[0] == 'applied' else 'left alone: ' + a[1])
            lines.append('%s\t%s\t%s\t%.4f\t%.4f\t%.4f\t%d\t%.3f\t%s' % (
                k, v, KERNELS[k][2][0], m, min(ts), max(ts), len(ts), base / m if base else 0, adv))
    base = median(times.get(('poly128', 'orig'), []))
    for k in hands():
        ts = times.get((k, 'plain'), [])
        if ts and base:
            m = median(ts)
            lines.append('%s\tplain\t256\t%.4f\t%.4f\t%.4f\t%d\t%.3f\tby hand, against poly128 orig' % (
                k, m, min(ts), max(ts), len(ts), base / m))
    with open(os.path.join(d, 'time.tsv'), 'w') as f:
        f.write('\n'.join(lines) + '\n')
    print('\n'.join(lines))


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ('build', 'check', 'time', 'all'):
        raise SystemExit(__doc__)
    what, d = sys.argv[1], sys.argv[2]
    bad = 0
    if what in ('build', 'all'):
        build(d)
    if what in ('check', 'all'):
        bad = check(d)
    if what in ('time', 'all'):
        timing(d)
    if bad:
        raise SystemExit('run.py: %d checks failed' % bad)


if __name__ == '__main__':
    main()
