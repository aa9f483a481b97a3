"""Processes: identity (pid + start time, so a reused pid is not taken for its
predecessor), the processes inside a network namespace, and terminating a set of them."""
import os
import signal
import sys
import time

NETNS_DIR = "/run/netns"


def start_time(pid):
    """The process's start time (clock ticks since boot) as a string, "" if it is gone."""
    try:
        with open("/proc/%d/stat" % int(pid)) as f:
            stat = f.read()
    except (OSError, ValueError):
        return ""
    fields = stat[stat.rindex(")") + 2:].split()
    return fields[19] if len(fields) > 19 else ""


def alive(pid, start):
    return bool(pid) and bool(start) and start_time(pid) == str(start)


def netns_pids(names):
    """Pids of the processes whose network namespace is one of the named ones (as
    `ip netns pids`), except this process."""
    wanted = set()
    for n in names:
        try:
            st = os.stat(os.path.join(NETNS_DIR, n))
        except OSError:
            continue
        wanted.add((st.st_dev, st.st_ino))
    pids = []
    if not wanted:
        return pids
    me = os.getpid()
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == me:
            continue
        try:
            st = os.stat("/proc/%s/ns/net" % entry)
        except OSError:
            continue
        if (st.st_dev, st.st_ino) in wanted:
            pids.append(int(entry))
    return sorted(pids)


def terminate(pids, grace=2.0, note=None):
    """SIGTERM to these processes, SIGKILL to those left after `grace` seconds."""
    pids = [p for p in pids if p != os.getpid()]
    if not pids:
        return
    if note:
        note("terminating processes still running in the cluster: %s" % " ".join(map(str, pids)))
    for p in pids:
        try:
            os.kill(p, signal.SIGTERM)
        except OSError:
            pass
    deadline = time.monotonic() + grace
    left = pids
    while left and time.monotonic() < deadline:
        time.sleep(0.1)
        left = [p for p in left if os.path.exists("/proc/%d" % p) and not _zombie(p)]
    for p in left:
        try:
            os.kill(p, signal.SIGKILL)
        except OSError:
            pass


def kill_now(pids):
    for p in pids:
        try:
            os.kill(p, signal.SIGKILL)
        except OSError:
            pass


def _zombie(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            s = f.read()
        return s[s.rindex(")") + 2] == "Z"
    except (OSError, ValueError, IndexError):
        return True


def warn(prog, msg):
    print("%s: %s" % (prog, msg), file=sys.stderr, flush=True)
