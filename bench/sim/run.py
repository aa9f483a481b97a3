#!/usr/bin/env python3
"""ccmpi-sim against the emulated cluster, and ccmpi's algorithms at scale (issue 29).

Validation (--validate DIR ...): DIR is the output of a ccmpi-bench run of ccmpi with
every algorithm forced (`ccmpi-bench SCENARIO --impls ccmpi --ccmpi-algorithms all --rate
RATE --out DIR`); its results.csv rows "ccmpi" (automatic choice) and "ccmpi:ALG" are run
again in ccmpi-sim with the same hosts, size, rate (--rate, as the bench run had it) and
algorithm, and the two times are compared. Algorithms that are no schedules (shm, node)
have no simulated figure.

Scale (--scale): Alltoall, Allgather and Bcast, each algorithm, at --ranks on one switch
and on a two-level fat tree with 4:1 oversubscribed uplinks (--tree), at --scale-rate.
Algorithms whose message count grows as n^2 stop at --max-n2 ranks. The table names the
fastest algorithm at every rank count: where the choice changes.

Writes OUT/validation.csv, OUT/scale.csv, OUT/README.md and OUT/scale.svg (matplotlib);
--report-only rewrites README.md and the plot from the CSV files.

Usage: bench/sim/run.py [--build BUILD] [--validate DIR ...] [--rate 25mbit]
                        [--scale] [--ranks 64,256,1024,4096,16384,65536] [--out docs/results/sim]
"""
import argparse
import csv
import datetime
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tools"))
from ccmpi_tools import runs  # noqa: E402 (needs the path above)

# (collective as ccmpi-bench names it, ccmpi-sim's name)
COLLS = {"alltoall": "alltoall", "allgather": "allgather", "bcast": "bcast"}

# At scale: collective, size, and each algorithm with the most ranks it runs at here
# (algorithms whose messages grow as n^2 stop at --max-n2; `linear` alltoall, every flow at
# once, at 64: every flow shares links with all others, and each start or end reshares them).
N2 = None  # the --max-n2 bound
SCALE = [
    ("alltoall", 65536, [("pairwise", N2), ("phased", N2), ("bruck", N2), ("linear", 64)]),
    ("allgather", 65536, [("ring", N2), ("recursive_doubling", 0), ("bruck", 0), ("phased", N2)]),
    ("bcast", 1048576, [("binomial", 0), ("chain", 0), ("binary_tree", 0),
                        ("scatter_ring_allgather", N2), ("scatter_rd_allgather", 0), ("mcast", 0)]),
]


def sim(build, args):
    """time in ms, or None with the error text."""
    p = subprocess.run([os.path.join(build, "bin", "ccmpi-sim"), *args], capture_output=True,
                       text=True, timeout=1800)
    m = re.search(r"^time_ms=([0-9.]+)$", p.stdout, re.M)
    if p.returncode != 0 or not m:
        return None, p.stderr.strip()
    return float(m.group(1)), ""


def validate(a):
    rows = []
    for d in a.validate:
        with open(os.path.join(d, "results.csv")) as f:
            for r in csv.DictReader(f):
                impl = r["impl"]
                if impl != "ccmpi" and not impl.startswith("ccmpi:"):
                    continue
                coll = COLLS.get(r["test"])
                if not coll:
                    continue
                alg = impl.split(":", 1)[1] if ":" in impl else "auto"
                measured = float(r["median_us"]) / 1e3
                t, err = sim(a.build, ["--hosts", r["hosts"], "--rate", a.rate, "--algorithm",
                                       alg, coll, r["size"]])
                rows.append({"run": os.path.basename(d.rstrip("/")),
                             "collective": coll, "hosts": r["hosts"], "size": r["size"],
                             "algorithm": alg, "measured_ms": "%.4g" % measured,
                             "simulated_ms": "" if t is None else "%.4g" % t,
                             "error": "" if t is None else "%+.3f" % (t / measured - 1),
                             "note": err[:120]})
                print("%-9s %3s %8s %-24s %10.3f %10s %s" % (
                    coll, r["hosts"], r["size"], alg, measured,
                    "-" if t is None else "%.3f" % t, rows[-1]["error"] or err[:60]))
    return rows


