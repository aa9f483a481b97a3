#!/usr/bin/python3
"""Proxy applications: LULESH 2.0, HPCG 3.1 and CloverLeaf (Fortran) with ccmpi, Open MPI
and MPICH, on one host and on an emulated cluster (issue 25).

The applications' sources are not part of ccmpi: give the directories holding them
(unmodified; each is copied into the work directory and built there with each
implementation's compiler wrappers):
  --lulesh DIR      LULESH 2.0 (github.com/LLNL/LULESH): its Makefile, built with
                    CXX="<mpicxx> -DUSE_MPI=1", no OpenMP (one thread per rank)
  --hpcg DIR        HPCG 3.1 (github.com/hpcg-benchmark/hpcg): `DIR/configure Linux_MPI`
                    in a build directory, then `make CXX=<mpicxx>`
  --cloverleaf DIR  CloverLeaf_ref (github.com/UK-MAC/CloverLeaf_ref, Fortran 90 with
                    `use mpi` and C kernels): `make COMPILER=GNU MPI_COMPILER=<mpifort>
                    C_MPI_COMPILER=<mpicc>`; run with OMP_NUM_THREADS=1
Wrappers: ccmpi BUILD/bin/{mpicc,mpicxx,mpifort}; Open MPI {mpicc,mpicxx,mpif90}.openmpi;
MPICH {mpicc,mpicxx,mpif90}.mpich.

Runs (every implementation, --reps times, the order of the implementations rotating):
  one host   --ranks (default 4,8) ranks. ccmpi `mpirun -n N`; Open MPI
             `mpirun.openmpi --oversubscribe -n N` with its default shared-memory transport
             (`--mca mpi_yield_when_idle 1` when ranks outnumber cores); MPICH
             `mpiexec.mpich -n N`. LULESH needs a cube number of ranks: it runs at the
             cubes among --ranks, and at 1.
  cluster    `ccmpi-cluster up --hosts H --rate R` (default 8 hosts, 25mbit, one rank per
             host), launched as ccmpi-bench does (tools/ccmpi_tools/bench/implementations.py):
             ccmpi through `ccmpi-cluster exec` with --iface r0; Open MPI's mpirun on host 1
             with `--mca btl tcp,self --mca mpi_yield_when_idle 1`; MPICH's Hydra on host 1.
             Needs root; removed at the end whatever happens.
Every run is checked by the application's own verification:
  LULESH     "Final Origin Energy" printed and the symmetry check of the energy field
             (MaxRelDiff) at most 1e-8; the origin energy of every run of a point must
             agree (relative 1e-6) across implementations
  HPCG       "HPCG result is VALID" and every "::Result=PASSED" of its report file
  CloverLeaf "This test is considered PASSED" (the deck names a test problem: the default
             deck InputDecks/clover_bm_short.in is test problem 2, 960x960 cells, 87 steps);
             the final field summary must agree across implementations
A run that fails, does not verify or exceeds --timeout is not counted (its cell says why).
Figures: LULESH's FOM (zones/s), HPCG's GFLOP/s rating, CloverLeaf's wall clock (s); the
table gives medians and ccmpi's time relative to Open MPI and to MPICH (below 1: ccmpi is
faster).

Time: with the defaults, ccmpi and Open MPI take about 10 s (LULESH), 30 s (HPCG) and 30-45 s
(CloverLeaf) per run on a 2-core machine; MPICH 4 busy-polls, and with 8 ranks on 2 cores
its runs were 20-40 times slower in a smoke run (LULESH -s 4: 5 against 198 z/s), so a
full run of all three implementations takes hours: `--impls ccmpi,openmpi` leaves MPICH
out, and a run exceeding --timeout is recorded as such.

Usage: bench/apps/run.py --lulesh DIR --hpcg DIR --cloverleaf DIR [--build BUILD]
       [--reps 3] [--where host,cluster] [--ranks 4,8] [--hosts 8] [--rate 25mbit]
       [--impls ccmpi,openmpi,mpich] [--work DIR] [--out DIR]
Writes OUT/README.md, OUT/results.csv and OUT/apps.svg (OUT = docs/results/apps).
"""
import argparse
import csv
import datetime
import glob
import os
import platform
import re
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tools"))
from ccmpi_tools import runs  # noqa: E402 (needs the path above)

