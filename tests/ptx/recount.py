#!/usr/bin/env python3
"""recount.py: every pass's report is a fact about the PTX it hands on.

  recount.py SRC MPCC_OPT WORKDIR

Compiles the kernels of SRC/tests/kernels and SRC/bench (bench/*.cu,
bench/fiset, bench/half2; not bench/fiset/probe.cu, a probe of the
machine's rates whose unrolled loops take ptxas minutes) with nvcc -ptx
-arch=sm_90, plain and with -use_fast_math. On each PTX, mpcc-opt runs
every setting of `mpcc-opt --settings` alone, and each pair of passes in
both orders, each pass with every setting it lists (sfu gets the source's
fast-math PTX as fast=), with --report.
Then, on the output, this script counts again what each report says the
output holds:
  fiset   f64_ops_after: the kernel's f64 arithmetic instructions
  sfu     its approximations (the sum of its counts): the .approx and
          div.full instructions of the fast body and the functions it calls,
          less the f64 ones the fast-math PTX had there itself (cicc's
          seeds of accurate algorithms, which sfu does not count; fiset
          may lower an f64 approximation into its f32 form, one for one)
  half2   x2: the kernel's f16x2 and bf16x2 arithmetic and compares
          (less, in a kernel that had such arithmetic itself, its own, run
          once or once per lane)
and a kernel a single pass left alone must be the kernel as it came in.
Every output must assemble with ptxas. Prints one line per mismatch
("FAIL ...") and a summary; exit status 1 if anything failed.
"""
import concurrent.futures as cf
import glob
import hashlib
import json
import os
import re
import subprocess
import sys

ARITH = {'add', 'sub', 'mul', 'fma', 'mad', 'div', 'sqrt', 'rcp', 'rsqrt', 'min', 'max', 'abs',
         'neg', 'copysign', 'setp'}
X2 = {'f16x2', 'bf16x2'}


