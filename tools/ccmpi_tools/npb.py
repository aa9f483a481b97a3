"""The NAS Parallel Benchmarks (NPB 3.4 MPI; NPB 3.3 for IS): building them from a source
tree the user gives (never shipped: `--npb DIR`, the NPB3.x-MPI folder) with an MPI's own
compiler wrappers, and reading their report. Used by ccmpi-bench's npb and npb-is scenarios
and by the CTest npb_class_s (`python3 -m ccmpi_tools.npb`, registered when CMake has
-DCCMPI_NPB_DIR; docs/nas.md).

The sources are built unmodified: the tree is copied (stale objects, modules, npbparams.h
and binaries of the copy removed) and only config/make.def, the build configuration NPB
asks its users to write, is ours.
"""
import argparse
import glob
import math
import os
import re
import shutil
import subprocess
import sys
import time

# The eight benchmarks of the NPB MPI suite checked here (DT, the data-traffic graph
# benchmark, whose rank count its graph fixes, is not among them).
BENCHMARKS = ("bt", "sp", "lu", "mg", "ft", "cg", "ep", "is")
FORTRAN = ("bt", "sp", "lu", "mg", "ft", "cg", "ep")

MAKE_DEF = """\
# config/make.def written by ccmpi_tools.npb (ccmpi): the MPI's own compiler wrappers.
MPIFC = {fc}
FLINK = $(MPIFC)
FMPI_LIB =
FMPI_INC =
FFLAGS = {fflags}
FLINKFLAGS = $(FFLAGS)
MPICC = {cc}
CLINK = $(MPICC)
CMPI_LIB =
CMPI_INC =
CFLAGS = {cflags}
CLINKFLAGS = $(CFLAGS)
CC = cc
BINDIR = ../bin
CONVERTFLAG = -DFORTRAN_REC_SIZE=0
RAND = randi8
"""


def find_tree(path):
    """The NPB3.x-MPI folder at or inside `path` (it has sys/ and IS/), None if none."""
    if os.path.isdir(os.path.join(path, "IS")) and os.path.isdir(os.path.join(path, "sys")):
        return os.path.realpath(path)
    for d in sorted(glob.glob(os.path.join(path, "NPB3*-MPI")), reverse=True):
        if os.path.isdir(os.path.join(d, "IS")):
            return os.path.realpath(d)
    return None


def valid_nprocs(bench, n):
    """Whether `bench` runs on `n` ranks (NPB 3.4): BT and SP need a square, LU a grid
    nx * ny with nx/2 <= ny <= nx (1, 2, 4, 6, 8, 9, 12, 16, ...; not 3), MG, FT, CG and
    IS a power of two; EP any count."""
    if n < 1:
        return False
    if bench in ("bt", "sp"):
        r = int(math.isqrt(n))
        return r * r == n
    if bench == "lu":
        return any(n % ny == 0 and n // ny >= ny and 2 * ny >= n // ny
                   for ny in range(1, n + 1))
    if bench in ("mg", "ft", "cg", "is"):
        return n & (n - 1) == 0
    return True


def prepare(src, dest, fc, cc, fflags="-O3", cflags="-O3"):
    """Copies the NPB tree `src` to `dest` (once) and writes its config/make.def for the
    wrappers `fc` (Fortran) and `cc` (C)."""
    if not os.path.isdir(dest):
        shutil.copytree(src, dest, symlinks=True,
                        ignore=shutil.ignore_patterns("*.o", "*.mod", "*.x", "npbparams.h"))
        os.makedirs(os.path.join(dest, "bin"), exist_ok=True)
        for f in ("sys/setparams", "common/mpinpb.h"):
            p = os.path.join(dest, f)
            if os.path.exists(p):
                os.unlink(p)
    with open(os.path.join(dest, "config", "make.def"), "w") as f:
        f.write(MAKE_DEF.format(fc=fc, cc=cc, fflags=fflags, cflags=cflags))