CORES = os.cpu_count() or 1
IMPLS = ("ccmpi", "openmpi", "mpich")
NAMES = {"ccmpi": "ccmpi", "openmpi": "Open MPI", "mpich": "MPICH"}
APPS = ("lulesh", "hpcg", "cloverleaf")
TITLES = {"lulesh": "LULESH 2.0", "hpcg": "HPCG 3.1", "cloverleaf": "CloverLeaf"}
# The figure of each application: (unit, higher is better).
FIGURES = {"lulesh": ("FOM z/s", True), "hpcg": ("GFLOP/s", True),
           "cloverleaf": ("wall clock s", False)}
LULESH_SYMMETRY_TOL = 1e-8
SIGNATURE_TOL = 1e-6


# --- the applications' output ---

def _float(s):
    try:
        return float(s)
    except ValueError:
        return None


def parse_lulesh(out):
    """LULESH's summary: {"energy", "maxreldiff", "fom", "elapsed", "ranks"} (None where
    absent)."""
    r = {"energy": None, "maxreldiff": None, "fom": None, "elapsed": None, "ranks": None}
    pats = {"energy": r"Final Origin Energy\s*=\s*(\S+)", "maxreldiff": r"MaxRelDiff\s*=\s*(\S+)",
            "fom": r"^FOM\s*=\s*(\S+)", "elapsed": r"^Elapsed time\s*=\s*(\S+)",
            "ranks": r"MPI tasks\s*=\s*(\d+)"}
    for key, pat in pats.items():
        m = re.search(pat, out, re.M)
        if m:
            r[key] = _float(m.group(1))
    return r


def verify_lulesh(r):
    """(figure, signature, why not verified or "")."""
    if r["energy"] is None or r["fom"] is None:
        return None, None, "no LULESH summary (Final Origin Energy, FOM) in the output"
    if r["maxreldiff"] is None or r["maxreldiff"] > LULESH_SYMMETRY_TOL:
        return None, None, "energy field not symmetric (MaxRelDiff %s)" % r["maxreldiff"]
    return r["fom"], (r["energy"],), ""


def parse_hpcg(report):
    """HPCG's report file (HPCG-Benchmark_3.1_*.txt): {"valid", "results" [(name,
    PASSED|FAILED)], "gflops", "version"}."""
    r = {"valid": False, "results": [], "gflops": None, "version": None}
    for line in report.splitlines():
        m = re.match(r"^(.*)::Result=(\S+)", line)
        if m:
            r["results"].append((m.group(1), m.group(2)))
        m = re.search(r"HPCG result is VALID with a GFLOP/s rating of=(\S+)", line)
        if m:
            r["valid"], r["gflops"] = True, _float(m.group(1))
        m = re.match(r"^HPCG-Benchmark version=(\S+)", line)
        if m:
            r["version"] = m.group(1)
    return r


def verify_hpcg(r):
    if not r["results"]:
        return None, None, "no HPCG report (HPCG-Benchmark_*.txt) or no test results in it"
    failed = [n for n, v in r["results"] if v != "PASSED"]
    if failed:
        return None, None, "HPCG tests not passed: " + ", ".join(failed)
    if not r["valid"] or r["gflops"] is None:
        return None, None, "HPCG result is not VALID"
    return r["gflops"], None, ""


def parse_clover(out, summary):
    """CloverLeaf's stdout and its clover.out: {"test_problem", "passed", "wall",
    "final" (the last field summary's 7 figures)}."""
    r = {"test_problem": None, "passed": None, "wall": None, "final": None}
    m = re.search(r"Test problem\s+(\d+)\s+is within", out)
    if m:
        r["test_problem"] = int(m.group(1))
    if "This test is considered PASSED" in out:
        r["passed"] = True
    elif "NOT PASSED" in out:
        r["passed"] = False
    walls = re.findall(r"^\s*Wall clock\s+(\S+)", out, re.M)
    if walls:
        r["wall"] = _float(walls[-1])
    for line in summary.splitlines():
        w = line.split()
        if len(w) == 9 and w[0] == "step:":
            vals = [_float(x) for x in w[2:]]
            if None not in vals:
                r["final"] = tuple(vals)
    return r


