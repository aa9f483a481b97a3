#!/usr/bin/env python3
"""ccmpi-sim against the emulated cluster, and ccmpi's algorithms at scale (issue 29).

Validation (--validate DIR ...): DIR is the output of a ccmpi-bench run of ccmpi with
every algorithm forced (`ccmpi-bench SCENARIO --impls ccmpi --ccmpi-algorithms all --rate
RATE --out DIR`); its results.csv rows "ccmpi" (automatic choice) and "ccmpi:ALG" are run
again in ccmpi-sim with the same hosts, size, rate (--rate, as the bench run had it) and
algorithm, with TCP sharing every port fairly and with tail drop (--tcp), and the times
are compared. Alltoallv's patterns are coll_bench's own (its --print-pattern, run here on
this machine with the build's mpirun: the same seed gives the same pattern). Algorithms
that are no schedules (shm, node) or that schedule at run time have no simulated figure.

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
sys.path.insert(0, HERE)
from ccmpi_tools import runs  # noqa: E402 (needs the path above)
import emulated  # noqa: E402

# (collective as ccmpi-bench names it, ccmpi-sim's name)
COLLS = {"alltoall": "alltoall", "allgather": "allgather", "bcast": "bcast",
         "scatter": "scatter"}

# At scale: collective, size, and each algorithm with the most ranks it runs at here
# (algorithms whose messages grow as n^2 stop at --max-n2; `linear` alltoall, every flow at
# once, at 64: every flow shares links with all others, and each start or end reshares them).
N2 = None  # the --max-n2 bound
# (collective, size, [(algorithm, most ranks)], TCP models). Alltoall also with tail drop
# (--tcp tail-drop): where flows meet at a port, TCP's retransmission timeouts.
SCALE = [
    ("alltoall", 65536, [("pairwise", N2), ("phased", N2), ("bruck", N2), ("linear", 64)],
     ("fair", "tail-drop")),
    ("allgather", 65536, [("ring", N2), ("recursive_doubling", 0), ("bruck", 0), ("phased", N2),
                          ("mcast", N2)], ("fair",)),
    ("bcast", 1048576, [("binomial", 0), ("chain", 0), ("binary_tree", 0),
                        ("scatter_ring_allgather", N2), ("scatter_rd_allgather", 0), ("mcast", 0)],
     ("fair",)),
]
# Alltoallv at scale: coll_bench's patterns for N ranks (coll_bench TEST --ranks N
# --print-pattern), the phased exchange of a schedule made beforehand against pairwise and
# every message at once, fair and with tail drop. (label, coll_bench test and options,
# msg_unit, most ranks): CC-MPI's random pattern (every ordered pair one message: 2/3 64
# KiB, 1/12 16 KiB, the rest 100 B) has n^2 messages; the CM-5 paper's test set 1 (every
# rank sends 64 KiB to 8 random others) and 3 (an unstructured mesh of 64 points per rank,
# 1 KiB per boundary point) grow as n. coll_bench builds the n x n matrix: 4,096 at most.
PATTERNS = [
    ("alltoallv-random", ["alltoallv-random"], 0, 1024),
    ("uniform-d8", ["uniform", "--degree", "8"], 65536, 4096),
    ("mesh-64", ["mesh", "--points", "64N"], 1024, 4096),
]
PATTERN_ALGS = [("phased", 0), ("pairwise", 0), ("linear", 0)]
# Every one of n^2 flows at once: at 256 ranks on the tree each leaf's uplinks carry
# thousands of flows, and every start or end reshares them (tens of minutes).
LINEAR_MOST = {"alltoallv-random": 64}


def sim(build, args):
    """time in ms, or None with the error text."""
    p = subprocess.run([os.path.join(build, "bin", "ccmpi-sim"), *args], capture_output=True,
                       text=True, timeout=1800)
    m = re.search(r"^time_ms=([0-9.]+)$", p.stdout, re.M)
    if p.returncode != 0 or not m:
        return None, p.stderr.strip()
    return float(m.group(1)), ""


# coll_bench's matrix tests (Alltoallv), their ccmpi-bench names, and how ccmpi-sim runs
# them: the algorithm forced through the MPI_Alltoallv table (None: as the row's impl
# says), or the method of CC-MPI's Tables 2-3 that a schedule stands for (Level 3: the
# phased exchange of a schedule made beforehand; point-to-point: every message at once).
MATRIX = {"alltoallv": None, "alltoallv-random": None, "alltoallv-random-l3": "phased",
          "alltoallv-random-p2p": "linear"}


class Patterns:
    """coll_bench's patterns, printed by coll_bench itself (--print-pattern --ranks N: one
    process writes the pattern a job of N ranks draws), built with the build's mpicc."""

    def __init__(self, build, work):
        self.build, self.work, self.prog = build, work, None

    def get(self, test, n, size):
        prefix = os.path.join(self.work, "%s-%d" % (test, n))
        path = "%s-%d.pattern" % (prefix, size)
        if os.path.exists(path):
            return path
        if not self.prog:
            self.prog = emulated.build_coll_bench(self.build, self.work)
        # The pattern of the base test (the -lN / -p2p methods move the same one).
        base = "alltoallv-random" if test.startswith("alltoallv-random") else test
        subprocess.run([self.prog, base, "--sizes", str(size), "--ranks", str(n),
                        "--print-pattern", prefix], check=True, stdout=subprocess.DEVNULL,
                       timeout=600)
        return path


