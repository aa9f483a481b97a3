"""The command line of ccmpi-bench (the options of the bash tool it replaced)."""
import argparse
import glob
import os
import re
import shutil
import sys

from .. import units
from . import implementations, scenarios
from .runner import BenchError, Runner

PROG = "ccmpi-bench"

DESCRIPTION = """\
Runs a benchmark scenario on an emulated cluster (ccmpi-cluster) with ccmpi, Open MPI and
MPICH (when installed) in one run: every repetition runs each test once per implementation
variant, in an order shuffled anew for every repetition (seeded, so a rerun repeats it), so
drifts in machine load hit all of them alike. Figures are medians over the repetitions
(with min and max) and are also given against the emulated link bound. Needs root (it
builds the cluster)."""

EPILOG = """\
scenarios (docs/cluster.md has the details and the link-bound formulas):
  p2p           2 hosts, bench/p2p/p2p_bench.c: latency 1 B..64 KiB, bw and bibw
                1 KiB..256 KiB (ccmpi and Open MPI only).
  allgather     16 hosts, MPI_Allgather 1 B..256 KiB            (CC-MPI Table 1)
  alltoall      MPI_Alltoall on 4 and 16 hosts, 1 B..1 MiB      (CC-MPI Figures 11-12)
  alltoallv     16 hosts, MPI_Alltoallv all-to-all 2..64 KiB (Table 2) and the random
                pattern 160 x 64 KiB, 20 x 16 KiB, 60 x 100 B (Table 3, fixed seed)
  bcast         MPI_Bcast of 1 B and 10 KiB on 2..29 hosts      (CC-MPI Figures 7-8)
  bcast-sizes   16 hosts, MPI_Bcast 1 B..1 MiB
  scatter       29 hosts: MPI_Scatter 50 B..64 KiB (Figure 9) and MPI_Scatterv from the
                root to 5 of the 29 ranks (Figure 10), also with ccmpi's compiler-
                assisted MPIX_Scatterv_* calls (ccmpi only)
  unstructured  24 hosts, the CM-5 paper's test sets 1 and 2: MPI_Alltoallv in which
                every host sends to d random others (d = 4, 8, 16)
  npb-is        NPB IS classes A and B on 4, 8, 16 hosts (CC-MPI Table 4), built from the
                NPB MPI source given with --npb DIR (not shipped)
  multirail     16 hosts x 2 NICs (--rails R for another count): MPI_Bcast 1 B..4 MiB
                with each broadcast forced (the multirail seed's comparison) and
                MPI_Alltoall 256 KiB; bounds over every rail
  npb           16 hosts, NPB 3.4 BT, SP, LU, MG, FT, CG, EP, IS class A (--quick: class
                S on 4 hosts) from --npb DIR, each MPI's mpifort/mpicc; ccmpi also with
                CCMPI_COMPRESS=auto (compression ratio, cMPI Table 5); docs/nas.md

variants: ccmpi with its automatic choice ("ccmpi") and each algorithm forced
("ccmpi:NAME", CCMPI_<COLL>_ALGORITHM) when `ccmpi_info --algorithms` lists more than
one; Open MPI with its defaults ("openmpi") and with the best coll_tuned algorithm per
size ("openmpi-best", from a sweep stored in OUT/openmpi-sweep.csv and reused); MPICH.

output: results.csv, README.md and SCENARIO.svg in --out (default
SOURCE/docs/results/SCENARIO, for p2p SOURCE/docs/results/cluster-p2p) and, when --out is a
folder of SOURCE/docs/results (and the run is not --quick), the scenario's section of
docs/results/README.md. The exit status is 1 if a run failed."""


def die(msg):
    print("%s: %s" % (PROG, msg), file=sys.stderr)
    sys.exit(1)


def parser():
    p = argparse.ArgumentParser(prog=PROG, description=DESCRIPTION, epilog=EPILOG,
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                allow_abbrev=False)
    p.add_argument("--build", metavar="DIR",
                   help="the ccmpi build (bin/mpicc, bin/mpirun; default: this program's "
                        "bin/ directory's parent)")
    p.add_argument("--source", metavar="DIR", help="the ccmpi source tree (bench/, docs/results/)")
    p.add_argument("--impls", default="ccmpi openmpi mpich", metavar='"ccmpi openmpi mpich"',
                   help="the implementations to run (those not installed are skipped)")
    p.add_argument("--reps", default="3", metavar="N", help="repetitions (default 3)")
    p.add_argument("--rate", default="auto",
                   help="the cables' line rate (e.g. 25mbit), or auto (the default): the "
                        "highest rate at which `ccmpi-cluster check` holds every cable of the "
                        "scenario's cluster within 3%% (printed and recorded with the results)")
    p.add_argument("--quick", action="store_true",
                   help="a smoke run: small cluster, few sizes and iterations")
    p.add_argument("--out", metavar="DIR", help="where the results go")
    p.add_argument("--timeout", metavar="S",
                   help="seconds per program run (default 600, npb 1800, --quick 120)")
    p.add_argument("--keep", action="store_true", help="keep the raw outputs (printed path)")
    p.add_argument("--ccmpi-algorithms", default="all", metavar="all|auto|NAME,...",
                   help="auto: no forced ccmpi variants; a comma-separated list: only "
                   "those of each collective's algorithms forced")
    p.add_argument("--sweep-openmpi", action="store_true",
                   help="redo the stored Open MPI sweep")
    p.add_argument("--no-openmpi-best", dest="openmpi_best", action="store_false",
                   help="no Open MPI best variant (and no sweep)")
    p.add_argument("--only", metavar="REGEX",
                   help="run only the entries whose label matches (Python regular expression, "
                        "searched; e.g. 'uniform-d4-fresh$'); give --out elsewhere than "
                        "docs/results for such a partial run")
    p.add_argument("--npb", metavar="DIR", help="an NPB MPI source tree (npb-is, npb)")
    p.add_argument("--max-minutes", default="0", metavar="M",
                   help="start no new run after M minutes (what was measured is written)")
    p.add_argument("--rails", metavar="R",
                   help="NICs per host, each on a switch of its own (default: the scenario's; "
                        "multirail 2, the others 1); the link bounds count every rail")
    p.add_argument("--cluster-name", metavar="NAME",
                   help="the emulated cluster's name (default bench<pid>)")
    p.add_argument("scenario", metavar="SCENARIO", help="one of: " + " ".join(scenarios.NAMES))
    return p


