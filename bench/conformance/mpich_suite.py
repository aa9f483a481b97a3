#!/usr/bin/env python3
"""Builds and runs MPICH's conformance tests (its source tree's test/mpi) against an MPI.

MPICH's suite is not part of ccmpi and is not fetched by this tool: point --suite at a
copy of MPICH's test/mpi directory. Each test program is compiled with the MPI's compiler
wrapper (with MPICH's test utilities: util/mtest*.c, util/run_mpitests.c, dtpools) and run
as the suite's testlist files say (process count, arguments, environment), one at a time
with a time limit. A test passes when it exits 0 and prints "No Errors", as MPICH's own
runner requires. The same command runs the suite against Open MPI or MPICH
(--mpicc mpicc.openmpi --mpirun mpirun.openmpi ...) for a comparison in the same run.

  bench/conformance/mpich_suite.py --suite ~/mpich/test/mpi --build build \\
      [--dirs coll,pt2pt,datatype,comm,topo] [--only REGEX] [--timeout 60] \\
      [--out results.tsv] [--compare earlier.tsv]

Prints one line per test (PASS, FAIL, TIMEOUT or COMPILE and its label), then the
summary "N passed, M failed"; --out keeps each test's output tail; --compare lists the
tests whose outcome changed against an earlier --out file.
"""
import argparse
import os
import pathlib
import re
import shlex
import signal
import subprocess
import sys
import time

# What MPICH's configure would have found on a Linux machine with a full MPI.
CONFIG_HEADER = """\
#define HAVE_STDARG_H 1
#define HAVE_SYS_TIME_H 1
#define HAVE_SYS_RESOURCE_H 1
#define HAVE_GETRUSAGE 1
#define HAVE_UNISTD_H 1
#define HAVE_STRING_H 1
#define HAVE_STDLIB_H 1
#define HAVE_LONG_DOUBLE 1
#define HAVE_LONG_LONG 1
#define HAVE_ATOMIC 1
#define HAVE_MPI_INIT_THREAD 1
#define HAVE_PTHREAD_H 1
#define THREAD_PACKAGE_NAME THREAD_PACKAGE_POSIX
#define THREAD_PACKAGE_POSIX 1
#define HAVE_MPI_IO 1
#define HAVE_MPI_WIN_CREATE 1
#define HAVE_MPI_SPAWN 1
#define HAVE_VSNPRINTF 1
#define USE_STRICT_MPI 1
"""
DEFAULT_DIRS = "coll,pt2pt,datatype,comm,topo"
PASS_RE = re.compile(r"^\s*No [Ee]rrors\s*$", re.M)


def parse_testlist(path):
    """(name, np, {'arg': [...], 'env': [...], other keys}) for each runnable line."""
    tests = []
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#") or "@" in line:
            continue  # comments and lines MPICH's configure would substitute
        parts = shlex.split(line)
        if len(parts) < 2 or not parts[1].isdigit():
            continue  # a subdirectory entry
        opts = {"arg": [], "env": []}
        for p in parts[2:]:
            key, _, value = p.partition("=")
            if key in ("arg", "env"):
                opts[key].append(value)
            elif value:
                opts[key] = value
        tests.append((parts[0], int(parts[1]), opts))
    return tests


def sources_of(directory, name):
    """The program's sources and -D flags from the directory's Makefile.am."""
    srcs, cppflags = [name + ".c"], []
    mk = directory / "Makefile.am"
    if mk.exists():
        text = mk.read_text().replace("\\\n", " ")
        m = re.search(r"^%s_SOURCES\s*=\s*(.*)$" % re.escape(name), text, re.M)
        if m:
            srcs = [s for s in m.group(1).split() if s.endswith(".c")]
        m = re.search(r"^%s_CPPFLAGS\s*=\s*(.*)$" % re.escape(name), text, re.M)
        if m:
            cppflags = [f for f in m.group(1).split() if f.startswith("-D")]
    return srcs, cppflags


