#!/usr/bin/env python3
"""One node, many ranks: ccmpi against Open MPI and MPICH on this machine (issue 21).

Rows, all on one host:
  2 ranks    osu_latency 1 B (OSU's iterations, and 200,000) and 64 KiB (half round trip,
             us), osu_bw 4 MiB (MB/s)
  16 ranks   osu_multi_lat 1 B and 64 KiB (us); and osu_multi_lat's loop timed whole,
             barrier included (bench/node/pair_iteration.c, us per iteration): OSU times
             only the exchange after each barrier, which rewards a barrier that lets the
             ranks out far apart
  16 ranks   osu_allreduce, osu_bcast, osu_alltoall, osu_allgather at 8 B, 64 KiB, 1 MiB
             (OSU's average latency, us)
  8 ranks    sparse MPI_Alltoallv, 4 peers x 1 KiB, a new pattern every call
             (bench/node/sparse_alltoallv.c, us per call)
Variants: ccmpi (automatic choices), Open MPI 4.1.4 with its default shared-memory
transport (vader), with `--mca mpi_yield_when_idle 1` when ranks outnumber cores, and
MPICH 4.0.2 (ch4, default). Each repetition runs every point once per variant, the order of
the variants rotating between repetitions so drifts in machine load hit all alike; the
2-rank points, whose runs take a second or two and land in a fast or a slow state of this
virtual machine, run --pair-reps times per repetition (alternating likewise). The table
gives the median over all runs and the ratio of ccmpi to the better of the others.
A variant "ccmpi+VAR=VALUE" (in --impls) runs ccmpi with that environment variable set,
for experiments; the table's ccmpi column is the plain "ccmpi". MPICH runs --mpich-iter-div times fewer iterations where ranks outnumber cores.
An invocation that exceeds --timeout seconds is recorded as a timeout (MPICH
busy-polls: with 16 ranks on 2 cores it may not finish). The load average is recorded
before and after: a run at a load above ~1.5 is a draft.

Usage: bench/node/run.py --osu OSU_BUILDS [--build BUILD] [--reps 3] [--pair-reps 5]
                         [--impls ccmpi,openmpi,mpich] [--only TEXT] [--out DIR]
  OSU_BUILDS holds OSU Micro-Benchmarks 7.4 trees already built with each MPI's compiler
  wrapper: OSU_BUILDS/{ccmpi,openmpi,mpich}/c/mpi/pt2pt/standard/osu_latency ... and
  .../c/mpi/collective/blocking/osu_allreduce ... (configure CC=<wrapper> CXX=<wrapper>;
  make -C c/util; make -C c/mpi/pt2pt/standard; make -C c/mpi/collective/blocking).
Writes OUT/results.csv, OUT/meta.json, OUT/README.md and OUT/node.svg (gnuplot), OUT =
docs/results/node; --rewrite writes README.md and node.svg again from the first two. The
README also splits the 2-rank points whose runs fall into two bands shared by every
implementation (the machine's two states, see split_states) and gives each state's medians.
"""
import argparse
import csv
import datetime
import json
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

CORES = osu_tools.CORES