def sh(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def compile_all(src, work):
    """nvcc -ptx of every source, plain and fast-math: [(ptx, fastptx)]"""
    cus = sorted(glob.glob(os.path.join(src, 'tests/kernels/*.cu')) +
                 glob.glob(os.path.join(src, 'bench/*.cu')) +
                 glob.glob(os.path.join(src, 'bench/fiset/*.cu')) +
                 glob.glob(os.path.join(src, 'bench/half2/*.cu')))
    cus = [c for c in cus if not c.endswith('/fiset/probe.cu')]
    jobs = []
    for cu in cus:
        base = os.path.join(work, os.path.basename(os.path.dirname(cu)) + '_' +
                            os.path.basename(cu)[:-3])
        for flag, out in (([], base + '.ptx'), (['-use_fast_math'], base + '.fast.ptx')):
            if not os.path.exists(out):
                jobs.append(['nvcc', '-ptx', '-arch=sm_90', '-I', os.path.dirname(cu)] + flag +
                            [cu, '-o', out])
    with cf.ThreadPoolExecutor(os.cpu_count()) as ex:
        for cmd, r in zip(jobs, ex.map(sh, jobs)):
            if r.returncode:
                print('FAIL nvcc', ' '.join(cmd), r.stderr.strip()[:300])
    pairs = []
    for cu in cus:
        base = os.path.join(work, os.path.basename(os.path.dirname(cu)) + '_' +
                            os.path.basename(cu)[:-3])
        if os.path.exists(base + '.ptx') and os.path.exists(base + '.fast.ptx'):
            pairs.append((base + '.ptx', base + '.fast.ptx'))
            pairs.append((base + '.fast.ptx', base + '.fast.ptx'))
    return pairs


# ---- reading PTX ----

def functions(text):
    """name -> (is_entry, [instruction lines]) of every function with a body"""
    out = {}
    for m in re.finditer(r'^[ \t]*(?:\.visible\s+|\.weak\s+|\.extern\s+)*\.(entry|func)\s+'
                         r'(?:\([^)]*\)\s*)?([A-Za-z_$][\w$]*)', text, re.M):
        i = text.find('{', m.end())
        semi = text.find(';', m.end())
        if i < 0 or (0 <= semi < i and text[m.end():semi].count('(') ==
                     text[m.end():semi].count(')')):
            continue   # a declaration
        depth, j = 0, i
        while j < len(text):
            c = text[j]
            if c == '{':
                depth += 1
            elif c == '}':
                depth -= 1
                if depth == 0:
                    break
            elif c == '/' and text.startswith('//', j):
                j = text.find('\n', j)
                continue
            j += 1
        body = text[i + 1:j]
        out[m.group(2)] = (m.group(1) == 'entry', statements(body))
    return out


def statements(body):
    """the statements of a body, one a string, labels on their own"""
    body = re.sub(r'//[^\n]*', '', body)
    out = []
    for s in body.split(';'):
        s = ' '.join(s.split())
        while True:
            s = s.lstrip('{} ')
            m = re.match(r'^([\w$]+):\s*', s)
            if not m:
                break
            out.append(m.group(1) + ':')
            s = s[m.end():]
        if s:
            out.append(s)
    return out


def opcode(stmt):
    """the instruction's name ("add.rn.f64"), None for a label or directive"""
    s = re.sub(r'^@!?%\w+\s+', '', stmt)
    if not s or s[0] in '.$%' or s.endswith(':'):
        return None
    return s.split()[0]


def f64ops(stmts):
    n = 0
    for s in stmts:
        op = opcode(s)
        if not op:
            continue
        p = op.split('.')
        if p[0] in ARITH and 'f64' in p[1:]:
            n += 1
        elif p[0] == 'cvt' and p[-2:] == ['f64', 'f64'] and re.match(r'r[nzmp]i$', p[1]):
            n += 1
    return n


def approx(stmt, f64=None):
    """an approximation (of type f64 when f64 is True, not f64 when False)"""
    op = opcode(stmt)
    if not op or not ('approx' in op.split('.')[1:] or op.startswith('div.full')):
        return False
    return f64 is None or f64 == ('f64' in op.split('.'))


def x2ops(stmts):
    n = 0
    for s in stmts:
        op = opcode(s)
        if op and op.split('.')[0] not in ('cvt', 'mov') and X2 & set(op.split('.')[1:]):
            n += 1
    return n


def callees(stmts):
    """the functions the statements call"""
    out = set()
    for s in stmts:
        op = opcode(s)
        if op and op.split('.')[0] == 'call':
            rest = re.sub(r'\([^)]*\)', '', s[s.index(op) + len(op):])
            m = re.search(r'[A-Za-z_$][\w$]*', rest)
            if m:
                out.add(m.group(0))
    return out


def reach(fns, stmts, f64=None):
    """the approximations of stmts and of the functions they call"""
    n, seen, work = sum(approx(x, f64) for x in stmts), set(), list(callees(stmts))
    while work:
        f = work.pop()
        if f in seen or f not in fns:
            continue
        seen.add(f)
        n += sum(approx(x, f64) for x in fns[f][1])
        work += list(callees(fns[f][1]))
    return n


def fastcount(fns, twin, kernel, kept):
    """the approximations sfu put in the kernel's fast code"""
    stmts = fns[kernel][1]
    if kept != 'fast':
        at = [k for k, s in enumerate(stmts) if s.startswith('$SFU_FAST')]
        if not at:
            return None
        stmts = stmts[at[0]:]
    return reach(fns, stmts) - reach(twin, twin[kernel][1], True)


# ---- one run ----

def run(opt, job):
    ptx, fast, steps, out, rep = job
    args = [opt, '--verify', ptx, '-o', out, '--report', rep]
    for s in steps:
        if s.split(':')[0] == 'sfu':
            s += (',' if ':' in s else ':') + 'fast=' + fast
        args += ['-p', s]
    if os.path.exists(rep):
        os.remove(rep)
    r = sh(args)
    return r


def check(job, r, infns, seen):
    ptx, fast, steps, out, rep = job
    what = '%s [%s]' % (os.path.basename(ptx), ' -> '.join(steps))
    fails = []
    if r.returncode:
        return ['FAIL mpcc-opt %s: %s' % (what, r.stderr.strip()[-300:])], 0
    text = open(out).read()
    fns = functions(text)
    lines = [json.loads(l) for l in open(rep)] if os.path.exists(rep) else []
    n = 0
    for rp in lines:
        k, t, st = rp['mangled'], rp['transform'], rp.get('stats') or {}
        if k not in fns:
            fails.append('FAIL %s: %s: no kernel %s in the output' % (what, t, k))
            continue
        if not rp['applied']:
            if len(steps) == 1 and fns[k][1] != infns[k][1]:
                fails.append('FAIL %s: %s left %s alone (%s), but it changed' %
                             (what, t, k, rp['reason']))
            continue
        n += 1
        if t == 'fiset':
            have = f64ops(fns[k][1])
            if have != st['f64_ops_after']:
                fails.append('FAIL %s: fiset on %s: f64_ops_after %d, the output holds %d' %
                             (what, k, st['f64_ops_after'], have))
        elif t == 'sfu':
            said = sum(st[x] for x in ('transcendental', 'div', 'sqrt', 'rcp', 'f64_div',
                                       'f64_rcp', 'f64_sqrt', 'f64_rsqrt'))
            have = fastcount(fns, functions(open(fast).read()), k, st['kept'])
            if st['kept'] == 'accurate':
                if fns[k][1] != infns[k][1] and len(steps) == 1:
                    fails.append('FAIL %s: sfu kept %s accurate, but it changed' % (what, k))
            elif have != said:
                fails.append('FAIL %s: sfu on %s: %d approximations, the fast body holds %s' %
                             (what, k, said, have))
        elif t == 'half2':
            # a kernel written with x2 arithmetic of its own (bench/half2/hand.cu)
            # keeps it, once or once per lane: only what pairing made is counted
            have, own = x2ops(fns[k][1]), x2ops(infns[k][1])
            if own and own <= have - st['x2'] <= 2 * own:
                continue
            if have != st['x2']:
                fails.append('FAIL %s: half2 on %s: x2 %d, the output holds %d' %
                             (what, k, st['x2'], have))
    h = hashlib.md5(text.encode()).hexdigest()
    if text != open(ptx).read() and h not in seen:
        seen[h] = (out, what)
    return fails, n


def main():
    src, opt, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    pairs = compile_all(src, work)
    settings = sh([opt, '--settings']).stdout.split()
    passof = lambda s: {x.split(':')[0] for x in s.split(';')}
    runs = [[s] for s in settings]
    singles = [s for s in settings if ';' not in s]
    runs += [[a, b] for a in singles for b in singles if not passof(a) & passof(b)]
    jobs = []
    for i, (ptx, fast) in enumerate(pairs):
        for j, steps in enumerate(runs):
            steps = [x for s in steps for x in s.split(';')]
            o = os.path.join(work, 'o%d_%d' % (i, j))
            jobs.append((ptx, fast, steps, o + '.ptx', o + '.json'))
    fails, reports, seen = [], 0, {}
    infns = {p: functions(open(p).read()) for p, _ in pairs}
    with cf.ThreadPoolExecutor(os.cpu_count()) as ex:
        for job, r in zip(jobs, ex.map(lambda j: run(opt, j), jobs)):
            f, n = check(job, r, infns[job[0]], seen)
            for x in f:
                print(x, flush=True)
            fails += f
            reports += n
    asm = [['ptxas', '-arch=sm_90', out, '-o', os.devnull] for out, _ in seen.values()]
    with cf.ThreadPoolExecutor(os.cpu_count()) as ex:
        for (out, what), r in zip(seen.values(), ex.map(sh, asm)):
            if r.returncode:
                fails.append('FAIL ptxas %s: %s' % (what, r.stderr.strip()[:300]))
                print(fails[-1], flush=True)
    print('recount: %d PTX, %d runs, %d applied reports recounted, %d distinct outputs '
          'assembled, %d failed' % (len(pairs), len(jobs), reports, len(seen), len(fails)))
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main())
