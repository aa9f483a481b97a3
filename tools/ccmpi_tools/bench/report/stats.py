"""Summaries over repetitions: every figure is the median over the repetitions, with the
minimum and maximum."""
import collections
import statistics

Summary = collections.namedtuple("Summary", "median min max reps")


def summarise(pairs):
    """{key: Summary} from (key, value) pairs."""
    vals = collections.defaultdict(list)
    for key, v in pairs:
        vals[key].append(v)
    return {k: Summary(statistics.median(v), min(v), max(v), len(v)) for k, v in vals.items()}
