#!/usr/bin/env python3
"""Two separately launched mpirun jobs connect (docs/dynamic.md).

Usage: dyn_two_jobs.py MPIRUN PROGRAM SERVER_NP CLIENT_NP [ENV=VALUE ...]

Starts `mpirun -n SERVER_NP PROGRAM server SVC` and `mpirun -n CLIENT_NP PROGRAM client SVC`
with a private name-service directory (CCMPI_NAME_DIR): the server publishes its port under
SVC, the client looks it up and connects, and both exercise the intercommunicator (the
program checks the data). Passes when both jobs exit 0 and print "No Errors"; either job
still running after 120 s is killed (the test fails). The directory is removed at the end.
"""
import os
import shutil
import subprocess
import sys
import tempfile

TIMEOUT = 120


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    mpirun, program, snp, cnp = sys.argv[1:5]
    env = dict(os.environ)
    for kv in sys.argv[5:]:
        key, _, value = kv.partition("=")
        env[key] = value
    names = tempfile.mkdtemp(prefix="ccmpi-dyn-")
    env["CCMPI_NAME_DIR"] = names
    svc = "ccmpi-two-jobs-%d" % os.getpid()
    jobs = []
    try:
        for role, np in (("server", snp), ("client", cnp)):
            jobs.append((role, subprocess.Popen(
                [mpirun, "-n", np, program, role, svc], env=env,
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)))
        ok = True
        for role, job in jobs:
            try:
                out, _ = job.communicate(timeout=TIMEOUT)
            except subprocess.TimeoutExpired:
                job.kill()
                out, _ = job.communicate()
                print("%s job still running after %d s: killed" % (role, TIMEOUT))
                ok = False
            print("--- %s job (exit %d) ---\n%s" % (role, job.returncode, out))
            if job.returncode != 0 or "No Errors" not in out:
                ok = False
        print("PASS" if ok else "FAIL")
        return 0 if ok else 1
    finally:
        for _, job in jobs:
            if job.poll() is None:
                job.kill()
                job.wait()
        shutil.rmtree(names, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
