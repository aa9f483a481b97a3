"""Building and removing clusters.

Topology (docs/cluster.md): host K (1..N) of cluster NAME is the network namespace
ccmpi-NAME-hK with host name NAME-hK (set by `exec` in a fresh UTS namespace). It has R
NICs r0..r(R-1); NIC r is a veth pair whose other end, hKr<r>, is a port of the Linux
bridge sw<r> (switch r) in the namespace ccmpi-NAME-sw. NIC r of host K has the address
198.(18+s/256).(s%256).K/24 with s = the cluster's subnet base + r, so every rail is its
own /24 inside 198.18.0.0/15 and nothing is routed through the root namespace.

`up` and `down` hold the state lock and first remove clusters left behind: one whose `up`
died half way, one whose --owner process is gone, and namespaces named ccmpi-<name>-...
that no state directory claims. `up` records each namespace before creating it and, on
any failure or signal, removes what it built.
"""
import os
import re
import select
import shutil
import signal
import subprocess
import sys

from .. import procs, units
from . import netlink, shaping
from .state import (NETNS_ETC, STATE_ROOT, ClusterError, Config, Lock, MAX_SUBNETS,
                    cluster_names, netns_cluster, now_utc, ns_host, ns_switch, our_netns,
                    state_dir, subnet_prefix)

PROG = "ccmpi-cluster"


def note(msg):
    procs.warn(PROG, msg)


def _existing(nss):
    return [ns for ns in nss if netlink.netns_exists(ns)]


def remove_cluster(name):
    """Deletes everything cluster `name` created (state or no state)."""
    d = state_dir(name)
    nss = []
    try:
        with open(os.path.join(d, "namespaces")) as f:
            nss = [line.strip() for line in f if line.strip()]
    except OSError:
        pass
    pattern = re.compile(r"^ccmpi-%s-(h[0-9]+|sw)$" % re.escape(name))
    nss = sorted({ns for ns in nss + our_netns(name) if pattern.match(ns)})
    existing = _existing(nss)
    cfg = Config.load(name)
    if cfg and cfg.delayline_pid and procs.alive(cfg.delayline_pid, cfg.delayline_start):
        procs.terminate([int(cfg.delayline_pid)])  # the cluster's own: no note
    if existing:
        procs.terminate(procs.netns_pids(existing), note=note)
    # Hosts first, then the switch namespace.
    for ns in sorted(existing, key=lambda n: n.endswith("-sw")):
        if not netlink.remove_netns(ns):
            note("could not delete namespace %s" % ns)
    etc = re.compile(r"^ccmpi-%s-h[0-9]+$" % re.escape(name))
    try:
        for e in os.listdir(NETNS_ETC):
            if etc.match(e) and os.path.isdir(os.path.join(NETNS_ETC, e)):
                shutil.rmtree(os.path.join(NETNS_ETC, e), ignore_errors=True)
    except OSError:
        pass
    marker = os.path.join(STATE_ROOT, ".created-etc-netns")
    if os.path.exists(marker):
        try:
            os.rmdir(NETNS_ETC)
            os.unlink(marker)
        except OSError:
            pass
    shutil.rmtree(d, ignore_errors=True)


def reap_orphans():
    """Removes what crashed runs left behind (the lock must be held)."""
    for n in cluster_names():
        cfg = Config.load(n)
        if cfg is None:
            note("removing cluster %s: its state is incomplete (left behind by a crashed run)" % n)
            remove_cluster(n)
        elif cfg.status != "up" and not procs.alive(cfg.creator_pid, cfg.creator_start):
            note("removing cluster %s: the 'up' that created it (pid %s) died half way"
                 % (n, cfg.creator_pid))
            remove_cluster(n)
        elif cfg.owner_pid and not procs.alive(cfg.owner_pid, cfg.owner_start):
            note("removing cluster %s: its owner process %s has exited" % (n, cfg.owner_pid))
            remove_cluster(n)
    for ns in our_netns():
        if os.path.isdir(state_dir(netns_cluster(ns))):
            continue
        note("removing namespace %s: no cluster state claims it (left behind by a crashed run)"
             % ns)
        procs.terminate(procs.netns_pids([ns]), note=note)
        netlink.remove_netns(ns)
    try:
        entries = os.listdir(NETNS_ETC)
    except OSError:
        entries = []
    for e in entries:
        if not re.match(r"^ccmpi-[a-z][a-z0-9]*-h[0-9]+$", e):
            continue
        if not os.path.isdir(state_dir(netns_cluster(e))):
            shutil.rmtree(os.path.join(NETNS_ETC, e), ignore_errors=True)


