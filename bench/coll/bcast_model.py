#!/usr/bin/env python3
"""The broadcasts' cost model (src/coll/cost_model.h) beside measured times.

  bench/coll/bcast_model.py RESULTS_CSV OUT_DIR --ranks 16 --rails 2 --mbits 25
                            [--hop-us L --round-us U [--send-us O] | --fit]
                            [--info PATH]

RESULTS_CSV is a ccmpi-bench results.csv with the broadcasts forced ("ccmpi:<algorithm>"
rows of test bcast; `ccmpi-bench multirail` writes one). The predictions come from
`ccmpi_info --predict bcast RANKS RAILS SIZES...` (the library's own model, the one the
rule "model" selects by) with CCMPI_LINK_MBITS, CCMPI_LINK_LATENCY_US (l, the hop) and
CCMPI_LANE_ROUND_US (u, a two-lane round's addition) and CCMPI_SEND_OVERHEAD_US (o, a
message's cost to its sender). --fit chooses l, u and o, one at a time on a grid for a
few passes, to minimize the squared log ratios of predicted to measured over every point
(the figures to give a job as those three variables). Writes OUT_DIR/README.md (the table: measured,
predicted, ratio, and how many fall within 15%), OUT_DIR/model.csv and OUT_DIR/model.svg
(one panel per algorithm, measured and predicted against size)."""
import argparse
import csv
import datetime
import math
import os
import subprocess
import sys
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from ccmpi_tools.bench.report import plot  # noqa: E402 (needs the path above)

TOLERANCE = 0.15


def measured(path, ranks):
    """{(algorithm, bytes): median us} of the forced broadcasts at `ranks` hosts."""
    out = {}
    with open(path) as f:
        for row in csv.DictReader(f):
            impl = row["impl"]
            if row["test"] != "bcast" or not impl.startswith("ccmpi:"):
                continue
            if int(row["hosts"]) != ranks:
                continue
            out[(impl.split(":", 1)[1], int(row["size"]))] = float(row["median_us"])
    return out


def predict(info, ranks, rails, mbits, hop, rnd, send, sizes):
    # The lanes' segments stay as the measured run had them (CCMPI_RAIL_HOP_US as given
    # there); the round's cost is the model's own.
    env = dict(os.environ, CCMPI_LINK_MBITS=str(mbits), CCMPI_LINK_LATENCY_US=str(hop),
               CCMPI_LANE_ROUND_US=str(rnd), CCMPI_SEND_OVERHEAD_US=str(send))
    cmd = [info, "--predict", "bcast", str(ranks), str(rails)] + [str(s) for s in sizes]
    text = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout
    out = {}
    for line in text.splitlines():
        size, alg, us = line.split()
        out[(alg, int(size))] = float(us)
    return out


def score(meas, pred):
    return sum(math.log(pred[k] / v) ** 2 for k, v in meas.items() if k in pred and v > 0)


def fit(info, ranks, rails, mbits, meas, sizes):
    """(l, u, o) minimizing score(): one variable at a time over its grid, the others
    held, for a few passes (a full grid of the three would take thousands of runs)."""
    grids = ([20 * 1.25 ** i for i in range(30)],          # l: 20 us .. 13 ms
             [0] + [50 * 1.3 ** i for i in range(22)],     # u: 0, 50 us .. 12 ms
             [0] + [2 * 1.4 ** i for i in range(20)])      # o: 0, 2 us .. 1.2 ms
    best = [100.0, 0.0, 5.0]
    cache = {}

    def cost(x):
        key = tuple(x)
        if key not in cache:
            cache[key] = score(meas, predict(info, ranks, rails, mbits, x[0], x[1], x[2],
                                             sizes))
        return cache[key]
    for _ in range(4):
        before = list(best)
        for i, grid in enumerate(grids):
            best[i] = min(grid, key=lambda v: cost(best[:i] + [v] + best[i + 1:]))
        if best == before:
            break
    return best[0], best[1], best[2]


def fmt(us):
    ms = us / 1000
    return "%.3g" % ms if ms < 100 else "%.0f" % ms


