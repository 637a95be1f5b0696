#!/usr/bin/env python3
"""Calibrate fiset's model on real programs: per kernel, the speed-up the
model predicts against the one measured, with and without measured facts
(issue 37, item 6). Python 3 stdlib only; the programs are not ours and are
not in the repository: a SPEC file names them.

  calibrate.py measure SPEC OUT   build each program with the timing
                                  instrumentation (shadow measure=time on
                                  every kernel), run it once, and write
                                  OUT/NAME/facts.yaml: each kernel's warps,
                                  trips and ptx hash as fiset rules
  calibrate.py build SPEC OUT     build the variants of each program
  calibrate.py run SPEC OUT       run them: ROUNDS interleaved rounds of the
                                  plain builds, TROUNDS of the timing builds
  calibrate.py table SPEC OUT     the tables (markdown) from OUT/runs.tsv
  calibrate.py tune SPEC OUT      mpcc-tune --transform fiset on each program
                                  (BUDGET, 90s; QOS, 1e-3; METRIC,
                                  mean-rel): the setting it confirms is the
                                  variant "tuned"

SPEC: one program a line, tab-separated: NAME, DIR (its sources, copied),
BUILD (a shell command run in the copy; $CC is the compiler: nvcc or mpcc),
RUN (run in the copy), TIME (a regex whose group 1 is the program's own
time in any unit, or "wall"). '#' starts a comment line.

Variants (each also built with "+t": shadow measure=time on every kernel,
for per-kernel times from %globaltimer):
  base    nvcc
  guess   fiset: {} on every kernel (the model's guesses)
  facts   fiset: {} on every kernel, with each measured kernel's facts
  all     fiset: {sets: all} on every kernel
  tuned   the profile mpcc-tune wrote (built where `tune` ran: the best
          fiset setting it confirms, against which facts is judged)

Per-kernel speed-up: the kernel's time a launch (mpcc-time lines) in base+t
over that in VARIANT+t, median over the timing rounds (a launch: a program
that times a kernel until a time is spent launches a faster one more often).
"% kernel time" weighs each kernel by its time a launch times its launches. The prediction is
fiset's (the report's "predicted" for ARCH) in the variant's build. A kernel
whose launches overlapped another kernel's in base+t or VARIANT+t (several
streams; the spans the mpcc-time lines end with) is "confounded" in the
within-20% column: its time measures its neighbours too (issue 49).
Environment: MPCC (the driver), ARCH (sm_90), ROUNDS (7), TROUNDS (3),
JOBS (builds at once, 8), ONLY (a regex: the variants built or run),
NOTRIPS (set: base+t is built again without the trip counters, as the
other timing builds are; measure's build counts them), MPCC_TUNE (set:
measure takes each program's facts from `mpcc-tune --measure`, fiset's
candidates timed per kernel among them, and base+t is built by build).
"""
import concurrent.futures as cf
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

ARCH = os.environ.get("ARCH", "sm_90")
MPCC = os.environ.get("MPCC", "mpcc")
VARIANTS = ["base", "guess", "facts", "all", "tuned"]


def spec(path):
    progs = []
    for line in open(path):
        if not line.strip() or line.startswith("#"):
            continue
        name, d, build, run, tm = line.rstrip("\n").split("\t")
        progs.append(dict(name=name, dir=d, build=build, run=run, time=tm))
    return progs


def policy(rules):
    text = "version: 1\nroot: true\ndefault_profile: c\nprofiles:\n  c:\n    rules:\n"
    for r in rules:
        text += "      - " + r + "\n"
    return text


