"""Summaries, the Open MPI sweep, the README tables and the docs/results section of
ccmpi-bench (tools/ccmpi_tools/bench/report), on made-up results."""
import os
import tempfile
import unittest

from ccmpi_tools.bench.report import Results, coll, front, p2p, plot, sweep
from ccmpi_tools.bench.report.stats import summarise

FACTS = {"started": "2026-11-26 09:00 UTC", "load": "0.1 (before), 0.2 (after)",
         "cpu": "Test CPU, 2 cores", "kernel": "Linux 6 x86_64", "ccmpi": "abc123",
         "openmpi": "mpirun (Open MPI) 4.1.4", "mpich": "MPICH 4.0.2 (ch4:ucx)",
         "impls": "ccmpi openmpi mpich", "cluster": "t up 4 1 100mbit", "hosts": "4",
         "rate_bps": "100000000", "rate": "100mbit", "reps": "3", "quick": "0",
         "elapsed": "42", "invocation": "ccmpi-bench --reps 3 scatter"}


def scatter_results():
    r = Results("scatter")
    r.facts = dict(FACTS)
    rows = []
    for rep, (a, o, m) in enumerate(((1100.0, 1500.0, 1700.0), (1000.0, 1400.0, 1800.0),
                                     (1200.0, 1600.0, 1600.0)), 1):
        for v, t in (("ccmpi", a), ("openmpi", o), ("mpich", m), ("ccmpi:linear", a + 50),
                     ("ccmpi:mcast", a - 50)):
            rows.append((v, "scatter", 4, 4096, t, t, t, 3 * 4096, 5, rep))
            rows.append((v, "scatterv5", 4, 4096, t, t, t, 3 * 4096, 5, rep))
        rows.append(("ccmpi", "scatterv5-mpix", 4, 4096, a - 100, a, a, 3 * 4096, 5, rep))
        rows.append(("openmpi-best", "scatter", 4, 4096, o - 100, o, o, 3 * 4096, 5, rep))
        rows.append(("ccmpi", "scatter", 4, 50, 90.0 + rep, 95.0, 90.0, 150, 5, rep))
    r.raw = rows
    r.best_used = {("scatter", 4, 4096): ("2", "binomial")}
    r.commands = ["ccmpi scatter n=4: mpirun ..."]
    r.fails = [("mpich", "scatter n=4 sizes 4096", "2", "1", "abort | here")]
    return r


class Summaries(unittest.TestCase):
    def test_median_min_max(self):
        s = summarise([("a", 3.0), ("a", 1.0), ("a", 2.0), ("b", 5.0), ("b", 7.0)])
        self.assertEqual(tuple(s["a"]), (2.0, 1.0, 3.0, 3))
        self.assertEqual(tuple(s["b"]), (6.0, 5.0, 7.0, 2))

    def test_coll_csv(self):
        rep = coll.Report(scatter_results())
        lines = rep.csv_lines()
        self.assertEqual(lines[0], "impl,test,hosts,size,median_us,min_us,max_us,reps,bound_us,"
                                   "of_bound")
        # ccmpi first, its forced variants right after it, then Open MPI, best, MPICH.
        order = [l.split(",")[0] for l in lines[1:]]
        self.assertEqual(order[0], "ccmpi")
        self.assertLess(order.index("ccmpi:mcast"), order.index("openmpi"))
        self.assertLess(order.index("openmpi-best"), order.index("mpich"))
        row = next(l for l in lines if l.startswith("ccmpi,scatter,4,4096,"))
        f = row.split(",")
        self.assertEqual(f[4:8], ["1100.00", "1000.00", "1200.00", "3"])
        bound = 3 * 4096 / (100e6 * 1448 / 1538 / 8) * 1e6
        self.assertEqual(f[8], "%.2f" % bound)
        self.assertEqual(f[9], "%.4f" % (bound / 1100.0))

    def test_p2p_csv_and_table(self):
        r = Results("p2p")
        r.facts = dict(FACTS, hosts="2", quick="1")
        r.raw = [("ccmpi", "bw", 65536, 11.0, 1), ("ccmpi", "bw", 65536, 11.5, 2),
                 ("openmpi", "bw", 65536, 10.0, 1), ("ccmpi", "latency", 1, 50.0, 1)]
        lines = p2p.csv_lines(r)
        self.assertEqual(lines[0], "impl,test,size,median,min,max,reps,bound,of_bound")
        self.assertIn("ccmpi,bw,65536,11.250,11.000,11.500,2,11.769,0.956", lines)
        table, impls = p2p.table_lines(r)
        self.assertEqual(impls, ["ccmpi", "openmpi"])
        self.assertIn("| bw (MB/s) | 65536 B | 11.25 (11..11.5) = 96% of bound | 10 (10..10) = 85% "
                      "of bound | 11.77 |", table)
        # Small latencies are not compared with the bound.
        self.assertIn("| latency (us) | 1 B | 50 (50..50) | n/a | 0.08497 |", table)


