"""bench/apps/run.py: the parsers and checks of LULESH's, HPCG's and CloverLeaf's output,
the rank counts, ratios and the README table, on made-up output (no application needed)."""
import importlib.util
import os
import tempfile
import unittest

_RUN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "bench",
                    "apps", "run.py")
_spec = importlib.util.spec_from_file_location("apps_run", _RUN)
run = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(run)

LULESH_OUT = """Running problem size 8^3 per domain until completion
Num processors: 8
Total number of elements: 4096

Run completed:
   Problem size        =  8
   MPI tasks           =  8
   Iteration count     =  100
   Final Origin Energy =  2.006542e+05
   Testing Plane 0 of Energy Array on rank 0:
        MaxAbsDiff   = 3.819878e-11
        TotalAbsDiff = 1.189505e-10
        MaxRelDiff   = 2.400702e-12

Elapsed time         =        1.2 (s)
Grind time (us/z/c)  =  23.488506 (per dom)  ( 1.2026115 overall)
FOM                  =  340.59212 (z/s)
"""

HPCG_REPORT = """HPCG-Benchmark
version=3.1
HPCG-Benchmark version=3.1
Spectral Convergence Tests=
Spectral Convergence Tests::Result=PASSED
Departure from Symmetry |x'Ay-y'Ax|/(2*||x||*||A||*||y||)/epsilon::Result=PASSED
Iteration Count Information::Result=PASSED
Reproducibility Information::Result=PASSED
Final Summary=
Final Summary::HPCG result is VALID with a GFLOP/s rating of=0.591627
Final Summary::HPCG 2.4 rating for historical reasons is=0.601972
"""

CLOVER_OUT = """ Step      87 time   0.4971244 control    sound    timestep   5.85E-03
Test problem   2 is within   0.4547474E-11% of the expected solution
 This test is considered PASSED
 Wall clock    27.068464040756226
 First step overhead  -1.6880035400390625E-002
"""

CLOVER_SUMMARY = """ Time   0.50297235683269470
                       Volume            Mass         Density        Pressure
 step:      0      0.1000E+03      0.2800E+02      0.2800E+00      0.1600E+00      0.4300E+02      0.0000E+00      0.4300E+02

 step:     87      0.1000E+03      0.2800E+02      0.2800E+00      0.1671E+00      0.4179E+02      0.1193E+01      0.4298E+02
"""


class Lulesh(unittest.TestCase):
    def test_parse(self):
        r = run.parse_lulesh(LULESH_OUT)
        self.assertEqual(r["energy"], 2.006542e05)
        self.assertEqual(r["maxreldiff"], 2.400702e-12)
        self.assertEqual(r["fom"], 340.59212)
        self.assertEqual(r["elapsed"], 1.2)
        self.assertEqual(r["ranks"], 8)
        self.assertEqual(run.verify_lulesh(r), (340.59212, (2.006542e05,), ""))

    def test_asymmetric_or_missing(self):
        r = run.parse_lulesh(LULESH_OUT.replace("MaxRelDiff   = 2.400702e-12",
                                                "MaxRelDiff   = 3.1e-04"))
        fig, _, why = run.verify_lulesh(r)
        self.assertIsNone(fig)
        self.assertIn("not symmetric", why)
        fig, _, why = run.verify_lulesh(run.parse_lulesh("Num processors must be a cube\n"))
        self.assertIsNone(fig)
        self.assertIn("no LULESH summary", why)

    def test_ranks(self):
        self.assertEqual(run.lulesh_ranks([4, 8]), [1, 8])
        self.assertEqual(run.lulesh_ranks([2, 27, 64]), [1, 27, 64])
        self.assertEqual(run.lulesh_ranks([1]), [1])


class Hpcg(unittest.TestCase):
    def test_valid(self):
        r = run.parse_hpcg(HPCG_REPORT)
        self.assertTrue(r["valid"])
        self.assertEqual(r["version"], "3.1")
        self.assertEqual(len(r["results"]), 4)
        self.assertEqual(run.verify_hpcg(r), (0.591627, None, ""))

    def test_invalid(self):
        bad = HPCG_REPORT.replace("Reproducibility Information::Result=PASSED",
                                  "Reproducibility Information::Result=FAILED")
        bad = bad.replace("HPCG result is VALID with a GFLOP/s rating of=0.591627",
                          "HPCG result is=INVALID.")
        fig, _, why = run.verify_hpcg(run.parse_hpcg(bad))
        self.assertIsNone(fig)
        self.assertEqual(why, "HPCG tests not passed: Reproducibility Information")
        fig, _, why = run.verify_hpcg(run.parse_hpcg(""))
        self.assertIsNone(fig)
        self.assertIn("no HPCG report", why)


