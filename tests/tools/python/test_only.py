"""ccmpi-bench --only: the entries of a scenario's plan whose label the pattern matches."""
import types
import unittest

from ccmpi_tools.bench import runner, scenarios


def plan_of(scenario, only, quick=False):
    fake = types.SimpleNamespace(scenario=scenarios.get(scenario), quick=quick,
                                 o=types.SimpleNamespace(only=only), name=scenario)
    return runner.Runner.plan(fake)


class Only(unittest.TestCase):
    def test_whole_plan_without_pattern(self):
        full = scenarios.get("unstructured").plan(False)
        self.assertEqual(plan_of("unstructured", None), full)

    def test_labels_matching(self):
        got = [e.label for e in plan_of("unstructured", r"^uniform-d(4|16)-fresh$")]
        self.assertEqual(got, ["uniform-d4-fresh", "uniform-d16-fresh"])

    def test_p2p_by_test_name(self):
        self.assertEqual([e[0] for e in plan_of("p2p", "^bw$")], ["bw"])

    def test_no_match_is_an_error(self):
        with self.assertRaises(runner.BenchError):
            plan_of("unstructured", "no-such-entry")


if __name__ == "__main__":
    unittest.main()
