#!/usr/bin/env python3
"""MPI-IO on one host: IOR (`-a MPIIO`) with ccmpi, Open MPI 4.1.4 (its two MPI-IO
components, `--mca io ompio` and `--mca io romio321`) and MPICH 4.0.2 (ROMIO) (issue 28).

IOR is built unmodified from the source tree --ior-src gives (github.com/hpc/ior; a
release tarball or a checkout, bootstrapped here if it has no configure script), once per
implementation with that implementation's mpicc, in a copy of the tree under --ior-work
(kept there and reused by later runs when given; else a temporary folder). The source tree
itself is never written to.

Each point is one IOR invocation on --np ranks: every rank writes then reads its own
--block bytes of one shared file (`-w -r`, segments 1) in transfers of the point's size,
independently or collectively (`-c`), the file in --dir (default a folder in /dev/shm, a
tmpfs: the figures are the MPI-IO layer's, not a disk's). The figures are IOR's write and read
bandwidths (MiB/s) of each of its --iters iterations. Each repetition runs every point once
per variant, the order of the variants rotating between repetitions; the table gives the
median over every iteration of every repetition (reps x iters figures: one iteration moves
64 MiB in some 10-40 ms here, and single figures of the same program vary by +-20%, so a
median of many is what can tell 10% apart; IOR's own summary maximum is the most
scattered statistic of all) and the ratio of the better of the others to ccmpi. The load
average is recorded before and after: a run at a load above ~1.5 is a draft.

IOR's `--mpiio.useStridedDatatype --mpiio.useFileView -s 2` mode reports "Incorrect data on
write/read (2 errors found)" with every implementation alike (ccmpi, Open MPI ompio and
romio321, MPICH; checked with `-W -R`, 2 ranks, -b 32k -t 32k): the mode accesses
segmentCount transfers from a buffer of one transfer, which IOR's own check then disagrees
with; it is IOR's, not an MPI-IO fault, and is left out here.

Usage: bench/io/run.py --ior-src DIR [--ior-work DIR] [--build BUILD] [--np 4]
                       [--block 16m] [--transfers 64k,1m,4m] [--reps 3] [--iters 10] [--out DIR]
Writes OUT/results.csv, OUT/README.md and OUT/io.svg (gnuplot), OUT = docs/results/io.
"""
import argparse
import csv
import datetime
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tools"))
from ccmpi_tools import osu as launch  # noqa: E402 (needs the path above)
from ccmpi_tools import runs  # noqa: E402

# variant -> (implementation, extra launcher arguments)
VARIANTS = {
    "ccmpi": ("ccmpi", []),
    "openmpi-ompio": ("openmpi", ["--mca", "io", "ompio"]),
    "openmpi-romio": ("openmpi", ["--mca", "io", "romio321"]),
    "mpich": ("mpich", []),
}
NAMES = {"ccmpi": "ccmpi", "openmpi-ompio": "Open MPI (ompio)",
         "openmpi-romio": "Open MPI (romio321)", "mpich": "MPICH"}


def build_ior(impl, src, work, build):
    """The ior executable built with impl's mpicc in work/<impl> (reused when there)."""
    tree = os.path.join(work, impl)
    exe = os.path.join(tree, "src", "ior")
    if os.access(exe, os.X_OK):
        return exe
    if os.path.isdir(tree):
        shutil.rmtree(tree)
    shutil.copytree(src, tree, symlinks=True)
    log = open(os.path.join(work, "build-%s.log" % impl), "w")

    def step(cmd):
        p = subprocess.run(cmd, cwd=tree, stdout=log, stderr=subprocess.STDOUT)
        if p.returncode != 0:
            raise RuntimeError("building IOR for %s: `%s` failed (see %s)" % (
                impl, " ".join(cmd), log.name))

    if os.path.exists(os.path.join(tree, "Makefile")):
        step(["make", "distclean"])
    if not os.path.exists(os.path.join(tree, "configure")):
        step(["./bootstrap"])
    cc = launch.compiler(impl, build)
    step(["./configure", "MPICC=" + cc, "CC=" + cc])
    step(["make", "-j2", "-C", "src", "ior"])
    log.close()
    return exe


def parse(out):
    """{"write": [MiB/s, ...], "read": [...]}: the bandwidth column of each iteration's line
    in IOR's "Results:" table (the lines before "Summary of all tests")."""
    got = {}
    results = out.split("Summary of all tests:", 1)[0]
    for line in results.splitlines():
        w = line.split()
        if len(w) >= 10 and w[0] in ("write", "read"):
            try:
                got.setdefault(w[0], []).append(float(w[1]))
            except ValueError:
                pass
    return got


