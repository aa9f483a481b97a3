#!/usr/bin/env python3
"""One-sided communication on one host: OSU osu_put_latency, osu_get_bw and osu_acc_latency
with ccmpi, Open MPI 4.1.4 and MPICH 4.0.2 (issue 28).

Each program runs on 2 ranks over a window made by MPI_Win_allocate (`-w allocate`) with
passive-target synchronization by flush (`-s flush`: lock once, then MPI_Win_flush after
each operation), once per repetition and implementation over the sizes --sizes gives
(OSU's -m range, the rows below picked out of its table). The implementations run with
their defaults on one host: ccmpi (shared memory), Open MPI (vader; its one-sided component
is whatever it picks) and MPICH (ch4). The order of the implementations rotates between
repetitions so drifts in machine load hit all alike; the table gives the median over the
repetitions and the ratio of ccmpi to the better of the others. The load average is
recorded before and after: a run at a load above ~1.5 is a draft.

With --hosts N (root) the programs run instead on an emulated cluster of N hosts
(ccmpi-cluster up, --rate as given, removed at the end), the 2 ranks on hosts 1 and 2, with
the command lines of the cluster benchmarks (tools/ccmpi_tools/bench/implementations.py):
ccmpi and MPICH only, since Open MPI cannot create windows between hosts over TCP (its osc
component needs shared memory or an RDMA-capable transport).

Usage: bench/rma/run.py --osu OSU_BUILDS [--build BUILD] [--reps 3] [--iters N]
                        [--hosts N [--rate 1gbit]] [--out DIR]
  OSU_BUILDS holds OSU Micro-Benchmarks 7.4 trees configured with each MPI's compiler
  wrapper, OSU_BUILDS/{ccmpi,openmpi,mpich} (see tools/ccmpi_tools/osu.py: a one-sided
  program the tree has not built is compiled from its sources into a work folder).
Writes OUT/results.csv, OUT/README.md and OUT/rma.svg (gnuplot), OUT = docs/results/rma
(docs/results/rma-cluster with --hosts).
"""
import argparse
import csv
import datetime
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tools"))
from ccmpi_tools import osu as osu_tools  # noqa: E402 (needs the path above)
from ccmpi_tools import runs  # noqa: E402
from ccmpi_tools.bench import implementations  # noqa: E402

# (OSU program, unit, higher is better)
PROGRAMS = [
    ("one-sided/osu_put_latency", "us", False),
    ("one-sided/osu_get_bw", "MB/s", True),
    ("one-sided/osu_acc_latency", "us", False),
]
OSU_ARGS = ["-w", "allocate", "-s", "flush"]
DEFAULT_SIZES = "8,4096,65536,1048576"


