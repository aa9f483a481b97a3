#!/usr/bin/env python3
"""TCP incast on the emulated cluster: what ccmpi-sim's tail-drop model is calibrated on.

K senders send S bytes each to one receiver at once (coll_bench's `incast` test: MPI_Send
from ranks 1..K, K MPI_Irecv + MPI_Waitall at rank 0), K = --senders, on an emulated
cluster of K + 1 hosts (one rank each) whose switch ports are tail-drop queues of
`ccmpi-cluster`'s --port-buffer bytes. The receiver's switch port must carry K x S bytes;
at the TCP payload rate B (rate x 1448/1538) that takes K S / B. Where the flows' windows
overflow the port's buffer, TCP loses segments; a loss that cannot be repaired by fast
retransmission waits for a retransmission timeout (200 ms at least on Linux), and the port
idles. The mean time over the iterations (coll_bench's MEAN_US: stalls are rare events,
which a median hides) less K S / B is the time the port stood idle; per byte it carried,
it is what `ccmpi-sim --sharing tail-drop` charges (docs/simulator.md).

Writes --csv (senders, size, iterations, median, mean, min, bound, idle seconds per MB)
and prints the table. The cluster is removed at the end, whatever happens.

--fit CSV ... measures nothing: it fits ccmpi-sim's tail-drop costs to the rows of those
files. The idle time per byte is taken less that of 1 and 2 senders (no losses: what is
left is the cable's own shortfall, which ccmpi-sim's link_efficiency has) and fitted, least
squares over every row, by a ramp: nothing up to tail_drop_flows senders, growing linearly
to tail_drop_idle seconds per byte at tail_drop_full, constant beyond.

Usage: bench/sim/incast.py [--build BUILD] [--rate 25mbit] [--senders 1,2,3,4,6,8,11,15]
                           [--sizes 262144,1048576] [--csv docs/results/sim/incast.csv]
       bench/sim/incast.py --fit CSV ...
"""
import argparse
import csv
import datetime
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tools"))
sys.path.insert(0, HERE)
from ccmpi_tools import runs, units  # noqa: E402 (needs the path above)
import emulated  # noqa: E402


def fit(paths):
    """(tail_drop_flows, tail_drop_full, tail_drop_idle in s/byte) of the rows in paths."""
    pts = []
    for p in paths:
        with open(p) as f:
            pts += [(int(r["senders"]), float(r["idle_s_per_mb"]) / 1e6) for r in csv.DictReader(f)]
    lossless = [y for k, y in pts if k <= 2]
    if not lossless or not any(k > 2 for k, _ in pts):
        sys.exit("incast.py: --fit needs rows of 1 or 2 senders and of more")
    base = sum(lossless) / len(lossless)
    best = None
    for i in range(0, 33):  # tail_drop_flows 2 .. 10 by quarters
        k0 = 2 + i / 4
        for j in range(1, 73):  # tail_drop_full up to 18 flows further
            k1 = k0 + j / 4
            h = [min(1.0, max(0.0, (k - k0) / (k1 - k0))) for k, _ in pts]
            hh = sum(x * x for x in h)
            if hh == 0:
                continue
            idle = sum(x * (y - base) for x, (_, y) in zip(h, pts)) / hh
            sse = sum((y - base - idle * x) ** 2 for x, (_, y) in zip(h, pts))
            if best is None or sse < best[0]:
                best = (sse, k0, k1, idle)
    return best[1:]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=os.path.join(REPO, "build"))
    ap.add_argument("--rate", default="25mbit")
    ap.add_argument("--senders", default="1,2,3,4,6,8,11,15")
    ap.add_argument("--sizes", default="262144,1048576")
    ap.add_argument("--target-ms", type=int, default=4000,
                    help="coll_bench's --target-ms (iterations = this / one iteration)")
    ap.add_argument("--min-iters", type=int, default=5)
    ap.add_argument("--csv", default=os.path.join(REPO, "docs", "results", "sim", "incast.csv"))
    ap.add_argument("--fit", nargs="+", metavar="CSV")
    ap.add_argument("--name", default="incast%d" % (os.getpid() % 1000))
    a = ap.parse_args()
    if a.fit:
        k0, k1, idle = fit(a.fit)
        print("tail_drop_flows %g\ntail_drop_full %g\ntail_drop_idle %.3g" % (k0, k1, idle))
        return
    senders = [int(k) for k in a.senders.split(",")]
    if min(senders) < 1:
        sys.exit("incast.py: --senders must be 1 or more")
    payload = units.rate_bps(a.rate) / 8 * 1448 / 1538  # bytes/s
    hosts = max(senders) + 1
    rows = []
    load_before = runs.load_averages()
    started = datetime.datetime.now(datetime.timezone.utc)
    with emulated.Cluster(a.build, hosts, a.rate, a.name) as cl:
        for k in senders:
            for _, n, size, med, mean, mn, bound, iters in cl.run(
                    k + 1, ["incast", "--sizes", a.sizes, "--target-ms", str(a.target_ms),
                            "--min-iters", str(a.min_iters)]):
                bound_s = bound / payload
                idle = mean / 1e6 - bound_s
                rows.append({"senders": n - 1, "size": size, "iterations": iters,
                             "median_ms": med / 1e3, "mean_ms": mean / 1e3, "min_ms": mn / 1e3,
                             "bound_ms": bound_s * 1e3, "idle_s_per_mb": idle / (bound / 1e6)})
                print("%2d senders x %8d B: mean %9.2f ms (median %9.2f, min %9.2f), "
                      "bound %9.2f ms, idle %.4f s/MB" % (k, size, mean / 1e3, med / 1e3,
                                                          mn / 1e3, bound_s * 1e3,
                                                          rows[-1]["idle_s_per_mb"]), flush=True)
    os.makedirs(os.path.dirname(os.path.abspath(a.csv)), exist_ok=True)
    with open(a.csv, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        for r in rows:
            w.writerow({k: ("%.5g" % v if isinstance(v, float) else v) for k, v in r.items()})
    print("incast.py: %s UTC, rate %s, %d hosts; load average before %s, after %s; wrote %s" %
          (started.strftime("%Y-%m-%d %H:%M"), a.rate, hosts, load_before, runs.load_averages(),
           a.csv))


if __name__ == "__main__":
    main()
