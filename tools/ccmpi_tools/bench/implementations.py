"""How ccmpi, Open MPI and MPICH are compiled and launched on the emulated cluster, their
benchmark variants and the algorithms each can be forced to.

ccmpi runs with our mpirun from this namespace through `ccmpi-cluster exec`; Open MPI's
mpirun and MPICH's mpiexec run inside host 1 (their daemons call back over TCP) with
`ccmpi-cluster exec` as the agent: Open MPI with btl tcp,self on 198.18.0.0/15 and
mpi_yield_when_idle 1 (its fair best: no shared memory between hosts, no busy polling
against the other ranks of a 2-core machine), MPICH (ch4:ucx) with UCX_TLS=tcp,self on r0.

Variants: "ccmpi" (automatic choice), "ccmpi:NAME" (algorithm NAME forced with
CCMPI_<COLL>_ALGORITHM, when `ccmpi_info --algorithms` lists more than one), "openmpi"
(defaults), "ccmpi-compress" (the npb scenario: CCMPI_COMPRESS=auto with
CCMPI_COMPRESS_STATS=1), "openmpi-best" (a coll_tuned algorithm forced per size: --mca
coll_tuned_use_dynamic_rules 1 --mca coll_tuned_<coll>_algorithm N, N the fastest of the
sweep over every algorithm ompi_info lists), "openmpi-sweep" (one such forced run of the
sweep) and "mpich".
"""
import os
import re
import shlex
import shutil
import subprocess

IMPLS = ("ccmpi", "openmpi", "mpich")


def available(impl, scenario, warn):
    """Whether `impl` can run `scenario` here; says why not through `warn`."""
    if impl == "ccmpi":
        return True
    fortran = scenario == "npb"
    if impl == "openmpi":
        if (shutil.which("mpirun.openmpi") and shutil.which("mpicc.openmpi")
                and (not fortran or shutil.which(fortran_compiler("openmpi", "")))):
            return True
        warn("Open MPI (mpirun.openmpi, mpicc.openmpi%s) not installed: skipped"
             % (", mpifort.openmpi" if fortran else ""))
        return False
    if scenario == "p2p":
        warn("the p2p scenario runs ccmpi and Open MPI only: mpich skipped")
        return False
    if (shutil.which("mpiexec.mpich") and shutil.which("mpicc.mpich")
            and (not fortran or shutil.which(fortran_compiler("mpich", "")))):
        return True
    warn("MPICH (mpiexec.mpich, mpicc.mpich%s) not installed: skipped"
         % (", mpifort.mpich" if fortran else ""))
    return False


def impl_of(variant):
    """The implementation of a variant: ccmpi:NAME and ccmpi-compress -> ccmpi,
    openmpi-best -> openmpi."""
    return re.split(r"[:-]", variant, 1)[0]


def compiler(impl, build):
    return {"ccmpi": os.path.join(build, "bin", "mpicc"), "openmpi": "mpicc.openmpi",
            "mpich": "mpicc.mpich"}[impl]


def fortran_compiler(impl, build):
    """The Fortran wrapper (Debian: libopenmpi-dev has mpifort.openmpi, libmpich-dev
    mpifort.mpich)."""
    return {"ccmpi": os.path.join(build, "bin", "mpifort"), "openmpi": "mpifort.openmpi",
            "mpich": "mpifort.mpich"}[impl]


# The environment of the variant ccmpi-compress: compression where it pays (the auto mode
# of src/p2p/compress_channel.cc) and each rank's byte counts on stderr at MPI_Finalize.
COMPRESS_ENV = ("CCMPI_COMPRESS=auto", "CCMPI_COMPRESS_STATS=1")