def label(size):
    for unit, n in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= n and size % n == 0:
            return "%d %s" % (size // n, unit)
    return "%d B" % size


def fmt(v):
    if v is None:
        return "n/a"
    return f"{v:.2f}" if v < 100 else f"{v:.0f}"


class Cluster:
    """An emulated cluster (ccmpi-cluster) for the run: up at construction, down at close."""

    def __init__(self, build, hosts, rate, work):
        self.exe = os.path.join(build, "bin", "ccmpi-cluster")
        self.name = "rma%d" % os.getpid()
        cmd = [self.exe, "up", "--hosts", str(hosts), "--name", self.name, "--owner",
               str(os.getpid())] + (["--rate", rate] if rate else [])
        up = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if up.returncode != 0:
            raise RuntimeError("ccmpi-cluster up failed: %s" % up.stderr.strip()[-300:])
        self.hosts = hosts
        hostfile = up.stdout.strip().splitlines()[-1]
        agent = os.path.join(work, "cc-agent")
        implementations.write_agent(agent, self.exe)
        self.launcher = implementations.Launcher(build, self.exe, self.name, hostfile, agent)

    def reap(self):
        runs.reap_cluster(self.name, self.hosts)

    def close(self):
        self.reap()
        subprocess.run([self.exe, "down", "--name", self.name], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)


def run_program(impl, prog, sizes, a, work, cluster=None):
    """{size: figure} of one invocation, and the error ("" if none)."""
    try:
        exe = osu_tools.program(a.osu, impl, prog, a.build, work)
    except RuntimeError as e:
        return {}, str(e)
    args = OSU_ARGS + ["-m", "%d:%d" % (min(sizes), max(sizes))]
    if a.iters:
        args += ["-i", str(a.iters), "-x", str(max(1, a.iters // 10))]
    if cluster:
        out, err = osu_tools.run(cluster.launcher.launch(impl, 2) + [exe] + args, a.timeout)
        if err:
            cluster.reap()
    else:
        out, err = osu_tools.run(osu_tools.launcher(impl, a.build, 2) + [exe] + args,
                                 a.timeout)
    got = {s: v for s, v in osu_tools.figures(out).items() if s in sizes}
    if not err and len(got) < len(sizes):
        err = "missing sizes in the output"
    return got, err


def write_outputs(out_dir, rows, meta):
    os.makedirs(out_dir, exist_ok=True)
    impls = meta["impls"]
    with open(os.path.join(out_dir, "results.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["program", "size", "unit", "impl", "median", "values", "errors"])
        for r in rows:
            for impl in impls:
                w.writerow([r["program"], r["size"], r["unit"], impl, r["median"][impl],
                            " ".join(f"{v:g}" for v in r["values"][impl]),
                            "; ".join(r["errors"][impl])])
    names = {"ccmpi": "ccmpi", "openmpi": "Open MPI", "mpich": "MPICH"}
    where = ("each with its defaults on one host" if not meta["hosts"] else
             "on 2 of the %d hosts of an emulated cluster (ccmpi-cluster, %s; MPICH with "
             "UCX over TCP; Open MPI cannot create windows between hosts over TCP)" % (
                 meta["hosts"], meta["rate"] or "its default rate"))
    lines = ["# One-sided communication" + (" on one host" if not meta["hosts"] else
                                            " on %d emulated hosts" % meta["hosts"]), "",
             "OSU Micro-Benchmarks 7.4 one-sided programs on 2 ranks, window by "
             "MPI_Win_allocate, passive target with a flush after each operation "
             "(`%s`). ccmpi against Open MPI 4.1.4 and MPICH 4.0.2, %s. Medians of %d "
             "repetitions; the implementations alternate within each repetition. ratio = "
             "ccmpi / the better of the others (below 1: ccmpi is better; for bandwidth, the "
             "inverse)." % (" ".join(OSU_ARGS), where, meta["reps"]), "",
             "Generated by `%s` on %s (%.0f s). Load average before %.2f%s; after %.2f." % (
                 meta["command"], meta["date"], meta["seconds"], meta["load_before"],
                 " (above 1.5: a draft, not a result)" if meta["load_before"] > 1.5 else "",
                 meta["load_after"]), "",
             "| program | size | unit | %s | ratio |" % " | ".join(names[i] for i in impls),
             "| --- | ---: | --- | %s---: |" % ("---: | " * len(impls))]
    for r in rows:
        m = r["median"]
        others = [m[i] for i in impls if i != "ccmpi" and m.get(i) is not None]
        ratio = None
        if m.get("ccmpi") and others:
            best = max(others) if r["higher"] else min(others)
            ratio = best / m["ccmpi"] if r["higher"] else m["ccmpi"] / best
        r["ratio"] = ratio
        cells = [fmt(m.get(i)) + ("" if not r["errors"][i] else " (%s)" % r["errors"][i][0])
                 for i in impls]
        lines.append("| %s | %s | %s | %s | %s |" % (os.path.basename(r["program"]),
                                                     label(r["size"]), r["unit"],
                                                     " | ".join(cells), fmt(ratio)))
    lines += ["", "![ratio per point](rma.svg)", "", "## Machine", "",
              "- %s, %d cores; kernel %s" % (meta["cpu"], osu_tools.CORES, platform.release()),
              "- OSU Micro-Benchmarks 7.4 built with each implementation's wrapper.", ""]
    with open(os.path.join(out_dir, "README.md"), "w") as f:
        f.write("\n".join(lines))
    if shutil.which("gnuplot"):
        data = os.path.join(out_dir, ".ratio.dat")
        with open(data, "w") as f:
            for i, r in enumerate(rows):
                if r["ratio"] is not None:
                    f.write('%d "%s %s" %g\n' % (i, os.path.basename(r["program"])[4:],
                                                 label(r["size"]), r["ratio"]))
        gp = ("set terminal svg size 900,420 dynamic noenhanced font 'sans,10'\n"
              "set output '%s'\nset style fill solid 0.6\nset boxwidth 0.7\n"
              "set ylabel 'ccmpi / better of the others (log)'\nset logscale y\n"
              "set xtics rotate by -45\nset grid ytics\nunset key\n"
              "plot '%s' using 1:3:xtic(2) with boxes, 1 with lines lt -1\n" % (
                  os.path.join(out_dir, "rma.svg"), data))
        subprocess.run(["gnuplot"], input=gp, text=True, check=False)
        os.remove(data)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--osu", required=True, help="OSU_BUILDS (see the top of this file)")
    ap.add_argument("--build", default=os.path.join(REPO, "build"))
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--iters", type=int, default=0,
                    help="OSU's -i (and a tenth as -x); 0: OSU's defaults")
    ap.add_argument("--sizes", default=DEFAULT_SIZES, help="message sizes of the table")
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--impls", default="", help="default ccmpi,openmpi,mpich (with --hosts: "
                    "ccmpi,mpich)")
    ap.add_argument("--hosts", type=int, default=0, help="run on an emulated cluster")
    ap.add_argument("--rate", default="", help="its link rate (ccmpi-cluster up --rate)")
    ap.add_argument("--out", default="")
    a = ap.parse_args()
    impls = (a.impls or ("ccmpi,mpich" if a.hosts else ",".join(osu_tools.IMPLS))).split(",")
    if a.hosts and "openmpi" in impls:
        sys.exit("Open MPI cannot create windows between hosts over TCP: leave it out")
    out_dir = a.out or os.path.join(REPO, "docs", "results",
                                    "rma-cluster" if a.hosts else "rma")
    sizes = sorted(int(s) for s in a.sizes.split(","))
    work = tempfile.mkdtemp(prefix="ccmpi-rma-")
    shm_before = osu_tools.shm_names()
    cluster = None
    try:
        if a.hosts:
            cluster = Cluster(a.build, a.hosts, a.rate, work)
        start, load_before = time.time(), runs.loadavg()
        rows = {(p, s): {"program": p, "size": s, "unit": u, "higher": h,
                         "values": {i: [] for i in impls}, "errors": {i: [] for i in impls}}
                for p, u, h in PROGRAMS for s in sizes}
        for rep in range(a.reps):
            for prog, _, _ in PROGRAMS:
                order = impls[rep % len(impls):] + impls[:rep % len(impls)]
                for impl in order:
                    got, err = run_program(impl, prog, sizes, a, work, cluster)
                    for s in sizes:
                        row = rows[(prog, s)]
                        if s in got:
                            row["values"][impl].append(got[s])
                        elif err:
                            row["errors"][impl].append(err)
                    print("rep %d %-26s %-8s %s" % (rep, os.path.basename(prog), impl,
                                                    err or " ".join(fmt(got[s]) for s in sizes)),
                          flush=True)
        rows = list(rows.values())
        for row in rows:
            row["median"] = {i: (statistics.median(row["values"][i]) if row["values"][i]
                                 else None) for i in impls}
        meta = {"reps": a.reps, "impls": impls, "seconds": time.time() - start,
                "date": datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M UTC"),
                "load_before": load_before, "load_after": runs.loadavg(),
                "cpu": runs.cpu_model(), "hosts": a.hosts, "rate": a.rate,
                "command": " ".join(["bench/rma/run.py"] + sys.argv[1:])}
        write_outputs(out_dir, rows, meta)
        print("wrote", out_dir)
    finally:
        if cluster:
            cluster.close()
        shutil.rmtree(work, ignore_errors=True)
        osu_tools.remove_shm_leftovers(shm_before)


if __name__ == "__main__":
    sys.exit(main())
