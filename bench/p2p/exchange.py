#!/usr/bin/env python3
"""Two hosts exchanging large messages both ways at once, against one way (ccmpi, Open MPI).

A halo exchange or a pairwise step of a collective sends a message each way between two
hosts at once: on a full-duplex cable that should take as long as sending one of them.
Brings up two emulated hosts (`ccmpi-cluster up --hosts 2`, one NIC each) at each rate
and runs bench/p2p/exchange.c, compiled with each implementation's mpicc, in four modes:
  oneway       rank 0 sends, rank 1 receives
  sendrecv     MPI_Sendrecv both ways
  irecv_isend  MPI_Irecv, MPI_Isend, MPI_Waitall on both ranks (the usual halo exchange)
  mixed        rank 1 sends the size while rank 0 sends four messages of 64 KiB (eager,
               as a pipeline's segments): rank 0's clear-to-send for rank 1's message
               travels behind its eager messages
Bound: the message over the TCP payload rate B = rate x 1448/1538 (both directions at
once take no longer on a full-duplex cable). ccmpi runs with its defaults; Open MPI with
`--mca btl tcp,self` (one rank per host: nothing to yield to). With --baseline DIR a
second ccmpi (DIR/lib, e.g. an earlier commit's build) runs the same programs; with
--ccmpi-env 'NAME:K=V[,K=V]' (repeatable) ccmpi runs again with those variables, as NAME. Each
repetition runs every variant once, in an order shuffled anew; figures are the medians
over the repetitions of each run's median iteration (an iteration: a barrier, then the
exchange, timed on both ranks, the larger time).

Usage: bench/p2p/exchange.py [--build BUILD] [--rates 12.5mbit,100mbit]
         [--sizes 262144,1048576,4194304] [--reps 3] [--impls ccmpi,openmpi]
         [--baseline DIR] [--ccmpi-env NAME:K=V,...] [--out docs/results/exchange]
Writes OUT/README.md, OUT/results.csv and OUT/exchange.svg (with python3-matplotlib).
"""
import argparse
import csv
import datetime
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "bench", "common"))
from emucluster import EmulatedCluster  # noqa: E402
MODES = ["oneway", "sendrecv", "irecv_isend", "mixed"]


def loadavg():
    with open("/proc/loadavg") as f:
        return f.read().split()[:3]


def mbits(rate):
    r = rate.lower()
    for suffix, scale in (("gbit", 1000.0), ("mbit", 1.0), ("kbit", 0.001)):
        if r.endswith(suffix):
            return float(r[:-len(suffix)]) * scale
    raise SystemExit(f"exchange.py: rate {rate} is not N[kbit|mbit|gbit]")


def payload_bytes_per_s(rate):
    return mbits(rate) * 1e6 / 8 * 1448 / 1538


def compile_program(cc, out):
    src = os.path.join(HERE, "exchange.c")
    subprocess.run([cc, "-O2", "-o", out, src], check=True)


def command(variant, cl, build, exe, mode, sizes, iters):
    args = [exe, mode, ",".join(str(s) for s in sizes), str(iters)]
    if variant["impl"] == "openmpi":
        return [cl.tool, "exec", "--name", cl.name, f"{cl.name}-h1", "mpirun.openmpi",
                "--allow-run-as-root", "--hostfile", cl.hostfile, "-n", "2", "--map-by", "node",
                "--mca", "plm_rsh_agent", f"'{cl.tool} exec --name {cl.name}'", "--mca", "btl",
                "tcp,self", "--mca", "btl_tcp_if_include", "198.18.0.0/15", "--mca",
                "oob_tcp_if_include", "198.18.0.0/15"] + args
    cmd = [os.path.join(build, "bin", "mpirun"), "--hostfile", cl.hostfile, "--launcher",
           f"{cl.tool} exec --name {cl.name}", "-n", "2"]
    if variant.get("lib"):
        cmd += ["--env", "LD_LIBRARY_PATH=" + variant["lib"]]
    for kv in variant.get("env", []):
        cmd += ["--env", kv]
    return cmd + args