def validate(a):
    import tempfile
    rows = []
    with tempfile.TemporaryDirectory(prefix="ccmpi-simval.") as work:
        patterns = Patterns(a.build, work)
        for d in a.validate:
            with open(os.path.join(d, "results.csv")) as f:
                for r in csv.DictReader(f):
                    row = validate_row(a, d, r, patterns)
                    if row:
                        rows.append(row)
    return rows


def validate_row(a, d, r, patterns):
    impl, test = r["impl"], r["test"]
    if impl != "ccmpi" and not impl.startswith("ccmpi:"):
        return None
    alg = impl.split(":", 1)[1] if ":" in impl else "auto"
    if test in COLLS:
        coll, what = COLLS[test], r["size"]
    elif test in MATRIX:
        coll = "alltoallv"
        # alltoallv-random's size column is 0: its pattern has its own sizes.
        what = patterns.get(test, int(r["hosts"]), int(r["size"]) or 1)
        alg = MATRIX[test] or alg
    else:
        return None
    measured = float(r["median_us"]) / 1e3
    times = {}
    for tcp in ("fair", "tail-drop"):
        times[tcp] = sim(a.build, ["--hosts", r["hosts"], "--rate", a.rate, "--tcp", tcp,
                                   "--algorithm", alg, coll, what])
    t, err = times["fair"]
    td, _ = times["tail-drop"]
    row = {"run": os.path.basename(d.rstrip("/")), "collective": coll, "test": test,
           "hosts": r["hosts"], "size": r["size"], "algorithm": alg,
           "measured_ms": "%.4g" % measured,
           "simulated_ms": "" if t is None else "%.4g" % t,
           "error": "" if t is None else "%+.3f" % (t / measured - 1),
           "tail_drop_ms": "" if td is None else "%.4g" % td,
           "tail_drop_error": "" if td is None else "%+.3f" % (td / measured - 1),
           "note": err[:120]}
    print("%-20s %3s %8s %-24s %10.3f %10s %10s %s" % (
        test, r["hosts"], r["size"], alg, measured, row["simulated_ms"] or "-",
        row["tail_drop_ms"] or "-", row["error"] or err[:60]), flush=True)
    return row


