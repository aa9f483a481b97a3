"""Link bounds, units and the scenarios' plans (tools/ccmpi_tools)."""
import unittest

from ccmpi_tools import units
from ccmpi_tools.bench import scenarios
from ccmpi_tools.bench.scenarios import p2p
from ccmpi_tools.cluster import shaping


class Units(unittest.TestCase):
    def test_rates(self):
        self.assertEqual(units.rate_bps("100mbit"), 100_000_000)
        self.assertEqual(units.rate_bps("1.5Gbit"), 1_500_000_000)
        self.assertEqual(units.rate_bps("500kbit"), 500_000)
        self.assertIsNone(units.rate_bps("100mb"))
        self.assertIsNone(units.rate_bps("none"))

    def test_link_mbits(self):
        # A cluster's rate as CCMPI_LINK_MBITS declares it.
        self.assertEqual(units.rate_mbits("100mbit"), "100")
        self.assertEqual(units.rate_mbits("1gbit"), "1000")
        self.assertEqual(units.rate_mbits("1.5gbit"), "1500")
        self.assertEqual(units.rate_mbits("500kbit"), "0.5")
        self.assertIsNone(units.rate_mbits("none"))

    def test_sizes_times_percentages(self):
        self.assertEqual(units.size_bytes("128kb"), 131072)
        self.assertEqual(units.size_bytes("2m"), 2 * 1024 * 1024)
        self.assertEqual(units.size_bytes("1538"), 1538)
        self.assertIsNone(units.size_bytes("1.5k"))
        self.assertTrue(units.valid_time("50us") and units.valid_time("0"))
        self.assertFalse(units.valid_time("50"))
        self.assertTrue(units.is_zero_time("0ms"))
        self.assertEqual(units.percent("0.5%"), 0.5)
        self.assertIsNone(units.percent("101%"))
        self.assertTrue(units.is_zero_percent("0%"))
        self.assertTrue(units.valid_count("254", 254))
        self.assertFalse(units.valid_count("255", 254))
        self.assertFalse(units.valid_count("0"))


class Bounds(unittest.TestCase):
    def test_payload(self):
        # MSS 1448 bytes in 1538-byte frames: 94.15 Mbit/s of payload at 100 Mbit/s.
        self.assertAlmostEqual(scenarios.payload_bps(100e6), 100e6 * 1448 / 1538)
        self.assertAlmostEqual(scenarios.payload_bps(100e6) / 8 / 1e6, 11.769, places=3)

    def test_collective_bound(self):
        # Scatter of 4 KiB blocks on 4 hosts: the root sends 3 blocks, 1.044 ms at 100 Mbit/s.
        us = scenarios.bound_us(3 * 4096, 100e6)
        self.assertAlmostEqual(us, 3 * 4096 / 11.769 , delta=0.5)
        self.assertEqual("%.3g" % (us / 1e3), "1.04")
        self.assertIsNone(scenarios.bound_us(0, 100e6))  # NPB IS: no bound
        # Two rails: a host's two NICs carry half each (Bcast of 256 KiB at 25 Mbit/s:
        # 89.1 ms on one NIC, 44.5 on two).
        one = scenarios.bound_us(262144, 25e6)
        self.assertAlmostEqual(one / 1e3, 89.1, places=1)
        self.assertAlmostEqual(scenarios.bound_us(262144, 25e6, 2), one / 2)

    def test_p2p_bound(self):
        rate = 100e6
        self.assertAlmostEqual(p2p.bound("bw", 65536, rate), 11.769, places=3)
        self.assertAlmostEqual(p2p.bound("bibw", 65536, rate), 2 * 11.769, places=2)
        # Latency: one way, s/B.
        self.assertAlmostEqual(p2p.bound("latency", 16384, rate), 16384 * 8 / 94.148e6 * 1e6,
                               places=0)
        self.assertAlmostEqual(p2p.of_bound("bw", 65536, 11.769 / 2, rate), 0.5, places=3)
        self.assertAlmostEqual(p2p.of_bound("latency", 16384, 2 * p2p.bound("latency", 16384, rate),
                                            rate), 0.5)

    def test_shaper_figures(self):
        # Token bucket: 2 frames at 100 Mbit/s, 20 us of the rate at 10 Gbit/s.
        self.assertEqual(shaping.burst_bytes(100_000_000, 2), 3100)
        self.assertEqual(shaping.burst_bytes(10_000_000_000, 2), 25000)
        # BPF loss filter: 20% loss drops numbers at or above 0.8 * 2^32.
        self.assertEqual(shaping.loss_threshold(20), 3435973837)
        self.assertEqual(shaping.loss_threshold(0), 4294967295)


