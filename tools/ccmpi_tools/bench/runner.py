"""Running a scenario: the cluster, the programs, the repetitions and the runs.

Every repetition runs each test once per variant, in an order shuffled anew for every
repetition and plan entry (seeded by both, so a rerun repeats it): drifts in machine load
hit all variants alike, and no variant always follows the same one (the variant after
MPICH, whose busy-polling ranks are killed when they hang in MPI_Finalize, would always be
the same with a plain rotation). Every run has a timeout; a run whose program printed its
last line (coll_bench's "coll_bench: done", NPB's "Verification =") and still runs 20 s later
is stopped and counted as finished (MPICH/UCX can hang in MPI_Finalize on the emulated
cluster). After each run the processes left in the cluster's hosts are killed: the
cluster is this run's own (named bench<pid> or --cluster-name, owned by this process), so
they are processes it started. The cluster is taken down and the work directory removed
on every exit, failure and signal included; if this process is killed outright, the next
`ccmpi-cluster up/down` removes the cluster (its --owner is gone).
"""
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from .. import npb as npb_mod
from .. import procs, runs, units
from . import autorate
from . import implementations as impls_mod
from . import scenarios
from .report import Results

PROG = "ccmpi-bench"
HUNG_AFTER = 20  # seconds a run may go on after its last line
KILL_AFTER = 10  # seconds between SIGTERM and SIGKILL at a timeout
UNSUPPORTED = 4  # coll_bench's exit status for a test this MPI cannot run


def warn(msg):
    procs.warn(PROG, msg)


class BenchError(Exception):
    """A failure to report as `ccmpi-bench: MESSAGE` and exit 1."""


class Interrupted(Exception):
    pass


def _on_signal(signum, frame):
    raise Interrupted()


def order(items, seed):
    """`items` shuffled by a generator seeded with `seed` (reproducible)."""
    out = list(items)
    random.Random(seed).shuffle(out)
    return out


class Progress:
    """The progress of a run: run k of n, elapsed and an estimate of the time left."""

    def __init__(self, total, max_minutes, start):
        self.total, self.done, self.max_minutes, self.start = total, 0, max_minutes, start

    def prefix(self):
        return "[%d/%d]" % (self.done + 1, max(self.total, self.done + 1))

    def left(self):
        elapsed = time.monotonic() - self.start
        if self.done == 0:
            return ""
        est = elapsed / self.done * max(self.total - self.done, 0)
        if self.max_minutes:
            est = min(est, max(self.max_minutes * 60 - elapsed, 0))
        return "; about %s left" % fmt_duration(est)


