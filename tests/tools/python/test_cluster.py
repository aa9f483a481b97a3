"""ccmpi-cluster's state file, exec command line and check arithmetic, and ccmpi-bench's
parsing of the implementations' algorithm lists, launch lines and run order (no root
needed: nothing here touches the network)."""
import os
import tempfile
import unittest
from unittest import mock

from ccmpi_tools.bench import autorate
from ccmpi_tools.bench import implementations as impls
from ccmpi_tools.bench import runner
from ccmpi_tools.cluster import check, execute, state


class State(unittest.TestCase):
    def test_config_round_trip(self):
        with tempfile.TemporaryDirectory() as d, mock.patch.object(state, "STATE_ROOT", d):
            os.makedirs(os.path.join(d, "t1"))
            cfg = state.Config(status="up", hosts=3, rails=2, rate="100mbit", delay="0",
                               loss="0.5%", owner_pid="", subnet_base=7, gso="off")
            cfg.save("t1")
            with open(os.path.join(d, "t1", "config")) as f:
                text = f.read()
            # Shell syntax, as scripts and tests read it.
            self.assertIn("cfg_status=up\n", text)
            self.assertIn("cfg_owner_pid=''\n", text)
            self.assertIn("cfg_bucket=2\n", text)
            back = state.Config.load("t1")
            self.assertEqual((back.n_hosts, back.n_rails, back.base), (3, 2, 7))
            self.assertEqual((back.loss, back.owner_pid, back.gso), ("0.5%", "", "off"))
            self.assertIsNone(state.Config.load("t2"))
            self.assertEqual(state.cluster_names(), ["t1"])

    def test_names(self):
        self.assertEqual(state.subnet_prefix(0), "198.18.0")
        self.assertEqual(state.subnet_prefix(257), "198.19.1")
        self.assertEqual(state.netns_cluster("ccmpi-emu-h12"), "emu")
        self.assertEqual(state.netns_cluster("ccmpi-emu-sw"), "emu")
        self.assertIsNone(state.netns_cluster("ccmpi-emu-x1"))
        self.assertIsNone(state.netns_cluster("other"))


class Exec(unittest.TestCase):
    def test_command_line(self):
        argv = execute.command_line("emu-h2", ["echo", "a", "&&", "echo", "b"])
        self.assertEqual(argv[:7], ["ip", "netns", "exec", "ccmpi-emu-h2", "unshare", "--uts",
                                    "--"])
        self.assertEqual(argv[7:9], ["bash", "-c"])
        self.assertNotIn("CCMPI_LINK_MBITS", " ".join(argv))
        self.assertEqual(argv[-1], "printf %s emu-h2 >/proc/sys/kernel/hostname || exit 1; "
                                   "echo a && echo b")

    def test_hosts(self):
        with tempfile.TemporaryDirectory() as d, mock.patch.object(execute, "NETNS_DIR", d):
            open(os.path.join(d, "ccmpi-emu-h2"), "w").close()
            open(os.path.join(d, "ccmpi-big-h2"), "w").close()
            self.assertEqual(execute.resolve_host("h2", ""), "emu-h2")
            self.assertEqual(execute.resolve_host("2", "big"), "big-h2")
            self.assertEqual(execute.resolve_host("big-h2", "big"), "big-h2")
            with self.assertRaisesRegex(state.ClusterError, "no host 'emu-h9'"):
                execute.resolve_host("emu-h9", "")
            with self.assertRaisesRegex(state.ClusterError, "not in cluster big"):
                execute.resolve_host("emu-h2", "big")


class Check(unittest.TestCase):
    def checker(self, tolerance="5"):
        o = check.CheckOptions()
        o.tolerance = tolerance
        cfg = state.Config(rate="20mbit", hosts=2, rails=1, subnet_base=0)
        return check.Checker("t", cfg, "/bin/false", o, "/nonexistent")

    def test_within(self):
        c = self.checker()
        self.assertEqual(c.within(19.2e6), ("96.0", True))
        self.assertEqual(c.within(18.9e6), ("94.5", False))
        self.assertEqual(c.within(21.1e6), ("105.5", False))
        # The retry keeps the pair whose worse figure is nearer the rate.
        self.assertTrue(c.closer(19.9e6, 19.5e6, 20e6, 15e6))
        self.assertFalse(c.closer(19.9e6, 15e6, 20e6, 16e6))


OMPI_INFO = """\
          MCA coll tuned: parameter "coll_tuned_scatter_algorithm" (current value: "ignore")
                          Which scatter algorithm is used.
                          Valid values: 0:"ignore", 1:"basic_linear", 2:"binomial", 3:"linear_nb"
          MCA coll tuned: parameter "coll_tuned_scatter_algorithm_segmentsize" (current value: "0")
"""

CCMPI_INFO = """\
Collective algorithms.

  bcast  [CCMPI_BCAST_ALGORITHM=auto]
    binomial                 a tree
    mcast                    multicast
                             tunables: CCMPI_MCAST_MBITS
    rules (ranks, bytes, algorithm):
      bcast                  *        *            binomial

  scatter  [CCMPI_SCATTER_ALGORITHM=auto]
    linear                   root sends each block
"""