def size_str(n):
    for unit, div in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= div:
            return "%g %s" % (n / div, unit)
    return "%d B" % n


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("results")
    ap.add_argument("out")
    ap.add_argument("--ranks", type=int, required=True)
    ap.add_argument("--rails", type=int, required=True)
    ap.add_argument("--mbits", type=float, required=True)
    ap.add_argument("--hop-us", type=float)
    ap.add_argument("--round-us", type=float)
    ap.add_argument("--send-us", type=float, default=5.0)
    ap.add_argument("--fit", action="store_true")
    ap.add_argument("--info", default=os.path.join(ROOT, "build", "bin", "ccmpi_info"))
    a = ap.parse_args()
    meas = measured(a.results, a.ranks)
    if not meas:
        sys.exit("bcast_model.py: no forced broadcasts at %d hosts in %s" % (a.ranks, a.results))
    sizes = sorted({k[1] for k in meas})
    if a.fit:
        hop, rnd, send = fit(a.info, a.ranks, a.rails, a.mbits, meas, sizes)
    elif a.hop_us is not None and a.round_us is not None:
        hop, rnd, send = a.hop_us, a.round_us, a.send_us
    else:
        sys.exit("bcast_model.py: give --hop-us and --round-us (and --send-us), or --fit")
    pred = predict(a.info, a.ranks, a.rails, a.mbits, hop, rnd, send, sizes)
    algs = sorted({k[0] for k in meas if k in pred})
    os.makedirs(a.out, exist_ok=True)
    within = defaultdict(int)
    total = defaultdict(int)
    with open(os.path.join(a.out, "model.csv"), "w") as f:
        f.write("algorithm,bytes,measured_us,predicted_us,ratio\n")
        for alg in algs:
            for s in sizes:
                if (alg, s) not in meas:
                    continue
                m, p = meas[(alg, s)], pred[(alg, s)]
                f.write("%s,%d,%.1f,%.1f,%.3f\n" % (alg, s, m, p, p / m))
                total[alg] += 1
                within[alg] += abs(p / m - 1) <= TOLERANCE
    # The model's choice per size against the fastest measured.
    choice = {}
    for s in sizes:
        ranked = sorted((pred[(g, s)], g) for g in algs if (g, s) in meas)
        fastest = min((meas[(g, s)], g) for g in algs if (g, s) in meas)
        choice[s] = (ranked[0][1], meas[(ranked[0][1], s)], fastest[1], fastest[0])
    cmd = " ".join(["bench/coll/bcast_model.py"] + sys.argv[1:])
    lines = [
        "# The broadcasts' cost model beside measured times",
        "",
        "Predicted by `src/coll/cost_model.cc` (`ccmpi_info --predict bcast %d %d`), measured "
        "in `%s`. Generated %s UTC by:" % (a.ranks, a.rails, a.results,
                                          datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M")),
        "",
        "    " + cmd,
        "",
        "%d hosts, %d rail(s) of %g Mbit/s; l (CCMPI_LINK_LATENCY_US) = %.0f us, u "
        "(CCMPI_LANE_ROUND_US) = %.0f us, o (CCMPI_SEND_OVERHEAD_US) = %.0f us%s." % (
            a.ranks, a.rails, a.mbits, hop, rnd, send,
            " (fitted: --fit)" if a.fit else " (given)"),
        "",
        "Points within %d%% of the measured time: **%d of %d**." % (
            TOLERANCE * 100, sum(within.values()), sum(total.values())),
        "",
        "| algorithm | within %d%% |" % (TOLERANCE * 100),
        "| --- | --- |",
    ]
    for alg in algs:
        lines.append("| %s | %d of %d |" % (alg, within[alg], total[alg]))
    lines += ["", "Measured / predicted, ms (ratio predicted/measured; * outside %d%%):" % (
        TOLERANCE * 100), ""]
    lines.append("| size | " + " | ".join(algs) + " |")
    lines.append("| --- |" + " --- |" * len(algs))
    for s in sizes:
        cells = []
        for alg in algs:
            if (alg, s) not in meas:
                cells.append("n/a")
                continue
            m, p = meas[(alg, s)], pred[(alg, s)]
            mark = "" if abs(p / m - 1) <= TOLERANCE else "*"
            cells.append("%s / %s (%.2f%s)" % (fmt(m), fmt(p), p / m, mark))
        lines.append("| %s | %s |" % (size_str(s), " | ".join(cells)))
    lines += ["", "The model's choice (the rule `model`) against the fastest measured, ms:", "",
              "| size | model's choice | its time | fastest | its time |",
              "| --- | --- | --- | --- | --- |"]
    for s in sizes:
        c = choice[s]
        lines.append("| %s | %s | %s | %s | %s |" % (size_str(s), c[0], fmt(c[1]), c[2],
                                                     fmt(c[3])))
    lines += ["", "Plot: `model.svg`; every point: `model.csv`.", ""]
    with open(os.path.join(a.out, "README.md"), "w") as f:
        f.write("\n".join(lines))
    panels = []
    for alg in algs:
        p = plot.Panel(alg, "bytes", "ms", xlog=True, ylog=True, xsizes=True)
        p.add("measured", [(s, meas[(alg, s)] / 1000, meas[(alg, s)] / 1000,
                            meas[(alg, s)] / 1000) for s in sizes if (alg, s) in meas])
        p.add("predicted", [(s, pred[(alg, s)] / 1000) for s in sizes if (alg, s) in meas],
              "bound")
        panels.append(p)
    plot.draw(panels, os.path.join(a.out, "model.svg"), cols=4)
    print("%d of %d points within %d%% (l %.0f us, u %.0f us, o %.0f us); %s" % (
        sum(within.values()), sum(total.values()), TOLERANCE * 100, hop, rnd, send,
        os.path.join(a.out, "README.md")))


if __name__ == "__main__":
    main()