def verify_clover(r, deck_has_test):
    if r["wall"] is None or r["final"] is None:
        return None, None, "no CloverLeaf summary (Wall clock, field summary) in the output"
    if deck_has_test and not r["passed"]:
        return None, None, "test problem %s not PASSED" % r["test_problem"]
    return r["wall"], r["final"], ""


def signatures_agree(sigs, tol=SIGNATURE_TOL):
    """Whether every signature (a tuple of numbers) equals the first within tol (relative)."""
    sigs = [s for s in sigs if s is not None]
    for s in sigs[1:]:
        for a, b in zip(sigs[0], s):
            if abs(a - b) > tol * max(abs(a), abs(b), 1e-300):
                return False
    return True


def lulesh_ranks(ranks):
    """The rank counts LULESH runs at: 1 and the cubes among `ranks`."""
    out = [1]
    for n in ranks:
        c = round(n ** (1 / 3))
        if c ** 3 == n and n not in out:
            out.append(n)
    return out


def ratio(app, mine, other):
    """ccmpi's time relative to another's (below 1: ccmpi is faster), from the figures."""
    if mine is None or other is None or mine <= 0 or other <= 0:
        return None
    return other / mine if FIGURES[app][1] else mine / other


# --- building ---

def wrappers(impl, build):
    if impl == "ccmpi":
        b = os.path.join(build, "bin")
        return {"cc": os.path.join(b, "mpicc"), "cxx": os.path.join(b, "mpicxx"),
                "fc": os.path.join(b, "mpifort")}
    return {"cc": "mpicc.%s" % impl, "cxx": "mpicxx.%s" % impl, "fc": "mpif90.%s" % impl}


def build_app(app, src, impl, build, work):
    """Builds `app` from `src` with `impl`'s wrappers under WORK/IMPL/APP (reused when the
    program is already there); returns (program path or None, log path)."""
    d = os.path.join(work, impl, app)
    log = os.path.join(work, "build-%s-%s.log" % (impl, app))
    w = wrappers(impl, build)
    if app == "lulesh":
        exe = os.path.join(d, "lulesh2.0")
        steps = [(d, ["make", "-j2", "CXX=%s -DUSE_MPI=1" % w["cxx"], "CXXFLAGS=-O3 -I. -Wall",
                      "LDFLAGS=-O3"])]
    elif app == "hpcg":
        exe = os.path.join(d, "bin", "xhpcg")
        steps = [(d, [os.path.join(src, "configure"), "Linux_MPI"]),
                 (d, ["make", "-j2", "CXX=" + w["cxx"]])]
    else:
        exe = os.path.join(d, "clover_leaf")
        steps = [(d, ["make", "COMPILER=GNU", "MPI_COMPILER=" + w["fc"],
                      "C_MPI_COMPILER=" + w["cc"]])]
    if os.access(exe, os.X_OK):
        return exe, log
    if app == "hpcg":
        os.makedirs(d, exist_ok=True)  # built out of the source tree
    elif not os.path.isdir(d):
        shutil.copytree(src, d, symlinks=True)
    with open(log, "a") as f:
        for cwd, cmd in steps:
            f.write("$ cd %s && %s\n" % (cwd, " ".join(shlex.quote(c) for c in cmd)))
            f.flush()
            if subprocess.run(cmd, cwd=cwd, stdout=f, stderr=subprocess.STDOUT).returncode:
                return None, log
    return (exe if os.access(exe, os.X_OK) else None), log


# --- launching ---

def host_launch(impl, build, n):
    if impl == "ccmpi":
        return [os.path.join(build, "bin", "mpirun"), "-n", str(n), "--env", "OMP_NUM_THREADS=1"]
    if impl == "openmpi":
        cmd = ["mpirun.openmpi", "--oversubscribe", "-n", str(n), "-x", "OMP_NUM_THREADS=1"]
        if n > CORES:
            cmd += ["--mca", "mpi_yield_when_idle", "1"]
        return cmd
    return ["mpiexec.mpich", "-n", str(n), "-genv", "OMP_NUM_THREADS", "1"]


