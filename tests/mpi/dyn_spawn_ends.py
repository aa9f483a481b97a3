#!/usr/bin/env python3
"""A job started by MPI_Comm_spawn ends with its parents (tests/mpi/dyn_spawn_ends.c).

A 2-rank parent job spawns 2 children and reports every pid. Then it ends five ways:

- kill-root   the spawning rank (0) is killed by SIGKILL;
- kill-other  the other parent rank is killed by SIGKILL;
- abort       rank 1 calls MPI_Abort;
- mpirun      the parent job's mpirun is killed by SIGKILL;
- finalize    the parents disconnect and finalize normally.

In the first four the spawned job must be gone within a deadline (its ranks and its
mpirun), and the parent's mpirun must exit non-zero (except when it was the one killed).
In the last, the parent job exits 0, and the children, which outlive it by 2 s, must
finish their work (each writes a file) and exit by themselves.

Usage: dyn_spawn_ends.py MPIRUN PROGRAM
"""
import os
import signal
import subprocess
import sys
import tempfile

from jobwatch import OutputJob, alive, wait_gone

DEADLINE = 20  # seconds for the processes to go


class ParentJob(OutputJob):
    def __init__(self, mpirun, program, how, workdir):
        self.ready = None
        super().__init__([mpirun, "-n", "2", "--timeout", "120", program, "parent", how, workdir])

    def parse(self, words):
        if words[:2] == ["ready", "parents"]:
            i = words.index("children")
            self.ready = {
                "parents": [int(w) for w in words[2:i]],
                "children": [int(words[i + 1]), int(words[i + 2])],
                "mpirun": int(words[i + 4]),
            }

    def wait_ready(self, seconds):
        self.wait_for(lambda: self.ready is not None, seconds)
        return self.ready


def run_case(mpirun, program, how):
    """Returns a list of failures (empty: passed)."""
    failures = []
    with tempfile.TemporaryDirectory(prefix="ccmpi-spawn-ends-") as workdir:
        mode = "finalize" if how == "finalize" else ("abort" if how == "abort" else "wait")
        job = ParentJob(mpirun, program, mode, workdir)
        spawned = []
        try:
            ready = job.wait_ready(60)
            if ready is None:
                return [f"{how}: the job never reported its processes:\n{job.output()}"]
            spawned = ready["children"] + [ready["mpirun"]]
            if how == "kill-root":
                os.kill(ready["parents"][0], signal.SIGKILL)
            elif how == "kill-other":
                os.kill(ready["parents"][1], signal.SIGKILL)
            elif how == "mpirun":
                job.proc.kill()
            try:
                rc = job.proc.wait(DEADLINE + 10)
            except subprocess.TimeoutExpired:
                return [f"{how}: the parent job did not end:\n{job.output()}"]
            if how == "finalize":
                if rc != 0:
                    failures.append(f"{how}: the parent job exited {rc}")
                # The children outlive the parents by 2 s, then write their files and end.
                left = wait_gone(spawned, DEADLINE)
                if left:
                    failures.append(f"{how}: spawned processes still running: {left}")
                done = sorted(f for f in os.listdir(workdir) if f.endswith(".done"))
                if done != ["child-0.done", "child-1.done"]:
                    failures.append(
                        f"{how}: the children did not finish their work after their parents "
                        f"ended (files: {done})"
                    )
            else:
                if how != "mpirun" and rc == 0:
                    failures.append(f"{how}: the parent job exited 0")
                left = wait_gone(spawned + ready["parents"], DEADLINE)
                if left:
                    failures.append(
                        f"{how}: processes still running {DEADLINE} s after the parent job "
                        f"ended: {left}"
                    )
                if os.listdir(workdir):
                    failures.append(f"{how}: the children went on: {os.listdir(workdir)}")
        finally:
            if job.proc.poll() is None:
                job.proc.kill()
                job.proc.wait()
            for pid in spawned:
                if alive(pid):
                    os.kill(pid, signal.SIGKILL)
        if failures:
            failures.append(f"{how}: output:\n{job.output()}")
        else:
            print(f"{how}: ok (parent job exit {rc})")
    return failures


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    mpirun, program = sys.argv[1], os.path.abspath(sys.argv[2])
    failures = []
    for how in ["kill-root", "kill-other", "abort", "mpirun", "finalize"]:
        failures += run_case(mpirun, program, how)
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