def scale(a):
    rows = []
    for coll, size, algs in SCALE:
        for topo in ["one-switch", a.tree]:
            for n in a.ranks:
                for alg, most in algs:
                    most = a.max_n2 if most is N2 else most
                    if most and n > most:
                        continue
                    if alg == "scatter_rd_allgather" and n & (n - 1):
                        continue
                    start = time.monotonic()
                    t, err = sim(a.build, ["--hosts", str(n), "--rate", a.scale_rate,
                                           "--topology", topo, "--sharing", a.sharing,
                                           "--algorithm", alg, coll, str(size)])
                    took = time.monotonic() - start
                    rows.append({"collective": coll, "size": size, "topology": topo, "ranks": n,
                                 "algorithm": alg, "time_ms": "" if t is None else "%.5g" % t,
                                 "sim_seconds": "%.1f" % took, "note": err[:120]})
                    print("%-9s %-14s %6d %-24s %12s  (%.1f s) %s" % (
                        coll, topo, n, alg, rows[-1]["time_ms"] or "-", took, err[:60]))
    return rows


def write_csv(path, rows):
    if not rows:
        return
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)


def read_csv(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return list(csv.DictReader(f))


def report(out, meta):
    val = read_csv(os.path.join(out, "validation.csv"))
    sc = read_csv(os.path.join(out, "scale.csv"))
    lines = ["# ccmpi-sim: against the emulated cluster, and at scale", ""]
    lines += ["ccmpi-sim (docs/simulator.md) runs ccmpi's own collective schedules on a flow-level "
              "model of switched Ethernet.", ""]
    for part in ("validation", "scale"):
        m = meta["runs"].get(part)
        if m:
            lines += ["- %s: `%s`, %s; load average before %s, after %s." % (
                part, m["command"], m["date"], m["load_before"], m["load_after"])]
    lines += [""]
    val_meta = meta["runs"].get("validation", {})
    sc_meta = meta["runs"].get("scale", {})
    if val:
        lines += ["## Validation", "",
                  "The emulated cluster's figures are a ccmpi-bench run with every algorithm "
                  "forced (%s); each row again in ccmpi-sim with the same hosts, size, rate and "
                  "algorithm (auto = the library's rules in both). Times in ms; error = "
                  "simulated / measured - 1." % ", ".join(val_meta.get("validate_dirs", [])), ""]
        ok = [r for r in val if r["error"]]
        big = [r for r in ok if int(r["size"]) >= 65536]
        within = lambda rs: sum(1 for r in rs if abs(float(r["error"])) <= 0.15)  # noqa: E731
        lines += ["How the measured side and the costs were taken, and why the rows that miss "
                  "do: [NOTES.md](NOTES.md).", "",
                  "- every row with a simulated figure: %d of %d within 15%%" % (within(ok), len(ok)),
                  "- rows of 64 KiB and more (bandwidth-bound): %d of %d within 15%%"
                  % (within(big), len(big)), ""]
        lines += ["| run | collective | hosts | size | algorithm | measured | simulated | error |",
                  "| --- | --- | ---: | ---: | --- | ---: | ---: | ---: |"]
        for r in val:
            lines.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
                r.get("run", ""), r["collective"], r["hosts"], r["size"], r["algorithm"],
                r["measured_ms"],
                r["simulated_ms"] or "–", r["error"] or ("no schedule" if r["note"] else "–")))
        lines.append("")
    if sc:
        lines += ["## At scale", "",
                  "Rate %s per cable; `%s`: leaf switches of RADIX hosts whose uplinks carry "
                  "1/OVERSUB of their hosts' rate; links shared %s (ccmpi-sim --sharing: a "
                  "fat tree's uplinks connect too many flows for exact max-min at these "
                  "sizes). Times in ms; the fastest algorithm in bold. "
                  "Algorithms whose messages grow as n^2 stop at %s ranks (simulation time), "
                  "Alltoall's `linear` (every flow at once) at 64." % (
                      sc_meta["scale_rate"], sc_meta["tree"], sc_meta.get("sharing", "max-min"),
                      sc_meta["max_n2"]), ""]
        keys = []
        for r in sc:
            k = (r["collective"], r["size"], r["topology"])
            if k not in keys:
                keys.append(k)
        for coll, size, topo in keys:
            sub = [r for r in sc if (r["collective"], r["size"], r["topology"]) == (coll, size, topo)]
            algs = []
            for r in sub:
                if r["algorithm"] not in algs:
                    algs.append(r["algorithm"])
            ranks = sorted({int(r["ranks"]) for r in sub})
            lines += ["### %s %s bytes, %s" % (coll, size, topo), "",
                      "| ranks | " + " | ".join(algs) + " | fastest |",
                      "| ---: | " + " | ".join("---:" for _ in algs) + " | --- |"]
            prev = None
            for n in ranks:
                cells, best, bt = [], None, None
                for alg in algs:
                    m = [r for r in sub if int(r["ranks"]) == n and r["algorithm"] == alg]
                    t = float(m[0]["time_ms"]) if m and m[0]["time_ms"] else None
                    cells.append(t)
                    if t is not None and (bt is None or t < bt):
                        best, bt = alg, t
                text = ["–" if t is None else ("**%.4g**" % t if t == bt else "%.4g" % t)
                        for t in cells]
                change = "" if prev in (None, best) else " (changes)"
                lines.append("| %d | %s | %s%s |" % (n, " | ".join(text), best, change))
                prev = best
            lines.append("")
        lines += ["![time against ranks](scale.svg)", ""]
        plot(out, sc)
    lines += ["## Machine", "", "- %s; ccmpi-sim is single-threaded" % meta.get("cpu", "")]
    with open(os.path.join(out, "README.md"), "w") as f:
        f.write("\n".join(lines) + "\n")