def scale(a):
    import tempfile
    rows = []

    def one(label, coll, what, size, topo, n, alg, tcp):
        start = time.monotonic()
        t, err = sim(a.build, ["--hosts", str(n), "--rate", a.scale_rate, "--topology", topo,
                               "--sharing", a.sharing, "--tcp", tcp, "--algorithm", alg, coll,
                               what])
        took = time.monotonic() - start
        rows.append({"collective": label, "size": size, "topology": topo, "tcp": tcp,
                     "ranks": n, "algorithm": alg, "time_ms": "" if t is None else "%.5g" % t,
                     "sim_seconds": "%.1f" % took, "note": err[:120]})
        print("%-16s %-14s %-9s %6d %-24s %12s  (%.1f s) %s" % (
            label, topo, tcp, n, alg, rows[-1]["time_ms"] or "-", took, err[:60]), flush=True)

    for coll, size, algs, tcps in SCALE if "collectives" in a.parts else []:
        for tcp in tcps:
            for topo in ["one-switch", a.tree]:
                for n in a.ranks:
                    for alg, most in algs:
                        most = a.max_n2 if most is N2 else most
                        if most and n > most:
                            continue
                        if alg == "scatter_rd_allgather" and n & (n - 1):
                            continue
                        one(coll, coll, str(size), size, topo, n, alg, tcp)
    if "patterns" not in a.parts:
        return rows
    with tempfile.TemporaryDirectory(prefix="ccmpi-simscale.") as work:
        prog = emulated.build_coll_bench(a.build, work)
        for label, args, unit, most in PATTERNS:
            for n in a.ranks:
                if n > most:
                    continue
                prefix = os.path.join(work, "%s-%d" % (label, n))
                args_n = [x.replace("64N", str(64 * n)) for x in args]
                # One process prints the pattern for n ranks (its own singleton job).
                subprocess.run([prog] + args_n + ["--sizes", str(unit), "--ranks", str(n),
                                                  "--print-pattern", prefix], check=True,
                               stdout=subprocess.DEVNULL, timeout=1800)
                path = "%s-%d.pattern" % (prefix, unit)
                for tcp in ("fair", "tail-drop"):
                    for topo in ["one-switch", a.tree]:
                        for alg, _ in PATTERN_ALGS:
                            if alg == "linear" and n > LINEAR_MOST.get(label, n):
                                continue
                            one(label, "alltoallv", path, unit, topo, n, alg, tcp)
                os.unlink(path)
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


def unsimulated(note):
    """Why a row has no simulated figure, in a few words."""
    if "run time" in note:
        return "schedules at run time"
    if "no schedule" in note or "no algorithm" in note:
        return "no schedule"
    return "not simulated" if note else "–"


