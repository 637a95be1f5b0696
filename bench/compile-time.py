#!/usr/bin/env python3
"""Compile time of mpcc against nvcc on one large file (issue 26, item 9).

usage: bench/compile-time.py FILE.cu [--runs N] [--mpcc MPCC] [--base MPCC]
                             [--rule 'fiset: {}'] [-- NVCC FLAGS...]

Compiles FILE.cu to an object (-c) with nvcc, with mpcc under a policy of
one rule on every kernel (kernels: ["*"] and the --rule block), and the same
with --mpcc-report; with --base, also with another mpcc (the one before a
change). Runs are interleaved, so that load drifts evenly over them; the
medians of wall time and of CPU time (user + system of every process the
compile ran) and their ratios to nvcc's are printed. Then where the time
goes, from the file's own PTX (nvcc -ptx, the first -gencode target of the
flags): one ptxas of it (what each whole-module ptxas -v run for the report
costs), parsing and printing it (mpcc-opt), and the rule's pass on it.

Nothing is written beside FILE.cu: everything goes to a temporary directory.
Public files of the kind the issue names (many template kernels): cuda-samples'
reduction_kernel.cu (213 kernels, int/float/double), SHOC's MaxFlops.cu (36
kernels, float and double; needs -I to SHOC's src/common and src/cuda/common).
"""
import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def timed(cmd, cwd, env=None):
    """(wall seconds, CPU seconds of the children) of running cmd"""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.monotonic()
    r = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    wall = time.monotonic() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode:
        sys.exit("%s failed:\n%s" % (" ".join(cmd), r.stderr))
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("cu")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--mpcc", default=os.path.join(top, "build", "mpcc"))
    ap.add_argument("--base", help="another mpcc to compare (e.g. before a change)")
    ap.add_argument("--rule", default="fiset: {}", help="the rule's transform block")
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    a = ap.parse_args(argv[:cut])
    a.flags = argv[cut + 1:]
    cu = os.path.abspath(a.cu)
    flags = a.flags or ["-arch=sm_90"]
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    mpcc_opt = os.path.join(os.path.dirname(os.path.abspath(a.mpcc)), "mpcc-opt")
    env = dict(os.environ, PATH=os.path.dirname(nvcc) + os.pathsep + os.environ["PATH"])
    for v in ("MPCC_POLICY", "MPCC_PROFILE", "MPCC_REPORT", "MPCC_FORCE_PIPELINE", "MPCC_SET"):
        env.pop(v, None)
    with tempfile.TemporaryDirectory() as t:
        pol = os.path.join(t, "policy.yaml")
        with open(pol, "w") as f:
            f.write('version: 1\ndefault_profile: p\nprofiles:\n  p:\n    rules:\n'
                    '      - kernels: ["*"]\n        %s\n' % a.rule)
        rep = os.path.join(t, "report.jsonl")
        common = flags + ["-c", cu]
        runs = {
            "nvcc": [nvcc] + common + ["-o", "n.o"],
            "rule": [a.mpcc, "--mpcc-policy=" + pol] + common + ["-o", "r.o"],
            "rule + report": [a.mpcc, "--mpcc-policy=" + pol, "--mpcc-report=" + rep]
                             + common + ["-o", "p.o"],
        }
        if a.base:
            runs["base rule"] = [a.base, "--mpcc-policy=" + pol] + common + ["-o", "b.o"]
            runs["base rule + report"] = [a.base, "--mpcc-policy=" + pol,
                                          "--mpcc-report=" + rep] + common + ["-o", "q.o"]
        got = {k: [] for k in runs}
        load0 = os.getloadavg()
        for _ in range(a.runs):
            for k, cmd in runs.items():
                if os.path.exists(rep):
                    os.unlink(rep)
                got[k].append(timed(cmd, t, env))
        lines = open(rep).read().splitlines() if os.path.exists(rep) else []
        applied = sum('"applied":true' in l for l in lines)
        print("file %s, %d runs each, flags %s, rule %s" % (os.path.basename(cu), a.runs,
                                                           " ".join(flags), a.rule))
        print("load average %.1f before, %.1f after, %d cores" % (load0[0], os.getloadavg()[0],
                                                                  os.cpu_count()))
        print("report: %d lines, %d applied" % (len(lines), applied))
        nw = statistics.median(w for w, _ in got["nvcc"])
        nc = statistics.median(c for _, c in got["nvcc"])
        print("%-20s %9s %7s %9s %7s" % ("", "wall", "", "cpu", ""))
        for k, v in got.items():
            w, c = statistics.median(x for x, _ in v), statistics.median(y for _, y in v)
            print("%-20s %8.2fs %6.2fx %8.2fs %6.2fx" % (k, w, w / nw, c, c / nc))

        # where the time goes
        arch = next((f.split("=", 1)[1] for f in flags if f.startswith("-arch=sm_")), "sm_90")
        ptx = os.path.join(t, "k.ptx")
        subprocess.run([nvcc] + flags + ["-ptx", cu, "-o", ptx], cwd=t, env=env, check=True)
        n = sum(1 for l in open(ptx) if ".entry" in l)
        print("\nwhere the time goes (%s: %d kernels, %d lines of PTX), median of %d:"
              % (arch, n, sum(1 for _ in open(ptx)), a.runs))
        parts = {
            "ptxas (one module)": ["ptxas", "-arch=" + arch, "-m64", ptx, "-o", os.path.join(t, "x.cubin")],
            "parse + print": [mpcc_opt, ptx, "-o", os.path.join(t, "rt.ptx")],
            "parse + pass + print": [mpcc_opt, ptx, "-p", a.rule.split(":")[0], "-o",
                                     os.path.join(t, "p.ptx")],
        }
        for k, cmd in parts.items():
            v = [timed(cmd, t, env) for _ in range(a.runs)]
            print("%-22s %6.3fs wall %6.3fs cpu" % (k, statistics.median(x for x, _ in v),
                                                    statistics.median(y for _, y in v)))


if __name__ == "__main__":
    main()
