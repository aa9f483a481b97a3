"""bench/io/run.py: IOR's per-iteration bandwidths read from its output (not the summary),
and the README line counting the points within 10% (no MPI needed)."""
import importlib.util
import os
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
RUN = os.path.join(HERE, "..", "..", "..", "bench", "io", "run.py")
spec = importlib.util.spec_from_file_location("io_run", RUN)
io_run = importlib.util.module_from_spec(spec)
spec.loader.exec_module(io_run)

# The shape of IOR 4.1's output (-w -r -i 2), cut to the parts parse() reads.
IOR_OUT = """\
Options:
api                 : MPIIO
Results:

access    bw(MiB/s)  IOPS       Latency(s)  block(KiB) xfer(KiB)  open(s)    wr/rd(s)   close(s)   total(s)   iter
------    ---------  ----       ----------  ---------- ---------  --------   --------   --------   --------   ----
write     1461.49    375.81     0.009899    16384      4096       0.000929   0.042575   0.008575   0.043791   0
read      4123       1086.89    0.003270    16384      4096       0.000557   0.014721   0.002407   0.015523   0
write     1361.01    345.98     0.009539    16384      4096       0.000611   0.046245   0.008276   0.047024   1
read      5266       1374.00    0.002591    16384      4096       0.000315   0.011645   0.001579   0.012154   1

Summary of all tests:
Operation   Max(MiB)   Min(MiB)  Mean(MiB)     StdDev   Max(OPs)   Min(OPs)  Mean(OPs)     StdDev    Mean(s) Stonewall(s) Stonewall(MiB) Test# #Tasks tPN reps fPP reord reordoff reordrand seed segcnt   blksiz    xsize aggs(MiB)   API RefNum
write        1461.49    1361.01    1411.25      50.24     365.37     340.25     352.81      12.56    0.04441         NA            NA     0      4   4    2   0     0        1         0    0      1 16777216  4194304      64.0 MPIIO      0
read         5265.82    4123.00    4694.41     571.41    1316.45    1030.75    1173.60     142.85    0.01384         NA            NA     0      4   4    2   0     0        1         0    0      1 16777216  4194304      64.0 MPIIO      0
"""


class Parse(unittest.TestCase):
    def test_every_iteration(self):
        self.assertEqual(io_run.parse(IOR_OUT),
                         {"write": [1461.49, 1361.01], "read": [4123.0, 5266.0]})

    def test_no_results(self):
        self.assertEqual(io_run.parse("ior ERROR: open64 failed\n"), {})


class Outputs(unittest.TestCase):
    def test_points_within_ten_percent(self):
        variants = ["ccmpi", "openmpi-romio"]
        rows = []
        for op, ccmpi, romio in (("write", 100.0, 105.0), ("read", 100.0, 120.0)):
            rows.append({"access": "independent", "transfer": "1m", "op": op,
                         "values": {"ccmpi": [ccmpi], "openmpi-romio": [romio]},
                         "errors": {"ccmpi": [], "openmpi-romio": []},
                         "median": {"ccmpi": ccmpi, "openmpi-romio": romio}})
        meta = {"reps": 1, "iters": 1, "variants": variants, "np": 4, "block": "16m",
                "seconds": 1.0, "dir_kind": "a tmpfs", "date": "today", "load_before": 0.5,
                "load_after": 0.5, "cpu": "cpu", "ior": "4.1", "command": "bench/io/run.py"}
        with tempfile.TemporaryDirectory() as d:
            io_run.write_outputs(d, rows, meta)
            with open(os.path.join(d, "README.md")) as f:
                text = f.read()
        self.assertIn("| independent | 1m | write | 100.0 | 105.0 | 1.05 |", text)
        self.assertIn("| independent | 1m | read | 100.0 | 120.0 | 1.20 |", text)
        self.assertIn("within 10% of the better of the others (ratio at most 1.10) at 1 of 2 "
                      "points; more than 10% behind at: independent 1m read (1.20).", text)


if __name__ == "__main__":
    unittest.main()
