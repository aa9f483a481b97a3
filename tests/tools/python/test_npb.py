"""ccmpi_tools.npb (building and reading the NAS Parallel Benchmarks) and ccmpi-bench's npb
scenario: report parsing, compression counters, rank counts, make.def, the plan and the
report's compression table, on made-up outputs (no NPB source here)."""
import os
import tempfile
import unittest

from ccmpi_tools import npb
from ccmpi_tools.bench import implementations, scenarios
from ccmpi_tools.bench.report import Results, coll

# The shape of a Fortran benchmark's report (made-up figures).
FORTRAN_OUT = """
 Verification being performed for class A
 accuracy setting for epsilon =  0.1000000000000E-07
 Comparison of RMS-norms of residual
           1 0.1080630696735E+03 0.1080630696735E+03 0.1315805679279E-14

 BT Benchmark Completed.
 Class           =                        A
 Size            =            64x  64x  64
 Iterations      =                      200
 Time in seconds =                   123.45
 Total processes =                       16
 Active processes=                       16
 Mop/s total     =                  1363.18
 Mop/s/process   =                    85.20
 Operation type  =           floating point
 Verification    =               SUCCESSFUL
 Version         =                    3.4.3
"""

# The shape of IS's (C) report.
IS_OUT = """
 IS Benchmark Completed
 Class           =                        S
 Size            =                    65536
 Iterations      =                       10
 Time in seconds =                     0.14
 Total processes =                        4
 Mop/s total     =                     4.68
 Mop/s/process   =                     1.17
 Operation type  =              keys ranked
 Verification    =             UNSUCCESSFUL
"""

STATS = """\
some other line
ccmpi-compress: rank=0 mode=auto codec=spx-fast sent_msgs=10 sent_bytes=3000 sent_wire=2000 \
compress_s=0.5 recv_msgs=10 recv_bytes=3000 recv_wire=2000 decompress_s=0.25
ccmpi-compress: rank=1 mode=auto codec=spx-fast sent_msgs=10 sent_bytes=1000 sent_wire=1000 \
compress_s=0.5 recv_msgs=10 recv_bytes=1000 recv_wire=1000 decompress_s=0.25
"""


class ParseTest(unittest.TestCase):
    def test_fortran_report(self):
        r = npb.parse_output(FORTRAN_OUT)
        self.assertEqual(r["name"], "bt")
        self.assertEqual(r["cls"], "A")
        self.assertEqual(r["procs"], 16)
        self.assertAlmostEqual(r["time"], 123.45)
        self.assertAlmostEqual(r["mops"], 1363.18)
        self.assertIs(r["verified"], True)

    def test_c_report_failed_verification(self):
        r = npb.parse_output(IS_OUT)
        self.assertEqual((r["name"], r["cls"], r["procs"]), ("is", "S", 4))
        self.assertAlmostEqual(r["time"], 0.14)
        self.assertIs(r["verified"], False)

    def test_truncated_report(self):
        r = npb.parse_output(FORTRAN_OUT.split(" Time in seconds")[0])
        self.assertEqual(r["name"], "bt")
        self.assertIsNone(r["time"])
        self.assertIsNone(r["verified"])
        self.assertIsNone(npb.parse_output("")["name"])

    def test_compress_stats_sum_over_ranks(self):
        st = npb.parse_compress_stats(STATS)
        self.assertEqual(st["ranks"], 2)
        self.assertEqual((st["sent_bytes"], st["sent_wire"]), (4000, 3000))
        self.assertAlmostEqual(st["ratio"], 4000 / 3000)
        self.assertAlmostEqual(st["compress_s"], 1.0)
        self.assertAlmostEqual(st["decompress_s"], 0.5)
        self.assertIsNone(npb.parse_compress_stats("no stats\n"))
        none_sent = npb.parse_compress_stats(STATS.replace("sent_wire=2000", "sent_wire=0")
                                             .replace("sent_wire=1000", "sent_wire=0"))
        self.assertIsNone(none_sent["ratio"])

    def test_valid_nprocs(self):
        self.assertTrue(npb.valid_nprocs("bt", 16))
        self.assertTrue(npb.valid_nprocs("sp", 4))
        self.assertFalse(npb.valid_nprocs("bt", 8))
        self.assertTrue(npb.valid_nprocs("is", 8))
        self.assertFalse(npb.valid_nprocs("cg", 6))
        self.assertTrue(npb.valid_nprocs("ep", 6))
        self.assertFalse(npb.valid_nprocs("lu", 0))
        self.assertEqual([n for n in range(1, 17) if npb.valid_nprocs("lu", n)],
                         [1, 2, 4, 6, 8, 9, 12, 15, 16])