def status_of(cfg):
    """up, creating, broken (its `up` died) or orphan (its owner exited)."""
    status = cfg.status
    if status != "up" and not procs.alive(cfg.creator_pid, cfg.creator_start):
        status = "broken"
    if cfg.delayline_pid and not procs.alive(cfg.delayline_pid, cfg.delayline_start):
        status = "broken"  # its reordered packets would be lost
    if cfg.owner_pid and not procs.alive(cfg.owner_pid, cfg.owner_start):
        status = "orphan"
    return status


class UpOptions:
    """The options of `up`, validated (see cli)."""

    def __init__(self):
        self.hosts = None
        self.rails = "1"
        self.rate = "100mbit"
        self.delay = "default"
        self.loss = "0%"
        self.dup = "0%"
        self.reorder = "0%"
        self.slots = "1"
        self.port_buffer = "128kb"
        self.bucket = "2"
        self.name = "emu"
        self.owner = ""
        self.gso = "on"

    def validate(self):
        if self.hosts is None:
            raise ClusterError("up needs --hosts N")
        if not units.valid_count(self.hosts, 254):
            raise ClusterError("--hosts must be 1..254, not '%s'" % self.hosts)
        if not units.valid_count(self.rails, 16):
            raise ClusterError("--rails must be 1..16, not '%s'" % self.rails)
        if not units.valid_count(self.slots):
            raise ClusterError("--slots must be a positive number, not '%s'" % self.slots)
        if not units.valid_count(self.bucket, 64):
            raise ClusterError("--bucket must be 1..64 frames, not '%s'" % self.bucket)
        if not units.NAME.match(self.name):
            raise ClusterError("--name must be a lower-case letter then up to 15 letters or "
                               "digits, not '%s'" % self.name)
        if self.rate.lower() == "none":
            self.rate = "none"
        if self.rate != "none" and units.rate_bps(self.rate) is None:
            raise ClusterError("--rate '%s' is not a rate like 100mbit, 1gbit, 500kbit (or none)"
                               % self.rate)
        if self.delay != "default" and not units.valid_time(self.delay):
            raise ClusterError("--delay '%s' is not a time like 50us, 1ms or 0" % self.delay)
        for opt, v in (("--loss", self.loss), ("--dup", self.dup), ("--reorder", self.reorder)):
            if units.percent(v) is None:
                raise ClusterError("%s '%s' is not a percentage like 0.5%%" % (opt, v))
        pb = units.size_bytes(self.port_buffer)
        if pb is None or pb < 1538:
            raise ClusterError("--port-buffer '%s' is not a size of at least one frame (e.g. "
                               "128kb)" % self.port_buffer)
        self.port_buffer_bytes = pb
        self.owner_start = ""
        if self.owner:
            if not re.match(r"^[0-9]+$", self.owner):
                raise ClusterError("--owner needs a process id, not '%s'" % self.owner)
            self.owner_start = procs.start_time(self.owner)
            if not self.owner_start:
                raise ClusterError("--owner %s: no such process" % self.owner)


def free_subnet_base(rails):
    """The lowest block of `rails` consecutive /24s that no other cluster uses."""
    used = set()
    for n in cluster_names():
        cfg = Config.load(n)
        if cfg is None or not cfg.subnet_base:
            continue
        used.update(range(cfg.base, cfg.base + cfg.n_rails))
    for b in range(0, MAX_SUBNETS - rails + 1):
        if not any(s in used for s in range(b, b + rails)):
            return b
    raise ClusterError("no room left in 198.18.0.0/15 for %d more subnets (see ccmpi-cluster "
                       "list)" % rails)


class _Interrupted(Exception):
    pass


def _on_signal(signum, frame):
    raise _Interrupted()


