#!/usr/bin/env python3
"""A private one-node Slurm for the test suite, and the launch cases run on it.

    slurm_fixture.py --check PROG --mpirun MPIRUN [--pmix yes|no] [--only CASE ...]

Starts munged, slurmctld and slurmd as children of this script, each with its own
configuration, state directory, socket and ports under a fresh temporary directory (it
never reads or touches a system Slurm or munge: SLURM_CONF points at the private
slurm.conf, munge's socket is private), waits until the node is idle, runs the cases and
stops everything it started (by PID: SIGTERM, then SIGKILL) and removes its directory, also
when a case fails or the script is interrupted. Every wait is bounded.

Exit status: 0 when every case passed, 1 when one failed, 77 (CTest's SKIP_RETURN_CODE,
printing "skipped: ...") when this machine cannot run a Slurm: the daemons are not
installed or do not come up. Root is not needed: the daemons run as the user running the
tests (SlurmUser and SlurmdUser), whose jobs they are.

Facts this relies on (Slurm 22.05, Debian 12): slurmd needs ProctrackType=proctrack/
linuxproc and TaskPlugin=task/none without cgroups/systemd; SlurmdParameters=
config_overrides lets the node claim 16 CPUs (CPUs=16) on a smaller machine, so jobs of 8
tasks fit; the daemons come up in about 10 s.

Cases (each runs PROG, tests/slurm/slurm_check.c, which checks on every rank that the world
has the expected size and that collectives agree, and prints one "ok" line per rank):
  srun_pmi2          srun --mpi=pmi2 -n 8
  srun_pmix          srun --mpi=pmix -n 8 (PMIx client; without PMIx support in the
                     library: fails at once naming the cause)
  srun_none          srun --mpi=none -n 4: every task fails at MPI_Init, at once, with a
                     message naming --mpi=pmi2 (no silent "rank 0 of 1")
  salloc_mpirun      salloc -n 8 mpirun PROG (no -n: the allocation's 8 tasks)
  salloc_oversub     salloc -n 4 mpirun -n 8: refused; with --oversubscribe it runs
  salloc_srun_agent  salloc -n 4 mpirun with CCMPI_SLURM_LAUNCH=srun: the per-host proxy
                     is started through srun, as on a multi-node allocation; MPI_Abort
                     there ends mpirun with the abort code
  sbatch_mpirun      sbatch -n 8 of a script that runs `mpirun PROG`
  srun_abort         srun --mpi=pmi2 and --mpi=pmix -n 4, the last rank calls MPI_Abort
                     while the others wait: the step ends at once, non-zero
  srun_pmi1_limits   srun --mpi=pmi2 -n 3 of tests/launcher/pmi_probe badkey (--probe):
                     key and value limits of the PMI-1 client against Slurm's server,
                     with values that take several 1024-byte request lines
"""
import argparse
import ctypes
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

SKIP = 77
CASE_TIMEOUT = 60  # seconds per command
START_TIMEOUT = 40  # seconds for the daemons to bring the node up


def program(name):
    """Path of a Slurm or munge program; the daemons live in sbin, which a normal user's PATH
    may lack."""
    return shutil.which(name, path=os.environ.get("PATH", "") + ":/usr/sbin:/sbin:/usr/local/sbin")


def die_with_parent():
    """In a daemon's child process: SIGTERM when this script dies, even by SIGKILL (a CTest
    timeout), so no daemon outlives the test."""
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def free_port():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Slurm:
    """The daemons and their files. Use as a context manager: leaving it stops them."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="ccmpi-slurm.")
        os.chmod(self.dir, 0o755)  # the tasks' working directory must be readable
        self.procs = []  # (name, Popen)
        self.env = dict(os.environ)
        for name in list(self.env):
            if name.startswith(("SLURM_", "SBATCH_", "SALLOC_", "SRUN_", "PMI_", "PMIX_")):
                del self.env[name]
        self.env["SLURM_CONF"] = os.path.join(self.dir, "slurm.conf")

    def path(self, *parts):
        return os.path.join(self.dir, *parts)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    def spawn(self, name, argv):
        log = open(self.path(name + ".out"), "wb")
        proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=self.env,
                                stdin=subprocess.DEVNULL, start_new_session=True,
                                preexec_fn=die_with_parent)
        log.close()
        self.procs.append((name, proc))
        return proc

    def start(self):
        host = socket.gethostname()
        munge_dir = self.path("munge")
        os.makedirs(munge_dir, mode=0o700)
        key = self.path("munge", "munge.key")
        with open(key, "wb") as f:
            f.write(os.urandom(1024))
        os.chmod(key, 0o600)
        self.munge_socket = self.path("munge", "munge.socket")
        self.spawn("munged", [program("munged"), "--foreground", "--force",
                              "--socket=" + self.munge_socket, "--key-file=" + key,
                              "--log-file=" + self.path("munge", "munged.log"),
                              "--pid-file=" + self.path("munge", "munged.pid"),
                              "--seed-file=" + self.path("munge", "munged.seed")])
        if not self.wait_for(lambda: os.path.exists(self.munge_socket), 10):
            return "munged did not start: " + self.tail("munged.out")
        for d in ("state", "spool"):
            os.makedirs(self.path(d), mode=0o755)
        # The daemons run as whoever runs the tests (root or not): jobs are then that
        # user's own, and slurmd need not switch users.
        user = pwd.getpwuid(os.geteuid()).pw_name
        conf = f"""\
