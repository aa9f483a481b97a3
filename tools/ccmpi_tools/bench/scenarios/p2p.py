"""p2p: 2 hosts, bench/p2p/p2p_bench.c: latency 1 B..64 KiB, bw and bibw 1 KiB..256 KiB
(ccmpi and Open MPI only). Its bound: latency(s) >= s/B one way, bw <= B, bibw <= 2B."""
from . import payload_bps

PROGRAM = "p2p"
OUT = "cluster-p2p"
TESTS = ("latency", "bw", "bibw")
UNITS = {"latency": "us", "bw": "MB/s", "bibw": "MB/s"}
# The sizes of the README's table.
PICK = {"latency": [1, 1024, 4096, 16384, 65536], "bw": [1024, 65536, 262144],
        "bibw": [65536, 262144]}


def hosts(quick):
    return 2


def plan(quick):
    """(test, min size, max size, iterations) per test (p2p_bench: explicit counts, a
    tenth as warm-up)."""
    if quick:
        lat_iters, bw_iters, lat_max, bw_max = 10, 1, 4096, 65536
    else:
        lat_iters, bw_iters, lat_max, bw_max = 100, 4, 65536, 262144
    return [("latency", 1, lat_max, lat_iters), ("bw", 1024, bw_max, bw_iters),
            ("bibw", 1024, bw_max, bw_iters)]


def bound(test, size, rate_bps):
    """The link bound: one-way time in us, or bandwidth in MB/s (10^6 bytes)."""
    b = payload_bps(rate_bps)
    if test == "latency":
        return size * 8 / b * 1e6
    return (2 if test == "bibw" else 1) * b / 8 / 1e6


def of_bound(test, size, value, rate_bps):
    """The share of the bound reached (1 = the link's limit)."""
    b = bound(test, size, rate_bps)
    return b / value if test == "latency" else value / b