def up(o):
    """Builds cluster o.name; returns the hostfile's path."""
    with Lock():
        reap_orphans()
        if os.path.isdir(state_dir(o.name)) or our_netns(o.name):
            note("replacing the existing cluster %s" % o.name)
            remove_cluster(o.name)
        base = free_subnet_base(int(o.rails))
        d = state_dir(o.name)
        try:
            os.makedirs(d, exist_ok=True)
            open(os.path.join(d, "namespaces"), "w").close()
        except OSError:
            raise ClusterError("cannot create %s" % d)
        cfg = Config(status="creating", creator_pid=os.getpid(),
                     creator_start=procs.start_time(os.getpid()), owner_pid=o.owner,
                     owner_start=o.owner_start, hosts=o.hosts, rails=o.rails, rate=o.rate,
                     delay=o.delay, loss=o.loss, dup=o.dup, reorder=o.reorder, slots=o.slots,
                     subnet_base=base, port_buffer=o.port_buffer_bytes, netem="no", gso=o.gso,
                     bucket=o.bucket, created=now_utc())
        if o.gso == "on" and not all(units.is_zero_percent(x) for x in (o.loss, o.dup, o.reorder)):
            cfg.gso = "off"  # loss, duplication and reordering act on whole GSO packets
        cfg.save(o.name)
        old = {s: signal.signal(s, _on_signal) for s in (signal.SIGINT, signal.SIGTERM,
                                                          signal.SIGHUP)}
        spaces = []
        try:
            _build(o, cfg, base, spaces)
        except _Interrupted:
            note("interrupted")
            _rollback(o.name, spaces)
            raise SystemExit(130)
        except shaping.SetupError as e:
            note("failed: %s" % e.what)
            if e.output:
                print("  " + e.output.replace("\n", "\n  "), file=sys.stderr)
            _rollback(o.name, spaces)
            raise SystemExit(1)
        except (OSError, RuntimeError) as e:
            note("failed: %s" % e)
            _rollback(o.name, spaces)
            raise SystemExit(1)
        except ClusterError:
            _rollback(o.name, spaces)
            raise
        finally:
            for s, h in old.items():
                signal.signal(s, h)
        for sp in spaces:
            sp.close()
    desc = "%s hosts x %s rail(s), %s" % (o.hosts, o.rails, o.rate)
    if not units.is_zero_time(cfg.delay):
        desc += ", delay %s" % cfg.delay
    for what, v in (("loss", o.loss), ("dup", o.dup), ("reorder", o.reorder)):
        if not units.is_zero_percent(v):
            desc += ", %s %s" % (what, v)
    if cfg.gso != "on":
        desc += ", no GSO"
    rails = int(o.rails)
    note("cluster %s is up: %s; subnets %s.0/24..%s.0/24; interfaces r0..r%d" % (
        o.name, desc, subnet_prefix(base), subnet_prefix(base + rails - 1), rails - 1))
    return os.path.join(d, "hostfile")


def _rollback(name, spaces):
    for sp in spaces:
        try:
            sp.close()
        except Exception:
            pass
    note("removing the half-built cluster %s" % name)
    remove_cluster(name)


def _add_netns(name, ns, spaces):
    with open(os.path.join(state_dir(name), "namespaces"), "a") as f:
        f.write(ns + "\n")
    try:
        netlink.create_netns(ns)
    except OSError as e:
        raise shaping.SetupError("creating namespace %s" % ns, str(e))
    sp = netlink.Space(ns)
    spaces.append(sp)
    sp.link_up("lo")
    # No IPv6 on the cluster (no router solicitations or DAD on the shaped links).
    if os.path.exists("/proc/sys/net/ipv6"):
        sp.sysctl("net/ipv6/conf/all/disable_ipv6", "1")
        sp.sysctl("net/ipv6/conf/default/disable_ipv6", "1")
    return sp


def _build(o, cfg, base, spaces):
    name, hosts, rails = o.name, int(o.hosts), int(o.rails)
    swname = ns_switch(name)
    sw = _add_netns(name, swname, spaces)
    if shaping.have_netem(swname):
        cfg.netem = "yes"
    if cfg.netem == "no" and o.delay != "default" and not units.is_zero_time(o.delay):
        # Refused, not ignored: the links would silently have no delay.
        note("--delay: needs the kernel's netem qdisc (CONFIG_NET_SCH_NETEM), which this kernel "
             "lacks")
        raise ClusterError("cannot build cluster %s" % name)
    if o.delay == "default":
        if cfg.netem == "yes":
            cfg.delay = "50us"
        else:
            cfg.delay = "0"
            note("note: this kernel has no netem (CONFIG_NET_SCH_NETEM): links get no added delay")
    cfg.save(name)

    for r in range(rails):
        sw.add_bridge("sw%d" % r)
        sw.link_up("sw%d" % r)
    etc_hosts = ["127.0.0.1 localhost"]
    for k in range(1, hosts + 1):
        etc_hosts.append("%s.%d %s-h%d" % (subnet_prefix(base), k, name, k))
        for r in range(1, rails):
            etc_hosts.append("%s.%d %s-h%d-r%d" % (subnet_prefix(base + r), k, name, k, r))
    if not os.path.isdir(NETNS_ETC):
        os.makedirs(NETNS_ETC, exist_ok=True)
        open(os.path.join(STATE_ROOT, ".created-etc-netns"), "w").close()
    for k in range(1, hosts + 1):
        ns = ns_host(name, k)
        h = _add_netns(name, ns, spaces)
        for r in range(rails):
            nic, port = "r%d" % r, "h%dr%d" % (k, r)
            h.add_veth(nic, port, sw)
            if cfg.gso == "off":
                h.set_gso_max_segs(nic, 1)
            h.add_address(nic, "%s.%d" % (subnet_prefix(base + r), k), 24)
            sw.set_master(port, "sw%d" % r)
            sw.link_up(port)
            h.link_up(nic)
            shaping.shape(cfg, ns, nic, "host")
            shaping.shape(cfg, swname, port, "port")
        h.add_route("224.0.0.0/4", "r0")
        os.makedirs(os.path.join(NETNS_ETC, ns), exist_ok=True)
        with open(os.path.join(NETNS_ETC, ns, "hosts"), "w") as f:
            f.write("\n".join(etc_hosts) + "\n")
        # One socket per host at a time: a cluster of 254 hosts would hold 254 sockets.
        h.close()
        spaces.remove(h)
    if cfg.netem == "no" and not units.is_zero_percent(o.reorder):
        start_delay_line(name, cfg, swname, hosts, rails)
    d = state_dir(name)
    slots = o.slots
    with open(os.path.join(d, "hostfile"), "w") as f:
        f.write("".join("%s-h%d slots=%s\n" % (name, k, slots) for k in range(1, hosts + 1)))
    with open(os.path.join(d, "hostfile.mpich"), "w") as f:  # MPICH's format
        f.write("".join("%s-h%d:%s\n" % (name, k, slots) for k in range(1, hosts + 1)))
    cfg.status = "up"
    cfg.save(name)


