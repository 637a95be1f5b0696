#!/usr/bin/env python3
"""show.py REPORT MPCC_OUT NVCC_OUT: what mpcc did to each kernel of the
example, from mpcc's report (one JSON line per kernel, transform and arch),
and, when the apps ran (MPCC_OUT.txt, NVCC_OUT.txt say), each kernel's
median time against the nvcc build and the error of its output (the files
KERNEL.f32/.f64 in the two directories). Mean relative error is over the
elements the nvcc build made nonzero."""
import array
import json
import os
import sys


def shortname(demangled):
    return demangled.split("(")[0].split(" ")[-1]


def params_text(p):
    words = []
    for k, v in p.items():
        if isinstance(v, list):
            v = "[" + ",".join(str(x) for x in v) + "]"
        elif isinstance(v, bool):
            v = "true" if v else "false"
        words.append(f"{k}={v}")
    return " ".join(words) or "-"


def read_report(path):
    """{kernel: {transform: {"params", "archs", "why"}}}"""
    done = {}
    if not os.path.exists(path):
        return done
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            k = shortname(r.get("demangled") or r["mangled"])
            t = done.setdefault(k, {}).setdefault(
                r["transform"], {"params": r.get("params") or {}, "archs": [], "why": []})
            if r.get("applied"):
                t["archs"].append((r.get("arch") or "?").replace("compute_", "sm_"))
            else:
                t["why"].append(f'{r.get("arch")}: {r.get("reason")}')
    return done


def read_times(txt):
    """({kernel: ms}, ran)"""
    times = {}
    if not os.path.exists(txt):
        return times, False
    with open(txt) as f:
        for line in f:
            w = line.split()
            if len(w) == 3 and w[0] == "time":
                times[w[1]] = float(w[2])
    return times, bool(times)


def load(path):
    a = array.array("d" if path.endswith(".f64") else "f")
    with open(path, "rb") as f:
        a.frombytes(f.read())
    return a


def errors(mine, ref):
    """(max abs error, mean relative error) of mine against ref"""
    a, b = load(mine), load(ref)
    if len(a) != len(b):
        return None
    maxabs, rel, n = 0.0, 0.0, 0
    for x, y in zip(a, b):
        d = abs(x - y)
        maxabs = max(maxabs, d)
        if y != 0:
            rel += d / abs(y)
            n += 1
    return maxabs, rel / max(n, 1)


def outputs(d):
    return {os.path.splitext(f)[0]: os.path.join(d, f)
            for f in (os.listdir(d) if os.path.isdir(d) else [])}


def table(rows):
    w = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for j, r in enumerate(rows):
        print("  ".join(c.ljust(w[i]) if i < 4 else c.rjust(w[i]) for i, c in enumerate(r)).rstrip())
        if j == 0:
            print("  ".join("-" * x for x in w))


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: show.py REPORT MPCC_OUT NVCC_OUT")
    report, mdir, ndir = sys.argv[1:]
    done = read_report(report)
    mt, ran = read_times(mdir + ".txt")
    nt, _ = read_times(ndir + ".txt")
    mo, no = outputs(mdir), outputs(ndir)
    kernels = list(mt) + sorted(k for k in done if k not in mt)
    head = ["kernel", "transform", "parameters", "archs"]
    if ran:
        head += ["nvcc ms", "mpcc ms", "speedup", "max abs err", "mean rel err"]
    rows = [head]
    notes = []
    for k in kernels:
        ts = done.get(k) or {"none": {"params": {}, "archs": [], "why": []}}
        for t, d in ts.items():
            row = [k, t if d["archs"] or t == "none" else t + " (not applied)",
                   params_text(d["params"]) if t != "none" else "-",
                   ", ".join(d["archs"]) or "-"]
            notes += [f"{k}: {t}: {w}" for w in d["why"]]
            if ran:
                e = errors(mo[k], no[k]) if k in mo and k in no else None
                m, n = mt.get(k), nt.get(k)
                row += [f"{n:.4f}" if n else "?", f"{m:.4f}" if m else "?",
                        f"{n / m:.2f}x" if m and n else "?",
                        f"{e[0]:.3g}" if e else "?", f"{e[1]:.3g}" if e else "?"]
            rows.append(row)
    if not done:
        print(f"no transform in {report}: built with plain nvcc, or no policy rule applied")
    print(f"what mpcc did to each kernel ({report})" +
          (f", and the run against the nvcc build (median of 15 launches):" if ran else ":"))
    table(rows)
    for n in notes:
        print("  left alone on " + n)
    if not ran:
        print("run skipped: no CUDA device; the table says what was transformed")


if __name__ == "__main__":
    main()
