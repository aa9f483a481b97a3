#!/usr/bin/env python3
"""Several ranks per host on an emulated cluster: ccmpi against Open MPI (issue 21).

Brings up `ccmpi-cluster up --hosts 4 --slots 4 --rate 25mbit` (16 ranks, 4 per host; at
25 Mbit/s `ccmpi-cluster check --parallel 4` holds every cable on a 2-core machine) and
runs OSU's osu_alltoall at 64 KiB and osu_allreduce at 1 MiB with ccmpi (automatic
choice) and Open MPI 4.1.4 (`--mca btl tcp,self --mca mpi_yield_when_idle 1`, its
default, its hierarchical component han (`--mca coll_han_priority 100`, the anchor issue
21 names) and every coll_tuned algorithm forced; the best is reported). Bounds, from the
TCP payload rate B = rate x 1448/1538:
  alltoall   every host sends (and receives) 4 x 12 blocks over its cable: 48 s / B
  allreduce  a hierarchical algorithm moves 2 x (H-1)/H x n bytes over each host's cable
             (reduce-scatter and allgather among the H leaders): 1.5 n / B
Each repetition runs every variant once, the order rotating. The cluster is removed at
the end, whatever happens.

Usage: bench/node/cluster.py --osu OSU_BUILDS [--build BUILD] [--reps 2] [--out DIR]
  OSU_BUILDS as for bench/node/run.py (ccmpi and openmpi trees).
Writes OUT/cluster.md and OUT/cluster.csv (OUT = docs/results/node).
"""
import argparse
import csv
import datetime
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "bench", "common"))
from emucluster import EmulatedCluster  # noqa: E402
HOSTS, SLOTS, RATE_MBIT = 4, 4, 25
PAYLOAD_BPS = RATE_MBIT * 1e6 / 8 * 1448 / 1538

# name, OSU program, size, iterations, warm-up, Open MPI coll_tuned parameter, bound (s)
POINTS = [
    ("alltoall 64 KiB", "osu_alltoall", 65536, 5, 1, "alltoall",
     HOSTS * (HOSTS - 1) * SLOTS * SLOTS / HOSTS * 65536 / PAYLOAD_BPS),
    ("allreduce 1 MiB", "osu_allreduce", 1 << 20, 5, 1, "allreduce",
     2 * (HOSTS - 1) / HOSTS * (1 << 20) / PAYLOAD_BPS),
]