class Suite:
    def __init__(self, args):
        self.a = args
        self.suite = pathlib.Path(args.suite).resolve()
        self.work = pathlib.Path(args.work).resolve()
        self.mpicc = args.mpicc or str(pathlib.Path(args.build, "bin", "mpicc").resolve())
        self.mpirun = args.mpirun or str(pathlib.Path(args.build, "bin", "mpirun").resolve())
        # WORK/inc is on the path so that dtpools' #include "../dtpoolsconf.h" finds ours.
        self.inc = ["-I", str(self.work), "-I", str(self.work / "inc"),
                    "-I", str(self.suite / "include"), "-I", str(self.suite / "dtpools" / "include")]

    def build_support(self):
        (self.work / "inc").mkdir(parents=True, exist_ok=True)
        (self.work / "mpitestconf.h").write_text(CONFIG_HEADER)
        (self.work / "mtest_mpix.h").write_text("")
        (self.work / "dtpoolsconf.h").write_text("")
        srcs = [self.suite / "util" / s for s in
                ("mtest.c", "mtest_common.c", "dtypes.c", "mtest_single.c", "run_mpitests.c")]
        srcs += sorted((self.suite / "dtpools" / "src").glob("*.c"))
        objs = []
        for src in srcs:
            if not src.exists():
                continue
            obj = self.work / (src.name + ".o")
            subprocess.run([self.mpicc, "-c", "-O1", "-w", *self.inc, str(src), "-o", str(obj)],
                           check=True)
            objs.append(str(obj))
        self.lib = self.work / "libmtest.a"
        subprocess.run(["ar", "rcs", str(self.lib), *objs], check=True)

    def jobs(self):
        out = []
        for dname in self.a.dirs.split(","):
            d = self.suite / dname
            tl = d / "testlist.in"
            if not tl.exists():
                tl = d / "testlist"
            if not tl.exists():
                print(f"no testlist in {d}", file=sys.stderr)
                continue
            for name, np, opts in parse_testlist(tl):
                if self.a.only and not re.search(self.a.only, f"{dname}/{name}"):
                    continue
                out.append((dname, d, name, np, opts))
        return out

    def run_one(self, dname, d, name, np, opts):
        exe = self.work / dname / name
        exe.parent.mkdir(exist_ok=True)
        label = f"{dname}/{name} {np} {' '.join(opts['arg'])}".strip()
        if not exe.exists():
            srcs, cppflags = sources_of(d, name)
            r = subprocess.run([self.mpicc, "-O1", "-w", *self.inc, *cppflags,
                                *[str(d / s) for s in srcs], str(self.lib), "-lm", "-lpthread",
                                "-o", str(exe)], capture_output=True, text=True)
            if r.returncode:
                return label, "COMPILE", r.stderr[-3000:]
        env = dict(os.environ)
        for e in opts["env"]:
            k, _, v = e.partition("=")
            env[k] = v
        limit = self.a.timeout
        if "timeLimit" in opts and not self.a.strict_timeout:
            limit = max(limit, int(opts["timeLimit"]))
        cmd = [self.mpirun, *self.a.mpirun_args.split(), "-n", str(np), str(exe), *opts["arg"]]
        t0 = time.time()
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             env=env, cwd=str(exe.parent), start_new_session=True)
        try:
            output, _ = p.communicate(timeout=limit)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(p.pid, signal.SIGKILL)  # the launcher and what it started
            except ProcessLookupError:
                pass
            output, _ = p.communicate()
            return label, "TIMEOUT", (output or "")[-2000:]
        ok = p.returncode == 0 and PASS_RE.search(output) is not None
        detail = f"rc={p.returncode} {time.time() - t0:.1f}s\n" + output[-3000:]
        return label, "PASS" if ok else "FAIL", detail


def read_tsv(path):
    out = {}
    for line in pathlib.Path(path).read_text().splitlines():
        status, label, _ = line.split("\t", 2)
        out[label] = status
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--suite", required=True, help="MPICH's test/mpi directory")
    ap.add_argument("--build", default="build", help="ccmpi build directory (bin/mpicc, bin/mpirun)")
    ap.add_argument("--mpicc", help="compiler wrapper (default BUILD/bin/mpicc)")
    ap.add_argument("--mpirun", help="launcher (default BUILD/bin/mpirun)")
    ap.add_argument("--mpirun-args", default="", help="extra launcher arguments")
    ap.add_argument("--dirs", default=DEFAULT_DIRS, help="comma-separated test directories")
    ap.add_argument("--only", help="regular expression on DIR/NAME")
    ap.add_argument("--timeout", type=int, default=60, help="seconds per test")
    ap.add_argument("--strict-timeout", action="store_true",
                    help="ignore the testlist's larger timeLimit values")
    ap.add_argument("--work", default="/tmp/ccmpi-mpich-suite", help="build directory for tests")
    ap.add_argument("--out", help="write STATUS<TAB>LABEL<TAB>output per test")
    ap.add_argument("--compare", help="an earlier --out file: list changed outcomes")
    a = ap.parse_args()

    s = Suite(a)
    s.build_support()
    results = []
    for job in s.jobs():
        label, status, detail = s.run_one(*job)
        results.append((label, status, detail))
        print(f"{status:8} {label}", flush=True)
    if a.out:
        with open(a.out, "w") as f:
            for label, status, detail in results:
                f.write(f"{status}\t{label}\t{detail!r}\n")
    if a.compare:
        before = read_tsv(a.compare)
        for label, status, _ in results:
            if label in before and (before[label] == "PASS") != (status == "PASS"):
                print(f"changed: {label}: {before[label]} -> {status}")
    passed = sum(1 for r in results if r[1] == "PASS")
    print(f"{passed} passed, {len(results) - passed} failed")


if __name__ == "__main__":
    main()
