"""An emulated cluster for the bench scripts (docs/cluster.md): `ccmpi-cluster up` on
entering, `down` on leaving, whatever happens (and, through --owner, by the next up/down
should this process die first). `args` are more options of `up` (--rails, --slots,
impairments); the hostfile's path is in .hostfile."""
import os
import subprocess
import sys


class EmulatedCluster:
    def __init__(self, tool, name, hosts, rate, args=()):
        self.tool, self.name, self.hosts, self.rate, self.args = tool, name, hosts, rate, args

    def __enter__(self):
        p = subprocess.run([self.tool, "up", "--name", self.name, "--hosts", str(self.hosts),
                            "--rate", self.rate, "--owner", str(os.getpid())] + list(self.args),
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        sys.stderr.write(p.stderr)
        if p.returncode != 0:
            raise RuntimeError("ccmpi-cluster up failed: --hosts %d --rate %s %s" %
                               (self.hosts, self.rate, " ".join(self.args)))
        self.hostfile = subprocess.run([self.tool, "hostfile", "--name", self.name],
                                       stdout=subprocess.PIPE, text=True,
                                       check=True).stdout.strip()
        return self

    def __exit__(self, *exc):
        subprocess.run([self.tool, "down", "--name", self.name], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        return False