class Plans(unittest.TestCase):
    def test_every_scenario(self):
        for name in scenarios.NAMES:
            m = scenarios.get(name)
            for quick in (False, True):
                hosts = m.hosts(quick)
                self.assertGreaterEqual(hosts, 2, name)
                if name == "p2p":
                    continue
                for e in m.plan(quick):
                    self.assertLessEqual(e.nprocs, hosts, (name, e))
                self.assertTrue(m.DESC and m.BOUND_DOC)
        self.assertRaises(KeyError, scenarios.get, "nonsense")

    def test_scatter_quick(self):
        # The plan tests/cluster's bench_coll case relies on.
        m = scenarios.get("scatter")
        plan = {e.label: e for e in m.plan(True)}
        self.assertEqual(m.hosts(True), 4)
        self.assertEqual(plan["scatter"].sizes, (50, 4096))
        self.assertEqual(plan["scatter"].ocoll, "scatter")
        self.assertEqual(plan["scatterv5"].coll, "scatterv")
        self.assertIsNone(plan["scatterv5"].ocoll)
        self.assertTrue(plan["scatterv5-mpix"].ccmpi_only)
        self.assertIsNone(plan["scatterv5-mpix"].coll)
        self.assertEqual(plan["scatterv5-init"].coll, "iscatterv")

    def test_full_sizes(self):
        self.assertEqual([e.nprocs for e in scenarios.get("bcast").plan(False)],
                         [2, 4, 8, 12, 16, 20, 24, 29])
        self.assertEqual(scenarios.get("bcast-sizes").plan(False)[0].sizes[-1], 1 << 20)
        is_plan = scenarios.get("npb-is").plan(False)
        self.assertEqual([(e.label, e.nprocs) for e in is_plan],
                         [("is-A", 4), ("is-A", 8), ("is-A", 16), ("is-B", 4), ("is-B", 8),
                          ("is-B", 16)])

    def test_rails(self):
        # multirail runs on two NICs per host, every other scenario on one.
        for name in scenarios.NAMES:
            want = 2 if name == "multirail" else 1
            self.assertEqual(scenarios.rails(scenarios.get(name), False), want, name)
        plan = scenarios.get("multirail").plan(False)
        self.assertEqual([(e.label, e.nprocs) for e in plan], [("bcast", 16), ("alltoall", 16)])
        self.assertEqual((plan[0].sizes[0], plan[0].sizes[-1]), (1, 4 << 20))
        self.assertEqual(plan[1].sizes, (262144,))

    def test_unstructured_test_sets(self):
        # The CM-5 paper's three test sets on 32 hosts, each in five forms.
        m = scenarios.get("unstructured")
        self.assertEqual(m.hosts(False), 32)
        plan = {e.label: e for e in m.plan(False)}
        for d in (4, 8, 16, 24, 31):
            for form in ("", "-fresh", "-nbr", "-nbr-fresh", "-pers"):
                self.assertIn("uniform-d%d%s" % (d, form), plan)
                self.assertIn("nonuniform-d%d%s" % (d, form), plan)
        self.assertEqual(plan["uniform-d31"].sizes, (16, 1024, 16384, 131072))
        self.assertEqual(plan["mesh-53961-fresh"].extra,
                         ("--points", "53961", "--pattern", "fresh"))
        self.assertEqual(plan["mesh-2800-nbr"].coll, "neighbor_alltoallv")
        self.assertIsNone(plan["mesh-2800-nbr"].ocoll)
        self.assertEqual(plan["uniform-d4-pers"].coll, "ialltoallv")
        self.assertIn("persistent", plan["uniform-d4-pers"].extra)
        self.assertEqual(plan["uniform-d4"].ocoll, "alltoallv")
        g = plan["generate-recv-d24"]
        self.assertTrue(g.ccmpi_only)
        self.assertEqual((g.test, g.coll, g.extra), ("generate-recv", "generate_recv",
                                                     ("--degree", "24")))


if __name__ == "__main__":
    unittest.main()
