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

from .state import DEFAULT_NAME, NETNS_DIR, ClusterError


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


def command_line(host, words):
    """The argv that runs `words` on `host` (see the module's comment). The command's
    environment is the caller's: nothing is declared for it (ccmpi finds the hosts' link
    rate itself, as on a real cluster; CCMPI_LINK_MBITS set by the caller still wins)."""
    command = " ".join(words) if words else "exec " + os.environ.get("SHELL", "/bin/bash")
    return (["ip", "netns", "exec", "ccmpi-" + host, "unshare", "--uts", "--"] +
            ["bash", "-c", "printf %%s %s >/proc/sys/kernel/hostname || exit 1; %s"
             % (host, command)])


def run(host, cluster, words):
    """Replaces this process with the command on the host (never returns)."""
    host = resolve_host(host, cluster)
    argv = command_line(host, words)
    os.execvp(argv[0], argv)
