#!/usr/bin/env python3
"""A prediction of ccmpi-sim checked on the emulated cluster: how the phased Alltoallv's
synchronization (CCMPI_PHASE_SYNC, coll/phased/phased.h) fares on coll_bench's patterns.

For each pattern (coll_bench TEST and options, on --hosts hosts at --rate), ccmpi-sim
gives the phased exchange's time with the `ready` and the `barrier` synchronization (and
`linear`: every message at once), from coll_bench's own pattern (--print-pattern); then
the same runs on the emulated cluster (CCMPI_ALLTOALLV_ALGORITHM=phased and
CCMPI_PHASE_SYNC=ready|barrier, and linear), --reps repetitions in rotating order, the
median of coll_bench's median iteration kept.

Writes --csv (pattern, variant, simulated and measured ms, each repetition) and prints a
table. The cluster is removed at the end, whatever happens.

Usage: bench/sim/phase_sync.py [--build BUILD] [--rate 25mbit] [--reps 3]
                               [--csv docs/results/sim/phase-sync.csv]
"""
import argparse
import csv
import datetime
import os
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tools"))
sys.path.insert(0, HERE)
from ccmpi_tools import runs  # noqa: E402 (needs the path above)
import emulated  # noqa: E402

# (label, hosts, coll_bench arguments): CC-MPI's random pattern (Table 3, 16 hosts), the
# all-to-all pattern of 64 KiB (Table 2), and the CM-5 paper's test set 2 on 24 hosts.
PATTERNS = [
    ("alltoallv-random", 16, ["alltoallv-random", "--sizes", "0"]),
    ("alltoallv 64 KiB", 16, ["alltoallv", "--sizes", "65536"]),
    ("nonuniform-d8 4 KiB", 24, ["nonuniform", "--degree", "8", "--sizes", "4096"]),
]
# variant -> (ccmpi-sim options and environment, ranks' environment)
VARIANTS = {
    "phased, ready": ("phased", {"CCMPI_PHASE_SYNC": "ready"}),
    "phased, barrier": ("phased", {"CCMPI_PHASE_SYNC": "barrier"}),
    "linear": ("linear", {}),
}


def simulate(build, rate, hosts, path, alg, env):
    p = subprocess.run([os.path.join(build, "bin", "ccmpi-sim"), "--hosts", str(hosts), "--rate",
                        rate, "--algorithm", alg, "alltoallv", path], capture_output=True,
                       text=True, env=dict(os.environ, **env), timeout=600, check=True)
    return float(re.search(r"^time_ms=([0-9.]+)$", p.stdout, re.M).group(1))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=os.path.join(REPO, "build"))
    ap.add_argument("--rate", default="25mbit")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--csv", default=os.path.join(REPO, "docs", "results", "sim",
                                                  "phase-sync.csv"))
    ap.add_argument("--name", default="psync%d" % (os.getpid() % 1000))
    a = ap.parse_args()
    load_before = runs.load_averages()
    started = datetime.datetime.now(datetime.timezone.utc)
    sims = {}
    with tempfile.TemporaryDirectory(prefix="ccmpi-psync.") as work:
        prog = emulated.build_coll_bench(a.build, work)
        for label, hosts, args in PATTERNS:
            prefix = os.path.join(work, "p")
            size = args[args.index("--sizes") + 1]
            subprocess.run([prog] + args + ["--ranks", str(hosts), "--print-pattern", prefix],
                           check=True, stdout=subprocess.DEVNULL)
            for v, (alg, env) in VARIANTS.items():
                sims[label, v] = simulate(a.build, a.rate, hosts, "%s-%s.pattern" % (prefix, size),
                                          alg, env)
    measured = {k: [] for k in sims}
    with emulated.Cluster(a.build, max(h for _, h, _ in PATTERNS), a.rate, a.name) as cl:
        for rep in range(a.reps):
            order = list(VARIANTS)
            order = order[rep % len(order):] + order[:rep % len(order)]
            for label, hosts, args in PATTERNS:
                for v in order:
                    alg, env = VARIANTS[v]
                    rank_env = ["CCMPI_ALLTOALLV_ALGORITHM=" + alg] + [
                        "%s=%s" % kv for kv in env.items()]
                    rows = cl.run(hosts, args + ["--target-ms", "2000"], rank_env)
                    measured[label, v].append(rows[0][3] / 1e3)
                    print("rep %d  %-20s %-16s %9.2f ms" % (rep + 1, label, v, rows[0][3] / 1e3),
                          flush=True)
    out = []
    for (label, v), t in sims.items():
        m = statistics.median(measured[label, v])
        out.append({"pattern": label, "variant": v, "simulated_ms": "%.4g" % t,
                    "measured_ms": "%.4g" % m, "error": "%+.3f" % (t / m - 1),
                    "measured_each_ms": " ".join("%.4g" % x for x in measured[label, v])})
        print("%-20s %-16s simulated %9.2f  measured %9.2f  (%s)" % (
            label, v, t, m, out[-1]["error"]))
    os.makedirs(os.path.dirname(os.path.abspath(a.csv)), exist_ok=True)
    with open(a.csv, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(out[0]))
        w.writeheader()
        w.writerows(out)
    print("phase_sync.py: %s UTC, rate %s; load average before %s, after %s; wrote %s" %
          (started.strftime("%Y-%m-%d %H:%M"), a.rate, load_before, runs.load_averages(), a.csv))


if __name__ == "__main__":
    main()
