#!/usr/bin/env python3
"""Nothing of a job is left behind, however it ends (issue 21, cleanliness).

Runs tests/mpi/shm_lifecycle.c under mpirun (all ranks on this host, so they talk through
shared memory) and ends it five ways: normal exit, MPI_Abort, a rank killed by SIGKILL,
a rank killed by SIGKILL while every rank holds a named segment (as a rank killed while it
creates a node-collective segment would leave; the launcher removes it), mpirun killed by
SIGKILL. After each, it checks: the exit code and message say what
happened (not for the mpirun kill: mpirun is gone), no rank process is left, and /dev/shm
holds nothing new (an entry that appeared during the run and is still there after a
grace period of 2 s; other tests running at the same time may create and remove entries).

Usage: shm_cleanup.py MPIRUN PROGRAM [NP]
"""
import os
import signal
import subprocess
import sys
import time

from jobwatch import OutputJob, wait_gone

SHM = "/dev/shm"


def shm_entries():
    try:
        return set(os.listdir(SHM))
    except FileNotFoundError:
        return set()


class Job(OutputJob):
    def __init__(self, mpirun, program, np, mode):
        self.np = np
        self.pids = {}
        self.ready = set()
        super().__init__([mpirun, "-n", str(np), program, mode])

    def parse(self, w):
        if len(w) == 4 and w[0] == "rank" and w[2] == "pid":
            self.pids[int(w[1])] = int(w[3])
        if len(w) == 3 and w[0] == "rank" and w[2] == "ready":
            self.ready.add(int(w[1]))

    def wait_ready(self, seconds=60):
        if not self.wait_for(lambda: len(self.ready) == self.np, seconds):
            raise AssertionError("the ranks did not all get ready:\n" + self.output())

    def finish(self, seconds=60):
        try:
            rc = self.proc.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError(f"mpirun did not end within {seconds} s:\n" + self.output())
        self.reader.join(timeout=10)
        return rc



def check_gone(job, before, what, seconds=10):
    left = wait_gone(list(job.pids.values()), seconds)
    if left:
        # Do not leave them behind ourselves.
        for p in left:
            try:
                os.kill(p, signal.SIGKILL)
            except ProcessLookupError:
                pass
        raise AssertionError(f"{what}: rank processes {left} survived")
    new = shm_entries() - before
    if new:
        time.sleep(2)
        new &= shm_entries()
    if new:
        raise AssertionError(f"{what}: left in {SHM}: {sorted(new)}")


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    mpirun, program = sys.argv[1], sys.argv[2]
    np = int(sys.argv[3]) if len(sys.argv) > 3 else 4
    failures = 0

    def scenario(name, fn):
        nonlocal failures
        before = shm_entries()
        try:
            fn(before)
            print(f"PASS {name}")
        except AssertionError as e:
            failures += 1
            print(f"FAIL {name}: {e}")

    def normal(before):
        job = Job(mpirun, program, np, "finalize")
        rc = job.finish()
        if rc != 0:
            raise AssertionError(f"exit code {rc}:\n" + job.output())
        check_gone(job, before, "normal exit")

    def abort(before):
        job = Job(mpirun, program, np, "abort")
        rc = job.finish()
        out = job.output()
        if rc != 9 or "MPI_Abort" not in out:
            raise AssertionError(f"exit code {rc} (expected 9, MPI_Abort named):\n" + out)
        check_gone(job, before, "MPI_Abort")

    def kill_rank(before):
        job = Job(mpirun, program, np, "wait")
        job.wait_ready()
        victim = np // 2
        os.kill(job.pids[victim], signal.SIGKILL)
        rc = job.finish()
        out = job.output()
        if rc == 0 or f"rank {victim}" not in out:
            raise AssertionError(f"exit code {rc}, rank {victim} not named:\n" + out)
        check_gone(job, before, "a rank killed by SIGKILL")

    def kill_rank_named(before):
        job = Job(mpirun, program, np, "orphan")
        job.wait_ready()
        named = {f"ccmpi-{pid}-lifecycle" for pid in job.pids.values()}
        if not named <= shm_entries():
            raise AssertionError("the ranks' named segments are not in /dev/shm:\n" + job.output())
        victim = np // 2
        os.kill(job.pids[victim], signal.SIGKILL)
        rc = job.finish()
        if rc == 0:
            raise AssertionError(f"exit code {rc}:\n" + job.output())
        check_gone(job, before, "a rank killed by SIGKILL while segments had names")

    def kill_mpirun(before):
        job = Job(mpirun, program, np, "wait")
        job.wait_ready()
        job.proc.send_signal(signal.SIGKILL)
        job.finish()
        check_gone(job, before, "mpirun killed by SIGKILL")

    scenario("normal exit", normal)
    scenario("MPI_Abort", abort)
    scenario("rank killed by SIGKILL", kill_rank)
    scenario("rank killed by SIGKILL, segments named", kill_rank_named)
    scenario("mpirun killed by SIGKILL", kill_mpirun)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