# (name, ranks, program (OSU path below the tree, or "own:NAME" for bench/node/NAME.c), args,
#  unit, higher is better)
POINTS = [
    ("latency 1 B", 2, "pt2pt/standard/osu_latency", ["-m", "1:1"], "us", False),
    # OSU's 10,000 iterations take 3-5 ms, and on this virtual machine a run that short
    # lands in a fast or a slow state of the host (0.2-0.3 or 0.45-0.55 us; Open MPI and
    # ccmpi alike, MPICH less often slow); 200,000 iterations show whether a state lasts.
    ("latency 1 B, 200k iterations", 2, "pt2pt/standard/osu_latency",
     ["-m", "1:1", "-i", "200000", "-x", "20000"], "us", False),
    ("latency 64 KiB", 2, "pt2pt/standard/osu_latency", ["-m", "65536:65536"], "us", False),
    ("bandwidth 4 MiB", 2, "pt2pt/standard/osu_bw", ["-m", "4194304:4194304"], "MB/s", True),
    ("multi_lat 1 B", 16, "pt2pt/standard/osu_multi_lat", ["-m", "1:1", "-i", "2000", "-x", "200"],
     "us", False),
    ("multi_lat 64 KiB", 16, "pt2pt/standard/osu_multi_lat",
     ["-m", "65536:65536", "-i", "500", "-x", "50"], "us", False),
]
for coll in ("allreduce", "bcast", "alltoall", "allgather"):
    for size, label, iters in ((8, "8 B", "1000"), (65536, "64 KiB", "200"), (1048576, "1 MiB", "50")):
        POINTS.append((f"{coll} {label}", 16, f"collective/blocking/osu_{coll}",
                       ["-m", f"{size}:{size}", "-i", iters, "-x", str(max(5, int(iters) // 10))],
                       "us", False))
POINTS.insert(6, ("multi_lat 1 B, barrier included", 16, "own:pair_iteration", ["1", "2000"], "us",
                  False))
POINTS.append(("sparse alltoallv 4 x 1 KiB", 8, "own:sparse_alltoallv", ["4", "1024", "2000"],
               "us", False))
# Our own programs: the field of their output line ("NAME ...") that is the figure.
OWN_FIELD = {"sparse_alltoallv": 4, "pair_iteration": 4}


def base_impl(variant):
    """("ccmpi", {"CCMPI_BIND": "auto"}) for "ccmpi+CCMPI_BIND=auto"."""
    name, *sets = variant.split("+")
    extra = {}
    for kv in sets:
        k, sep, v = kv.partition("=")
        if not sep or not k:
            raise SystemExit(f"variant {variant!r}: expected NAME+VAR=VALUE")
        extra[k] = v
    return name, extra


def program(impl, prog, osu, own):
    if prog.startswith("own:"):
        return own[(impl, prog[4:])]
    return osu_tools.program(osu, impl, prog)


def parse(prog, args, out):
    """The figure of the point from the program's output, or None."""
    if prog.startswith("own:"):
        name = prog[4:]
        field = OWN_FIELD[name]
        for line in out.splitlines():
            w = line.split()
            if len(w) > field and w[0] == name:
                return float(w[field])
        return None
    return osu_tools.figures(out).get(int(args[args.index("-m") + 1].split(":")[0]))


def scaled(args, div):
    """args with OSU's -i and -x divided by div (at least 2 and 1)."""
    out = list(args)
    for flag, low in (("-i", 2), ("-x", 1)):
        if flag in out:
            k = out.index(flag) + 1
            out[k] = str(max(low, int(out[k]) // div))
    return out


def run_once(variant, point, build, osu, own, timeout, env, mpich_div):
    name, np, prog, args, _, _ = point
    impl, extra = base_impl(variant)
    env = dict(env, **extra)
    if impl == "mpich" and np > CORES and mpich_div > 1:
        if prog.startswith("own:"):
            # The iteration count is the last argument.
            args = args[:-1] + [str(max(10, int(args[-1]) // mpich_div))]
        else:
            args = scaled(args, mpich_div)
    cmd = osu_tools.launcher(impl, build, np) + [program(impl, prog, osu, own)] + args
    out, err = osu_tools.run(cmd, timeout, env)
    value = parse(prog, args, out)
    if err or value is None:
        return None, err or "no figure in the output"
    return value, ""


def build_own(build, work):
    """Our programs (bench/node/NAME.c for each OWN_FIELD name), built with each MPI's
    wrapper: {(impl, NAME): path}."""
    out = {}
    for name in OWN_FIELD:
        src = os.path.join(HERE, f"{name}.c")
        for impl in osu_tools.IMPLS:
            cc = osu_tools.compiler(impl, build)
            exe = os.path.join(work, f"{name}_{impl}")
            subprocess.run([cc, "-O2", "-o", exe, src], check=True)
            out[(impl, name)] = exe
    return out


def fmt(v):
    if v is None:
        return "n/a"
    return f"{v:.2f}" if v < 100 else f"{v:.0f}"


def split_states(row, impls, min_gap=1.25):
    """This virtual machine runs a 2-rank job in one of two states (its two virtual CPUs
    close or far apart on the host: about 0.2 against 0.45 us for 1 B), chosen by the host
    and changing between runs; a median over runs then mostly counts the runs that landed
    in each. Returns the value between the states (the widest gap, at least min_gap times,
    in the pooled sorted runs of every implementation, with two runs or more on each side),
    or None when the runs do not fall apart so."""
    pooled = sorted(v for i in impls for v in row["values"][i])
    best, at = min_gap, None
    for k in range(1, len(pooled) - 2):
        if pooled[k] > 0 and pooled[k + 1] / pooled[k] >= best:
            best, at = pooled[k + 1] / pooled[k], k
    return None if at is None else (pooled[at] + pooled[at + 1]) / 2


def state_lines(rows, meta, cols, titles):
    lines = []
    for r in rows:
        if r["ranks"] != 2 or r["higher"]:
            continue
        cut = split_states(r, meta["impls"])
        # A state of the machine shows in every implementation's runs (one implementation
        # alone in two bands is that implementation's doing, and stays in the table above).
        if cut is None or any(sum(v < cut for v in r["values"][i]) < 2 or
                              sum(v >= cut for v in r["values"][i]) < 2 for i in cols):
            continue
        for name, keep in (("fast", lambda v: v < cut), ("slow", lambda v: v >= cut)):
            med = {}
            cells = []
            for i in cols:
                vals = [v for v in r["values"][i] if keep(v)]
                med[i] = statistics.median(vals) if vals else None
                cells.append("%s (%d)" % (fmt(med[i]), len(vals)))
            others = [med[i] for i in ("openmpi", "mpich") if med.get(i) is not None]
            ratio = med["ccmpi"] / min(others) if med.get("ccmpi") and others else None
            lines.append("| %s | %s, %s %.2f %s | %s | %s |" % (
                r["name"], name, "below" if name == "fast" else "from", cut, r["unit"],
                " | ".join(cells), fmt(ratio)))
    if not lines:
        return []
    return ["", "## The 2-rank points by state of the machine", "",
            "Each 2-rank run lands in a fast or a slow state of this virtual machine (the "
            "host places its two virtual CPUs; runs of every implementation fall into the "
            "same two bands), and which one is a draw per run: the medians above mostly "
            "count the draws. Split at the widest gap between the pooled runs (see "
            "`split_states`), per state: the median and (in brackets) the number of runs.",
            "",
            "| point | state | %s | ratio |" % " | ".join(titles.get(c, c) for c in cols),
            "| --- | --- |%s ---: |" % (" ---: |" * len(cols))] + lines


def write_outputs(out_dir, rows, meta):
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
    with open(os.path.join(out_dir, "results.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["point", "ranks", "unit", "impl", "median", "values", "errors"])
        for r in rows:
            for impl in meta["impls"]:
                vals = r["values"][impl]
                w.writerow([r["name"], r["ranks"], r["unit"], impl, r["median"][impl],
                            " ".join(f"{v:g}" for v in vals), "; ".join(r["errors"][impl])])
    lines = ["# One node, many ranks", "",
             "ccmpi against Open MPI 4.1.4 (default shared memory, vader; "
             "`mpi_yield_when_idle 1` when ranks outnumber cores) and MPICH 4.0.2 (ch4 "
             "default) on this machine. Medians of %d repetitions (the 2-rank points: "
             "medians of %d runs); the variants alternate "
             "within each repetition. ratio = ccmpi / the better of Open MPI and MPICH "
             "(below 1: ccmpi is better; for bandwidth, the inverse)." % (
                 meta["reps"], meta["reps"] * meta["pair_reps"]), "",
             "Generated by `bench/node/run.py --osu OSU_BUILDS --reps %d --pair-reps %d` "
             "on %s (%.0f s). "
             "Load average before %.2f%s; after %.2f, which counts the benchmark's own 8 and "
             "16 ranks on the 2 cores." % (
                 meta["reps"], meta["pair_reps"], meta["date"], meta["seconds"],
                 meta["load_before"],
                 " (above 1.5: a draft, not a result)" if meta["load_before"] > 1.5 else "",
                 meta["load_after"]),
             ""]
    titles = {"ccmpi": "ccmpi", "openmpi": "Open MPI", "mpich": "MPICH"}
    cols = ["ccmpi", "openmpi", "mpich"] + [i for i in meta["impls"] if i not in titles]
    lines += ["| point | ranks | unit | %s | ratio |" % " | ".join(titles.get(c, c) for c in cols),
              "| --- | ---: | --- |%s ---: |" % (" ---: |" * len(cols))]
    for r in rows:
        m = r["median"]
        others = [m[i] for i in ("openmpi", "mpich") if i in m and m[i] is not None]
        ratio = None
        if m.get("ccmpi") is not None and others:
            best = max(others) if r["higher"] else min(others)
            ratio = best / m["ccmpi"] if r["higher"] else m["ccmpi"] / best
        r["ratio"] = ratio
        cells = [fmt(m.get(i)) + ("" if not r["errors"].get(i) else " (%s)" % r["errors"][i][0])
                 for i in cols]
        lines.append("| %s | %d | %s | %s | %s |" % (r["name"], r["ranks"], r["unit"],
                                                     " | ".join(cells), fmt(ratio)))
    lines += state_lines(rows, meta, cols, titles)
    lines += ["", "![ratio per point](node.svg)", "",
              "## Machine", "", "- %s, %d cores; kernel %s" % (meta["cpu"], CORES,
                                                               platform.release()),
              "- OSU Micro-Benchmarks 7.4 built with each implementation's wrapper; "
              "`bench/node/sparse_alltoallv.c` and `bench/node/pair_iteration.c` likewise.", ""]
    with open(os.path.join(out_dir, "README.md"), "w") as f:
        f.write("\n".join(lines))
    if shutil.which("gnuplot"):
        data = os.path.join(out_dir, ".ratio.dat")
        with open(data, "w") as f:
            for i, r in enumerate(rows):
                if r["ratio"] is not None:
                    f.write('%d "%s" %g\n' % (i, r["name"], r["ratio"]))
        gp = ("set terminal svg size 1100,480 dynamic noenhanced font 'sans,10'\n"
              "set output '%s'\nset style fill solid 0.6\nset boxwidth 0.7\n"
              "set ylabel 'ccmpi / better of Open MPI and MPICH (log)'\nset logscale y\n"
              "set xtics rotate by -45\nset grid ytics\nunset key\n"
              "plot '%s' using 1:3:xtic(2) with boxes, 1 with lines lt -1\n" % (
                  os.path.join(out_dir, "node.svg"), data))
        subprocess.run(["gnuplot"], input=gp, text=True, check=False)
        os.remove(data)


def rewrite(out_dir):
    with open(os.path.join(out_dir, "meta.json")) as f:
        meta = json.load(f)
    by_name = {p[0]: p for p in POINTS}
    rows = {}
    with open(os.path.join(out_dir, "results.csv"), newline="") as f:
        for c in csv.DictReader(f):
            p = by_name[c["point"]]
            r = rows.setdefault(c["point"], {"name": p[0], "ranks": p[1], "unit": p[4],
                                             "higher": p[5], "values": {}, "errors": {},
                                             "median": {}})
            vals = [float(v) for v in c["values"].split()]
            r["values"][c["impl"]] = vals
            r["errors"][c["impl"]] = [e for e in c["errors"].split("; ") if e]
            r["median"][c["impl"]] = statistics.median(vals) if vals else None
    write_outputs(out_dir, [rows[p[0]] for p in POINTS if p[0] in rows], meta)
    print("wrote", out_dir)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--osu", required=True, help="OSU_BUILDS (see the top of this file)")
    ap.add_argument("--build", default=os.path.join(REPO, "build"))
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--pair-reps", type=int, default=5,
                    help="runs of each 2-rank point per repetition")
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--impls", default="ccmpi,openmpi,mpich")
    ap.add_argument("--mpich-iter-div", type=int, default=10,
                    help="MPICH busy-polls: when ranks outnumber cores it runs this many "
                         "times fewer OSU iterations (-i, -x); its figure is still a mean")
    ap.add_argument("--only", default="", help="run only points whose name contains this")
    ap.add_argument("--out", default=os.path.join(REPO, "docs", "results", "node"))
    ap.add_argument("--rewrite", action="store_true",
                    help="run nothing: write README.md and node.svg again from OUT/results.csv "
                         "and OUT/meta.json")
    a = ap.parse_args()
    if a.rewrite:
        return rewrite(a.out)
    impls = a.impls.split(",")
    for v in impls:
        if base_impl(v)[0] not in ("ccmpi", "openmpi", "mpich"):
            raise SystemExit(f"unknown variant {v!r}")
    env = osu_tools.env()
    points = [p for p in POINTS if a.only in p[0]]
    work = tempfile.mkdtemp(prefix="ccmpi-node-")
    shm_before = osu_tools.shm_names()
    try:
        own = build_own(a.build, work)
        start, load_before = time.time(), runs.loadavg()
        rows = [{"name": p[0], "ranks": p[1], "unit": p[4], "higher": p[5],
                 "values": {i: [] for i in impls}, "errors": {i: [] for i in impls}}
                for p in points]
        for rep in range(a.reps):
            for p, row in zip(points, rows):
                times = a.pair_reps if p[1] == 2 else 1
                for k in range(rep * times, (rep + 1) * times):
                    order = impls[k % len(impls):] + impls[:k % len(impls)]
                    for impl in order:
                        v, err = run_once(impl, p, a.build, a.osu, own, a.timeout, env,
                                          a.mpich_iter_div)
                        if v is None:
                            row["errors"][impl].append(err)
                        else:
                            row["values"][impl].append(v)
                        print("rep %d %-28s %-22s %s" % (rep, p[0], impl,
                                                         fmt(v) if v else err), flush=True)
        for row in rows:
            row["median"] = {i: (statistics.median(row["values"][i]) if row["values"][i]
                                 else None) for i in impls}
        meta = {"reps": a.reps, "pair_reps": a.pair_reps, "impls": impls,
                "seconds": time.time() - start,
                "date": datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M UTC"),
                "load_before": load_before, "load_after": runs.loadavg(),
                "cpu": runs.cpu_model()}
        write_outputs(a.out, rows, meta)
        print("wrote", a.out)
    finally:
        shutil.rmtree(work, ignore_errors=True)
        osu_tools.remove_shm_leftovers(shm_before)


if __name__ == "__main__":
    sys.exit(main())