class Launcher:
    """Command lines on one cluster: `cluster` is the ccmpi-cluster program, `name` the
    cluster, `hostfile` its hostfile, `agent` a one-word agent script for MPICH's Hydra."""

    def __init__(self, build, cluster, name, hostfile, agent):
        self.build, self.cluster, self.name = build, cluster, name
        self.hostfile, self.agent = hostfile, agent

    def launch(self, impl, nprocs):
        """The command line up to the program."""
        agent = "%s exec" % self.cluster
        if impl == "ccmpi":
            return [os.path.join(self.build, "bin", "mpirun"), "--hostfile", self.hostfile,
                    "--launcher", agent, "--iface", "r0", "-n", str(nprocs)]
        if impl == "openmpi":
            return [self.cluster, "exec", "%s-h1" % self.name, "mpirun.openmpi",
                    "--allow-run-as-root", "--hostfile", self.hostfile, "-n", str(nprocs),
                    "--map-by", "node", "--mca", "plm_rsh_agent", "'%s'" % agent,
                    "--mca", "btl", "tcp,self",
                    "--mca", "btl_tcp_if_include", "198.18.0.0/15",
                    "--mca", "oob_tcp_if_include", "198.18.0.0/15",
                    "--mca", "mpi_yield_when_idle", "1"]
        if impl == "mpich":
            return [self.cluster, "exec", "%s-h1" % self.name, "mpiexec.mpich", "-f",
                    os.path.join(os.path.dirname(self.hostfile), "hostfile.mpich"),
                    "-n", str(nprocs), "-launcher", "rsh", "-launcher-exec", self.agent,
                    "-iface", "r0", "-genv", "UCX_TLS", "tcp,self", "-genv", "UCX_NET_DEVICES",
                    "r0"]
        raise ValueError(impl)

    def variant(self, variant, nprocs, coll=None, ocoll=None, alg=None):
        """The command line of a variant up to the program (forced algorithms included)."""
        cmd = self.launch(impl_of(variant), nprocs)
        if variant.startswith("ccmpi:"):
            cmd += ["--env", "CCMPI_%s_ALGORITHM=%s" % (coll.upper(), variant.split(":", 1)[1])]
        elif variant == "ccmpi-compress":
            for kv in COMPRESS_ENV:
                cmd += ["--env", kv]
        elif variant in ("openmpi-best", "openmpi-sweep"):
            cmd += openmpi_forced(ocoll, alg)
        return cmd


def openmpi_forced(ocoll, alg):
    """Open MPI's flags forcing coll_tuned algorithm `alg` of collective `ocoll`."""
    return ["--mca", "coll_tuned_use_dynamic_rules", "1",
            "--mca", "coll_tuned_%s_algorithm" % ocoll, str(alg)]


def write_agent(path, cluster):
    """MPICH's Hydra takes a one-word agent: a script running `ccmpi-cluster exec`."""
    with open(path, "w") as f:
        f.write('#!/bin/sh\nexec %s exec "$@"\n' % shlex.quote(cluster))
    os.chmod(path, 0o755)


def parse_ccmpi_algorithms(text, coll):
    """ccmpi's algorithms for `coll` from `ccmpi_info --algorithms` output (never a fixed
    list): the indented names under the line "COLL  [CCMPI_..."."""
    algs, on = [], False
    for line in text.splitlines():
        w = line.split()
        if not on:
            if len(w) >= 2 and w[0] == coll and w[1].startswith("[CCMPI_"):
                on = True
            continue
        if re.match(r"^  [a-z]", line):
            break
        if re.match(r"^    [a-z0-9_]+( |$)", line) and w[0] not in ("rules", "rules:"):
            algs.append(w[0])
    return algs


def ccmpi_algorithms(build, coll):
    exe = os.path.join(build, "bin", "ccmpi_info")
    if not os.access(exe, os.X_OK):
        return []
    p = subprocess.run([exe, "--algorithms"], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, text=True)
    return parse_ccmpi_algorithms(p.stdout, coll)


def parse_openmpi_algorithms(text, ocoll):
    """Open MPI's coll_tuned algorithms for `ocoll` as [(N, name)] (N >= 1) from
    `ompi_info --param coll tuned --level 9`."""
    key = 'parameter "coll_tuned_%s_algorithm"' % ocoll
    on = False
    for line in text.splitlines():
        if not on:
            on = key in line
            continue
        if "Valid values:" in line:
            s = re.sub(r".*Valid values: *", "", line)
            out = []
            for item in re.split(r", *", s):
                kv = item.split(":", 1)
                try:
                    n = int(kv[0])
                except ValueError:
                    continue
                if n > 0:
                    out.append((n, kv[1].replace('"', "") if len(kv) > 1 else ""))
            return out
    return []


def openmpi_algorithms(ocoll):
    if not shutil.which("ompi_info"):
        return []
    p = subprocess.run(["ompi_info", "--param", "coll", "tuned", "--level", "9"],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    return parse_openmpi_algorithms(p.stdout, ocoll)


def _first_line(cmd):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    except OSError:
        return ""
    return p.stdout.splitlines()[0] if p.stdout else ""


def openmpi_version():
    return _first_line(["mpirun.openmpi", "--version"])


def mpich_version():
    try:
        p = subprocess.run(["mpichversion"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                           text=True)
    except OSError:
        return ""
    v = d = ""
    for line in p.stdout.splitlines():
        if ":" not in line:
            continue
        k, val = line.split(":", 1)
        if "Version" in k:
            v = val.strip()
        elif "Device" in k:
            d = val.strip()
    return "MPICH %s (%s)" % (v, d) if v else ""