def report(out, meta):
    val = read_csv(os.path.join(out, "validation.csv"))
    sc = read_csv(os.path.join(out, "scale.csv"))
    lines = ["# ccmpi-sim: against the emulated cluster, and at scale", ""]
    lines += ["ccmpi-sim (docs/simulator.md) runs ccmpi's own collective schedules on a flow-level "
              "model of switched Ethernet.", ""]
    for part, m in sorted(meta["runs"].items()):
        lines += ["- %s: `%s`, %s; load average before %s, after %s." % (
            part, m["command"], m["date"], m["load_before"], m["load_after"])]
    lines += [""]
    val_meta = meta["runs"].get("validation", {})
    sc_meta = next((m for k, m in sorted(meta["runs"].items()) if k.startswith("scale")), {})
    if val:
        lines += ["## Validation", "",
                  "The emulated cluster's figures are a ccmpi-bench run with every algorithm "
                  "forced (%s); each row again in ccmpi-sim with the same hosts, size, rate and "
                  "algorithm (auto = the library's rules in both), with TCP sharing every "
                  "port fairly (`fair`, the default) and with the tail-drop model (`tail drop`, "
                  "`--tcp tail-drop`). Alltoallv rows run coll_bench's own pattern (its "
                  "`--print-pattern`); alltoallv-random-l3 is the phased exchange of a schedule "
                  "made beforehand, -p2p every message at once. Times in ms; error = "
                  "simulated / measured - 1." % ", ".join(val_meta.get("validate_dirs", [])), ""]
        lines += ["How the measured side and the costs were taken, and why the rows that miss "
                  "do: [NOTES.md](NOTES.md).", ""]
        for col, name in (("error", "fair"), ("tail_drop_error", "tail drop")):
            ok = [r for r in val if r.get(col)]
            # Bandwidth-bound: 64 KiB and more per block, and every Alltoallv pattern
            # (alltoallv-random's 64 KiB messages; the all-to-all's from 64 KiB).
            big = [r for r in ok if int(r["size"]) >= 65536 or r.get("test") == "alltoallv-random"
                   or r.get("test", "").startswith("alltoallv-random-")]
            within = sum(1 for r in ok if abs(float(r[col])) <= 0.15)
            bwithin = sum(1 for r in big if abs(float(r[col])) <= 0.15)
            lines += ["- %s: every row with a simulated figure, %d of %d within 15%%; rows of "
                      "64 KiB and more (bandwidth-bound), %d of %d" % (
                          name, within, len(ok), bwithin, len(big))]
        lines += [""]
        lines += ["| run | test | hosts | size | algorithm | measured | fair | error | tail drop "
                  "| error |",
                  "| --- | --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: |"]
        for r in val:
            lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                r.get("run", ""), r.get("test", r["collective"]), r["hosts"], r["size"],
                r["algorithm"], r["measured_ms"], r["simulated_ms"] or "–",
                r["error"] or unsimulated(r["note"]),
                r.get("tail_drop_ms") or "–", r.get("tail_drop_error") or "–"))
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
            k = (r["collective"], r["size"], r["topology"], r.get("tcp", "fair"))
            if k not in keys:
                keys.append(k)
        for coll, size, topo, tcp in keys:
            sub = [r for r in sc if (r["collective"], r["size"], r["topology"],
                                     r.get("tcp", "fair")) == (coll, size, topo, tcp)]
            algs = []
            for r in sub:
                if r["algorithm"] not in algs:
                    algs.append(r["algorithm"])
            ranks = sorted({int(r["ranks"]) for r in sub})
            lines += ["### %s %s bytes, %s%s" % (coll, size, topo,
                                                "" if tcp == "fair" else ", tail drop"), "",
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
        k = (r["collective"], r["topology"], r.get("tcp", "fair"))
        if k not in panels:
            panels.append(k)
    cols = min(4, len(panels))
    rows_ = (len(panels) + cols - 1) // cols
    fig, axes = plt.subplots(rows_, cols, figsize=(4 * cols, 3.6 * rows_), squeeze=False)
    for ax in axes.flat[len(panels):]:
        ax.set_visible(False)
    for ax, (coll, topo, tcp) in zip(axes.flat, panels):
        sub = [r for r in sc if r["collective"] == coll and r["topology"] == topo and
               r.get("tcp", "fair") == tcp and r["time_ms"]]
        for alg in sorted({r["algorithm"] for r in sub}):
            pts = sorted((int(r["ranks"]), float(r["time_ms"])) for r in sub if r["algorithm"] == alg)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=alg)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title("%s, %s%s" % (coll, topo, "" if tcp == "fair" else ", tail drop"),
                     fontsize=9)
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
    ap.add_argument("--parts", default="collectives,patterns",
                    help="--scale: collectives (Alltoall, Allgather, Bcast), patterns "
                         "(Alltoallv); a part left out keeps its rows of OUT/scale.csv")
    ap.add_argument("--out", default=os.path.join(REPO, "docs", "results", "sim"))
    ap.add_argument("--report-only", action="store_true")
    a = ap.parse_args()
    a.ranks = [int(x) for x in a.ranks.split(",")]
    a.parts = [x for x in a.parts.split(",") if x]
    if not a.parts or set(a.parts) - {"collectives", "patterns"}:
        sys.exit("run.py: --parts takes collectives, patterns or both")
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
        rows = run(a)
        if part == "scale" and set(a.parts) != {"collectives", "patterns"}:
            # The parts not run keep their rows (PATTERNS' labels tell the two apart).
            labels = {p[0] for p in PATTERNS}
            kept = [r for r in read_csv(os.path.join(a.out, "scale.csv"))
                    if ("patterns" if r["collective"] in labels else "collectives") not in a.parts]
            rows = kept + rows
        write_csv(os.path.join(a.out, part + ".csv"), rows)
        m["load_after"] = runs.load_averages()
        key = part
        if part == "scale" and set(a.parts) != {"collectives", "patterns"}:
            key = "scale (%s)" % ",".join(a.parts)
        elif part == "scale":
            for k in [k for k in meta["runs"] if k.startswith("scale (")]:
                del meta["runs"][k]
        meta["runs"][key] = m
    with open(meta_path, "w") as f:
        json.dump(meta, f, indent=1)
    report(a.out, meta)
    print("wrote", a.out)


if __name__ == "__main__":
    main()