class TreeTest(unittest.TestCase):
    def test_prepare_writes_make_def_and_drops_stale_files(self):
        with tempfile.TemporaryDirectory() as d:
            src = os.path.join(d, "NPB3.4-MPI")
            for sub in ("IS", "sys", "config", "common", "BT"):
                os.makedirs(os.path.join(src, sub))
            for f in ("BT/bt.o", "BT/npbparams.h", "common/timers.mod", "BT/bt.f90"):
                with open(os.path.join(src, f), "w") as w:
                    w.write("x")
            self.assertEqual(npb.find_tree(d), os.path.realpath(src))
            self.assertIsNone(npb.find_tree(os.path.join(src, "BT")))
            dest = os.path.join(d, "copy")
            npb.prepare(src, dest, "/b/mpifort", "/b/mpicc")
            with open(os.path.join(dest, "config", "make.def")) as f:
                mk = f.read()
            self.assertIn("MPIFC = /b/mpifort\n", mk)
            self.assertIn("MPICC = /b/mpicc\n", mk)
            self.assertIn("BINDIR = ../bin\n", mk)
            self.assertTrue(os.path.exists(os.path.join(dest, "BT", "bt.f90")))
            for f in ("BT/bt.o", "BT/npbparams.h", "common/timers.mod"):
                self.assertFalse(os.path.exists(os.path.join(dest, f)), f)
            self.assertIsNone(npb.binary(dest, "bt", "S"))
            exe = os.path.join(dest, "bin", "bt.S.x")
            with open(exe, "w") as w:
                w.write("#!/bin/sh\n")
            os.chmod(exe, 0o755)
            self.assertEqual(npb.binary(dest, "bt", "S"), exe)


class ScenarioTest(unittest.TestCase):
    def test_plan(self):
        sc = scenarios.get("npb")
        self.assertEqual(sc.hosts(False), 16)
        self.assertEqual(sc.hosts(True), 4)
        full = sc.plan(False)
        self.assertEqual([e.label for e in full],
                         ["bt-A", "sp-A", "lu-A", "mg-A", "ft-A", "cg-A", "ep-A", "is-A"])
        self.assertTrue(all(e.nprocs == 16 and e.test == "npb" and e.coll is None for e in full))
        self.assertTrue(all(npb.valid_nprocs(e.extra[0], e.nprocs) for e in full))
        ocoll = {e.extra[0]: e.ocoll for e in full}
        self.assertEqual(ocoll["ft"], "alltoall")
        self.assertEqual(ocoll["is"], "alltoallv")
        self.assertIsNone(ocoll["bt"])
        self.assertEqual([(e.label, e.nprocs) for e in sc.plan(True)][0], ("bt-S", 4))
        self.assertEqual(scenarios.get("npb-is").plan(True)[0].label, "is-S")

    def test_compress_variant(self):
        self.assertEqual(implementations.impl_of("ccmpi-compress"), "ccmpi")
        la = implementations.Launcher("/b", "/b/bin/ccmpi-cluster", "c", "/h", "/a")
        cmd = la.variant("ccmpi-compress", 4)
        self.assertEqual(cmd[:2], ["/b/bin/mpirun", "--hostfile"])
        self.assertIn("CCMPI_COMPRESS=auto", cmd)
        self.assertIn("CCMPI_COMPRESS_STATS=1", cmd)
        self.assertEqual(cmd[cmd.index("CCMPI_COMPRESS=auto") - 1], "--env")
        self.assertNotIn("CCMPI_COMPRESS=auto", la.variant("ccmpi", 4))
        self.assertEqual(implementations.fortran_compiler("ccmpi", "/b"), "/b/bin/mpifort")
        self.assertEqual(implementations.fortran_compiler("openmpi", "/b"), "mpifort.openmpi")
        self.assertEqual(implementations.fortran_compiler("mpich", "/b"), "mpifort.mpich")


