"""The scenarios of ccmpi-bench, one module each. A scenario declares the cluster's size,
its plan (the program runs of one repetition, full or --quick), what it measures (`desc`)
and its link bound (`bound_doc`; the bytes come from coll_bench's BOUND_BYTES, the p2p
scenario computes its own).

The link bound: a cable of line rate R carries at most B = R x 1448/1538 bits/s of TCP
payload (MSS 1448 bytes in frames of 1538 bytes on the wire: 1500 + 14 header + 24
preamble, FCS and inter-frame gap), per direction.
"""
import collections
import importlib

MSS = 1448
FRAME_ON_WIRE = 1538

# One program run of a plan. coll: the collective whose ccmpi algorithms are forced (None:
# none); ocoll: Open MPI's coll_tuned name (None: no tuned sweep); ccmpi_only: the entry
# runs for ccmpi alone (a test of ccmpi's extensions); extra: more coll_bench options, or
# for NPB IS the class.
Entry = collections.namedtuple("Entry", "label test nprocs sizes coll ocoll ccmpi_only extra")


def entry(label, test, nprocs, sizes, coll=None, ocoll=None, ccmpi_only=False, extra=()):
    if isinstance(sizes, int):
        sizes = (sizes,)
    return Entry(label, test, nprocs, tuple(sizes), coll, ocoll, ccmpi_only, tuple(extra))


def payload_bps(rate_bps):
    """TCP payload bits/s of one direction of a cable at line rate `rate_bps`."""
    return rate_bps * MSS / FRAME_ON_WIRE


def bound_us(bound_bytes, rate_bps, rails=1):
    """The time (us) to carry `bound_bytes` of payload over one cable, or over `rails`
    cables of a host at once (a NIC per switch); None without a bound (0 bytes: no bound,
    e.g. NPB IS)."""
    if not bound_bytes or bound_bytes <= 0 or not rate_bps:
        return None
    return bound_bytes / (payload_bps(rate_bps) * max(1, rails) / 8) * 1e6


NAMES = ("p2p allgather alltoall alltoallv bcast bcast-sizes scatter unstructured "
         "npb-is npb multirail").split()


def rails(scenario, quick):
    """The NICs per host a scenario's cluster has (`rails(quick)` in its module; 1)."""
    fn = getattr(scenario, "rails", None)
    return fn(quick) if fn else 1


def get(name):
    """The scenario module of `name` (p2p, bcast-sizes, npb-is, ...)."""
    if name not in NAMES:
        raise KeyError(name)
    return importlib.import_module("." + name.replace("-", "_"), __name__)


def sizes_str(sizes):
    return ",".join(str(s) for s in sizes)