def loadavg():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def openmpi_algorithms(coll):
    """[(N, name)] of coll_tuned_<coll>_algorithm, from ompi_info."""
    out = subprocess.run(["ompi_info", "--param", "coll", "tuned", "--level", "9"],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout
    algs, on = [], False
    for line in out.splitlines():
        if f'parameter "coll_tuned_{coll}_algorithm"' in line:
            on = True
        elif on and "Valid values:" in line:
            for item in line.split("Valid values:", 1)[1].split(","):
                k, _, v = item.strip().partition(":")
                if k.strip().isdigit() and int(k) > 0:
                    algs.append((int(k), v.strip().strip('"')))
            break
    return algs


def command(impl, cl, build, osu, prog, size, iters, warm, mca):
    exe = os.path.join(osu, impl, "c", "mpi", "collective", "blocking", prog)
    args = [exe, "-m", f"{size}:{size}", "-i", str(iters), "-x", str(warm)]
    n = HOSTS * SLOTS
    if impl == "ccmpi":
        return [os.path.join(build, "bin", "mpirun"), "--hostfile", cl.hostfile, "--launcher",
                f"{cl.tool} exec --name {cl.name}", "--iface", "r0", "-n", str(n)] + args
    cmd = [cl.tool, "exec", "--name", cl.name, f"{cl.name}-h1", "mpirun.openmpi",
           "--allow-run-as-root", "--hostfile", cl.hostfile, "-n", str(n), "--mca",
           "plm_rsh_agent", f"'{cl.tool} exec --name {cl.name}'", "--mca", "btl", "tcp,self",
           "--mca", "btl_tcp_if_include", "198.18.0.0/15", "--mca", "oob_tcp_if_include",
           "198.18.0.0/15", "--mca", "mpi_yield_when_idle", "1"]
    for k, v in mca:
        cmd += ["--mca", k, v]
    return cmd + args


def run(cmd, size, timeout):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "timeout"
    for line in p.stdout.splitlines():
        w = line.split()
        if len(w) >= 2 and w[0] == str(size):
            return float(w[1]) / 1e6, ""
    return None, f"exit {p.returncode}: " + (p.stdout.strip().splitlines() or [""])[-1][:100]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--osu", required=True)
    ap.add_argument("--build", default=os.path.join(REPO, "build"))
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--out", default=os.path.join(REPO, "docs", "results", "node"))
    a = ap.parse_args()
    tool = os.path.join(a.build, "bin", "ccmpi-cluster")
    os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
    os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    start, load_before = time.time(), loadavg()
    results = []  # (point, variant, [seconds], [errors])
    with EmulatedCluster(tool, f"node{os.getpid() % 100000}", HOSTS, f"{RATE_MBIT}mbit",
                         ["--slots", str(SLOTS)]) as cl:
        for name, prog, size, iters, warm, coll, bound in POINTS:
            variants = [("ccmpi", "ccmpi", []), ("openmpi", "openmpi", []),
                        ("openmpi-han", "openmpi", [("coll_han_priority", "100")])]
            for k, alg in openmpi_algorithms(coll):
                variants.append((f"openmpi:{alg}", "openmpi",
                                 [("coll_tuned_use_dynamic_rules", "1"),
                                  (f"coll_tuned_{coll}_algorithm", str(k))]))
            vals = {v[0]: [] for v in variants}
            errs = {v[0]: [] for v in variants}
            for rep in range(a.reps):
                order = variants[rep % len(variants):] + variants[:rep % len(variants)]
                for label, impl, mca in order:
                    t, err = run(command(impl, cl, a.build, a.osu, prog, size, iters, warm, mca),
                                 size, a.timeout)
                    (vals[label] if t is not None else errs[label]).append(
                        t if t is not None else err)
                    print(f"rep {rep} {name:16} {label:28} {t if t else err}", flush=True)
            for label, _, _ in variants:
                results.append((name, bound, label, vals[label], errs[label]))
    load_after = loadavg()
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "cluster.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["point", "bound_s", "variant", "median_s", "values_s", "errors"])
        for name, bound, label, v, e in results:
            w.writerow([name, f"{bound:.4f}", label, f"{statistics.median(v):.4f}" if v else "",
                        " ".join(f"{x:.4f}" for x in v), "; ".join(e)])
    lines = ["# Several ranks per host: 4 emulated hosts x 4 ranks, 25 Mbit/s", "",
             "`bench/node/cluster.py --osu OSU_BUILDS --reps %d`, %s, %.0f s; load average "
             "before %.2f%s; after %.2f, which counts the benchmark's own 16 ranks. OSU %s; "
             "seconds per operation (OSU's average), median of the repetitions." % (
                 a.reps, datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M UTC"),
                 time.time() - start, load_before,
                 " (above 1.5: a draft)" if load_before > 1.5 else "", load_after,
                 "osu_alltoall / osu_allreduce"), "",
             "| point | bound | ccmpi | x bound | Open MPI default | Open MPI han | "
             "Open MPI best forced |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for name, _, _, _, _, _, bound in POINTS:
        rows = [r for r in results if r[0] == name]
        med = {r[2]: statistics.median(r[3]) for r in rows if r[3]}
        forced = {k: v for k, v in med.items() if k.startswith("openmpi:")}
        best = min(forced.items(), key=lambda kv: kv[1]) if forced else None
        c = med.get("ccmpi")
        lines.append("| %s | %.3f | %s | %s | %s | %s | %s |" % (
            name, bound, f"{c:.3f}" if c else "n/a", f"{c / bound:.2f}" if c else "n/a",
            f"{med['openmpi']:.3f}" if "openmpi" in med else "n/a",
            f"{med['openmpi-han']:.3f}" if "openmpi-han" in med else "n/a",
            f"{best[1]:.3f} ({best[0].split(':', 1)[1]})" if best else "n/a"))
    lines += ["", "Every variant: `cluster.csv`. Bounds: see the top of `bench/node/cluster.py`.",
              ""]
    with open(os.path.join(a.out, "cluster.md"), "w") as f:
        f.write("\n".join(lines))
    print("wrote", os.path.join(a.out, "cluster.md"))


if __name__ == "__main__":
    sys.exit(main())