def build(p, out, variant, count=False):
    """copy the program, write its policy, build; the report is report.json;
    count: the timing build counts trips (measure's), whatever NOTRIPS says"""
    d = os.path.join(out, p["name"], variant)
    shutil.rmtree(d, ignore_errors=True)
    shutil.copytree(p["dir"], d, symlinks=True)
    v, timed = variant.split("+")[0], variant.endswith("+t")
    rules = []
    if v == "guess" or v == "facts":
        rules.append('{kernels: ["*"], fiset: {}}')
    if v == "facts":
        rules += [r for r in open(os.path.join(out, p["name"], "facts.rules")).read().split("\n") if r]
    if v == "all":
        rules.append('{kernels: ["*"], fiset: {sets: all}}')
    if v == "tuned":
        rules += [r for r in open(os.path.join(out, p["name"], "tuned.rules")).read().split("\n") if r]
    if timed:
        # kernel times alone in the variants; the measure build counts trips
        trips = count or (variant == "base+t" and not os.environ.get("NOTRIPS") and not os.environ.get("MPCC_TUNE"))
        rules.append('{kernels: ["*"], shadow: {measure: time%s}}' % ("" if trips else ", trips: false"))
    cc = "nvcc" if not rules else MPCC
    with open(os.path.join(d, ".mpcc.yaml"), "w") as f:
        f.write(policy(rules) if rules else "version: 1\nroot: true\n")
    env = dict(os.environ, CC=cc, MPCC_REPORT=os.path.join(d, "report.json"))
    t = time.time()
    r = subprocess.run(p["build"], shell=True, cwd=d, env=env, capture_output=True, text=True)
    with open(os.path.join(d, "build.log"), "w") as f:
        f.write(r.stdout + r.stderr)
    return variant, r.returncode, time.time() - t


def run1(p, d):
    t = time.time()
    try:
        r = subprocess.run(p["run"], shell=True, cwd=d, capture_output=True, text=True,
                           timeout=int(os.environ.get("RUN_TIMEOUT", "120")))
    except subprocess.TimeoutExpired:
        return float("nan"), "", 124
    wall = time.time() - t
    if p["time"] == "wall":
        return wall, r.stdout, r.returncode
    m = re.search(p["time"], r.stdout + r.stderr)
    return (float(m.group(1)) if m else float("nan")), r.stdout, r.returncode


def kernels_of(report):
    """mangled -> (demangled, fiset stats or None, shadow stats or None)"""
    ks = {}
    if not os.path.exists(report):
        return ks
    for line in open(report):
        try:
            j = json.loads(line)
        except ValueError:
            continue
        m = j.get("mangled") or j.get("kernel")
        if not m:
            continue
        k = ks.setdefault(m, [j.get("demangled", m), None, None])
        if j.get("transform") == "fiset":
            k[1] = dict(j.get("stats") or {}, applied=j.get("applied"))
        if j.get("transform") == "shadow":
            k[2] = j.get("stats")
    return ks