ClusterName=ccmpitest
SlurmctldHost={host}(127.0.0.1)
SlurmctldPort={free_port()}
SlurmdPort={free_port()}
SlurmUser={user}
SlurmdUser={user}
AuthType=auth/munge
AuthInfo=socket={self.munge_socket}
CredType=cred/munge
StateSaveLocation={self.path("state")}
SlurmdSpoolDir={self.path("spool")}
SlurmctldPidFile={self.path("slurmctld.pid")}
SlurmdPidFile={self.path("slurmd.pid")}
SlurmctldLogFile={self.path("slurmctld.log")}
SlurmdLogFile={self.path("slurmd.log")}
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SlurmdParameters=config_overrides
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
MailProg=/bin/true
InactiveLimit=0
KillWait=2
MinJobAge=2
SlurmdTimeout=30
NodeName={host} NodeAddr=127.0.0.1 CPUs=16 State=UNKNOWN
PartitionName=ccmpi Nodes={host} Default=YES MaxTime=10 State=UP OverSubscribe=YES
"""
        with open(self.env["SLURM_CONF"], "w") as f:
            f.write(conf)
        self.spawn("slurmctld", [program("slurmctld"), "-D", "-c", "-f", self.env["SLURM_CONF"]])
        self.spawn("slurmd", [program("slurmd"), "-D", "-f", self.env["SLURM_CONF"]])
        up = self.wait_for(lambda: self.node_state() in ("idle", "idle*"), START_TIMEOUT)
        if not up:
            return ("the node did not become idle in %d s (state '%s'); slurmctld: %s; slurmd: %s"
                    % (START_TIMEOUT, self.node_state(), self.tail("slurmctld.log"),
                       self.tail("slurmd.log")))
        return None

    def tail(self, name, lines=8):
        try:
            with open(self.path(name), errors="replace") as f:
                return " | ".join(f.read().splitlines()[-lines:])
        except OSError:
            return "(no " + name + ")"

    def wait_for(self, predicate, seconds):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if predicate():
                return True
            for name, p in self.procs:
                if p.poll() is not None:
                    return False  # a daemon died: no point in waiting
            time.sleep(0.2)
        return predicate()

    def node_state(self):
        try:
            r = subprocess.run(["sinfo", "-h", "-N", "-o", "%T"], env=self.env, timeout=5,
                               capture_output=True, text=True)
        except subprocess.TimeoutExpired:
            return ""
        return r.stdout.strip() if r.returncode == 0 else ""

    def run(self, argv, timeout=CASE_TIMEOUT, extra_env=None, cwd=None):
        env = dict(self.env)
        env.update(extra_env or {})
        t0 = time.monotonic()
        try:
            r = subprocess.run(argv, env=env, timeout=timeout, capture_output=True, text=True,
                               stdin=subprocess.DEVNULL, cwd=cwd or self.dir)
            return r.returncode, r.stdout, r.stderr, time.monotonic() - t0
        except subprocess.TimeoutExpired as e:
            self.cancel_all()
            out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
            err = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
            return None, out, err, time.monotonic() - t0

    def cancel_all(self):
        try:
            subprocess.run(["scancel", "--full", "--quiet", "-p", "ccmpi"], env=self.env,
                           timeout=10, capture_output=True)
        except (subprocess.TimeoutExpired, OSError):
            pass

    def queue_empty(self):
        try:
            r = subprocess.run(["squeue", "-h", "-o", "%i"], env=self.env, timeout=5,
                               capture_output=True, text=True)
        except (subprocess.TimeoutExpired, OSError):
            return False
        return r.returncode == 0 and not r.stdout.strip()

    def stop(self):
        if any(p.poll() is None for name, p in self.procs if name == "slurmctld"):
            # Jobs first, so that slurmd ends their step daemons before it stops.
            self.cancel_all()
            self.wait_for(self.queue_empty, 15)
        # slurmd first (it stops its step daemons), then slurmctld, then munged.
        for name, p in sorted(self.procs, key=lambda e: ["slurmd", "slurmctld", "munged"].index(e[0])):
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait(timeout=5)
        self.procs = []
        shutil.rmtree(self.dir, ignore_errors=True)


class Cases:
    def __init__(self, slurm, check, mpirun, pmix, probe):
        self.probe = probe
        self.s = slurm
        self.check = os.path.abspath(check)
        self.mpirun = os.path.abspath(mpirun)
        self.pmix = pmix
        self.failures = []

    def fail(self, case, why, result=None):
        msg = f"FAIL {case}: {why}"
        if result:
            rc, out, err, secs = result
            msg += f"\n  exit status {rc} after {secs:.1f} s\n  stdout: {out[-1500:]!r}\n  stderr: {err[-1500:]!r}"
        self.failures.append(msg)
        print(msg, flush=True)

    def expect_ok(self, case, result, n):
        rc, out, err, secs = result
        if rc != 0:
            return self.fail(case, f"exit status {rc}, expected 0", result)
        lines = [l for l in out.splitlines() if l.startswith("slurm_check rank ")]
        want = sorted(f"slurm_check rank {r} size {n} ok" for r in range(n))
        if sorted(lines) != want:
            return self.fail(case, f"expected one ok line from each of ranks 0..{n - 1} of {n}",
                             result)
        print(f"ok   {case}: {n} ranks, size {n} checked at every rank ({secs:.1f} s)", flush=True)

    def expect_refused(self, case, result, patterns, max_secs):
        rc, out, err, secs = result
        if rc == 0 or rc is None:
            return self.fail(case, "expected a non-zero exit status", result)
        for p in patterns:
            if p not in err:
                return self.fail(case, f"stderr lacks '{p}'", result)
        if "size" in out and "ok" in out:
            return self.fail(case, "a rank ran to completion", result)
        if secs > max_secs:
            return self.fail(case, f"took {secs:.1f} s, expected at most {max_secs} s", result)
        print(f"ok   {case}: refused with the expected message ({secs:.1f} s)", flush=True)

    def srun_pmi2(self):
        self.expect_ok("srun_pmi2", self.s.run(["srun", "--mpi=pmi2", "-n", "8", self.check, "8"]), 8)

    def srun_pmix(self):
        r = self.s.run(["srun", "--mpi=pmix", "-n", "8", self.check, "8"])
        if self.pmix:
            self.expect_ok("srun_pmix", r, 8)
        else:
            self.expect_refused("srun_pmix", r, ["PMIx", "--mpi=pmi2"], 20)

    def srun_none(self):
        r = self.s.run(["srun", "--mpi=none", "-n", "4", self.check, "4"])
        self.expect_refused("srun_none", r, ["MPI_Init", "--mpi=pmi2"], 20)

    def salloc_mpirun(self):
        self.expect_ok("salloc_mpirun",
                       self.s.run(["salloc", "-Q", "-n", "8", self.mpirun, self.check, "8"]), 8)

    def salloc_oversub(self):
        r = self.s.run(["salloc", "-Q", "-n", "4", self.mpirun, "-n", "8", self.check, "8"])
        self.expect_refused("salloc_oversub (refused)", r, ["8", "4", "--oversubscribe"], 20)
        self.expect_ok("salloc_oversub (--oversubscribe)",
                       self.s.run(["salloc", "-Q", "-n", "4", self.mpirun, "--oversubscribe",
                                   "-n", "8", self.check, "8"]), 8)

    def salloc_srun_agent(self):
        r = self.s.run(["salloc", "-Q", "-n", "4", self.mpirun, "-v", self.check, "4"],
                       extra_env={"CCMPI_SLURM_LAUNCH": "srun"})
        self.expect_ok("salloc_srun_agent", r, 4)
        if r[0] == 0 and "srun" not in r[2]:
            self.fail("salloc_srun_agent", "mpirun -v does not show the srun launch", r)
        # MPI_Abort through the proxy: mpirun ends the job with the abort code.
        r = self.s.run(["salloc", "-Q", "-n", "4", self.mpirun, self.check, "4", "abort"],
                       extra_env={"CCMPI_SLURM_LAUNCH": "srun"})
        if r[0] != 7 or "called MPI_Abort with error code 7" not in r[2] or r[3] > 30:
            self.fail("salloc_srun_agent (abort)", "expected exit status 7 from MPI_Abort", r)
        else:
            print(f"ok   salloc_srun_agent (abort): status 7 ({r[3]:.1f} s)", flush=True)

    def sbatch_mpirun(self):
        script = self.s.path("job.sh")
        out = self.s.path("job.out")
        with open(script, "w") as f:
            f.write(f"#!/bin/sh\nexec {self.mpirun} {self.check} 8\n")
        os.chmod(script, 0o755)
        rc, o, e, secs = self.s.run(["sbatch", "--wait", "-n", "8", "-o", out, script])
        try:
            with open(out, errors="replace") as f:
                text = f.read()
        except OSError:
            text = ""
        self.expect_ok("sbatch_mpirun", (rc, text, e + o, secs), 8)

    def srun_abort(self):
        for mpi in ("pmi2", "pmix") if self.pmix else ("pmi2",):
            case = "srun_abort --mpi=" + mpi
            r = self.s.run(["srun", "--mpi=" + mpi, "-n", "4", self.check, "4", "abort"])
            rc, out, err, secs = r
            if rc in (0, None):
                self.fail(case, "expected the step to fail", r)
            elif "the barrier completed" in err:
                self.fail(case, "a barrier completed despite MPI_Abort", r)
            elif out.count(" ok") != 4:
                self.fail(case, "expected 4 ok lines before the abort", r)
            elif secs > 30:
                self.fail(case, f"took {secs:.1f} s", r)
            else:
                print(f"ok   {case}: the step ended with status {rc} ({secs:.1f} s)", flush=True)

    def srun_pmi1_limits(self):
        if not self.probe:
            print("skip srun_pmi1_limits: no --probe given", flush=True)
            return
        r = self.s.run(["srun", "--mpi=pmi2", "-n", "3", self.probe, "badkey"])
        rc, out, err, secs = r
        ok = sorted(l for l in out.splitlines() if l.startswith("badkey "))
        if rc != 0 or ok != [f"badkey rank={i} failures=0" for i in range(3)]:
            return self.fail("srun_pmi1_limits", "expected 3 clean badkey lines", r)
        print(f"ok   srun_pmi1_limits: 3 tasks ({secs:.1f} s)", flush=True)

    ALL = ["srun_pmi2", "srun_pmix", "srun_none", "salloc_mpirun", "salloc_oversub",
           "salloc_srun_agent", "sbatch_mpirun", "srun_abort", "srun_pmi1_limits"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", required=True, help="the slurm_check program")
    ap.add_argument("--mpirun", required=True, help="our mpirun")
    ap.add_argument("--probe", help="tests/launcher/pmi_probe (for srun_pmi1_limits)")
    ap.add_argument("--pmix", choices=["yes", "no"], default="yes",
                    help="whether the library was built with PMIx support")
    ap.add_argument("--only", nargs="*", choices=Cases.ALL, help="run only these cases")
    args = ap.parse_args()

    missing = [p for p in ("munged", "slurmctld", "slurmd", "srun", "salloc", "sbatch", "sinfo")
               if not program(p)]
    if missing:
        print("skipped: no Slurm (missing " + ", ".join(missing) +
              "; scripts/deps.sh installs slurmctld slurmd slurm-client munge)")
        return SKIP

    def on_signal(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_signal)
    t0 = time.monotonic()
    with Slurm() as s:
        why = s.start()
        if why:
            print("skipped: no Slurm: " + why)
            return SKIP
        print(f"slurm up in {time.monotonic() - t0:.1f} s ({s.dir})", flush=True)
        cases = Cases(s, args.check, args.mpirun, args.pmix == "yes",
                      os.path.abspath(args.probe) if args.probe else None)
        for name in args.only or Cases.ALL:
            getattr(cases, name)()
    print(f"{len(cases.failures)} failed; total {time.monotonic() - t0:.1f} s")
    return 1 if cases.failures else 0


if __name__ == "__main__":
    sys.exit(main())