def npb_results():
    r = Results("npb")
    r.facts = {"started": "2026-11-26 09:00 UTC", "load": "0.1 (before), 0.2 (after)",
               "cpu": "Test CPU, 2 cores", "kernel": "Linux 6 x86_64", "ccmpi": "abc123",
               "openmpi": "mpirun (Open MPI) 4.1.4", "mpich": "MPICH 4.0.2 (ch4:ucx)",
               "impls": "ccmpi openmpi", "cluster": "t up 16 1 25mbit", "hosts": "16",
               "rate_bps": "25000000", "rate": "25mbit", "reps": "2", "quick": "0",
               "elapsed": "42", "invocation": "ccmpi-bench npb --npb /n --rate 25mbit"}
    for rep, (a, c, o) in enumerate(((100.0, 80.0, 120.0), (110.0, 90.0, 130.0)), 1):
        for v, t in (("ccmpi", a), ("ccmpi-compress", c), ("openmpi", o)):
            us = t * 1e6
            r.raw.append((v, "bt-A", 16, 0, us, us, us, 0, 1, rep))
            r.raw.append((v, "ep-A", 16, 0, us / 10, us / 10, us / 10, 0, 1, rep))
        r.compress.append(("bt-A", 16, rep, 1350 * rep, 1000 * rep, 1.0, 0.5))
    r.raw.append(("openmpi-best", "ft-A", 16, 0, 5e6, 5e6, 5e6, 0, 1, 1))
    r.best_used[("ft-A", 16, 0)] = ("2", "pairwise")
    return r


class ReportTest(unittest.TestCase):
    def test_compress_table_and_files(self):
        res = npb_results()
        rep = coll.Report(res)
        t = rep.compress_table()
        self.assertIn("| bt-A | 16 |", t)
        self.assertIn("| 1.35 |", t)  # measured ratio 1350/1000 and cMPI's BT
        self.assertIn("-19.0%", t)  # median 85 s against 105 s
        self.assertIn("1.50 s", t)  # (de)compression CPU
        self.assertNotIn("ep-A", t)  # no counters for EP
        main = rep.main_table()
        self.assertIn("ccmpi compress auto", main.splitlines()[0])
        self.assertIn("| bt-A | 16 | class A |", main)
        self.assertIn("85.00 s (80.00 s\u201390.00 s)", main)
        self.assertIn("[pairwise]", main)
        self.assertIn("| = default |", main)  # BT: point-to-point, best = default
        cats, series = rep.bars()
        self.assertEqual(cats[0], "bt-A\n16 hosts")
        ccmpi = dict(series)[coll.vname("ccmpi")]
        self.assertAlmostEqual(ccmpi[0][1], 1.0)
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "npb")
            os.makedirs(out)
            written = coll.write(res, out, d)
            self.assertIn("compress.csv", written)
            with open(os.path.join(out, "compress.csv")) as f:
                lines = f.read().splitlines()
            self.assertEqual(lines[0], "test,hosts,rep,sent_bytes,sent_wire,compress_s,"
                                       "decompress_s")
            self.assertEqual(lines[1], "bt-A,16,1,1350,1000,1.000000,0.500000")
            with open(os.path.join(out, "README.md")) as f:
                readme = f.read()
            self.assertIn("### Compression (cMPI Table 5)", readme)
            self.assertIn("best = default", readme)


if __name__ == "__main__":
    unittest.main()