def timelines(text):
    """per kernel: (launches, ns, warps an SM), trips per loop"""
    t, trips = {}, {}
    for m in re.finditer(r"^mpcc-time (\S+) (\d+) (\d+) (\d+) (\d+) (\d+)", text, re.M):
        k, launches, ns, threads, block, nsm = m.group(1), *map(int, m.groups()[1:])
        blocks = (threads + block - 1) // block if block else 0
        per = (blocks + nsm - 1) // nsm if nsm else 0
        w = min(64, min(per, 32) * ((block + 31) // 32))
        old = t.get(k, (0, 0, 0))
        t[k] = (launches, ns, max(old[2], w))
    for m in re.finditer(r"^mpcc-trips (\S+) (\d+) (\d+) (\d+) (\d+)", text, re.M):
        k, _, loop, heads, entries = m.group(1), *map(int, m.groups()[1:])
        trips.setdefault(k, {})[loop] = heads / entries if entries else 0.0
    return t, trips


def beside(text):
    """the kernels whose launches overlapped another kernel's (several
    streams: each one's time measures the others too), by the spans the
    mpcc-time lines end with (START END); older lines have none"""
    spans = [(int(m.group(2)), int(m.group(3)), m.group(1)) for m in
             re.finditer(r"^mpcc-time (\S+) \d+ \d+ \d+ \d+ \d+ (\d+) (\d+)", text, re.M)]
    spans.sort()
    out, run = set(), []   # run: the spans not ended yet, (end, kernel)
    for s, e, k in spans:
        run = [(f, j) for f, j in run if f > s]
        for f, j in run:
            if j != k:
                out |= {j, k}
        run.append((e, k))
    return out


def fisetrules(pol):
    """the fiset rules of a policy mpcc-tune wrote, one a line"""
    rules, k = [], None
    for line in open(pol):
        m = re.match(r'\s*- kernels: \["(\S+)"\]$', line)
        if m:
            k = m.group(1)
        m = re.match(r"\s+fiset: (\{.*\})$", line)
        if m and k:
            rules.append('{kernels: ["%s"], fiset: %s}' % (k, m.group(1)))
            k = None
    return "".join(r + "\n" for r in rules)


def mpcctune(p, out, what, args):
    """mpcc-tune ARGS on a copy of p in NAME/WHAT (its log tune.log there),
    with an empty root policy; the fiset rules it wrote, its rc and seconds"""
    d = os.path.join(out, p["name"], what)
    shutil.rmtree(d, ignore_errors=True)
    shutil.copytree(p["dir"], d, symlinks=True)
    pol = os.path.join(d, ".mpcc.yaml")
    with open(pol, "w") as f:
        f.write("version: 1\nroot: true\n")
    cmd = [os.environ["MPCC_TUNE"]] + args + ["--build", re.sub(r"^make ", "make -B ", p["build"]),
           "--run", p["run"], "--policy", pol, "--workdir", os.path.join(d, "work")]
    if p["time"] != "wall":   # mpcc-tune's regex is POSIX's and takes the last match
        cmd += ["--time", re.sub(r"^\(\?s\)\.\*", "", p["time"])]
    t = time.time()
    r = subprocess.run(cmd, cwd=d, env=dict(os.environ, CC=MPCC), capture_output=True, text=True)
    open(os.path.join(d, "tune.log"), "w").write(" ".join(cmd) + "\n" + r.stdout + r.stderr)
    return fisetrules(pol), r.returncode, time.time() - t


def tunefacts(p, out):
    """MPCC_TUNE set: the facts of p as mpcc-tune --measure writes them
    (warps, trips, ptx and fiset's candidates timed per kernel, measured),
    its rules copied into NAME/facts.rules; its log in NAME/measure/tune.log"""
    rules, rc, s = mpcctune(p, out, "measure", ["--measure"])
    open(os.path.join(out, p["name"], "facts.rules"), "w").write(rules)
    print("%s: mpcc-tune --measure rc %d in %.0f s, %d rules" % (p["name"], rc, s, rules.count("\n")),
          flush=True)


def tune(progs, out):
    """mpcc-tune --transform fiset on each program: the rules of the profile
    it wrote in NAME/tuned.rules (none: no variant tuned); log NAME/tune/tune.log"""
    for p in progs:
        rules, rc, s = mpcctune(p, out, "tune", [
            "--transform", "fiset", "--qos", os.environ.get("QOS", "1e-3"),
            "--metric", os.environ.get("METRIC", "mean-rel"),
            "--budget", os.environ.get("BUDGET", "90s"), "--runs", "3"])
        log = open(os.path.join(out, p["name"], "tune", "tune.log")).read()
        f = os.path.join(out, p["name"], "tuned.rules")
        if os.path.exists(f):
            os.remove(f)
        if rules:
            open(f, "w").write(rules)
        end = [l for l in log.splitlines() if re.match(r"mpcc-tune: (model within|winner|no )", l)]
        print("%s: mpcc-tune --transform fiset rc %d in %.0f s, %d rules%s" % (
            p["name"], rc, s, rules.count("\n"), "".join("\n  " + l for l in end)), flush=True)


def measure(progs, out):
    if os.environ.get("MPCC_TUNE"):
        for p in progs:
            tunefacts(p, out)
        return
    with cf.ThreadPoolExecutor(int(os.environ.get("JOBS", "8"))) as ex:
        for p, (v, rc, s) in zip(progs, ex.map(lambda p: build(p, out, "base+t", True), progs)):
            print("%s: base+t built rc %d in %.0f s" % (p["name"], rc, s), flush=True)
    for p in progs:
        d = os.path.join(out, p["name"], "base+t")
        tm, text, rc = run1(p, d)
        open(os.path.join(d, "measure.out"), "w").write(text)
        t, trips = timelines(text)
        ks = kernels_of(os.path.join(d, "report.json"))
        rules, total = [], sum(v[1] for v in t.values()) or 1
        for m, (dem, _, sh) in ks.items():
            if m not in t or not sh:
                continue
            facts = ["warps: %d" % t[m][2]]
            n = sh.get("loops", 0)
            if sh.get("counted") and n and all(i in trips.get(m, {}) for i in range(1, n + 1)):
                facts.append("trips: [%s]" % ", ".join("%.4g" % trips[m][i] for i in range(1, n + 1)))
            if sh.get("ptx_hash"):
                facts.append('ptx: "%s"' % sh["ptx_hash"])
            rules.append('{kernels: ["%s"], fiset: {%s}}' % (m, ", ".join(facts)))
            print("%s: %s %.1f%% of kernel time: %s" % (p["name"], dem[:60], 100 * t[m][1] / total,
                                                       ", ".join(facts)), flush=True)
        open(os.path.join(out, p["name"], "facts.rules"), "w").write("".join(r + "\n" for r in rules))
        print("%s: measure run rc %d, time %.4g" % (p["name"], rc, tm), flush=True)


def only(v, p=None, out=None):
    """the variants ONLY (a regex, default all) names; tuned where tune
    wrote rules for p"""
    return re.fullmatch(os.environ.get("ONLY", ".*"), v) and (
        not v.startswith("tuned") or os.path.exists(os.path.join(out, p["name"], "tuned.rules")))


def buildall(progs, out):
    jobs = [(p, v + s) for p in progs for v in VARIANTS for s in ("", "+t")
            if only(v + s, p, out) and ((v + s) != "base+t" or os.environ.get("NOTRIPS") or os.environ.get("MPCC_TUNE"))]
    with cf.ThreadPoolExecutor(int(os.environ.get("JOBS", "8"))) as ex:
        for (p, _), (v, rc, s) in zip(jobs, ex.map(lambda j: build(j[0], out, j[1]), jobs)):
            print("%s: %s built rc %d in %.0f s" % (p["name"], v, rc, s), flush=True)


def runall(progs, out):
    rounds, trounds = int(os.environ.get("ROUNDS", "7")), int(os.environ.get("TROUNDS", "3"))
    with open(os.path.join(out, "runs.tsv"), "a") as f:
        for p in progs:
            for r in range(max(rounds, trounds)):
                for v in VARIANTS:
                    for s in ("", "+t"):
                        if (s and r >= trounds) or (not s and r >= rounds) or not only(v + s, p, out):
                            continue
                        d = os.path.join(out, p["name"], v + s)
                        tm, text, rc = run1(p, d)
                        with open(os.path.join(d, "run%d.out" % r), "w") as o:
                            o.write(text)
                        f.write("%s\t%s\t%d\t%d\t%.6g\n" % (p["name"], v + s, r, rc, tm))
                        f.flush()
            print("%s: ran" % p["name"], flush=True)


def numbers(text, tre):
    """the numbers a run printed, but its timers (lines that name a time or
    a rate) and the instrumentation's lines"""
    timer = re.compile(r"(?i)time|elapsed|\bms\b|\(ms\)|\bsec|\bs\)|/s\b|throughput|gflop|bandwidth")
    keep = [l for l in text.splitlines() if not l.startswith("mpcc-") and not timer.search(l)
            and not (tre != "wall" and re.search(tre, l))]
    return [float(x) for x in re.findall(r"[-+]?\d+\.?\d*(?:[eE][-+]?\d+)?", "\n".join(keep))]


def words(text, tre):
    """what a run says besides its numbers and times (PASS, FAIL), a line
    each, numbers as #: a program's own check that exits 0 either way"""
    timer = re.compile(r"(?i)time|elapsed|\bms\b|\(ms\)|\bsec|\bs\)|/s\b|throughput|gflop|bandwidth")
    num = r"[-+]?\d+\.?\d*(?:[eE][-+]?\d+)?"
    return [" ".join(re.sub(num, "#", l).split()) for l in text.splitlines() if not l.startswith("mpcc-")
            and not timer.search(l) and not (tre != "wall" and re.search(tre, l))]


def verdict(out, n, v, x, rcs, tre):
    """'ok', or how the variant's runs failed: exit status, other words"""
    bad = [r for r in x if rcs.get(r)]
    if bad:
        return "exit status %d in %d of %d rounds" % (rcs[bad[0]], len(bad), len(x))
    for r in x:
        a = words(open(os.path.join(out, n, "base", "run%d.out" % r)).read(), tre)
        c = words(open(os.path.join(out, n, v, "run%d.out" % r)).read(), tre)
        for i, (la, lc) in enumerate(zip(a, c)):
            if la != lc:
                return "says '%s' where nvcc's build says '%s'" % (lc[:40], la[:40])
        if len(a) != len(c):
            return "%d lines of words, nvcc's build %d" % (len(c), len(a))
    return "ok"


def table(progs, out):
    runs, rcs = {}, {}
    for line in open(os.path.join(out, "runs.tsv")):
        n, v, r, rc, tm = line.rstrip("\n").split("\t")
        runs.setdefault((n, v), {})[int(r)] = float(tm)
        rcs.setdefault((n, v), {})[int(r)] = int(rc)
    print("| program | variant | x vs nvcc, median [min-max] | outputs: worst relF against nvcc's of the round | its run |")
    print("|---|---|---|---|---|")
    for p in progs:
        n = p["name"]
        for v in VARIANTS[1:]:
            b, x = runs.get((n, "base"), {}), runs.get((n, v), {})
            ratios = [b[r] / x[r] for r in b if r in x and x[r] > 0]
            if not ratios:
                continue
            worst = 0.0
            for r in x:
                a = numbers(open(os.path.join(out, n, "base", "run%d.out" % r)).read(), p["time"])
                c = numbers(open(os.path.join(out, n, v, "run%d.out" % r)).read(), p["time"])
                num = sum((u - w) ** 2 for u, w in zip(a, c))
                den = sum(u * u for u in a)
                worst = max(worst, (num / den) ** 0.5 if den > 0 else 0.0 if num == 0 else float("inf"))
                if len(a) != len(c):
                    worst = float("inf")
            print("| %s | %s | %.3f [%.3f-%.3f] | %.2e | %s |" % (
                n, v, statistics.median(ratios), min(ratios), max(ratios), worst,
                verdict(out, n, v, x, rcs.get((n, v), {}), p["time"])))
    print()
    print("| program | kernel | % kernel time | warps | trips | variant | predicted | measured | within 20% |")
    print("|---|---|---:|---:|---|---|---:|---:|---|")
    for p in progs:
        n = p["name"]
        base, launches, mixed = {}, {}, set()
        for r in range(int(os.environ.get("TROUNDS", "3"))):
            f = os.path.join(out, n, "base+t", "run%d.out" % r)
            if os.path.exists(f):
                mixed |= beside(open(f).read())
                for k, (nl, ns, _) in timelines(open(f).read())[0].items():
                    base.setdefault(k, []).append(ns / max(nl, 1))
                    launches[k] = nl
        total = sum(statistics.median(v) * launches[k] for k, v in base.items()) or 1
        facts = {}
        for rule in open(os.path.join(out, n, "facts.rules")):
            m = re.match(r'\{kernels: \["(\S+)"\], fiset: \{(.*)\}\}', rule)
            if m:
                facts[m.group(1)] = m.group(2)
        for v in VARIANTS[1:]:
            ks = kernels_of(os.path.join(out, n, v, "report.json"))
            meas, conf = {}, set(mixed)
            for r in range(int(os.environ.get("TROUNDS", "3"))):
                f = os.path.join(out, n, v + "+t", "run%d.out" % r)
                if os.path.exists(f):
                    conf |= beside(open(f).read())
                    for k, (nl, ns, _) in timelines(open(f).read())[0].items():
                        meas.setdefault(k, []).append(ns / max(nl, 1))
            for k, (dem, st, _) in sorted(ks.items(), key=lambda kv: -statistics.median(base.get(kv[0], [0]))):
                if not st or k not in base or k not in meas:
                    continue
                pred = (st.get("predicted") or {}).get(ARCH, 1.0) if st.get("applied") else 1.0
                x = statistics.median(base[k]) / statistics.median(meas[k])
                share = 100 * statistics.median(base[k]) * launches[k] / total
                fm = facts.get(k, "")
                w = re.search(r"warps: (\d+)", fm)
                t = re.search(r"trips: \[([^]]*)\]", fm)
                print("| %s | %s | %.1f | %s | %s | %s | %.3f | %.3f | %s |" % (
                    n, dem.split("(")[0][:40], share, w.group(1) if w else "-",
                    t.group(1)[:30] if t else "-", v, pred, x,
                    "confounded" if k in conf else "yes" if abs(pred / x - 1) <= 0.2 else "no"))


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("measure", "build", "run", "table", "tune"):
        sys.exit(__doc__)
    progs, out = spec(sys.argv[2]), os.path.abspath(sys.argv[3])
    os.makedirs(out, exist_ok=True)
    {"measure": measure, "build": buildall, "run": runall, "table": table, "tune": tune}[sys.argv[1]](progs, out)


if __name__ == "__main__":
    main()
