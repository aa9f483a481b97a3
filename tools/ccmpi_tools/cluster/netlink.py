"""Namespaces, bridges, veth cables, addresses and routes, spoken to the kernel over
netlink with pyroute2 (Debian: python3-pyroute2).

A netlink socket belongs to the network namespace it was opened in, so `Space` opens one
socket per namespace by entering the namespace for a moment (setns) and coming back; no
proxy processes (pyroute2's NetNS forks one per namespace). Namespaces are created and
removed as `ip netns add/del` does (a bind mount under /run/netns), so `ip netns` and
`ip netns exec` see them. pyroute2's own pushns/setns create a missing namespace on the
way (O_CREAT); `enter` never does.
"""
import contextlib
import ctypes
import os

from .state import NETNS_DIR

CLONE_NEWNET = 0x40000000
_libc = ctypes.CDLL(None, use_errno=True)


def _pyroute2():
    try:
        from pyroute2 import IPRoute, netns  # late: `exec` and `list` do not need it
    except ImportError:
        raise RuntimeError("needs pyroute2 (Debian: apt-get install python3-pyroute2)")
    return IPRoute, netns


def _setns(fd):
    if _libc.setns(fd, CLONE_NEWNET) != 0:
        e = ctypes.get_errno()
        raise OSError(e, "setns: %s" % os.strerror(e))


@contextlib.contextmanager
def enter(name):
    """Runs the block in network namespace `name` (which must exist), then returns."""
    home = os.open("/proc/self/ns/net", os.O_RDONLY)
    try:
        fd = os.open(os.path.join(NETNS_DIR, name), os.O_RDONLY)
        try:
            _setns(fd)
        finally:
            os.close(fd)
        try:
            yield
        finally:
            _setns(home)
    finally:
        os.close(home)


def create_netns(name):
    _, netns = _pyroute2()
    netns.create(name)


def remove_netns(name):
    """Deletes namespace `name` (its interfaces go with it); False if that failed."""
    path = os.path.join(NETNS_DIR, name)
    _libc.umount2(path.encode(), 2)  # MNT_DETACH
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    except OSError:
        return False
    return True


def netns_exists(name):
    return os.path.exists(os.path.join(NETNS_DIR, name))


class Space:
    """A netlink socket in one network namespace, with the few operations `up` needs."""

    def __init__(self, name):
        IPRoute, _ = _pyroute2()
        self.name = name
        with enter(name):
            self.ipr = IPRoute()

    def close(self):
        self.ipr.close()

    def index(self, ifname):
        found = self.ipr.link_lookup(ifname=ifname)
        if not found:
            raise OSError("no interface %s in %s" % (ifname, self.name))
        return found[0]

    def link_up(self, ifname):
        self.ipr.link("set", index=self.index(ifname), state="up")

    def sysctl(self, path, value):
        """Writes /proc/sys/PATH in this namespace (net.* sysctls are per namespace)."""
        with enter(self.name):
            with open(os.path.join("/proc/sys", path), "w") as f:
                f.write(value)

    def add_bridge(self, ifname):
        """A switch: no spanning tree, no forwarding delay, no multicast snooping (every
        port floods multicast, as an unmanaged switch does)."""
        self.ipr.link("add", ifname=ifname, kind="bridge", br_stp_state=0, br_forward_delay=0,
                      br_mcast_snooping=0)

    def add_veth(self, ifname, peer, peer_space):
        """A cable: `ifname` here, `peer` in the namespace of `peer_space`."""
        fd = os.open(os.path.join(NETNS_DIR, peer_space.name), os.O_RDONLY)
        try:
            self.ipr.link("add", ifname=ifname, kind="veth",
                          peer={"ifname": peer, "net_ns_fd": fd})
        finally:
            os.close(fd)

    def set_gso_max_segs(self, ifname, segs):
        self.ipr.link("set", index=self.index(ifname), gso_max_segs=segs)

    def add_address(self, ifname, address, prefixlen):
        self.ipr.addr("add", index=self.index(ifname), address=address, prefixlen=prefixlen)

    def set_master(self, ifname, bridge):
        self.ipr.link("set", index=self.index(ifname), master=self.index(bridge))

    def add_route(self, dst, ifname):
        self.ipr.route("add", dst=dst, oif=self.index(ifname))
