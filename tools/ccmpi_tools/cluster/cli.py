"""The command line of ccmpi-cluster (the same as the bash tool it replaced: scripts, tests
and an mpirun launch agent call it). The options are parsed by hand, not by argparse:
`exec` passes everything after HOST to the host untouched, and every message and exit
status is part of the interface."""
import os
import shutil
import sys

from .. import units
from .state import DEFAULT_NAME, ClusterError

PROG = "ccmpi-cluster"

USAGE = """\
usage: ccmpi-cluster up --hosts N [--rails R] [--rate 100mbit] [--delay 50us] [--loss 0%]
                        [--dup 0%] [--reorder 0%] [--slots S] [--port-buffer 128kb]
                        [--bucket 2] [--no-gso] [--name NAME] [--owner PID]
       ccmpi-cluster exec [--name NAME] HOST [CMD...]
       ccmpi-cluster down [--name NAME | --all]
       ccmpi-cluster list
       ccmpi-cluster hostfile [--name NAME]
       ccmpi-cluster check [--name NAME] [--seconds 2] [--warmup 0.5] [--tolerance 5]
                           [--rail R | --all-rails] [--parallel 4] [--retries 2]
                           [--no-incast]

up        creates cluster NAME (default emu): N hosts (network namespaces ccmpi-NAME-hK,
          host names NAME-hK), each with R NICs r0..r(R-1); NIC r of every host is cabled
          to switch r (a Linux bridge). Both directions of every cable are shaped to the
          rate (Ethernet line rate: tc rate units, e.g. 100mbit, 1gbit, or none), with
          optional delay/loss/duplication/reordering per direction of each cable (netem;
          without it, loss, duplication and reordering are drawn in the switch and
          --delay is refused; see docs/cluster.md, Impairments). Prints the
          path of the hostfile (host names, --slots each, default 1). The switch ports
          buffer --port-buffer bytes (tail drop). The shapers' token buckets hold --bucket
          frames: that many frames pass an idle cable without waiting for the rate. Hosts
          send GSO packets, which the shaper cuts into frames; --no-gso (implied by
          --loss/--dup/--reorder) makes the hosts' TCP stacks work frame by frame (more
          CPU). An existing cluster of the same name is replaced. With --owner PID the
          cluster is removed by the next up/down once process PID has exited (for scripts
          and tests).
exec      runs CMD (default: $SHELL) on host HOST (NAME-hK, or hK with --name) with its
          host name; like ssh, CMD's words are joined with spaces and run by bash there.
          It is an mpirun launch agent:
            mpirun --hostfile "$(ccmpi-cluster hostfile)" --launcher 'ccmpi-cluster exec' \\
                   --iface r0 -n 4 ./prog
down      removes cluster NAME (or all clusters) and everything it created, after
          terminating processes still running in its hosts.
list      shows the clusters.
hostfile  prints the path of cluster NAME's hostfile.
check     measures every cable in both directions (each host sends to the next one, P
          cables at a time) and every host's incast (3 senders into it share its switch
          port; P groups at a time), read from the shapers' counters, against the rate;
          a cable that is off is measured again alone (up to K times, keeping the
          figures nearest the rate); exits 1 if a figure is off by more than the
          tolerance (%). With several rails, one rail after the other, or with
          --all-rails every rail's P cables (and incast groups) at the same time, as a
          collective on every rail loads them.
up, exec, down and check need root.
"""


def die(msg):
    print("%s: %s" % (PROG, msg), file=sys.stderr)
    sys.exit(1)


def need_root(what):
    if os.geteuid() != 0:
        raise ClusterError("'%s' needs root (network namespaces, links and tc qdiscs); run it "
                           "as root, e.g. with sudo" % what)


def _options(args, valued, flags, what):
    """Parses --opt VALUE and --flag words into a dict; errors as the bash tool's."""
    got = {}
    i = 0
    while i < len(args):
        a = args[i]
        if a in flags:
            got[flags[a]] = True
            i += 1
            continue
        if i + 1 >= len(args):
            raise ClusterError("option %s needs a value (see --help)" % a)
        if a not in valued:
            raise ClusterError("unknown option %s for %s (see --help)" % (a, what))
        got[valued[a]] = args[i + 1]
        i += 2
    return got