def size_bytes(text):
    m = re.fullmatch(r"(\d+)([kmg]?)", text.lower())
    if not m:
        raise ValueError("bad size %r" % text)
    return int(m.group(1)) << {"": 0, "k": 10, "m": 20, "g": 30}[m.group(2)]


def med(values):
    return statistics.median(values) if values else None


def fmt(v):
    if v is None:
        return "n/a"
    return f"{v:.1f}" if v < 1000 else f"{v:.0f}"


def write_outputs(out_dir, rows, meta):
    os.makedirs(out_dir, exist_ok=True)
    variants = meta["variants"]
    with open(os.path.join(out_dir, "results.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["access", "transfer", "op", "variant", "median_MiB_s", "values", "errors"])
        for r in rows:
            for v in variants:
                w.writerow([r["access"], r["transfer"], r["op"], v, r["median"][v],
                            " ".join(f"{x:g}" for x in r["values"][v]),
                            "; ".join(r["errors"][v])])
    lines = ["# MPI-IO on one host: IOR", "",
             "IOR `-a MPIIO` on %d ranks of one host, each rank writing then reading its own "
             "%s of one shared file (`-w -r -s 1`) in transfers of the given size, "
             "independently or collectively (`-c`), the file in %s. Figures: the median of IOR's "
             "write / read bandwidths (MiB/s) of %d iterations in each of %d repetitions; the "
             "variants alternate within each repetition. ratio = the better of the others / "
             "ccmpi (below 1: ccmpi is faster)." % (meta["np"], meta["block"], meta["dir_kind"],
                                                    meta["iters"], meta["reps"]), "",
             "Generated by `%s` on %s (%.0f s). Load average before %.2f%s; after %.2f." % (
                 meta["command"], meta["date"], meta["seconds"], meta["load_before"],
                 " (above 1.5: a draft, not a result)" if meta["load_before"] > 1.5 else "",
                 meta["load_after"]), "",
             "| access | transfer | op | %s | ratio |" % " | ".join(NAMES[v] for v in variants),
             "| --- | ---: | --- | %s---: |" % ("---: | " * len(variants))]
    for r in rows:
        m = r["median"]
        others = [m[v] for v in variants if v != "ccmpi" and m.get(v)]
        r["ratio"] = max(others) / m["ccmpi"] if m.get("ccmpi") and others else None
        cells = [fmt(m.get(v)) + ("" if not r["errors"][v] else " (%s)" % r["errors"][v][0])
                 for v in variants]
        lines.append("| %s | %s | %s | %s | %s |" % (r["access"], r["transfer"], r["op"],
                                                     " | ".join(cells),
                                                     "n/a" if r["ratio"] is None
                                                     else "%.2f" % r["ratio"]))
    rated = [r for r in rows if r["ratio"] is not None]
    behind = ["%s %s %s (%.2f)" % (r["access"], r["transfer"], r["op"], r["ratio"])
              for r in rated if r["ratio"] > 1.1]
    lines += ["", "ccmpi is within 10%% of the better of the others (ratio at most 1.10) at %d "
              "of %d points%s." % (len(rated) - len(behind), len(rated),
                                   "; more than 10% behind at: " + ", ".join(behind)
                                   if behind else "")]
    lines += ["", "![ratio per point](io.svg)", "", "## Machine", "",
              "- %s, %d cores; kernel %s" % (meta["cpu"], launch.CORES, platform.release()),
              "- IOR %s built unmodified with each implementation's mpicc." % meta["ior"], ""]
    with open(os.path.join(out_dir, "README.md"), "w") as f:
        f.write("\n".join(lines))
    if shutil.which("gnuplot"):
        data = os.path.join(out_dir, ".ratio.dat")
        with open(data, "w") as f:
            for i, r in enumerate(rows):
                if r["ratio"] is not None:
                    f.write('%d "%s %s %s" %g\n' % (i, r["access"], r["transfer"], r["op"],
                                                    r["ratio"]))
        gp = ("set terminal svg size 900,420 dynamic noenhanced font 'sans,10'\n"
              "set output '%s'\nset style fill solid 0.6\nset boxwidth 0.7\n"
              "set ylabel 'better of the others / ccmpi (log)'\nset logscale y\n"
              "set xtics rotate by -45\nset grid ytics\nunset key\n"
              "plot '%s' using 1:3:xtic(2) with boxes, 1 with lines lt -1\n" % (
                  os.path.join(out_dir, "io.svg"), data))
        subprocess.run(["gnuplot"], input=gp, text=True, check=False)
        os.remove(data)


def ior_version(src):
    try:
        with open(os.path.join(src, "META")) as f:
            for line in f:
                if line.startswith("Version:"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "(version unknown)"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ior-src", required=True, help="IOR source tree (github.com/hpc/ior)")
    ap.add_argument("--ior-work", default="", help="where the IOR builds go (kept, reused)")
    ap.add_argument("--build", default=os.path.join(REPO, "build"))
    ap.add_argument("--np", type=int, default=4)
    ap.add_argument("--block", default="16m", help="bytes per rank (IOR -b)")
    ap.add_argument("--transfers", default="64k,1m,4m", help="transfer sizes (IOR -t)")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--iters", type=int, default=10, help="IOR -i")
    ap.add_argument("--dir", default="", help="folder of the file (default: in /dev/shm)")
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--out", default=os.path.join(REPO, "docs", "results", "io"))
    a = ap.parse_args()
    variants = a.variants.split(",")
    transfers = a.transfers.split(",")
    block = size_bytes(a.block)
    for t in transfers:
        if block % size_bytes(t):
            sys.exit("the block %s is not a multiple of the transfer %s" % (a.block, t))
    work = a.ior_work or tempfile.mkdtemp(prefix="ccmpi-ior-build-")
    os.makedirs(work, exist_ok=True)
    base = a.dir or ("/dev/shm" if os.path.isdir("/dev/shm") else tempfile.gettempdir())
    fdir = tempfile.mkdtemp(prefix="ccmpi-ior-", dir=base)
    shm_before = launch.shm_names()
    try:
        exes = {}
        for impl in sorted({VARIANTS[v][0] for v in variants}):
            exes[impl] = build_ior(impl, os.path.abspath(a.ior_src), work, a.build)
        start, load_before = time.time(), runs.loadavg()
        points = [(acc, t) for acc in ("independent", "collective") for t in transfers]
        rows = {(acc, t, op): {"access": acc, "transfer": t, "op": op,
                               "values": {v: [] for v in variants},
                               "errors": {v: [] for v in variants}}
                for acc, t in points for op in ("write", "read")}
        for rep in range(a.reps):
            for acc, t in points:
                order = variants[rep % len(variants):] + variants[:rep % len(variants)]
                for v in order:
                    impl, extra = VARIANTS[v]
                    path = os.path.join(fdir, "ior-%s.dat" % v)
                    cmd = launch.launcher(impl, a.build, a.np, extra) + [
                        exes[impl], "-a", "MPIIO", "-w", "-r", "-s", "1", "-b", a.block,
                        "-t", t, "-i", str(a.iters), "-o", path] + (["-c"] if acc == "collective"
                                                                     else [])
                    out, err = launch.run(cmd, a.timeout)
                    got = parse(out)
                    for op in ("write", "read"):
                        row = rows[(acc, t, op)]
                        if len(got.get(op, ())) == a.iters and not err:
                            row["values"][v].extend(got[op])
                        else:
                            row["errors"][v].append(err or "no figure in the output")
                    if os.path.exists(path):
                        os.remove(path)
                    print("rep %d %-11s %-4s %-14s %s" % (
                        rep, acc, t, v, err or "write %s read %s MiB/s (medians of %d)" % (
                            fmt(med(got.get("write"))), fmt(med(got.get("read"))), a.iters)),
                        flush=True)
        rows = list(rows.values())
        for row in rows:
            row["median"] = {v: med(row["values"][v]) for v in variants}
        meta = {"reps": a.reps, "iters": a.iters, "variants": variants, "np": a.np,
                "block": a.block, "seconds": time.time() - start,
                "dir_kind": "a tmpfs (/dev/shm)" if base == "/dev/shm" else base,
                "date": datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M UTC"),
                "load_before": load_before, "load_after": runs.loadavg(),
                "cpu": runs.cpu_model(), "ior": ior_version(a.ior_src),
                "command": " ".join(["bench/io/run.py"] + sys.argv[1:])}
        write_outputs(a.out, rows, meta)
        print("wrote", a.out)
    finally:
        shutil.rmtree(fdir, ignore_errors=True)
        if not a.ior_work:
            shutil.rmtree(work, ignore_errors=True)
        launch.remove_shm_leftovers(shm_before)


if __name__ == "__main__":
    sys.exit(main())
