"""Shared by the tests that run an mpirun job and watch its processes (shm_cleanup.py,
dyn_spawn_ends.py): whether a process is alive, waiting for processes to go, and a job
whose merged output a thread reads line by line."""
import subprocess
import threading
import time


def alive(pid):
    """True while pid is a process that is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
        return state != "Z"
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False


def wait_gone(pids, seconds):
    """Waits up to `seconds` for every process of `pids` to end; returns those still alive."""
    end = time.monotonic() + seconds
    left = [p for p in pids if alive(p)]
    while left and time.monotonic() < end:
        time.sleep(0.05)
        left = [p for p in left if alive(p)]
    return left


class OutputJob:
    """A command (an mpirun) whose stdout and stderr a thread reads; each line is kept and
    handed to parse(words) with the condition held, so a subclass can record what it says."""

    def __init__(self, argv):
        self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     text=True)
        self.lines = []
        self.cond = threading.Condition()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def parse(self, words):
        pass

    def _read(self):
        for line in self.proc.stdout:
            with self.cond:
                self.lines.append(line.rstrip("\n"))
                self.parse(line.split())
                self.cond.notify_all()
        with self.cond:
            self.cond.notify_all()

    def wait_for(self, predicate, seconds):
        """Waits until predicate() holds (checked with the condition held) or the command
        ended or `seconds` passed; returns predicate()."""
        with self.cond:
            return self.cond.wait_for(lambda: predicate() or self.proc.poll() is not None,
                                      timeout=seconds) and predicate()

    def output(self):
        with self.cond:
            return "\n".join(self.lines)