def plot(out, sc):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    panels = []
    for r in sc:
        k = (r["collective"], r["topology"])
        if k not in panels:
            panels.append(k)
    fig, axes = plt.subplots(1, len(panels), figsize=(4 * len(panels), 3.6), squeeze=False)
    for ax, (coll, topo) in zip(axes[0], panels):
        sub = [r for r in sc if r["collective"] == coll and r["topology"] == topo and r["time_ms"]]
        for alg in sorted({r["algorithm"] for r in sub}):
            pts = sorted((int(r["ranks"]), float(r["time_ms"])) for r in sub if r["algorithm"] == alg)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=alg)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title("%s, %s" % (coll, topo), fontsize=9)
        ax.set_xlabel("ranks")
        ax.set_ylabel("ms")
        ax.legend(fontsize=6)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "scale.svg"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(REPO, "build"))
    ap.add_argument("--validate", nargs="*", default=[])
    ap.add_argument("--rate", default="25mbit", help="the rate of the validation runs")
    ap.add_argument("--scale", action="store_true")
    ap.add_argument("--ranks", default="64,256,1024,4096,16384,65536")
    ap.add_argument("--scale-rate", default="10gbit")
    ap.add_argument("--tree", default="fat-tree:32:4")
    ap.add_argument("--max-n2", type=int, default=4096)
    ap.add_argument("--sharing", default="per-link",
                    help="how flows share links at scale (ccmpi-sim --sharing)")
    ap.add_argument("--out", default=os.path.join(REPO, "docs", "results", "sim"))
    ap.add_argument("--report-only", action="store_true")
    a = ap.parse_args()
    a.ranks = [int(x) for x in a.ranks.split(",")]
    os.makedirs(a.out, exist_ok=True)
    meta_path = os.path.join(a.out, "meta.json")
    # Each part (validation, scale) keeps its own command and loads: a run of one part
    # leaves the other's figures and record as they were.
    meta = {"runs": {}}
    if os.path.exists(meta_path):
        with open(meta_path) as f:
            meta = json.load(f)
    if a.report_only:
        report(a.out, meta)
        return
    meta["cpu"] = runs.cpu_model()
    command = " ".join(["bench/sim/run.py"] + sys.argv[1:])
    for part, wanted, run, extra in (
            ("validation", a.validate, validate, {"validate_dirs": a.validate}),
            ("scale", a.scale, scale, {"scale_rate": a.scale_rate, "tree": a.tree,
                                       "max_n2": a.max_n2, "sharing": a.sharing})):
        if not wanted:
            continue
        m = {"command": command, "date": datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M UTC"),
             "load_before": runs.load_averages(), **extra}
        write_csv(os.path.join(a.out, part + ".csv"), run(a))
        m["load_after"] = runs.load_averages()
        meta["runs"][part] = m
    with open(meta_path, "w") as f:
        json.dump(meta, f, indent=1)
    report(a.out, meta)
    print("wrote", a.out)


if __name__ == "__main__":
    main()