def fmt_duration(s):
    s = int(round(s))
    if s < 60:
        return "%d s" % s
    if s < 3600:
        return "%d min" % ((s + 30) // 60)
    return "%d h %02d min" % (s // 3600, (s % 3600 + 30) // 60)


class Runner:
    def __init__(self, opts, scenario, impls):
        self.o = opts
        self.scenario = scenario  # the scenario's module
        self.name = scenario.__name__.rsplit(".", 1)[1].replace("_", "-")
        self.impls = impls
        self.quick = opts.quick
        self.hosts = scenario.hosts(self.quick)
        self.rails = (opts.rails if getattr(opts, "rails", None)
                      else scenarios.rails(scenario, self.quick))
        self.cluster_name = opts.cluster_name or "bench%d" % os.getpid()
        self.results = Results(self.name)
        self.start = time.monotonic()
        self.current = None  # the run in progress (a Popen)
        self.work = None
        self.progress = None
        self.ccmpi_alg_cache = {}

    # --- the whole run ---

    def run(self):
        self.work = tempfile.mkdtemp(prefix="ccmpi-bench.")
        old = {s: signal.signal(s, _on_signal) for s in (signal.SIGTERM, signal.SIGHUP)}
        keep = self.o.keep
        try:
            self.setup()
            self.results.facts.update(self.facts_before())
            if self.name == "p2p":
                self.run_p2p()
            else:
                self.run_collectives()
            self.results.facts.update(self.facts_after())
            return self.results
        except (KeyboardInterrupt, Interrupted):
            warn("interrupted")
            raise SystemExit(130)
        finally:
            self.stop_current()
            subprocess.run([self.o.cluster, "down", "--name", self.cluster_name],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for s, h in old.items():
                signal.signal(s, h)
            if keep:
                warn("raw outputs kept in %s" % self.work)
            else:
                shutil.rmtree(self.work, ignore_errors=True)

    def setup(self):
        o = self.o
        if o.rate == "auto":
            try:
                rate, tried = autorate.choose(o.cluster, self.cluster_name, self.hosts,
                                              os.getpid(), _say, self.rails)
            except RuntimeError as e:
                raise BenchError("--rate auto: %s" % e)
            if rate is None:
                raise BenchError("--rate auto: not even %s holds on this machine"
                                 % autorate.CANDIDATES[0])
            o.rate = rate
            self.results.facts["rate_choice"] = autorate.describe(rate, tried, self.rails)
            warn("link rate %s" % self.results.facts["rate_choice"])
        up = subprocess.run([o.cluster, "up", "--hosts", str(self.hosts), "--rate", o.rate,
                             "--rails", str(self.rails),
                             "--name", self.cluster_name, "--owner", str(os.getpid())],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if up.returncode != 0:
            sys.stderr.write(up.stderr)
            raise BenchError("could not build the cluster")
        self.hostfile = up.stdout.strip().splitlines()[-1]
        listing = subprocess.run([o.cluster, "list"], stdout=subprocess.PIPE, text=True).stdout
        self.cluster_line = next((line for line in listing.splitlines()
                                  if line.split()[:1] == [self.cluster_name]), "")
        agent = os.path.join(self.work, "cc-agent")
        impls_mod.write_agent(agent, o.cluster)
        self.launcher = impls_mod.Launcher(o.build, o.cluster, self.cluster_name,
                                           self.hostfile, agent)
        if self.scenario.PROGRAM == "npb":
            return
        src = self.bench_source()
        self.prog_name = os.path.splitext(os.path.basename(src))[0]
        for impl in self.impls:
            d = os.path.join(self.work, "bin", impl)
            os.makedirs(d, exist_ok=True)
            cc = impls_mod.compiler(impl, o.build)
            if subprocess.run([cc, "-O2", "-o", os.path.join(d, self.prog_name), src,
                               "-lm"]).returncode:
                raise BenchError("compiling %s.c with %s failed" % (self.prog_name, cc))

    def bench_source(self):
        sub = "p2p/p2p_bench.c" if self.name == "p2p" else "coll/coll_bench.c"
        return os.path.join(self.o.source, "bench", sub)

    # --- one program run ---

    def stop_current(self):
        p = self.current
        if p is None or p.poll() is not None:
            return
        runs.stop_group(p, KILL_AFTER)
        self.reap_hosts()

    def reap_hosts(self):
        """Kills what a run left on the cluster's hosts (processes in their namespaces)."""
        runs.reap_cluster(self.cluster_name, self.hosts)

    def run_logged(self, tag, who, what, rep, cmd, done_marker=None, fails=None):
        """Runs cmd with the timeout, output in WORK/TAG.out/err, reaps the hosts and
        records a failure (in `fails`, default the results' failures); returns the exit
        status (0 for a run stopped after its last line)."""
        start = time.monotonic()
        out_path = os.path.join(self.work, tag + ".out")
        timeout = self.o.timeout
        marker = re.compile(done_marker, re.M) if done_marker else None
        with open(out_path, "w") as out, open(os.path.join(self.work, tag + ".err"), "w") as err:
            rc, timed_out, hung = runs.run_watched(
                cmd, out, err, timeout,
                done=(lambda: _file_matches(out_path, marker)) if marker else None,
                hung_after=HUNG_AFTER, grace=KILL_AFTER,
                started=lambda p: setattr(self, "current", p))
        if timed_out:
            rc = 124 if rc != -signal.SIGKILL else 137
        elif rc < 0:
            rc = 128 - rc
        self.current = None
        self.reap_hosts()
        secs = int(time.monotonic() - start)
        self.progress.done += 1
        left = self.progress.left()
        if hung:
            self.results.hung.append((who, what, str(rep)))
            _say("ok, but did not exit 20 s after its last output: killed (%d s%s)\n"
                 % (secs, left))
            return 0
        if rc == UNSUPPORTED and any("unsupported by this MPI" in line for line in
                                     _lines(os.path.join(self.work, tag + ".err"))):
            # coll_bench's test needs what this MPI lacks (MPI 4.0, ccmpi's extensions):
            # no figure, and no failure.
            _say("unsupported by this MPI: skipped (%d s%s)\n" % (secs, left))
            return rc
        if rc != 0:
            why = _why(os.path.join(self.work, tag + ".err"))
            if rc in (124, 137):
                why = "timeout after %ds; %s" % (timeout, why)
            (self.results.fails if fails is None else fails).append(
                (who, what, str(rep), str(rc), why))
            _say("FAILED (exit %d, %d s%s)\n" % (rc, secs, left))
        else:
            _say("ok (%d s%s)\n" % (secs, left))
        return rc

    def plan(self):
        """The scenario's plan; with --only, the entries whose label the pattern matches."""
        plan = self.scenario.plan(self.quick)
        if getattr(self.o, "only", None):
            pattern = re.compile(self.o.only)
            # A collective entry's label, a p2p entry's test name: the first field.
            plan = [e for e in plan if pattern.search(str(e[0]))]
            if not plan:
                raise BenchError("--only '%s' matches no entry of %s" % (self.o.only, self.name))
        return plan

    def out_of_time(self, share=1.0):
        """--max-minutes reached (share 0.5: the Open MPI sweep may use half of it)."""
        m = self.o.max_minutes
        return m > 0 and time.monotonic() - self.start >= m * 60 * share

    # --- p2p ---

    def run_p2p(self):
        plan = self.plan()
        reps = self.o.reps
        self.progress = Progress(reps * len(plan) * len(self.impls), self.o.max_minutes,
                                 self.start)
        warn("%s on %d hosts at %s; %s; %d repetition(s)"
             % (self.name, self.hosts, self.o.rate, " ".join(self.impls), reps))
        for rep in range(1, reps + 1):
            ordered = order(self.impls, "%d p2p" % rep)
            _say("repetition %d/%d (order: %s)\n" % (rep, reps, " ".join(ordered)))
            for test, lo, hi, iters in plan:
                for impl in ordered:
                    self.measure_p2p(impl, test, lo, hi, iters, rep)

    def measure_p2p(self, impl, test, lo, hi, iters, rep):
        cmd = self.launcher.launch(impl, self.hosts) + [
            os.path.join(self.work, "bin", impl, "p2p_bench"), test, str(hi), str(iters), str(lo)]
        if rep == 1:
            self.results.commands.append("%s %s: %s" % (impl, test, " ".join(cmd)))
        _say("  %s %-8s %-8s %7s..%-7s rep %s ... " % (self.progress.prefix(), impl, test, lo, hi,
                                                       rep))
        tag = "%s.%s.%d" % (impl, test, rep)
        self.run_logged(tag, impl, test, rep, cmd)
        for line in _lines(os.path.join(self.work, tag + ".out")):
            w = line.split()
            if (len(w) >= 3 and w[0] == test and w[1].isdigit()
                    and re.match(r"^[0-9.]+$", w[2])):
                self.results.raw.append((impl, test, int(w[1]), float(w[2]), rep))

    # --- collectives and NPB ---

    def variants(self, e):
        """The variants of a plan entry."""
        v = []
        if "ccmpi" in self.impls:
            v.append("ccmpi")
            if e.test == "npb":
                v.append("ccmpi-compress")
            if self.o.ccmpi_algorithms != "auto" and e.coll:
                if e.coll not in self.ccmpi_alg_cache:
                    self.ccmpi_alg_cache[e.coll] = impls_mod.ccmpi_algorithms(self.o.build,
                                                                              e.coll)
                algs = self.ccmpi_alg_cache[e.coll]
                # With a single algorithm the automatic choice is that algorithm.
                if len(algs) > 1:
                    if self.o.ccmpi_algorithms != "all":
                        chosen = self.o.ccmpi_algorithms.split(",")
                        algs = [a for a in algs if a in chosen]
                    v += ["ccmpi:" + a for a in algs]
        if e.ccmpi_only:
            return v
        if "openmpi" in self.impls:
            v.append("openmpi")
        if self.openmpi_best and e.ocoll:
            v.append("openmpi-best")
        if "mpich" in self.impls:
            v.append("mpich")
        return v

    def run_variant(self, variant, dest, rep, e, sizes=None, alg=None, fails=None):
        """One program run; result rows (variant, label, nprocs, size, median_us, mean_us,
        min_us, bound_bytes, iters, rep) are appended to `dest`. Returns the exit status."""
        sizes = e.sizes if sizes is None else sizes
        impl = impls_mod.impl_of(variant)
        launch = self.launcher.variant(variant, e.nprocs, e.coll, e.ocoll, alg)
        a = ".a%s" % alg if alg is not None else ""
        tag = "%s.%s.%d.%d%s" % (variant.replace(":", "_"), e.label, e.nprocs, rep, a)
        size_list = scenarios.sizes_str(sizes)
        what = "%s n=%d sizes %s%s" % (e.label, e.nprocs, size_list,
                                        " (alg %s)" % alg if alg is not None else "")
        if e.test == "is":
            binary = self.npb_binary(impl, e.extra[0], e.nprocs)
            if binary is None:
                self.results.fails.append((variant, what, str(rep), "1",
                                           "building NPB IS failed (see the npb log)"))
                _say("  %s: building NPB IS class %s failed\n" % (variant, e.extra[0]))
                self.progress.done += 1
                return 1
            prog = [binary]
            marker = "Verification *="
        elif e.test == "npb":
            bench, cls = e.extra
            binary = self.npb_program(impl, bench, cls)
            if binary is None:
                self.results.fails.append((variant, what, str(rep), "1",
                                           "building NPB %s class %s failed (see the npb log)"
                                           % (bench.upper(), cls)))
                _say("  %s: building NPB %s class %s failed\n" % (variant, bench.upper(), cls))
                self.progress.done += 1
                return 1
            prog = [binary]
            marker = "Verification *="
        else:
            marker = "^coll_bench: done"
            prog = [os.path.join(self.work, "bin", impl, "coll_bench"), e.test, "--sizes",
                    size_list] + self.iter_args() + list(e.extra)
        cmd = launch + prog
        key = "%s %s n=%d%s" % (variant, e.label, e.nprocs, " alg %s" % alg if alg is not None
                                else "")
        if dest is self.results.raw and key not in self.commands_seen:
            self.commands_seen.add(key)
            self.results.commands.append("%s: %s" % (key, " ".join(cmd)))
        _say("  %s %-16s %-16s n=%-3s %-28s rep %s ... " % (
            self.progress.prefix(), variant, e.label, e.nprocs, size_list[:28], rep))
        rc = self.run_logged(tag, variant, what, rep, cmd, marker, fails)
        out = _lines(os.path.join(self.work, tag + ".out"))
        if e.test == "npb":
            r = npb_mod.parse_output("\n".join(out))
            if r["verified"] and r["time"] is not None:
                us = r["time"] * 1e6
                dest.append((variant, e.label, e.nprocs, 0, us, us, us, 0, 1, rep))
                if variant == "ccmpi-compress" and dest is self.results.raw:
                    st = npb_mod.parse_compress_stats(
                        "\n".join(_lines(os.path.join(self.work, tag + ".err"))))
                    if st:
                        self.results.compress.append((e.label, e.nprocs, rep, st["sent_bytes"],
                                                      st["sent_wire"], st["compress_s"],
                                                      st["decompress_s"]))
            elif rc == 0:
                self.results.fails.append((variant, what, str(rep), "0",
                                           "no successful verification in the output"))
        elif e.test == "is":
            t = None
            for line in out:
                if "Time in seconds" in line and "=" in line:
                    t = line.split("=", 1)[1].replace(" ", "")
                    break
            verified = any(re.search(r"Verification *= *SUCCESSFUL", line) for line in out)
            if t and verified:
                us = float(t) * 1e6
                dest.append((variant, e.label, e.nprocs, 0, us, us, us, 0, 1, rep))
            elif rc == 0:
                self.results.fails.append((variant, what, str(rep), "0",
                                           "no successful verification in the output"))
        else:
            for line in out:
                w = line.split()
                if len(w) == 9 and w[0] == "result":
                    dest.append((variant, e.label, int(w[2]), int(w[3]), float(w[4]),
                                 float(w[5]), float(w[6]), int(w[7]), int(w[8]), rep))
        return rc

    def iter_args(self):
        if self.quick:
            return ["--target-ms", "100", "--warmup", "1", "--min-iters", "2", "--max-iters", "5"]
        return ["--target-ms", "1000", "--warmup", "2", "--min-iters", "5", "--max-iters", "100"]

    def npb_binary(self, impl, cls, n):
        """The IS binary of `impl` for class `cls` (built on first use from a copy of the
        --npb tree), None if building failed. NPB 3.4 builds bin/is.CLASS.x for any number
        of ranks; NPB 3.3 wants NPROCS at build time and builds bin/is.CLASS.NPROCS."""
        d = os.path.join(self.work, "npb", impl)
        cands = [os.path.join(d, "bin", "is.%s.x" % cls),
                 os.path.join(d, "bin", "is.%s.%d" % (cls, n))]
        try:
            if not os.path.isdir(d):
                shutil.copytree(self.o.npb, d, symlinks=True)
                bindir = os.path.join(d, "bin")
                os.makedirs(bindir, exist_ok=True)  # a git checkout of NPB has no (empty) bin/
                for f in os.listdir(bindir):
                    if f.startswith("is."):
                        os.unlink(os.path.join(bindir, f))
                mk = os.path.join(d, "config", "make.def")
                if not os.path.exists(mk):
                    shutil.copy(mk + ".template", mk)
        except OSError:
            return None
        for f in cands:
            if os.access(f, os.X_OK):
                return f
        cc = impls_mod.compiler(impl, self.o.build)
        with open(os.path.join(self.work, "npb-%s.log" % impl), "a") as log:
            rc = subprocess.run(["make", "-C", d, "is", "CLASS=" + cls, "NPROCS=%d" % n,
                                 "MPICC=" + cc, "CLINK=" + cc, "MPIFC=false", "FLINK=false",
                                 "CMPI_LIB=", "CMPI_INC=", "CFLAGS=-O2", "CLINKFLAGS=-O2"],
                                stdout=log, stderr=log).returncode
        if rc != 0:
            return None
        for f in cands:
            if os.access(f, os.X_OK):
                return f
        return None

    def npb_program(self, impl, bench, cls):
        """The program of NPB benchmark `bench` class `cls` built with `impl`'s mpifort and
        mpicc (on first use, in a copy of the --npb tree: ccmpi_tools.npb), None if building
        failed."""
        d = os.path.join(self.work, "npb8", impl)
        try:
            if not os.path.isdir(d):
                npb_mod.prepare(self.o.npb, d, impls_mod.fortran_compiler(impl, self.o.build),
                                impls_mod.compiler(impl, self.o.build))
            with open(os.path.join(self.work, "npb-%s.log" % impl), "a") as log:
                return npb_mod.build(d, bench, cls, log)
        except OSError:
            return None

    def run_collectives(self):
        o = self.o
        plan = self.plan()
        self.openmpi_best = o.openmpi_best and "openmpi" in self.impls
        self.commands_seen = set()
        os.makedirs(o.out, exist_ok=True)
        sweep_csv = os.path.join(o.out, "openmpi-sweep.csv")
        from .report import sweep as sweep_mod
        stored = sweep_mod.load(sweep_csv)
        todo = []
        if self.openmpi_best:
            for e in plan:
                if not e.ocoll or e.ccmpi_only:
                    continue
                if not o.sweep_openmpi and sweep_mod.has(stored, e.label, e.nprocs, e.sizes,
                                                         self.quick):
                    continue
                todo.append((e, impls_mod.openmpi_algorithms(e.ocoll)))
        total = sum(len(algs) for _, algs in todo)
        total += o.reps * sum(len(self.variants(e)) for e in plan)
        self.progress = Progress(total, o.max_minutes, self.start)
        new_rows = []
        for e, algs in todo:
            warn("Open MPI sweep of coll_tuned_%s_algorithm for %s on %d ranks"
                 % (e.ocoll, e.label, e.nprocs))
            for alg, alg_name in algs:
                if self.out_of_time(0.5):
                    warn("half of --max-minutes used, sweep cut short")
                    break
                rows = []
                # An algorithm that fails (e.g. two_proc on more than 2 ranks) is listed apart.
                self.run_variant("openmpi-sweep", rows, 0, e, e.sizes, alg,
                                 fails=self.results.sweep_fails)
                got = {r[3]: r[4] for r in rows}
                for s in e.sizes:  # a failed algorithm gets rows without a time
                    new_rows.append((e.label, e.nprocs, s, self.quick, alg, alg_name, got.get(s)))
        if new_rows:
            stored = sweep_mod.merge(stored, new_rows)
            sweep_mod.save(sweep_csv, stored)
        warn("%s on %d hosts at %s; %s; %d repetition(s)"
             % (self.name, self.hosts, o.rate, " ".join(self.impls), o.reps))
        for rep in range(1, o.reps + 1):
            _say("repetition %d/%d\n" % (rep, o.reps))
            for e in plan:
                for v in order(self.variants(e), "%d %s %d" % (rep, e.label, e.nprocs)):
                    if self.out_of_time():
                        self.results.skipped.append((v, e.label, str(e.nprocs), str(rep)))
                        self.progress.done += 1
                        continue
                    if v != "openmpi-best":
                        self.run_variant(v, self.results.raw, rep, e)
                        continue
                    groups = sweep_mod.best_algs(stored, e.label, e.nprocs, e.sizes, self.quick)
                    if not groups:
                        self.progress.done += 1
                    for alg, alg_name, sizes in groups:
                        if rep == 1:
                            for s in sizes:
                                self.results.best_used[(e.label, e.nprocs, s)] = (str(alg),
                                                                                  alg_name)
                        self.run_variant("openmpi-best", self.results.raw, rep, e, sizes, alg)
                        self.progress.total += 1
                    self.progress.total -= 1 if groups else 0

    # --- the facts of the run ---

    def facts_before(self):
        return {
            "started": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "load_before": runs.load_averages(),
        }

    def facts_after(self):
        o = self.o
        f = self.results.facts
        rate_bps = units.rate_bps(o.rate) or 0
        return {
            "load": "%s (before), %s (after)" % (f.get("load_before", ""), runs.load_averages()),
            "cpu": "%s, %d cores" % (runs.cpu_model(""), len(os.sched_getaffinity(0))),
            "kernel": "%s %s %s" % (os.uname().sysname, os.uname().release, os.uname().machine),
            "ccmpi": _git_version(o.source),
            "openmpi": impls_mod.openmpi_version(),
            "mpich": impls_mod.mpich_version(),
            "impls": " ".join(self.impls),
            "cluster": self.cluster_line,
            "hosts": str(self.hosts),
            "rails": str(self.rails),
            "rate_bps": str(rate_bps),
            "rate": o.rate,
            "reps": str(o.reps),
            "quick": "1" if self.quick else "0",
            "elapsed": str(int(time.monotonic() - self.start)),
            "invocation": " ".join(["ccmpi-bench"] + o.invocation),
        }


def _say(text):
    sys.stderr.write(text)
    sys.stderr.flush()


def _lines(path):
    try:
        with open(path, errors="replace") as f:
            return f.read().splitlines()
    except OSError:
        return []


def _file_matches(path, pattern):
    try:
        with open(path, errors="replace") as f:
            return bool(pattern.search(f.read()))
    except OSError:
        return False


def _why(err_path):
    lines = _lines(err_path)
    pick = next((line for line in lines if re.search(r"error|abort|fail|wrong", line, re.I)),
                lines[-1] if lines else "")
    return pick.replace("\t", " ")[:200]


def _git_version(source):
    def git(*args):
        try:
            return subprocess.run(["git", "-C", source] + list(args), stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True).stdout
        except OSError:
            return ""
    v = git("rev-parse", "--short", "HEAD").strip()
    if git("status", "--porcelain").strip():
        v += " (with uncommitted changes)"
    return v