def cluster_launch(impl, launcher, n):
    cmd = launcher.launch(impl, n)
    if impl == "ccmpi":
        return cmd + ["--env", "OMP_NUM_THREADS=1"]
    if impl == "openmpi":
        return cmd + ["-x", "OMP_NUM_THREADS=1"]
    return cmd + ["-genv", "OMP_NUM_THREADS", "1"]


def app_args(app, a):
    if app == "lulesh":
        return shlex.split(a.lulesh_args)
    if app == "hpcg":
        return shlex.split(a.hpcg_args)
    return []


class Cluster:
    """`ccmpi-cluster up` ... `down`, and killing what a stopped run left on its hosts."""

    def __init__(self, build, hosts, rate, work):
        self.tool = os.path.join(build, "bin", "ccmpi-cluster")
        self.build, self.hosts, self.rate, self.work = build, hosts, rate, work
        self.name = "apps%d" % (os.getpid() % 100000)
        self.launcher = None

    def __enter__(self):
        from ccmpi_tools.bench import implementations
        up = subprocess.run([self.tool, "up", "--name", self.name, "--hosts", str(self.hosts),
                             "--rate", self.rate, "--owner", str(os.getpid())],
                            stdout=subprocess.PIPE, text=True)
        if up.returncode != 0:
            self.__exit__()
            raise RuntimeError("ccmpi-cluster up failed")
        hostfile = up.stdout.strip().splitlines()[-1]
        agent = os.path.join(self.work, "cluster-agent")
        implementations.write_agent(agent, self.tool)
        self.launcher = implementations.Launcher(self.build, self.tool, self.name, hostfile,
                                                 agent)
        return self

    def reap(self):
        runs.reap_cluster(self.name, self.hosts)

    def __exit__(self, *exc):
        subprocess.run([self.tool, "down", "--name", self.name], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        return False


# A run whose output is complete (DONE[app] found) but which has not exited this many
# seconds later is stopped and counted: MPICH's ranks sometimes spin in MPI_Finalize for
# minutes on the emulated cluster after the application has printed its result.
HUNG_AFTER = 20
DONE = {"lulesh": r"^FOM\s*=", "hpcg": None, "cloverleaf": r"First step overhead"}


def _finished(app, d, log_path):
    """Whether the run in directory d has written all its results."""
    if app == "hpcg":
        for f in glob.glob(os.path.join(d, "HPCG-Benchmark*.txt")):
            with open(f, errors="replace") as fh:
                if "Final Summary::" in fh.read():
                    return True
        return False
    with open(log_path, errors="replace") as f:
        return re.search(DONE[app], f.read(), re.M) is not None


def run_cmd(app, cmd, cwd, env, timeout, log_path):
    """Runs cmd in its own process group, output to log_path; (exit status, output,
    hung): 124 on a timeout (the group is killed); 0 and hung=True when it was stopped
    HUNG_AFTER seconds after its output was complete."""
    with open(log_path, "w") as log:
        log.write("$ cd %s && %s\n" % (cwd, " ".join(shlex.quote(c) for c in cmd)))
        log.flush()
        rc, timed_out, hung = runs.run_watched(
            cmd, log, subprocess.STDOUT, timeout, done=lambda: _finished(app, cwd, log_path),
            hung_after=HUNG_AFTER, grace=5, cwd=cwd, env=env, every=1)
    if timed_out:
        rc = 124
    elif hung:
        rc = 0
    with open(log_path, errors="replace") as f:
        return rc, f.read(), hung


def run_point(app, exe, impl, where, n, rep, a, cluster, env, runs_dir):
    """One run: (figure or None, signature, why not counted or "", hung: stopped after
    its output was complete)."""
    d = os.path.join(runs_dir, "%s-%s-%s-%d-r%d" % (app, impl, where, n, rep))
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    if app == "cloverleaf":
        shutil.copy(a.clover_deck, os.path.join(d, "clover.in"))
    launch = host_launch(impl, a.build, n) if where == "host" else cluster_launch(
        impl, cluster.launcher, n)
    cmd = launch + [exe] + app_args(app, a)
    rc, out, hung = run_cmd(app, cmd, d, env, a.timeout, os.path.join(d, "output.log"))
    if where == "cluster":
        cluster.reap()
    if rc == 124:
        return None, None, "timeout (%g s)" % a.timeout, False
    if app == "lulesh":
        fig, sig, why = verify_lulesh(parse_lulesh(out))
    elif app == "hpcg":
        reports = sorted(glob.glob(os.path.join(d, "HPCG-Benchmark*.txt")))
        text = ""
        if reports:
            with open(reports[-1], errors="replace") as f:
                text = f.read()
        fig, sig, why = verify_hpcg(parse_hpcg(text))
    else:
        summary = ""
        if os.path.exists(os.path.join(d, "clover.out")):
            with open(os.path.join(d, "clover.out"), errors="replace") as f:
                summary = f.read()
        fig, sig, why = verify_clover(parse_clover(out, summary), a.clover_test)
    if rc != 0:
        last = (out.strip().splitlines() or [""])[-1][:100]
        return None, None, "exit %d: %s" % (rc, last), False
    return fig, sig, why, hung


# --- output ---

def fmt(v):
    if v is None:
        return "n/a"
    if v >= 1000:
        return "%.0f" % v
    return "%.2f" % v if v < 10 else "%.1f" % v


def where_label(where, a):
    return "1 host" if where == "host" else "%d hosts, %s" % (a.hosts, a.rate)


def table_lines(rows, impls):
    lines = ["| app | ranks | where | figure | " + " | ".join(NAMES[i] for i in IMPLS) +
             " | ccmpi / Open MPI | ccmpi / MPICH |",
             "| --- | ---: | --- | --- | " + " | ".join("---:" for _ in IMPLS) + " | ---: | ---: |"]
    for r in rows:
        cells = []
        for i in IMPLS:
            if i not in impls:
                cells.append("–")
                continue
            c = fmt(r["median"].get(i))
            if r["errors"][i]:
                c += " (%d of %d failed: %s)" % (len(r["errors"][i]), r["runs"],
                                                 r["errors"][i][0])
            if r.get("hung", {}).get(i):
                c += " (%d stopped after finishing)" % r["hung"][i]
            cells.append(c)
        m = r["median"]
        lines.append("| %s | %d | %s | %s | %s | %s | %s |" % (
            TITLES[r["app"]], r["ranks"], r["where_label"], FIGURES[r["app"]][0],
            " | ".join(cells), fmt(ratio(r["app"], m.get("ccmpi"), m.get("openmpi"))),
            fmt(ratio(r["app"], m.get("ccmpi"), m.get("mpich")))))
    return lines


def plot(rows, path):
    """Bars of ccmpi's time relative to Open MPI and to MPICH per point (SVG); False
    without matplotlib or data (an earlier plot is removed)."""
    pts = [(r, ratio(r["app"], r["median"].get("ccmpi"), r["median"].get("openmpi")),
            ratio(r["app"], r["median"].get("ccmpi"), r["median"].get("mpich"))) for r in rows]
    pts = [p for p in pts if p[1] is not None or p[2] is not None]
    try:
        import matplotlib
        matplotlib.use("Agg")
        matplotlib.rcParams["svg.fonttype"] = "none"
        matplotlib.rcParams["svg.hashsalt"] = "ccmpi-apps"
        import matplotlib.pyplot as plt
    except ImportError:
        print("run.py: no matplotlib in %s: no plot (Debian: python3-matplotlib, run "
              "/usr/bin/python3)" % sys.executable, file=sys.stderr)
        pts = []
    if not pts:
        if os.path.exists(path):
            os.remove(path)
        return False
    fig, ax = plt.subplots(figsize=(max(6, 0.9 * len(pts) + 2), 4))
    xs = list(range(len(pts)))
    for k, (label, off) in enumerate((("ccmpi / Open MPI", -0.2), ("ccmpi / MPICH", 0.2))):
        vals = [p[1 + k] for p in pts]
        ax.bar([x + off for x, v in zip(xs, vals) if v is not None],
               [v for v in vals if v is not None], width=0.38, label=label)
    ax.axhline(1.0, color="black", linewidth=1)
    ax.set_xticks(xs)
    ax.set_xticklabels(["%s\n%d ranks\n%s" % (TITLES[p[0]["app"]], p[0]["ranks"],
                                              p[0]["where_label"]) for p in pts], fontsize=8)
    ax.set_ylabel("ccmpi's time relative (below 1: ccmpi faster)")
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, format="svg", metadata={"Date": None})
    plt.close(fig)
    return True