class Implementations(unittest.TestCase):
    def test_algorithm_lists(self):
        self.assertEqual(impls.parse_openmpi_algorithms(OMPI_INFO, "scatter"),
                         [(1, "basic_linear"), (2, "binomial"), (3, "linear_nb")])
        self.assertEqual(impls.parse_openmpi_algorithms(OMPI_INFO, "bcast"), [])
        self.assertEqual(impls.parse_ccmpi_algorithms(CCMPI_INFO, "bcast"), ["binomial", "mcast"])
        self.assertEqual(impls.parse_ccmpi_algorithms(CCMPI_INFO, "scatter"), ["linear"])

    def test_launch_lines(self):
        la = impls.Launcher("/b", "/b/bin/ccmpi-cluster", "bench7", "/run/x/hostfile", "/w/agent")
        self.assertEqual(la.launch("ccmpi", 4), [
            "/b/bin/mpirun", "--hostfile", "/run/x/hostfile", "--launcher",
            "/b/bin/ccmpi-cluster exec", "--iface", "r0", "-n", "4"])
        ompi = la.variant("openmpi-best", 4, "scatter", "scatter", 2)
        self.assertEqual(ompi[:3], ["/b/bin/ccmpi-cluster", "exec", "bench7-h1"])
        text = " ".join(ompi)
        self.assertIn("--mca btl tcp,self", text)
        self.assertIn("--mca mpi_yield_when_idle 1", text)
        self.assertTrue(text.endswith("--mca coll_tuned_use_dynamic_rules 1 --mca "
                                      "coll_tuned_scatter_algorithm 2"))
        self.assertEqual(la.variant("ccmpi:mcast", 4, "scatterv")[-2:],
                         ["--env", "CCMPI_SCATTERV_ALGORITHM=mcast"])
        mpich = la.launch("mpich", 3)
        self.assertIn("/run/x/hostfile.mpich", mpich)
        self.assertEqual(mpich[mpich.index("-launcher-exec") + 1], "/w/agent")
        self.assertEqual(impls.impl_of("openmpi-sweep"), "openmpi")
        self.assertEqual(impls.impl_of("ccmpi:ring"), "ccmpi")

    def test_order(self):
        v = ["ccmpi", "ccmpi:a", "ccmpi:b", "openmpi", "mpich"]
        self.assertEqual(runner.order(v, "1 scatter 4"), runner.order(v, "1 scatter 4"))
        self.assertEqual(sorted(runner.order(v, "2 scatter 4")), sorted(v))
        self.assertNotEqual([runner.order(v, "%d x 4" % r) for r in range(5)],
                            [v] * 5)

    def test_progress(self):
        p = runner.Progress(10, 0, 0.0)
        self.assertEqual(p.prefix(), "[1/10]")
        self.assertEqual(p.left(), "")
        self.assertEqual(runner.fmt_duration(42), "42 s")
        self.assertEqual(runner.fmt_duration(600), "10 min")
        self.assertEqual(runner.fmt_duration(3700), "1 h 02 min")


class AutoRate(unittest.TestCase):
    def test_search_up(self):
        # 100mbit and 200mbit hold, 400mbit does not: 200mbit, without trying 1gbit.
        rate, tried = autorate.search(autorate.CANDIDATES, autorate.START,
                                      lambda r: r in ("10mbit", "100mbit", "200mbit"))
        self.assertEqual(rate, "200mbit")
        self.assertEqual(tried, [("100mbit", True), ("200mbit", True), ("400mbit", False)])
        self.assertEqual(autorate.describe(rate, tried),
                         "200mbit, chosen by --rate auto (ccmpi-cluster check --parallel HOSTS "
                         "--tolerance 3%: 100mbit held, 200mbit held, 400mbit off)")

    def test_search_down_and_none(self):
        rate, tried = autorate.search(autorate.CANDIDATES, autorate.START,
                                      lambda r: r == "25mbit")
        self.assertEqual(rate, "25mbit")
        self.assertEqual([r for r, _ in tried], ["100mbit", "50mbit", "25mbit"])
        # Two rails: the check loads both at once, and says so.
        rate, tried = autorate.search(autorate.CANDIDATES, autorate.START,
                                      lambda r: r in ("10mbit", "12.5mbit"))
        self.assertEqual(rate, "12.5mbit")
        self.assertEqual(autorate.describe(rate, tried, 2),
                         "12.5mbit, chosen by --rate auto (ccmpi-cluster check --parallel HOSTS "
                         "--all-rails --tolerance 3%: 100mbit off, 50mbit off, 25mbit off, "
                         "12.5mbit held)")
        self.assertEqual(autorate.search(autorate.CANDIDATES, autorate.START, lambda r: False)[0],
                         None)
        everything = autorate.search(autorate.CANDIDATES, autorate.START, lambda r: True)
        self.assertEqual(everything[0], "1gbit")


if __name__ == "__main__":
    unittest.main()
