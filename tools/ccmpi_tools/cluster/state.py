"""The state of the clusters: /run/ccmpi-cluster/NAME/ holds the configuration (`config`,
shell-style `cfg_key=value` lines, readable by scripts), the namespaces created (each is
recorded in `namespaces` before it is created) and the hostfiles. `up` and `down` hold the
lock /run/ccmpi-cluster/.lock while they change anything."""
import fcntl
import os
import re
import shlex
import time

from .. import units

STATE_ROOT = "/run/ccmpi-cluster"
NETNS_ETC = "/etc/netns"
NETNS_DIR = "/run/netns"
DEFAULT_NAME = "emu"
MAX_SUBNETS = 512  # /24 subnets in 198.18.0.0/15

# The configuration's keys, in the order they are written.
KEYS = ("status creator_pid creator_start owner_pid owner_start hosts rails rate delay loss "
        "dup reorder slots subnet_base port_buffer netem gso bucket created delayline_pid "
        "delayline_start").split()

HOST_NS = re.compile(r"^ccmpi-([a-z][a-z0-9]*)-(h[0-9]+|sw)$")


class ClusterError(Exception):
    """A failure to report as `ccmpi-cluster: MESSAGE` and exit 1."""


def state_dir(name):
    return os.path.join(STATE_ROOT, name)


def ns_host(name, k):
    return "ccmpi-%s-h%d" % (name, k)


def ns_switch(name):
    return "ccmpi-%s-sw" % name


def subnet_prefix(s):
    """The first three octets of /24 number s of 198.18.0.0/15."""
    return "198.%d.%d" % (18 + s // 256, s % 256)


def netns_cluster(ns):
    """The cluster a namespace named ccmpi-NAME-hK / ccmpi-NAME-sw belongs to."""
    m = HOST_NS.match(ns)
    return m.group(1) if m else None


class Config:
    """A cluster's configuration; attribute per key, all strings as in the file."""

    def __init__(self, **kw):
        for k in KEYS:
            setattr(self, k, "")
        self.bucket = "2"
        for k, v in kw.items():
            setattr(self, k, str(v))

    @classmethod
    def load(cls, name):
        """The configuration of cluster `name`, None if it has none."""
        path = os.path.join(state_dir(name), "config")
        try:
            with open(path) as f:
                text = f.read()
        except OSError:
            return None
        cfg = cls()
        for line in text.splitlines():
            m = re.match(r"^cfg_([a-z_]+)=(.*)$", line)
            if m and m.group(1) in KEYS:
                words = shlex.split(m.group(2)) if m.group(2) else [""]
                setattr(cfg, m.group(1), words[0] if words else "")
        return cfg

    def save(self, name):
        d = state_dir(name)
        tmp = os.path.join(d, "config.tmp")
        with open(tmp, "w") as f:
            for k in KEYS:
                f.write("cfg_%s=%s\n" % (k, _quote(getattr(self, k))))
        os.replace(tmp, os.path.join(d, "config"))

    @property
    def n_hosts(self):
        return int(self.hosts)

    @property
    def n_rails(self):
        return int(self.rails)

    @property
    def base(self):
        return int(self.subnet_base)


def _quote(v):
    # As bash's printf %q: '' for the empty string, plain words unquoted.
    if v == "":
        return "''"
    if re.match(r"^[A-Za-z0-9_./:%+,=@-]+$", v):
        return v
    return shlex.quote(v)


def cluster_names():
    try:
        entries = sorted(os.listdir(STATE_ROOT))
    except OSError:
        return []
    return [e for e in entries
            if units.NAME.match(e) and os.path.isdir(os.path.join(STATE_ROOT, e))]


def our_netns(name=None):
    """Namespaces named like ours (of cluster `name`, or of any cluster)."""
    try:
        entries = sorted(os.listdir(NETNS_DIR))
    except OSError:
        return []
    out = []
    for e in entries:
        c = netns_cluster(e)
        if c is not None and (name is None or c == name):
            out.append(e)
    return out


def now_utc():
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


class Lock:
    """The state lock (flock on /run/ccmpi-cluster/.lock, waiting up to 300 s)."""

    def __enter__(self):
        try:
            os.makedirs(STATE_ROOT, exist_ok=True)
        except OSError:
            raise ClusterError("cannot create %s" % STATE_ROOT)
        path = os.path.join(STATE_ROOT, ".lock")
        try:
            self.fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)
        except OSError:
            raise ClusterError("cannot open %s" % path)
        deadline = time.monotonic() + 300
        while True:
            try:
                fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return self
            except BlockingIOError:
                if time.monotonic() > deadline:
                    os.close(self.fd)
                    raise ClusterError("timed out waiting for the lock %s" % path)
                time.sleep(0.05)

    def __exit__(self, *exc):
        os.close(self.fd)
        return False