def write_outputs(out_dir, rows, meta):
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "results.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["app", "ranks", "where", "figure", "impl", "median", "values", "errors"])
        for r in rows:
            for i in meta["impls"]:
                w.writerow([r["app"], r["ranks"], r["where_label"], FIGURES[r["app"]][0], i,
                            "" if r["median"].get(i) is None else "%g" % r["median"][i],
                            " ".join("%g" % v for v in r["values"][i]),
                            "; ".join(r["errors"][i])])
    has_plot = plot(rows, os.path.join(out_dir, "apps.svg"))
    lines = ["# Proxy applications: LULESH, HPCG, CloverLeaf", "",
             "LULESH 2.0, HPCG 3.1 and CloverLeaf_ref (Fortran 90, `use mpi`), built unmodified "
             "with each implementation's compiler wrappers and checked by their own "
             "verification (bench/apps/run.py says how). Figures: LULESH's FOM (zones/s, higher "
             "is better), HPCG's GFLOP/s rating (higher is better), CloverLeaf's wall clock "
             "(seconds, lower is better); medians of %d repetitions, the implementations "
             "alternating within each. The ratios are ccmpi's time relative to Open MPI's and "
             "to MPICH's (below 1: ccmpi is faster); a run that failed or did not verify is not "
             "counted and its cell says why. LULESH needs a cube number of ranks, so it runs "
             "at 1 and 8." % meta["reps"], "",
             "Generated on %s (%.0f s) by" % (meta["date"], meta["seconds"]), "",
             "    " + meta["command"], "",
             "Load average before %.2f%s, after %.2f (the runs' own ranks count: 8 ranks on %d "
             "cores)." % (meta["load_before"], " (above 1.5: a draft, not a result)"
                          if meta["load_before"] > 1.5 else "", meta["load_after"], CORES), ""]
    lines += table_lines(rows, meta["impls"])
    if any(any(r.get("hung", {}).values()) for r in rows):
        lines += ["", "\"stopped after finishing\": the run had written its result but had not "
                  "exited %d s later (ranks waiting in MPI_Finalize); it was stopped and its "
                  "figure, which the application measured before, is counted." % HUNG_AFTER]
    if meta["differ"]:
        lines += ["", "**Results differ between implementations** (origin energy or final "
                  "field summary): " + "; ".join(meta["differ"])]
    lines += [""]
    if has_plot:
        lines += ["![ccmpi's time relative to Open MPI and MPICH](apps.svg)", ""]
    lines += ["## Setup", "",
              "- %s, %d cores; kernel %s" % (meta["cpu"], CORES, platform.release()),
              "- %s; %s" % (meta["openmpi"] or "Open MPI: not found",
                            meta["mpich"] or "MPICH: not found"),
              "- ccmpi %s" % meta["ccmpi"],
              "- LULESH arguments `%s`; HPCG arguments `%s`; CloverLeaf deck `%s`%s" % (
                  meta["lulesh_args"], meta["hpcg_args"], meta["clover_deck"],
                  " (test problem: verified against its expected solution)"
                  if meta["clover_test"] else ""),
              "- One host: Open MPI with its default shared-memory transport (vader), "
              "`--mca mpi_yield_when_idle 1` when ranks outnumber cores; MPICH 4 (ch4) "
              "defaults; every rank one thread (OMP_NUM_THREADS=1).",
              "- Cluster: `ccmpi-cluster up --hosts %d --rate %s` (docs/cluster.md), one rank "
              "per host; Open MPI `--mca btl tcp,self --mca mpi_yield_when_idle 1`; MPICH "
              "ch4:ucx with UCX_TLS=tcp,self." % (meta["hosts"], meta["rate"]),
              "- Every value and error: `results.csv`.", ""]
    with open(os.path.join(out_dir, "README.md"), "w") as f:
        f.write("\n".join(lines))