def cmd_up(args):
    from . import lifecycle
    o = lifecycle.UpOptions()
    valued = {"--hosts": "hosts", "--rails": "rails", "--rate": "rate", "--delay": "delay",
              "--loss": "loss", "--dup": "dup", "--duplicate": "dup", "--reorder": "reorder",
              "--slots": "slots", "--port-buffer": "port_buffer", "--bucket": "bucket",
              "--name": "name", "--owner": "owner"}
    got = _options(args, valued, {"--no-gso": "no_gso"}, "up")
    for k, v in got.items():
        if k == "no_gso":
            o.gso = "off"
        else:
            setattr(o, k, v)
    o.validate()
    need_root("up")
    if not (shutil.which("ip") and shutil.which("tc")):
        raise ClusterError("needs ip and tc (Debian: iproute2)")
    print(lifecycle.up(o), flush=True)
    return 0


def cmd_down(args):
    from . import lifecycle
    name, all_clusters = DEFAULT_NAME, False
    i = 0
    while i < len(args):
        if args[i] == "--name":
            if i + 1 >= len(args):
                raise ClusterError("--name needs a value")
            name = args[i + 1]
            i += 2
        elif args[i] == "--all":
            all_clusters = True
            i += 1
        else:
            raise ClusterError("unknown option %s for down (see --help)" % args[i])
    if not units.NAME.match(name):
        raise ClusterError("bad cluster name '%s'" % name)
    need_root("down")
    lifecycle.down(name, all_clusters)
    return 0


def cmd_list(args):
    from . import lifecycle
    if args:
        raise ClusterError("list takes no arguments")
    print("\n".join(lifecycle.list_clusters()))
    return 0


def cmd_hostfile(args):
    from . import lifecycle
    name = DEFAULT_NAME
    if len(args) >= 2 and args[0] == "--name":
        name, args = args[1], args[2:]
    if args:
        raise ClusterError("usage: ccmpi-cluster hostfile [--name NAME]")
    if not units.NAME.match(name):
        raise ClusterError("bad cluster name '%s'" % name)
    print(lifecycle.hostfile(name))
    return 0


def cmd_exec(args):
    from . import execute
    cluster = ""
    if len(args) >= 2 and args[0] == "--name":
        cluster, args = args[1], args[2:]
    if not args:
        raise ClusterError("usage: ccmpi-cluster exec [--name NAME] HOST [CMD...]")
    need_root("exec")
    sys.stdout.flush()
    execute.run(args[0], cluster, args[1:])
    return 1  # not reached: run execs the command


def cmd_check(args, here):
    from . import check
    o = check.CheckOptions()
    valued = {"--name": "name", "--seconds": "seconds", "--warmup": "warmup",
              "--tolerance": "tolerance", "--rail": "rail", "--parallel": "parallel",
              "--retries": "retries"}
    got = _options(args, valued, {"--no-incast": "no_incast", "--all-rails": "all_rails"},
                   "check")
    for k, v in got.items():
        if k == "no_incast":
            o.incast = False
        elif k == "all_rails":
            o.all_rails = True
        else:
            setattr(o, k, v)
    check.validate(o)
    need_root("check")

    def out(line):
        print(line, flush=True)
    return 0 if check.check(o, here, out) else 1


def main(argv, here=None, source=None):
    """argv without the program name; `here` is the launcher's directory (ccmpi-blast is
    looked for beside it); `source` is unused (the launcher passes it to both tools)."""
    if not argv:
        sys.stderr.write(USAGE)
        return 2
    cmd, args = argv[0], argv[1:]
    try:
        if cmd == "up":
            return cmd_up(args)
        if cmd == "down":
            return cmd_down(args)
        if cmd == "exec":
            return cmd_exec(args)
        if cmd == "list":
            return cmd_list(args)
        if cmd == "hostfile":
            return cmd_hostfile(args)
        if cmd == "check":
            return cmd_check(args, here)
        if cmd in ("-h", "--help", "help"):
            sys.stdout.write(USAGE)
            return 0
        print("%s: unknown command '%s'" % (PROG, cmd), file=sys.stderr)
        sys.stderr.write(USAGE)
        return 2
    except ClusterError as e:
        die(str(e))
    except KeyboardInterrupt:
        print("%s: interrupted" % PROG, file=sys.stderr)
        return 130
