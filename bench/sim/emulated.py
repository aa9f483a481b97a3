"""coll_bench on an emulated cluster, for bench/sim's measurements (incast.py,
phase_sync.py): bring a cluster up, build coll_bench with the build's mpicc, run it with
the build's mpirun (one rank per host), remove the cluster whatever happens."""
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tools"))
from ccmpi_tools import runs  # noqa: E402 (needs the path above)

def build_coll_bench(build, work):
    """coll_bench built with the build's mpicc into directory `work`; its path."""
    prog = os.path.join(work, "coll_bench")
    subprocess.run([os.path.join(build, "bin", "mpicc"), "-O2",
                    os.path.join(REPO, "bench", "coll", "coll_bench.c"), "-o", prog, "-lm"],
                   check=True)
    return prog


RESULT = re.compile(r"^result (\S+) (\d+) (\d+) ([\d.]+) ([\d.]+) ([\d.]+) (\d+) (\d+)$", re.M)


class Cluster:
    """`with Cluster(build, hosts, rate, name) as c:` c.run(n, args, env) -> result rows."""

    def __init__(self, build, hosts, rate, name):
        self.build, self.hosts, self.rate, self.name = build, hosts, rate, name
        self.tool = os.path.join(build, "bin", "ccmpi-cluster")

    def __enter__(self):
        self.work = tempfile.TemporaryDirectory(prefix="ccmpi-simbench.")
        self.prog = build_coll_bench(self.build, self.work.name)
        try:
            subprocess.run([self.tool, "up", "--name", self.name, "--hosts", str(self.hosts),
                            "--rate", self.rate, "--owner", str(os.getpid())], check=True,
                           stdout=subprocess.DEVNULL)
            self.hostfile = subprocess.run([self.tool, "hostfile", "--name", self.name],
                                           check=True, stdout=subprocess.PIPE,
                                           text=True).stdout.strip()
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc):
        runs.reap_cluster(self.name, self.hosts)
        subprocess.run([self.tool, "down", "--name", self.name], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        self.work.cleanup()
        return False

    def run(self, n, args, env=(), timeout=1200):
        """coll_bench ARGS on the first n hosts, with `env` (NAME=VALUE ...) for every rank;
        [(test, n, size, median_us, mean_us, min_us, bound_bytes, iterations)]."""
        cmd = [os.path.join(self.build, "bin", "mpirun"), "--hostfile", self.hostfile,
               "--launcher", f"{self.tool} exec --name {self.name}", "--iface", "r0", "-n",
               str(n)]
        for e in env:
            cmd += ["--env", e]
        out = os.path.join(self.work.name, "out")
        with open(out, "w") as o, open(out + ".err", "w") as e:
            rc, timed_out, hung = runs.run_watched(
                cmd + [self.prog] + list(args), o, e, timeout=timeout,
                done=lambda: "coll_bench: done" in open(out).read())
        text = open(out).read()
        if rc != 0 and not hung:
            sys.exit("coll_bench %s on %d hosts: exit %s, timed out %s\n%s%s" %
                     (" ".join(args), n, rc, timed_out, text, open(out + ".err").read()))
        return [(m[0], int(m[1]), int(m[2]), float(m[3]), float(m[4]), float(m[5]), int(m[6]),
                 int(m[7])) for m in RESULT.findall(text)]