def first_line(cmd):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    except OSError:
        return ""
    return (p.stdout.strip().splitlines() or [""])[0]


def _on_sigterm(signum, frame):
    raise KeyboardInterrupt


def openmpi_version():
    """"Open MPI 4.1.4" from `mpirun.openmpi --version`, "" when absent."""
    m = re.search(r"(\d+\.\d+[.\w]*)\s*$", first_line(["mpirun.openmpi", "--version"]))
    return "Open MPI " + m.group(1) if m else ""


def mpich_version():
    """"MPICH 4.0.2 (ch4:ucx)" from `mpichversion`, "" when absent."""
    try:
        p = subprocess.run(["mpichversion"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                           text=True)
    except OSError:
        return ""
    info = dict((k.strip(), v.strip()) for k, _, v in
                (line.partition(":") for line in p.stdout.splitlines()) if v)
    if "MPICH Version" not in info:
        return ""
    dev = info.get("MPICH Device")
    return "MPICH %s%s" % (info["MPICH Version"], " (%s)" % dev if dev else "")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lulesh", help="LULESH 2.0 source directory")
    ap.add_argument("--hpcg", help="HPCG 3.1 source directory")
    ap.add_argument("--cloverleaf", help="CloverLeaf_ref source directory")
    ap.add_argument("--build", default=os.path.join(REPO, "build"), help="ccmpi's build")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--impls", default=",".join(IMPLS))
    ap.add_argument("--where", default="host,cluster", help="host, cluster or both")
    ap.add_argument("--ranks", default="4,8", help="rank counts on one host")
    ap.add_argument("--hosts", type=int, default=8, help="cluster hosts (one rank each)")
    ap.add_argument("--rate", default="25mbit", help="cluster link rate")
    ap.add_argument("--lulesh-args", default="-s 12 -i 200")
    ap.add_argument("--hpcg-args", default="--nx=24 --ny=24 --nz=24 --rt=20")
    ap.add_argument("--clover-deck", help="CloverLeaf input deck (default: the source's "
                    "InputDecks/clover_bm_short.in, test problem 2)")
    ap.add_argument("--timeout", type=float, default=900, help="seconds per run")
    ap.add_argument("--work", help="work directory (kept; builds in it are reused); "
                    "default a temporary one, removed")
    ap.add_argument("--out", default=os.path.join(REPO, "docs", "results", "apps"))
    a = ap.parse_args(argv)
    srcs = {app: os.path.abspath(getattr(a, app)) for app in APPS if getattr(a, app)}
    if not srcs:
        ap.error("give at least one of --lulesh, --hpcg, --cloverleaf")
    impls = [i for i in a.impls.split(",") if i]
    wheres = [w for w in a.where.split(",") if w]
    if set(impls) - set(IMPLS) or set(wheres) - {"host", "cluster"}:
        ap.error("--impls takes %s; --where host and/or cluster" % ",".join(IMPLS))
    ranks = [int(x) for x in a.ranks.split(",") if x]
    a.build = os.path.abspath(a.build)
    if "cloverleaf" in srcs:
        a.clover_deck = os.path.abspath(a.clover_deck or os.path.join(
            srcs["cloverleaf"], "InputDecks", "clover_bm_short.in"))
        with open(a.clover_deck) as f:
            a.clover_test = re.search(r"^\s*test_problem\s+\d", f.read(), re.M) is not None
    else:
        a.clover_deck, a.clover_test = "", False
    if "cluster" in wheres and os.geteuid() != 0:
        print("the emulated cluster needs root: running on one host only", file=sys.stderr)
        wheres = [w for w in wheres if w != "cluster"]
    for i in impls:
        if i != "ccmpi" and not all(shutil.which(w) for w in wrappers(i, a.build).values()):
            ap.error("%s's wrappers (%s) not found" % (NAMES[i], ", ".join(
                wrappers(i, a.build).values())))
    # SIGTERM unwinds like Ctrl-C, so that the cluster is removed and the work directory
    # cleaned up (the running job's process group is killed by `ccmpi-cluster down` or is
    # left to finish on one host).
    signal.signal(signal.SIGTERM, _on_sigterm)
    work = os.path.abspath(a.work) if a.work else tempfile.mkdtemp(prefix="ccmpi-apps-")
    os.makedirs(work, exist_ok=True)
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMP_NUM_THREADS="1")
    command = " ".join(shlex.quote(x) for x in ["bench/apps/run.py"] + (
        sys.argv[1:] if argv is None else list(argv)))
    shm_before = set(os.listdir("/dev/shm")) if os.path.isdir("/dev/shm") else set()
    try:
        exes = {}
        for app, src in srcs.items():
            for i in impls:
                exe, log = build_app(app, src, i, a.build, work)
                print("build %-10s %-8s %s" % (app, i, exe or "FAILED (see %s)" % log),
                      flush=True)
                exes[(app, i)] = exe
        points = []
        for where in wheres:
            for app in srcs:
                if where == "cluster":
                    if app != "lulesh" or lulesh_ranks([a.hosts])[-1] == a.hosts:
                        points.append((app, where, a.hosts))
                    continue
                for n in (lulesh_ranks(ranks) if app == "lulesh" else ranks):
                    points.append((app, where, n))
        rows = [{"app": app, "where": where, "ranks": n, "where_label": where_label(where, a),
                 "values": {i: [] for i in impls}, "errors": {i: [] for i in impls},
                 "sigs": [], "runs": a.reps, "hung": {i: 0 for i in impls}}
                for app, where, n in points]
        load_before, start = runs.loadavg(), time.time()
        cluster = None
        try:
            for where in wheres:
                if where == "cluster":
                    cluster = Cluster(a.build, a.hosts, a.rate, work).__enter__()
                for rep in range(a.reps):
                    order = impls[rep % len(impls):] + impls[:rep % len(impls)]
                    for row in rows:
                        if row["where"] != where:
                            continue
                        for i in order:
                            exe = exes[(row["app"], i)]
                            if exe is None:
                                row["errors"][i].append("build failed")
                                continue
                            fig, sig, why, hung = run_point(
                                row["app"], exe, i, where, row["ranks"], rep, a, cluster, env,
                                os.path.join(work, "runs"))
                            if hung:
                                row["hung"][i] += 1
                            if fig is None:
                                row["errors"][i].append(why)
                            else:
                                row["values"][i].append(fig)
                                row["sigs"].append((i, sig))
                            print("rep %d %-10s %-7s %2d %-8s %s" % (
                                rep, row["app"], where, row["ranks"], i,
                                fmt(fig) if fig is not None else why), flush=True)
                if cluster is not None:
                    cluster.__exit__()
                    cluster = None
        finally:
            if cluster is not None:
                cluster.__exit__()
        differ = []
        for row in rows:
            row["median"] = {i: statistics.median(row["values"][i]) if row["values"][i]
                             else None for i in impls}
            if not signatures_agree([s for _, s in row["sigs"]]):
                differ.append("%s %d ranks %s: %s" % (
                    TITLES[row["app"]], row["ranks"], row["where_label"],
                    ", ".join("%s %s" % (i, s) for i, s in row["sigs"])))
        meta = {"reps": a.reps, "impls": impls, "seconds": time.time() - start,
                "date": datetime.datetime.now(datetime.timezone.utc).strftime(
                    "%Y-%m-%d %H:%M UTC"),
                "command": command, "load_before": load_before, "load_after": runs.loadavg(),
                "cpu": runs.cpu_model(), "openmpi": openmpi_version(), "mpich": mpich_version(),
                "ccmpi": first_line(["git", "-C", REPO, "describe", "--always", "--dirty"]),
                "lulesh_args": a.lulesh_args, "hpcg_args": a.hpcg_args,
                "clover_deck": os.path.basename(a.clover_deck), "clover_test": a.clover_test,
                "hosts": a.hosts, "rate": a.rate, "differ": differ}
        write_outputs(a.out, rows, meta)
        print("wrote", a.out)
        return 1 if differ else 0
    finally:
        if not a.work:
            shutil.rmtree(work, ignore_errors=True)
        for name in (set(os.listdir("/dev/shm")) if os.path.isdir("/dev/shm") else set()) \
                - shm_before:
            if name.startswith("vader_segment."):
                try:
                    os.remove(os.path.join("/dev/shm", name))
                except OSError:
                    pass


if __name__ == "__main__":
    sys.exit(main())