def options(argv, here, source):
    o = parser().parse_args(argv)
    o.invocation = list(argv)
    build = o.build or os.path.join(here, "..")
    if not os.path.isdir(build):
        die("--build: no such directory")
    # Absolute: NPB IS is built by make in another directory with this build's mpicc.
    o.build = os.path.realpath(build)
    o.source = o.source or source
    if o.scenario not in scenarios.NAMES:
        die("unknown scenario '%s' (known: %s)" % (o.scenario, " ".join(scenarios.NAMES)))
    if not (o.reps.isdigit() and int(o.reps) > 0):
        die("--reps needs a positive number")
    o.reps = int(o.reps)
    if o.only:
        try:
            re.compile(o.only)
        except re.error as e:
            die("--only: %s" % e)
    if o.timeout is None:
        # NPB class A: BT and SP run minutes on a 2-core machine's 16 ranks.
        o.timeout = "120" if o.quick else "1800" if o.scenario == "npb" else "600"
    if not (o.timeout.isdigit() and int(o.timeout) > 0):
        die("--timeout needs seconds")
    o.timeout = int(o.timeout)
    if not o.max_minutes.isdigit():
        die("--max-minutes needs minutes")
    o.max_minutes = int(o.max_minutes)
    if o.rate != "auto" and units.rate_bps(o.rate) is None:
        die("--rate '%s' is not a rate like 100mbit, 1gbit (or auto)" % o.rate)
    if o.rails is not None:
        if not (o.rails.isdigit() and 1 <= int(o.rails) <= 8):
            die("--rails needs 1 to 8")
        o.rails = int(o.rails)
    if o.ccmpi_algorithms not in ("all", "auto") and not all(
            a.replace("_", "").isalnum() for a in o.ccmpi_algorithms.split(",")):
        die("--ccmpi-algorithms is all, auto or a comma-separated list of algorithm names")
    if os.geteuid() != 0:
        die("needs root (it builds an emulated cluster with ccmpi-cluster)")
    o.cluster = os.path.join(here, "ccmpi-cluster")
    if not os.access(o.cluster, os.X_OK):
        o.cluster = shutil.which("ccmpi-cluster")
        if not o.cluster:
            die("cannot find ccmpi-cluster")
    if not all(os.access(os.path.join(o.build, "bin", x), os.X_OK) for x in ("mpicc", "mpirun")):
        die("%s has no bin/mpicc and bin/mpirun (--build DIR)" % o.build)
    sub = "p2p/p2p_bench.c" if o.scenario == "p2p" else "coll/coll_bench.c"
    if not os.access(os.path.join(o.source, "bench", sub), os.R_OK):
        die("no bench/%s under '%s' (--source DIR)" % (sub, o.source))
    from .report import plot
    if not plot.available():
        print("%s: warning: no matplotlib: the results get no plot (apt-get install "
              "python3-matplotlib)" % PROG, file=sys.stderr)
    if o.scenario == "npb" and not os.access(os.path.join(o.build, "bin", "mpifort"), os.X_OK):
        die("%s has no bin/mpifort (ccmpi built without gfortran?)" % o.build)
    if o.scenario in ("npb-is", "npb"):
        if not o.npb:
            die("%s needs --npb DIR (an NPB MPI source tree, e.g. NPB3.4-MPI)" % o.scenario)
        if not os.path.isdir(os.path.join(o.npb, "IS")):
            found = [d for d in sorted(glob.glob(os.path.join(o.npb, "NPB3*-MPI")))
                     if os.path.isdir(os.path.join(d, "IS"))]
            if not found:
                die("no IS/ in '%s' (--npb takes NPB3.x-MPI or the folder holding it)" % o.npb)
            o.npb = found[0]
        o.npb = os.path.realpath(o.npb)
    if not o.out:
        o.out = os.path.join(o.source, "docs", "results",
                             scenarios.get(o.scenario).OUT if o.scenario == "p2p" else o.scenario)
    return o


def main(argv, here=None, source=None):
    o = options(argv, here or os.path.dirname(os.path.realpath(sys.argv[0])), source or ".")
    impls = []
    for impl in o.impls.split():
        if impl not in implementations.IMPLS:
            die("unknown implementation '%s' (known: ccmpi openmpi mpich)" % impl)
        if implementations.available(impl, o.scenario,
                                     lambda m: print("%s: %s" % (PROG, m), file=sys.stderr)):
            impls.append(impl)
    if not impls:
        die("no implementation to run")
    runner = Runner(o, scenarios.get(o.scenario), impls)
    try:
        results = runner.run()
    except BenchError as e:
        die(str(e))
    from . import report
    try:
        os.makedirs(o.out, exist_ok=True)
    except OSError:
        die("cannot create %s" % o.out)
    try:
        written = report.write(results, o.out, o.source)
    except Exception:  # a bug: say where, keep the exit status of a failure
        import traceback
        traceback.print_exc()
        die("summarising failed")
    print("%s: wrote %s/%s" % (PROG, o.out, ", ".join(written)), file=sys.stderr)
    return 1 if results.fails else 0