class Sweep(unittest.TestCase):
    def test_store_merge_best(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "openmpi-sweep.csv")
            rows = sweep.merge({}, [("scatter", 4, 50, True, 1, "basic_linear", 30.0),
                                    ("scatter", 4, 50, True, 2, "binomial", 20.0),
                                    ("scatter", 4, 4096, True, 1, "basic_linear", 900.0),
                                    ("scatter", 4, 4096, True, 2, "binomial", 1000.0),
                                    ("scatter", 4, 4096, True, 3, "linear_nb", None)])
            sweep.save(path, rows)
            with open(path) as f:
                text = f.read().splitlines()
            self.assertEqual(text[0], "label,hosts,size,quick,alg,name,median_us")
            self.assertIn("scatter,4,4096,1,3,linear_nb,", text)
            rows = sweep.load(path)
            self.assertTrue(sweep.has(rows, "scatter", 4, (50, 4096), True))
            self.assertFalse(sweep.has(rows, "scatter", 4, (50, 4096), False))
            self.assertFalse(sweep.has(rows, "scatter", 4, (50, 1024), True))
            self.assertEqual(sweep.best_algs(rows, "scatter", 4, (50, 4096), True),
                             [(1, "basic_linear", [4096]), (2, "binomial", [50])])
            # A new run's rows replace the stored ones of the same key.
            rows = sweep.merge(rows, [("scatter", 4, 4096, True, 2, "binomial", 100.0)])
            self.assertEqual(sweep.best_algs(rows, "scatter", 4, (50, 4096), True),
                             [(2, "binomial", [50, 4096])])


class Tables(unittest.TestCase):
    def test_main_table(self):
        rep = coll.Report(scatter_results())
        table = rep.main_table().splitlines()
        self.assertEqual(table[0], "| test | hosts | size | link bound | ccmpi auto | best ccmpi "
                                   "forced | Open MPI (default) | Open MPI (best tuned) | MPICH |")
        row = next(l for l in table if l.startswith("| scatter | 4 | 4 KiB |"))
        cells = [c.strip() for c in row.split("|")[1:-1]]
        self.assertEqual(cells[3], "1.04")
        self.assertEqual(cells[4], "1.1 (1–1.2), 95%")
        self.assertEqual(cells[5], "1.05 (0.95–1.15), 99% [mcast]")
        self.assertTrue(cells[7].endswith("[binomial]"))

    def test_figure10(self):
        rep = coll.Report(scatter_results())
        fig = rep.fig10_table()
        self.assertTrue(fig.startswith("### Figure 10"))
        self.assertIn("| hosts | size | link bound | compiler-assisted (MPIX) | static group "
                      "(mcast) | ccmpi forced linear | ccmpi (auto) | Open MPI (default) | "
                      "MPICH |", fig)
        self.assertIn("| 4 | 4 KiB | 1.04 | 1 (0.9–1.1), 104% |", fig)
        other = Results("bcast")
        other.facts = dict(FACTS)
        self.assertEqual(coll.Report(other).levels_table(), "")

    def test_write_and_front_page(self):
        with tempfile.TemporaryDirectory() as src:
            out = os.path.join(src, "docs", "results", "scatter")
            os.makedirs(out)
            page = os.path.join(src, "docs", "results", "README.md")
            with open(page, "w") as f:
                f.write("# Results\n\nintro\n\n<!-- ccmpi-bench:bcast -->\nbcast\n"
                        "<!-- /ccmpi-bench:bcast -->\n\n<!-- ccmpi-bench:scatter -->\nold\n"
                        "<!-- /ccmpi-bench:scatter -->\n\ntail\n")
            written = coll.write(scatter_results(), out, src)
            self.assertEqual(written[:2], ["results.csv", "README.md"])
            with open(os.path.join(out, "README.md")) as f:
                readme = f.read()
            self.assertIn("## Latest figures", readme)
            self.assertIn("## Failed runs", readme)
            self.assertIn("| mpich | scatter n=4 sizes 4096 | 2 | 1 | abort / here |", readme)
            self.assertIn("**MPICH note:**", readme)  # 4 ranks on 2 cores
            with open(page) as f:
                text = f.read()
            self.assertNotIn("\nold\n", text)
            self.assertIn("bcast\n<!-- /ccmpi-bench:bcast -->", text)
            self.assertTrue(text.endswith("<!-- /ccmpi-bench:scatter -->\n\ntail\n"))
            self.assertIn("## scatter (`ccmpi-bench scatter`)", text)
            self.assertIn("Details: [scatter/README.md](scatter/README.md).", text)
            # scatter has two sizes: a panel, so a plot (when matplotlib is there).
            self.assertEqual("scatter.svg" in written, plot.available())
            # A --quick run leaves the front page alone.
            r = scatter_results()
            r.facts["quick"] = "1"
            coll.write(r, out, src)
            with open(page) as f:
                self.assertEqual(f.read(), text)

    def test_front_replace(self):
        new = front.section("alltoall", "d", "|t|\n", "m ", "b", FACTS, "", "alltoall")
        self.assertTrue(new.startswith("<!-- ccmpi-bench:alltoall -->\n## alltoall"))
        text = front.replace("# R\n", "alltoall", new)
        self.assertEqual(text, "# R\n\n" + new + "\n")
        self.assertEqual(front.replace(text, "alltoall", new), text)


class Plot(unittest.TestCase):
    def test_svg(self):
        if not plot.available():
            self.skipTest("no matplotlib (scripts/deps.sh installs python3-matplotlib)")
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "x.svg")
            p = plot.Panel("t", "message size", "ms", xlog=True, ylog=True, xsizes=True)
            p.add("a", [(1024, 1.0, 0.9, 1.1), (4096, 2.0, 1.8, 2.2)])
            p.add("link bound", [(1024, 0.5), (4096, 1.5)], "bound")
            self.assertTrue(plot.draw([p], path))
            with open(path) as f:
                svg = f.read()
            self.assertIn("<svg", svg)
            self.assertIn("link bound", svg)
            self.assertIn("4 KiB", svg)
            # Nothing to draw: no plot, and an earlier one is removed.
            self.assertFalse(plot.draw([plot.Panel("e", "x", "y")], path))
            self.assertFalse(os.path.exists(path))


if __name__ == "__main__":
    unittest.main()
