"""Running benchmark programs (ccmpi-bench's runner, bench/apps/run.py, bench/node/run.py):
one command in its own process group, stopped at a timeout or when it hangs after its
output is complete; what a run left on an emulated cluster's hosts; and the machine facts a
result records (load average, CPU model)."""
import os
import signal
import subprocess
import time

from . import procs
from .cluster.state import ns_host


def stop_group(p, grace):
    """SIGTERM to p's process group, SIGKILL when p has not exited `grace` seconds later;
    waits for p."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(p.pid, sig)
        except OSError:
            pass
        try:
            p.wait(timeout=grace)
            return
        except subprocess.TimeoutExpired:
            pass
    p.wait()


def run_watched(cmd, stdout, stderr, timeout, done=None, hung_after=20, grace=10, cwd=None,
                env=None, started=None, every=0.5):
    """Runs cmd in a new session (stdin empty, output to the files stdout and stderr) until
    it exits, `timeout` seconds pass, or `hung_after` seconds pass after done() first held
    (its output is complete: some MPI implementations spin in MPI_Finalize); the last two
    stop its process group (stop_group). started(p) is told the process. Returns
    (returncode, timed_out, hung); the return code is Popen's (-N for signal N)."""
    start, done_at = time.monotonic(), None
    hung = timed_out = False
    p = subprocess.Popen(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=stdout,
                         stderr=stderr, start_new_session=True)
    if started:
        started(p)
    try:
        while p.poll() is None:
            try:
                p.wait(timeout=every)
                break
            except subprocess.TimeoutExpired:
                pass
            now = time.monotonic()
            if done and done_at is None and done():
                done_at = now
            if done_at is not None and now - done_at >= hung_after:
                hung = True
                break
            if now - start >= timeout:
                timed_out = True
                break
    except BaseException:
        # Interrupted (SIGTERM or ^C in the caller): the run is in a session of its own,
        # so nothing else would stop it.
        stop_group(p, grace)
        raise
    if hung or timed_out:
        stop_group(p, grace)
    return p.returncode, timed_out, hung


def reap_cluster(name, hosts):
    """Kills what runs left on the hosts 1..hosts of cluster `name` (the processes in their
    network namespaces)."""
    procs.kill_now(procs.netns_pids([ns_host(name, k) for k in range(1, hosts + 1)]))


def load_averages():
    """The 1, 5 and 15 minute load averages as text ("0.52 0.61 0.70"), "" if unknown."""
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return ""


def loadavg():
    """The 1-minute load average (a result recorded above ~1.5 on 2 cores is a draft)."""
    return float(load_averages().split()[0])


def cpu_model(unknown="unknown CPU"):
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return unknown