def run(cmd, timeout):
    """{size: median_us} of one run, or an error string."""
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout"
    got = {}
    for line in p.stdout.splitlines():
        w = line.split()
        if len(w) >= 6 and w[0] == "result":
            got[int(w[2])] = float(w[3])
    if p.returncode or not got:
        return f"exit {p.returncode}: " + (p.stdout.strip().splitlines() or [""])[-1][:160]
    return got


def bound_bytes(mode, size):
    """Bytes of the busier direction: mode mixed sends four of min(size, 64 KiB) back."""
    return max(size, 4 * min(size, 65536)) if mode == "mixed" else size


def size_label(n):
    return f"{n >> 20} MiB" if n >= 1 << 20 and n % (1 << 20) == 0 else f"{n >> 10} KiB"


def plot(path, rows, variants, rates, sizes):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("exchange.py: no matplotlib (python3-matplotlib): no plot written", file=sys.stderr)
        return
    fig, axes = plt.subplots(1, len(rates), figsize=(6 * len(rates), 4), squeeze=False)
    for ax, rate in zip(axes[0], rates):
        labels, x = [], 0
        for size in sizes:
            for mode in MODES[1:]:
                labels.append(f"{size_label(size)}\n{mode}")
        for k, v in enumerate(variants):
            ys = []
            for size in sizes:
                for mode in MODES[1:]:
                    r = rows.get((rate, v["name"], mode, size))
                    ys.append(r["ratio"] if r else 0)
            xs = [i + (k - (len(variants) - 1) / 2) * 0.8 / len(variants)
                  for i in range(len(ys))]
            ax.bar(xs, ys, width=0.8 / len(variants), label=v["name"])
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_xticks(range(len(labels)))
        ax.set_xticklabels(labels, fontsize=7)
        ax.set_ylabel("time / one-way bound")
        ax.set_title(f"2 hosts at {rate}")
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(REPO, "build"))
    ap.add_argument("--rates", default="12.5mbit,100mbit")
    ap.add_argument("--sizes", default="262144,1048576,4194304")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--iters", type=int, default=9)
    ap.add_argument("--impls", default="ccmpi,openmpi")
    ap.add_argument("--baseline", help="another ccmpi build tree, run as 'ccmpi baseline'")
    ap.add_argument("--ccmpi-env", action="append", default=[],
                    help="NAME:K=V[,K=V]: ccmpi again with these variables, as NAME")
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--out", default=os.path.join(REPO, "docs", "results", "exchange"))
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    tool = os.path.join(build, "bin", "ccmpi-cluster")
    rates = a.rates.split(",")
    sizes = [int(s) for s in a.sizes.split(",")]
    os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
    os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    work = tempfile.mkdtemp(prefix="ccmpi-exchange.")
    variants = []
    try:
        for impl in a.impls.split(","):
            exe = os.path.join(work, f"exchange-{impl}")
            cc = os.path.join(build, "bin", "mpicc") if impl == "ccmpi" else "mpicc.openmpi"
            compile_program(cc, exe)
            variants.append({"name": "ccmpi" if impl == "ccmpi" else "Open MPI", "impl": impl,
                             "exe": exe})
        if a.baseline:
            lib = os.path.join(os.path.abspath(a.baseline), "lib")
            if not os.path.exists(os.path.join(lib, "libccmpi.so.0")):
                raise SystemExit(f"exchange.py: --baseline {a.baseline}: no lib/libccmpi.so.0")
            variants.append({"name": "ccmpi baseline", "impl": "ccmpi",
                             "exe": os.path.join(work, "exchange-ccmpi"),
                             "lib": lib})
        for spec in a.ccmpi_env:
            name, _, kvs = spec.partition(":")
            if not name or "=" not in kvs:
                raise SystemExit(f"exchange.py: --ccmpi-env {spec}: want NAME:K=V[,K=V]")
            variants.append({"name": name, "impl": "ccmpi",
                             "exe": os.path.join(work, "exchange-ccmpi"),
                             "env": kvs.split(",")})
        start, load_before = time.time(), loadavg()
        started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        samples = {}  # (rate, variant, mode, size) -> [median_us per run]
        errors = []
        rnd = random.Random(5)
        for rate in rates:
            with EmulatedCluster(tool, f"xch{os.getpid() % 100000}", 2, rate) as cl:
                for rep in range(a.reps):
                    order = [(v, m) for v in variants for m in MODES]
                    rnd.shuffle(order)
                    for v, mode in order:
                        got = run(command(v, cl, build, v["exe"], mode, sizes, a.iters),
                                  a.timeout)
                        if isinstance(got, str):
                            errors.append(f"{rate} {v['name']} {mode}: {got}")
                            print("FAILED", rate, v["name"], mode, got, flush=True)
                            continue
                        for size, us in got.items():
                            samples.setdefault((rate, v["name"], mode, size), []).append(us)
                        print(f"{rate} rep {rep} {v['name']:15} {mode:12} "
                              + " ".join(f"{us / 1e3:.1f}" for us in got.values()) + " ms",
                              flush=True)
        load_after = loadavg()
        seconds = time.time() - start
    finally:
        shutil.rmtree(work, ignore_errors=True)

    rows = {}
    for (rate, name, mode, size), v in samples.items():
        bound_us = bound_bytes(mode, size) / payload_bytes_per_s(rate) * 1e6
        med = statistics.median(v)
        rows[(rate, name, mode, size)] = {"median": med, "min": min(v), "max": max(v),
                                          "runs": len(v), "bound": bound_us,
                                          "ratio": med / bound_us}
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "results.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["rate", "implementation", "mode", "bytes", "bound_us", "median_us",
                    "min_us", "max_us", "runs"])
        for (rate, name, mode, size), r in sorted(rows.items()):
            w.writerow([rate, name, mode, size, f"{r['bound']:.0f}", f"{r['median']:.0f}",
                        f"{r['min']:.0f}", f"{r['max']:.0f}", r["runs"]])
    names = [v["name"] for v in variants]
    cmdline = "bench/p2p/exchange.py " + " ".join(sys.argv[1:])
    lines = [
        "# Exchanging large messages between two hosts", "",
        "Two emulated hosts, one NIC each (`ccmpi-cluster up --hosts 2`), send a message each "
        "way at once, as a halo exchange or a pairwise step of a collective does, and the "
        "same message one way. A full-duplex cable carries both directions at once, so an "
        "exchange should take as long as one way: the bound is the message over the TCP "
        "payload rate, rate x 1448/1538. Mode `mixed` sends the size one way and four "
        "messages of 64 KiB (eager ones) the other way at once: the large message's "
        "clear-to-send travels behind the eager ones, and the bound is the larger direction. Times in ms, medians over the repetitions (each "
        "repetition's figure: the run's median of %d iterations, an iteration timed on both "
        "ranks, the larger time); x = time / bound. Program: `bench/p2p/exchange.c`." % a.iters,
        "",
        f"Generated by `{cmdline}` on {started} ({seconds:.0f} s), {a.reps} repetitions, "
        "variants in an order shuffled anew per repetition. Load average before "
        f"{' '.join(load_before)}, after {' '.join(load_after)}.", ""]
    for rate in rates:
        lines += [f"## {rate}", "", "| size | mode | bound | " + " | ".join(names) + " |",
                  "| --- | --- | ---: | " + " | ".join("---:" for _ in names) + " |"]
        for size in sizes:
            for mode in MODES:
                cells = []
                for name in names:
                    r = rows.get((rate, name, mode, size))
                    cells.append(f"{r['median'] / 1e3:.1f} ({r['ratio']:.2f}x)" if r else "n/a")
                bound = bound_bytes(mode, size) / payload_bytes_per_s(rate) * 1e3
                lines.append(f"| {size_label(size)} | {mode} | {bound:.1f} | "
                             + " | ".join(cells) + " |")
        lines.append("")
    if errors:
        lines += ["Failed runs:", ""] + [f"- {e}" for e in errors] + [""]
    lines += ["Every figure with its minimum and maximum: `results.csv`; plot: `exchange.svg`.",
              ""]
    with open(os.path.join(a.out, "README.md"), "w") as f:
        f.write("\n".join(lines))
    plot(os.path.join(a.out, "exchange.svg"), rows, variants, rates, sizes)
    print("wrote", os.path.join(a.out, "README.md"))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
