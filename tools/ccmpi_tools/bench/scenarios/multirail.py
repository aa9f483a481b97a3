"""multirail: 16 hosts with two NICs each (two switches), MPI_Bcast 1 B..4 MiB and
MPI_Alltoall 256 KiB (issue 24; the multirail seed's comparison of broadcasts)."""
from . import entry

PROGRAM = "coll"
DESC = ("16 hosts with two NICs each, every NIC on a switch of its own (`ccmpi-cluster up "
        "--rails 2`; `--rails 1` for the same on one NIC): MPI_Bcast 1 B–4 MiB, with each of "
        "ccmpi's broadcasts forced (the multirail seed compares chain, binary pipeline, "
        "binomial, van de Geijn (scatter + allgather) and the two-tree pipeline: chain, "
        "binary_tree, binomial, scatter_ring_allgather, two_tree), and MPI_Alltoall of "
        "256 KiB. Open MPI stripes over both NICs (`btl_tcp_if_include` takes the cluster's "
        "whole address range); ccmpi finds both rails by itself.")
BOUND_DOC = ("Over R rails of B each: Bcast M/(R·B) (every receiver must receive the "
             "message); Alltoall (N−1)·s/(R·B).")


def hosts(quick):
    return 4 if quick else 16


def rails(quick):
    return 2


def plan(quick):
    if quick:
        return [entry("bcast", "bcast", 4, (1024, 65536), "bcast", "bcast"),
                entry("alltoall", "alltoall", 4, (16384,), "alltoall", "alltoall")]
    return [entry("bcast", "bcast", 16, (1, 1024, 16384, 65536, 262144, 1048576, 4194304),
                  "bcast", "bcast"),
            entry("alltoall", "alltoall", 16, (262144,), "alltoall", "alltoall")]
