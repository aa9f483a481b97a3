"""ccmpi_tools.runs: a watched run exits, times out, is stopped after its output is complete,
and is killed when it ignores SIGTERM (short sleeps; a few seconds in all)."""
import os
import signal
import tempfile
import unittest

from ccmpi_tools import runs


class RunWatched(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.out = os.path.join(self.dir.name, "out")

    def tearDown(self):
        self.dir.cleanup()

    def run_sh(self, script, **kw):
        with open(self.out, "w") as out:
            return runs.run_watched(["sh", "-c", script], out, out, every=0.05, **kw)

    def test_exit_status_and_output(self):
        self.assertEqual(self.run_sh("echo hi; exit 3", timeout=30), (3, False, False))
        with open(self.out) as f:
            self.assertEqual(f.read(), "hi\n")

    def test_timeout_stops_the_group(self):
        rc, timed_out, hung = self.run_sh("sleep 30", timeout=0.3, grace=5)
        self.assertEqual((rc, timed_out, hung), (-signal.SIGTERM, True, False))

    def test_hung_after_output(self):
        def done():
            with open(self.out) as f:
                return "done" in f.read()
        rc, timed_out, hung = self.run_sh("echo done; sleep 30", timeout=30, done=done,
                                          hung_after=0.3, grace=5)
        self.assertTrue(hung)
        self.assertFalse(timed_out)
        self.assertEqual(rc, -signal.SIGTERM)

    def test_sigkill_when_sigterm_is_ignored(self):
        rc, timed_out, _ = self.run_sh("trap '' TERM; sleep 30", timeout=0.3, grace=0.3)
        self.assertTrue(timed_out)
        self.assertEqual(rc, -signal.SIGKILL)

    def test_interrupt_stops_the_group(self):
        # An exception in the caller while the run goes (here: from done(), as SIGTERM's
        # KeyboardInterrupt would come) stops the run's process group, then goes on.
        seen = []

        def interrupted():
            raise KeyboardInterrupt

        with self.assertRaises(KeyboardInterrupt):
            self.run_sh("sleep 30", timeout=30, done=interrupted, grace=5, started=seen.append)
        self.assertEqual(seen[0].returncode, -signal.SIGTERM)

    def test_started_sees_the_process(self):
        seen = []
        self.run_sh("exit 0", timeout=30, started=seen.append)
        self.assertEqual(len(seen), 1)
        self.assertEqual(seen[0].returncode, 0)


class MachineFacts(unittest.TestCase):
    def test_load_and_cpu(self):
        self.assertEqual(len(runs.load_averages().split()), 3)
        self.assertGreaterEqual(runs.loadavg(), 0.0)
        self.assertTrue(runs.cpu_model())


if __name__ == "__main__":
    unittest.main()
