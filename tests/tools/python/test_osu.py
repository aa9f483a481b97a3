"""ccmpi_tools.osu: figures read from an OSU table, the launch lines of the three
implementations, and a program a tree has not built being reported (no MPI needed)."""
import os
import tempfile
import unittest

from ccmpi_tools import osu

PUT_LATENCY = """\
# OSU MPI_Put Latency Test v7.4
# Window creation: MPI_Win_allocate
# Synchronization: MPI_Win_flush
# Datatype: MPI_CHAR.
# Size          Latency (us)
1                       0.52
8                       0.55
4096                    1.75
"""


class Figures(unittest.TestCase):
    def test_table(self):
        self.assertEqual(osu.figures(PUT_LATENCY), {1: 0.52, 8: 0.55, 4096: 1.75})

    def test_garbage_is_skipped(self):
        self.assertEqual(osu.figures("8 n/a\nerror 3\n16 2.5 x\n"), {16: 2.5})


class Launch(unittest.TestCase):
    def test_lines(self):
        self.assertEqual(osu.launcher("ccmpi", "/b", 2), ["/b/bin/mpirun", "-n", "2"])
        self.assertEqual(osu.launcher("mpich", "/b", 4), ["mpiexec.mpich", "-n", "4"])
        line = osu.launcher("openmpi", "/b", 2, ["--mca", "io", "ompio"])
        self.assertEqual(line[:4], ["mpirun.openmpi", "--oversubscribe", "-n", "2"])
        self.assertEqual(line[-3:], ["--mca", "io", "ompio"])
        self.assertEqual(osu.env()["OMPI_ALLOW_RUN_AS_ROOT"], "1")

    def test_missing_program(self):
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "mpich", "c", "mpi", "one-sided"))
            with self.assertRaises(RuntimeError):
                osu.program(d, "mpich", "one-sided/osu_put_latency")


if __name__ == "__main__":
    unittest.main()