def binary(tree, bench, cls, n=None):
    """The built program of `bench` class `cls` in `tree`, None if absent (NPB 3.4:
    bin/BENCH.CLASS.x; NPB 3.3 builds for a rank count: bin/BENCH.CLASS.N)."""
    cands = [os.path.join(tree, "bin", "%s.%s.x" % (bench, cls))]
    if n is not None:
        cands.append(os.path.join(tree, "bin", "%s.%s.%d" % (bench, cls, n)))
    for f in cands:
        if os.access(f, os.X_OK):
            return f
    return None


def build(tree, bench, cls, log, n=None):
    """Builds `bench` class `cls` in the prepared `tree` (make output to the file object
    `log`); returns the program or None. The benchmark's objects are removed first: NPB's
    makefiles do not rebuild them when only the class changes."""
    found = binary(tree, bench, cls, n)
    if found:
        return found
    d = os.path.join(tree, bench.upper())
    for pat in ("*.o", "*.mod", "npbparams.h"):
        for f in glob.glob(os.path.join(d, pat)):
            os.unlink(f)
    cmd = ["make", "-C", tree, bench, "CLASS=" + cls]
    if n is not None:
        cmd.append("NPROCS=%d" % n)  # NPB 3.3 only; 3.4 ignores it
    log.write("$ %s\n" % " ".join(cmd))
    log.flush()
    subprocess.run(cmd, stdout=log, stderr=log, stdin=subprocess.DEVNULL)
    return binary(tree, bench, cls, n)


def _value(line):
    return line.split("=", 1)[1].strip()


def parse_output(text):
    """NPB's report as a dict: name (lower case), cls, procs (int), time (seconds, float),
    mops (float), verified (True/False; None without a Verification line). Fields absent
    from `text` are None (a run that died early)."""
    r = {"name": None, "cls": None, "procs": None, "time": None, "mops": None,
         "verified": None}
    for line in text.splitlines():
        s = line.strip()
        m = re.match(r"^([A-Z]{2})\s+Benchmark Completed", s)
        if m:
            r["name"] = m.group(1).lower()
            continue
        if "=" not in s:
            continue
        key = re.sub(r"\s+", " ", s.split("=", 1)[0]).strip()
        val = _value(s)
        try:
            if key == "Class":
                r["cls"] = val
            elif key == "Time in seconds":
                r["time"] = float(val)
            elif key in ("Total processes", "Total number of processes"):
                r["procs"] = int(val)
            elif key == "Mop/s total":
                r["mops"] = float(val)
            elif key == "Verification":
                r["verified"] = val.upper() == "SUCCESSFUL"
        except ValueError:
            pass
    return r


def parse_compress_stats(text):
    """The sums over ranks of ccmpi's CCMPI_COMPRESS_STATS=1 lines ("ccmpi-compress: rank=R
    ... sent_bytes=B sent_wire=W compress_s=T ..."): a dict of ranks, sent_bytes, sent_wire,
    compress_s, decompress_s and ratio (original over wire bytes sent, None if nothing was
    sent); None without such lines."""
    tot = {"ranks": 0, "sent_bytes": 0, "sent_wire": 0, "compress_s": 0.0,
           "decompress_s": 0.0}
    for line in text.splitlines():
        if not line.startswith("ccmpi-compress: "):
            continue
        kv = dict(w.split("=", 1) for w in line.split()[1:] if "=" in w)
        try:
            tot["sent_bytes"] += int(kv["sent_bytes"])
            tot["sent_wire"] += int(kv["sent_wire"])
            tot["compress_s"] += float(kv.get("compress_s", 0))
            tot["decompress_s"] += float(kv.get("decompress_s", 0))
        except (KeyError, ValueError):
            continue
        tot["ranks"] += 1
    if not tot["ranks"]:
        return None
    tot["ratio"] = tot["sent_bytes"] / tot["sent_wire"] if tot["sent_wire"] else None
    return tot