DELAY_LINE_READY_S = 10


def start_delay_line(name, cfg, swname, hosts, rails):
    """Starts the delay line that reorders packets (delayline.py) in the switch namespace
    and waits until it has bound its sockets; recorded in the configuration (its death
    makes the cluster `broken`), and ended with the namespace's other processes by
    remove_cluster."""
    pairs = []
    for k in range(1, hosts + 1):
        for r in range(rails):
            port = "h%dr%d" % (k, r)
            pairs.append("%s:%s" % (port, shaping.side_pair(port)[1]))
    log = os.path.join(state_dir(name), "delayline.log")
    pkg = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ, PYTHONPATH=pkg)
    cmd = ["ip", "netns", "exec", swname, sys.executable, "-m", "ccmpi_tools.cluster.delayline",
           "--delay-us", str(shaping.reorder_delay_us(cfg)), "--mark",
           str(shaping.DELAYED_MARK)] + pairs
    with open(log, "w") as err:
        p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=err,
                             env=env, start_new_session=True)
    ready = False
    if select.select([p.stdout], [], [], DELAY_LINE_READY_S)[0]:
        ready = p.stdout.readline().strip() == b"ready"
    p.stdout.close()
    if not ready:
        p.kill()
        p.wait()
        with open(log) as f:
            why = f.read().strip()
        raise shaping.SetupError("starting the delay line (%s)" % " ".join(cmd[:8]),
                                 why or "it did not report ready within %d s" % DELAY_LINE_READY_S)
    cfg.delayline_pid = str(p.pid)
    cfg.delayline_start = procs.start_time(p.pid)
    cfg.save(name)


def down(name, all_clusters):
    with Lock():
        if all_clusters:
            for n in cluster_names():
                remove_cluster(n)
                note("cluster %s removed" % n)
            reap_orphans()
            return
        existed = os.path.isdir(state_dir(name)) or bool(our_netns(name))
        remove_cluster(name)
        reap_orphans()
    note("cluster %s removed" % name if existed else "no cluster %s" % name)


def list_clusters():
    fmt = "%-16s %-8s %5s %5s %-9s %-6s %-6s %-6s %-7s %-3s %-17s %s"
    lines = []
    for n in cluster_names():
        cfg = Config.load(n)
        if cfg is None:
            continue
        if not lines:
            lines.append(fmt % ("NAME", "STATUS", "HOSTS", "RAILS", "RATE", "DELAY", "LOSS", "DUP",
                                "REORDER", "GSO", "SUBNETS", "HOSTFILE"))
        subnets = "%s.0/24+%s" % (subnet_prefix(cfg.base), cfg.rails) if cfg.subnet_base else ""
        lines.append(fmt % (n, status_of(cfg), cfg.hosts, cfg.rails, cfg.rate, cfg.delay, cfg.loss,
                            cfg.dup, cfg.reorder, cfg.gso, subnets,
                            os.path.join(state_dir(n), "hostfile")))
    return lines or ["no clusters"]


def hostfile(name):
    f = os.path.join(state_dir(name), "hostfile")
    if not os.access(f, os.R_OK):
        raise ClusterError("no cluster %s (see ccmpi-cluster list)" % name)
    return f
