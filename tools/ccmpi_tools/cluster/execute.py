"""`ccmpi-cluster exec`: runs a command on a host of a cluster, as an mpirun launch agent.

As ssh does, the words of the command are joined with spaces and run by a shell on the
host (agents of other MPIs pass shell syntax). `ip netns exec` gives the host's network
namespace, its own /sys and /etc/hosts (from /etc/netns/ccmpi-NAME-hK); `unshare --uts` a
UTS namespace of the command's own, in which the host name is set (host names are
[a-z0-9-], safe to paste). Every step execs the next, and bash execs the last command of
the string, so the agent's pid becomes the command's. This module imports nothing heavy:
an agent starts once per host and rank.
"""
import os
import re

from .. import units
from .state import DEFAULT_NAME, NETNS_DIR, ClusterError, Config


def resolve_host(host, cluster):
    """The full host name (NAME-hK) for HOST as given: NAME-hK, hK (of --name or the
    default cluster) or K (with --name)."""
    if re.match(r"^h[0-9]+$", host):
        host = "%s-%s" % (cluster or DEFAULT_NAME, host)
    elif cluster and re.match(r"^[0-9]+$", host):
        host = "%s-h%s" % (cluster, host)
    if not re.match(r"^[a-z][a-z0-9]*-h[0-9]+$", host) or not os.path.exists(
            os.path.join(NETNS_DIR, "ccmpi-" + host)):
        raise ClusterError("no host '%s' in any cluster (see ccmpi-cluster list)" % host)
    if cluster and host.rsplit("-h", 1)[0] != cluster:
        raise ClusterError("host %s is not in cluster %s" % (host, cluster))
    return host


def link_mbits(host):
    """CCMPI_LINK_MBITS for a host: the cluster's rate in Mbit/s, as a site's administrator
    would state it for ccmpi (phased schedules' cost model, multicast and TCP pacing);
    None when the environment already has a value (it wins) or the rate is none."""
    if os.environ.get("CCMPI_LINK_MBITS"):
        return None
    cfg = Config.load(host.rsplit("-h", 1)[0])
    return units.rate_mbits(cfg.rate) if cfg is not None else None


def command_line(host, words, mbits):
    """The argv that runs `words` on `host` (see the module's comment)."""
    command = " ".join(words) if words else "exec " + os.environ.get("SHELL", "/bin/bash")
    env = ["env"] + (["CCMPI_LINK_MBITS=" + mbits] if mbits else [])
    return (["ip", "netns", "exec", "ccmpi-" + host, "unshare", "--uts", "--"] + env +
            ["bash", "-c", "printf %%s %s >/proc/sys/kernel/hostname || exit 1; %s"
             % (host, command)])


def run(host, cluster, words):
    """Replaces this process with the command on the host (never returns)."""
    host = resolve_host(host, cluster)
    argv = command_line(host, words, link_mbits(host))
    os.execvp(argv[0], argv)