# --- the class S check (CTest npb_class_s) ---

def _check(o):
    tree = find_tree(o.npb)
    if tree is None:
        sys.stderr.write("npb: no NPB3.x-MPI tree (with IS/ and sys/) at '%s'\n" % o.npb)
        return 2
    bindir = os.path.abspath(o.bin)
    work = os.path.abspath(o.work)
    if o.fresh:
        shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work, exist_ok=True)
    dest = os.path.join(work, "NPB")
    prepare(tree, dest, os.path.join(bindir, "mpifort"), os.path.join(bindir, "mpicc"))
    benches = o.bench.split(",") if o.bench else list(BENCHMARKS)
    failed = []
    with open(os.path.join(work, "build.log"), "a") as log:
        for b in benches:
            if b not in BENCHMARKS:
                sys.stderr.write("npb: unknown benchmark '%s' (one of %s)\n"
                                 % (b, ",".join(BENCHMARKS)))
                return 2
            if not valid_nprocs(b, o.np):
                sys.stderr.write("npb: %s cannot run on %d ranks\n" % (b, o.np))
                return 2
            start = time.monotonic()
            prog = build(dest, b, o.cls, log)
            if prog is None:
                print("npb: %s class %s: build FAILED (see %s)" % (b, o.cls, log.name))
                failed.append(b)
                continue
            cmd = [os.path.join(bindir, "mpirun"), "-n", str(o.np), prog]
            try:
                p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL, text=True, timeout=o.timeout,
                                   cwd=os.path.dirname(prog))
                out, rc = p.stdout, p.returncode
            except subprocess.TimeoutExpired as e:
                out = e.stdout if isinstance(e.stdout, str) else (e.stdout or b"").decode()
                rc = "timeout after %d s" % o.timeout
            with open(os.path.join(work, "%s.%s.%d.out" % (b, o.cls, o.np)), "w") as f:
                f.write(out)
            r = parse_output(out)
            ok = (rc == 0 and r["verified"] is True and r["name"] == b and r["cls"] == o.cls
                  and r["procs"] == o.np)
            st = parse_compress_stats(out)
            print("npb: %s class %s on %d ranks: %s (exit %s, time %s s, %.0f s in all)%s"
                  % (b, o.cls, o.np, "verified" if ok else "FAILED", rc, r["time"],
                     time.monotonic() - start,
                     "; compression ratio %.3f (%d / %d bytes sent)"
                     % (st["ratio"], st["sent_bytes"], st["sent_wire"])
                     if st and st["ratio"] else ""))
            if not ok:
                failed.append(b)
                sys.stdout.write(out[-3000:])
            sys.stdout.flush()
    if failed:
        print("npb: FAILED: %s" % " ".join(failed))
        return 1
    print("npb: all %d verified" % len(benches))
    return 0


def main(argv=None):
    p = argparse.ArgumentParser(
        prog="python3 -m ccmpi_tools.npb",
        description="Build the NAS Parallel Benchmarks with a ccmpi build's mpifort/mpicc "
                    "and run each with its mpirun; exit 1 unless every one verifies.")
    p.add_argument("--npb", required=True, metavar="DIR", help="the NPB3.4-MPI tree")
    p.add_argument("--bin", required=True, metavar="DIR",
                   help="the directory of ccmpi's mpifort, mpicc and mpirun (build/bin)")
    p.add_argument("--work", required=True, metavar="DIR", help="where to build NPB")
    p.add_argument("--class", dest="cls", default="S", help="NPB class (default S)")
    p.add_argument("--np", type=int, default=4, help="ranks (default 4)")
    p.add_argument("--bench", help="comma-separated subset of %s" % ",".join(BENCHMARKS))
    p.add_argument("--fresh", action="store_true",
                   help="remove --work first (rebuild everything with the current ccmpi)")
    p.add_argument("--timeout", type=int, default=600, help="seconds per run (default 600)")
    return _check(p.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
