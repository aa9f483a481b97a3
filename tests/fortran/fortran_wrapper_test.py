#!/usr/bin/env python3
"""Tests of the Fortran wrappers (mpifort, mpif90, mpif77), one CTest test per mode.

  show     the printed commands: include and module directories, libccmpi_fortran linked,
           -compile_info without link flags, the three names alike
  findmpi  CMake's FindMPI (COMPONENTS Fortran) finds ccmpi through mpifort given as
           MPI_Fortran_COMPILER; programs using mpif.h, `use mpi` and `use mpi_f08` build
           against MPI::MPI_Fortran and run under mpirun
  install  `cmake --install --prefix` puts mpifort, mpif.h, the .mod files and
           libccmpi_fortran in the prefix; the installed mpifort builds the same programs

Exits non-zero with a message on the first failed check.
"""
import argparse
import os
import pathlib
import shutil
import subprocess
import sys


def fail(msg):
    print(f"FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


def run(cmd, **kw):
    r = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=240, **kw)
    if r.returncode != 0:
        fail(f"{' '.join(map(str, cmd))} exited {r.returncode}\n{r.stdout}\n{r.stderr}")
    return r.stdout


def fresh(path):
    path = pathlib.Path(path)
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir(parents=True)
    return path


def show(a):
    env = {k: v for k, v in os.environ.items() if k != "CCMPI_FC"}
    outs = {}
    for name in ("mpifort", "mpif90", "mpif77"):
        out = run([pathlib.Path(a.bindir) / name, "-show", "x.f90", "-o", "x"], env=env).split()
        outs[name] = out
        for want in (f"-I{a.incdir}", f"-I{a.moddir}", f"-L{a.libdir}", "-lccmpi_fortran",
                     "-lccmpi", "x.f90"):
            if want not in out:
                fail(f"{name} -show: {out} lacks {want}")
        if out.index("-lccmpi_fortran") > out.index("-lccmpi"):
            fail(f"{name} -show: libccmpi_fortran must come before libccmpi: {out}")
    if not outs["mpifort"] == outs["mpif90"] == outs["mpif77"]:
        fail(f"the wrappers differ: {outs}")
    mpifort = pathlib.Path(a.bindir) / "mpifort"
    comp = run([mpifort, "-compile_info", "-c", "x.f90"], env=env).split()
    if any(w.startswith("-l") for w in comp) or f"-I{a.moddir}" not in comp:
        fail(f"mpifort -compile_info: {comp}")
    if run([mpifort, "--showme", "x.f"], env=env) != run([mpifort, "-show", "x.f"], env=env):
        fail("--showme differs from -show")
    link = run([mpifort, "-showme:link"], env=env)
    if "-lccmpi_fortran" not in link:
        fail(f"mpifort -showme:link: {link}")
    fc = run([mpifort, "-show", "-fc=myfc", "x.f"], env=env).split()
    if fc[0] != "myfc":
        fail(f"-fc=: {fc}")
    print("show: ok")


def findmpi(a):
    work = fresh(a.work)
    build = work / "build"
    run([a.cmake, "-S", a.source, "-B", build, "-G", a.generator,
         f"-DMPI_Fortran_COMPILER={pathlib.Path(a.bindir) / 'mpifort'}"])
    run([a.cmake, "--build", build])
    if a.sanitize:
        # FindMPI keeps the libraries but not -fsanitize, so the sanitizers' run-time would not
        # come first in these programs: they are built, not run (the other tests run them).
        print(f"findmpi: built (not run: library built with -fsanitize={a.sanitize})")
        return
    out = run([a.mpirun, "-n", "2", build / "hello_f08"])
    if "hello f08 2 No Errors" not in out:
        fail(f"hello_f08 printed {out!r}")
    out = run([a.mpirun, "-n", "3", build / "hello_mpi"])
    if "hello mpi 3" not in out:
        fail(f"hello_mpi printed {out!r}")
    out = run([a.mpirun, "-n", "2", build / "hello_f77"])
    if "hello f77 1 of 2" not in out:
        fail(f"hello_f77 printed {out!r}")
    print("findmpi: ok")


def install(a):
    work = fresh(a.work)
    prefix = work / "prefix"
    run([a.cmake, "--install", a.build, "--prefix", prefix])
    inc, lib = prefix / "include", prefix / "lib"
    for f in (inc / "mpif.h", inc / "mpi.mod", inc / "mpi_f08.mod", prefix / "bin" / "mpifort",
              prefix / "bin" / "mpif90", prefix / "bin" / "mpif77"):
        if not f.exists():
            fail(f"not installed: {f}")
    if not list(lib.glob("libccmpi_fortran.so*")):
        fail(f"libccmpi_fortran not installed in {lib}")
    mpifort = prefix / "bin" / "mpifort"
    show_out = run([mpifort, "-show", "x.f90"])
    if f"-I{inc}" not in show_out.split() or "fortran_modules" in show_out:
        fail(f"installed mpifort -show: {show_out}")
    for src, name, want in (("hello_f77.f", "f77", "hello f77 0 of 1"),
                            ("hello_mpi.f90", "mpi", "hello mpi 0"),
                            ("hello_f08.f90", "f08", "hello f08 1 No Errors")):
        exe = work / f"hello_{name}"
        run([mpifort, "-o", exe, pathlib.Path(a.source) / src], cwd=work)
        out = run([exe])  # a singleton: no launcher
        if want not in out:
            fail(f"installed {src} printed {out!r}")
    print("install: ok")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("mode", choices=["show", "findmpi", "install"])
    for opt in ("bindir", "incdir", "moddir", "libdir", "source", "work", "cmake", "generator",
                "mpirun", "build", "sanitize"):
        p.add_argument(f"--{opt}")
    a = p.parse_args()
    {"show": show, "findmpi": findmpi, "install": install}[a.mode](a)
    return 0


if __name__ == "__main__":
    sys.exit(main())
