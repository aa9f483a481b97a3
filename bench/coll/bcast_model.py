#!/usr/bin/env python3
"""The broadcasts' cost model (src/coll/cost_model.h) beside measured times.

  bench/coll/bcast_model.py RESULTS_CSV [RESULTS_CSV...] OUT_DIR --ranks 16 --rails 2
                            --mbits 25 [--bucket 2] [--ranks-per-core 8]
                            [--hop-us L --round-us U [--send-us O] [--cpu-us C]
                             [--duplex-share D] | --fit] [--info PATH]

Each RESULTS_CSV is a ccmpi-bench results.csv with the broadcasts forced ("ccmpi:<algorithm>"
rows of test bcast; `ccmpi-bench multirail` writes one); where several measure the same
algorithm and size, the last file given counts (a later run of some algorithms replaces
those of an earlier full one). The
predictions come from `ccmpi_info --predict bcast RANKS RAILS SIZES...` (the library's own
model, the one the rule "model" selects by) with CCMPI_LINK_MBITS, CCMPI_LINK_BURST_BYTES
(--bucket frames of 1448 bytes: the emulated cluster's token buckets), CCMPI_RANKS_PER_CORE
(the ranks per core of the measured run: 16 emulated hosts on this 2-core machine are 8)
and the six costs: CCMPI_LINK_LATENCY_US (l, the hop), CCMPI_LANE_ROUND_US (u, a two-lane
round's addition), CCMPI_SEND_OVERHEAD_US (o, a message's cost to its sender),
CCMPI_MESSAGE_CPU_US (c, the CPU time of waking a rank for a message when ranks outnumber
cores),
CCMPI_LINK_SHARE (e, one TCP stream's share of the link's payload rate) and
CCMPI_LINK_DUPLEX_SHARE (d, data's further share of a cable that carries data both ways).
--fit chooses the six, one at a time on a grid for a few passes, to minimize the squared log
ratios of predicted to measured over every point (the figures to give a job as those
variables). Writes OUT_DIR/README.md (the table: measured, predicted, ratio, and how many
fall within 15%), OUT_DIR/model.csv and OUT_DIR/model.svg (one panel per algorithm,
measured and predicted against size)."""
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


def measured(paths, ranks):
    """{(algorithm, bytes): median us} of the forced broadcasts at `ranks` hosts, and
    {(algorithm, bytes): repetitions}: of several files, the row of the last that has the
    point (a later run of some algorithms replaces those of an earlier full one)."""
    out, reps = {}, {}
    for path in paths:
        with open(path) as f:
            for row in csv.DictReader(f):
                impl = row["impl"]
                if row["test"] != "bcast" or not impl.startswith("ccmpi:"):
                    continue
                if int(row["hosts"]) != ranks:
                    continue
                key = (impl.split(":", 1)[1], int(row["size"]))
                out[key] = float(row["median_us"])
                reps[key] = int(row.get("reps") or 1)
    return out, reps


# The costs fitted or given: (name, environment variable, grid).
COSTS = (("l", "CCMPI_LINK_LATENCY_US", [20 * 1.25 ** i for i in range(30)]),
         ("u", "CCMPI_LANE_ROUND_US", [0] + [50 * 1.3 ** i for i in range(22)]),
         ("o", "CCMPI_SEND_OVERHEAD_US", [0] + [2 * 1.4 ** i for i in range(20)]),
         ("c", "CCMPI_MESSAGE_CPU_US", [0] + [5 * 1.2 ** i for i in range(30)]),
         ("e", "CCMPI_LINK_SHARE", [0.90 + 0.005 * i for i in range(21)]),
         ("d", "CCMPI_LINK_DUPLEX_SHARE", [0.80 + 0.01 * i for i in range(21)]))


def predict(info, a, costs, sizes):
    # The lanes' segments stay as the measured run had them (CCMPI_RAIL_HOP_US as given
    # there); the round's cost is the model's own.
    env = dict(os.environ, CCMPI_LINK_MBITS=str(a.mbits),
               CCMPI_LINK_BURST_BYTES=str(a.bucket * 1448),
               CCMPI_RANKS_PER_CORE=str(a.ranks_per_core))
    for (_, var, _), v in zip(COSTS, costs):
        env[var] = str(v)
    ranks, rails = a.ranks, a.rails
    cmd = [info, "--predict", "bcast", str(ranks), str(rails)] + [str(s) for s in sizes]
    text = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout
    out = {}
    for line in text.splitlines():
        size, alg, us = line.split()
        out[(alg, int(size))] = float(us)
    return out


def score(meas, pred):
    """(points outside the tolerance, sum of squared log ratios): the fit wants the most
    points within 15% first, then the closest."""
    logs = [math.log(pred[k] / v) for k, v in meas.items() if k in pred and v > 0]
    return (sum(abs(x) > math.log(1 + TOLERANCE) for x in logs), sum(x * x for x in logs))


