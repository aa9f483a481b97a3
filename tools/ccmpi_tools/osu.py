"""OSU Micro-Benchmarks on one host with ccmpi, Open MPI and MPICH (bench/node/run.py,
bench/rma/run.py): how each implementation launches, where each benchmark's program is,
building the programs a tree lacks, running one invocation and reading its figures.

An OSU tree per implementation (OSU_BUILDS/{ccmpi,openmpi,mpich}, OSU 7.4 configured with
that implementation's wrapper) holds the programs at c/mpi/<dir>/<name>. A program the tree
has not built is compiled into a work folder from the tree's own sources (c/mpi/<dir>/
<name>.c and c/util) with the implementation's mpicc, the way `make` would; the tree is
never written to.
"""
import os
import subprocess

IMPLS = ("ccmpi", "openmpi", "mpich")
CORES = os.cpu_count() or 1
UTIL_SOURCES = ("osu_util.c", "osu_util_mpi.c", "osu_util_graph.c", "osu_util_papi.c",
                "osu_util_validation.c")


def env():
    """The environment of a run: Open MPI's mpirun refuses root without these."""
    return dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")


def compiler(impl, build):
    return {"ccmpi": os.path.join(build, "bin", "mpicc"), "openmpi": "mpicc.openmpi",
            "mpich": "mpicc.mpich"}[impl]


def launcher(impl, build, np, extra=()):
    """The command line up to the program: ccmpi's mpirun, Open MPI's (default transports;
    `mpi_yield_when_idle 1` when ranks outnumber cores) or MPICH's mpiexec."""
    if impl == "ccmpi":
        return [os.path.join(build, "bin", "mpirun"), "-n", str(np)] + list(extra)
    if impl == "openmpi":
        cmd = ["mpirun.openmpi", "--oversubscribe", "-n", str(np)]
        if np > CORES:
            cmd += ["--mca", "mpi_yield_when_idle", "1"]
        return cmd + list(extra)
    return ["mpiexec.mpich", "-n", str(np)] + list(extra)


def program(osu, impl, prog, build=None, work=None):
    """The executable of OSU program `prog` ("pt2pt/standard/osu_latency") for `impl`:
    the tree's, or (with build and work given) one compiled into work when the tree has
    none. Raises RuntimeError if it cannot be had."""
    tree = os.path.join(osu, impl)
    exe = os.path.join(tree, "c", "mpi", prog)
    if os.access(exe, os.X_OK):
        return exe
    if work is None:
        raise RuntimeError("%s is not built" % exe)
    out = os.path.join(work, impl, prog)
    if os.access(out, os.X_OK):
        return out
    os.makedirs(os.path.dirname(out), exist_ok=True)
    util = os.path.join(tree, "c", "util")
    cmd = [compiler(impl, build), "-O2", "-I" + tree, "-I" + util, "-o", out,
           exe + ".c"] + [os.path.join(util, s) for s in UTIL_SOURCES] + ["-lm"]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        raise RuntimeError("building %s for %s failed: %s" % (prog, impl,
                                                              p.stdout.strip()[-300:]))
    return out


def figures(out, column=1):
    """{message size: figure} from the table OSU prints (size first, the figure in
    `column`); lines that do not parse are skipped."""
    got = {}
    for line in out.splitlines():
        w = line.split()
        if len(w) > column and w[0].isdigit():
            try:
                got[int(w[0])] = float(w[column])
            except ValueError:
                pass
    return got


def run(cmd, timeout, environ=None):
    """Runs one invocation: (output, "") or (output, why it failed)."""
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=timeout, env=environ if environ is not None else env())
    except subprocess.TimeoutExpired:
        return "", "timeout"
    if p.returncode != 0:
        tail = p.stdout.strip().splitlines()[-1:] or [""]
        return p.stdout, "exit %d: %s" % (p.returncode, tail[0][:120])
    return p.stdout, ""


def remove_shm_leftovers(before):
    """Open MPI's shared-memory transport leaves its segments behind when killed (a
    timeout): removes those created since `before` (a set of /dev/shm names)."""
    if not os.path.isdir("/dev/shm"):
        return
    for name in set(os.listdir("/dev/shm")) - before:
        if name.startswith("vader_segment."):
            try:
                os.remove(os.path.join("/dev/shm", name))
            except OSError:
                pass


def shm_names():
    return set(os.listdir("/dev/shm")) if os.path.isdir("/dev/shm") else set()