class Clover(unittest.TestCase):
    def test_passed(self):
        r = run.parse_clover(CLOVER_OUT, CLOVER_SUMMARY)
        self.assertEqual(r["test_problem"], 2)
        self.assertTrue(r["passed"])
        self.assertEqual(r["wall"], 27.068464040756226)
        self.assertEqual(r["final"], (100.0, 28.0, 0.28, 0.1671, 41.79, 1.193, 42.98))
        fig, sig, why = run.verify_clover(r, True)
        self.assertEqual((fig, why), (27.068464040756226, ""))
        self.assertEqual(sig, r["final"])

    def test_not_passed(self):
        out = CLOVER_OUT.replace(" This test is considered PASSED",
                                 " This test is considered NOT PASSED")
        r = run.parse_clover(out, CLOVER_SUMMARY)
        self.assertFalse(r["passed"])
        fig, _, why = run.verify_clover(r, True)
        self.assertIsNone(fig)
        self.assertEqual(why, "test problem 2 not PASSED")
        # A deck without a test problem is judged by the field summary alone.
        self.assertEqual(run.verify_clover(r, False)[0], 27.068464040756226)
        fig, _, why = run.verify_clover(run.parse_clover("", ""), False)
        self.assertIsNone(fig)
        self.assertIn("no CloverLeaf summary", why)


class Finished(unittest.TestCase):
    def test_markers(self):
        with tempfile.TemporaryDirectory() as d:
            log = os.path.join(d, "output.log")
            with open(log, "w") as f:
                f.write(LULESH_OUT.replace("FOM", "(no figure yet)"))
            self.assertFalse(run._finished("lulesh", d, log))
            with open(log, "a") as f:
                f.write("FOM                  =  340.59212 (z/s)\n")
            self.assertTrue(run._finished("lulesh", d, log))
            self.assertFalse(run._finished("cloverleaf", d, log))
            with open(log, "a") as f:
                f.write(CLOVER_OUT)
            self.assertTrue(run._finished("cloverleaf", d, log))
            self.assertFalse(run._finished("hpcg", d, log))
            with open(os.path.join(d, "HPCG-Benchmark_3.1_x.txt"), "w") as f:
                f.write(HPCG_REPORT)
            self.assertTrue(run._finished("hpcg", d, log))


class Output(unittest.TestCase):
    def test_signatures(self):
        self.assertTrue(run.signatures_agree([(1.0, 2.0), None, (1.0 + 1e-9, 2.0)]))
        self.assertFalse(run.signatures_agree([(1.0, 2.0), (1.0, 2.001)]))
        self.assertTrue(run.signatures_agree([]))

    def test_ratio(self):
        # Higher is better (FOM): ccmpi 200 against 100 is half the time.
        self.assertEqual(run.ratio("lulesh", 200.0, 100.0), 0.5)
        # Lower is better (seconds).
        self.assertEqual(run.ratio("cloverleaf", 30.0, 20.0), 1.5)
        self.assertIsNone(run.ratio("hpcg", None, 1.0))

    def test_readme(self):
        rows = [{"app": "hpcg", "ranks": 8, "where": "host", "where_label": "1 host",
                 "values": {"ccmpi": [2.0], "openmpi": [1.0], "mpich": []},
                 "errors": {"ccmpi": [], "openmpi": [], "mpich": ["timeout (900 s)"]},
                 "median": {"ccmpi": 2.0, "openmpi": 1.0, "mpich": None}, "runs": 1,
                 "sigs": []}]
        meta = {"reps": 1, "impls": ["ccmpi", "openmpi", "mpich"], "seconds": 5.0,
                "date": "2026-11-26 12:00 UTC", "command": "bench/apps/run.py --hpcg X",
                "load_before": 0.2, "load_after": 0.3, "cpu": "Test CPU",
                "openmpi": "mpirun (Open MPI) 4.1.4", "mpich": "MPICH 4.0.2", "ccmpi": "abc",
                "lulesh_args": "-s 12", "hpcg_args": "--nx=24", "clover_deck": "",
                "clover_test": False, "hosts": 8, "rate": "25mbit", "differ": []}
        with tempfile.TemporaryDirectory() as d:
            run.write_outputs(d, rows, meta)
            with open(os.path.join(d, "README.md")) as f:
                text = f.read()
            with open(os.path.join(d, "results.csv")) as f:
                csv_text = f.read()
            svg = os.path.exists(os.path.join(d, "apps.svg"))
        self.assertIn("| HPCG 3.1 | 8 | 1 host | GFLOP/s | 2.00 | 1.00 | n/a (1 of 1 failed: "
                      "timeout (900 s)) | 0.50 | n/a |", text)
        self.assertIn("    bench/apps/run.py --hpcg X", text)
        self.assertIn("Load average before 0.20", text)
        self.assertIn("hpcg,8,1 host,GFLOP/s,mpich,,,timeout (900 s)", csv_text)
        # The plot needs matplotlib (Debian's python3-matplotlib, as CTest's python3 has).
        self.assertEqual(svg, importlib.util.find_spec("matplotlib") is not None)
        self.assertEqual("](apps.svg)" in text, svg)


if __name__ == "__main__":
    unittest.main()
