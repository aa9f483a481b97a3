"""The results of a ccmpi-bench run and what is written from them: results.csv, README.md,
<scenario>.svg (matplotlib, Agg backend) and, for a run into a folder of docs/results, the
scenario's section of docs/results/README.md.

Modules: stats (medians over repetitions), sweep (the stored Open MPI sweep), p2p and coll
(the files of the p2p and of the collective scenarios), plot and front (the section of
docs/results/README.md).
"""


class Results:
    """Everything a run measured. raw rows: p2p (impl, test, size, value, rep);
    collectives (variant, label, nprocs, size, median_us, mean_us, min_us, bound_bytes,
    iters, rep). fails and sweep_fails: (variant, what, rep, exit, message); skipped:
    (variant, label, nprocs, rep); hung: (variant, what, rep); best_used: (label, nprocs,
    size) -> (alg, name); compress (the npb scenario's ccmpi-compress runs): (label,
    nprocs, rep, sent_bytes, sent_wire, compress_s, decompress_s), sums over ranks of
    CCMPI_COMPRESS_STATS; commands: the command lines of the first repetition; facts: the
    machine and the run (keys as the facts file of the bash tool: started, load, cpu,
    kernel, ccmpi, openmpi, mpich, impls, cluster, hosts, rate_bps, rate, reps, quick,
    elapsed, invocation)."""

    def __init__(self, scenario):
        self.scenario = scenario
        self.facts = {}
        self.raw = []
        self.fails = []
        self.sweep_fails = []
        self.skipped = []
        self.hung = []
        self.best_used = {}
        self.compress = []
        self.commands = []


def write(results, out, source):
    """Writes the scenario's files into `out`; returns the names written."""
    if results.scenario == "p2p":
        from . import p2p
        return p2p.write(results, out)
    from . import coll
    return coll.write(results, out, source)