def fit(info, a, meas, sizes, start):
    """The costs minimizing score(): one variable at a time over its grid, the others
    held, for a few passes (a full grid of the six would take millions of runs), from a
    few starting hops (the passes alone stay near where they start)."""
    cache = {}

    def cost(x):
        key = tuple(x)
        if key not in cache:
            cache[key] = score(meas, predict(info, a, x, sizes))
        return cache[key]
    found = []
    for hop in (50, 100, 150, 200, 300, 400, 600):
        best = [hop] + list(start[1:])
        for n in range(8):
            before = list(best)
            # The first pass holds the starting hop, so that each start finds its own
            # neighbourhood.
            for i, (_, _, grid) in enumerate(COSTS):
                if i or n:
                    best[i] = min(grid, key=lambda v: cost(best[:i] + [v] + best[i + 1:]))
            if best == before:
                break
        found.append(best)
    return min(found, key=cost)


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
    ap.add_argument("paths", nargs="+", metavar="RESULTS_CSV... OUT_DIR")
    ap.add_argument("--ranks", type=int, required=True)
    ap.add_argument("--rails", type=int, required=True)
    ap.add_argument("--mbits", type=float, required=True)
    ap.add_argument("--bucket", type=float, default=2,
                    help="frames the cables' shapers pass at once after idling (ccmpi-cluster "
                    "up --bucket; 0 for a plain switch)")
    ap.add_argument("--ranks-per-core", type=int, default=-1,
                    help="the measured run's ranks per core of its machine (ccmpi_info "
                    "reports it as ccmpi.ranks_per_core; -1: a core each)")
    ap.add_argument("--hop-us", type=float)
    ap.add_argument("--round-us", type=float)
    ap.add_argument("--send-us", type=float, default=5.0)
    ap.add_argument("--cpu-us", type=float, default=0.0)
    ap.add_argument("--link-share", type=float, default=1.0)
    ap.add_argument("--duplex-share", type=float, default=1.0)
    ap.add_argument("--fit", action="store_true")
    ap.add_argument("--info", default=os.path.join(ROOT, "build", "bin", "ccmpi_info"))
    a = ap.parse_args()
    if len(a.paths) < 2:
        ap.error("give at least one RESULTS_CSV and the OUT_DIR")
    a.results, a.out = a.paths[:-1], a.paths[-1]
    meas, reps = measured(a.results, a.ranks)
    if not meas:
        sys.exit("bcast_model.py: no forced broadcasts at %d hosts in %s" % (
            a.ranks, ", ".join(a.results)))
    sizes = sorted({k[1] for k in meas})
    given = [a.hop_us, a.round_us, a.send_us, a.cpu_us, a.link_share, a.duplex_share]
    if a.fit:
        costs = fit(a.info, a, meas, sizes, [100.0, 200.0, 50.0, 100.0, 0.98, 0.9])
    elif a.hop_us is not None and a.round_us is not None:
        costs = given
    else:
        sys.exit("bcast_model.py: give --hop-us and --round-us (and the others), or --fit")
    pred = predict(a.info, a, costs, sizes)
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
        "in %s (of several measures of one point, the last file's). "
        "Generated %s UTC by:" % (
            a.ranks, a.rails, ", ".join("`%s`" % r for r in a.results),
            datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M")),
        "",
        "    " + cmd,
        "",
        "%d hosts, %d rail(s) of %g Mbit/s, shapers passing %g frames at once, %s; "
        "l (CCMPI_LINK_LATENCY_US) = %.0f us, u (CCMPI_LANE_ROUND_US) = %.0f us, "
        "o (CCMPI_SEND_OVERHEAD_US) = %.0f us, c (CCMPI_MESSAGE_CPU_US) = %.0f us, "
        "e (CCMPI_LINK_SHARE) = %.3f, d (CCMPI_LINK_DUPLEX_SHARE) = %.2f%s." % (
            a.ranks, a.rails, a.mbits, a.bucket,
            "%d ranks per core" % a.ranks_per_core if a.ranks_per_core > 1 else
            "a core per rank", *costs,
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
    if not plot.draw(panels, os.path.join(a.out, "model.svg"), cols=4):
        print("bcast_model.py: no plot written (this Python has no matplotlib; Debian's "
              "python3-matplotlib is /usr/bin/python3's)", file=sys.stderr)
    print("%d of %d points within %d%% (l %.0f us, u %.0f us, o %.0f us, c %.0f us, "
          "e %.3f, d %.2f); %s" % (sum(within.values()), sum(total.values()), TOLERANCE * 100,
                          *costs, os.path.join(a.out, "README.md")))


if __name__ == "__main__":
    main()
