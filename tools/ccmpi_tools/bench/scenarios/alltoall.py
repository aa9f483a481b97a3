"""alltoall: MPI_Alltoall on 4 and 16 hosts (CC-MPI Figures 11-12)."""
from . import entry

PROGRAM = "coll"
DESC = ("MPI_Alltoall on 4 and 16 hosts, 1 B–1 MiB per pair (CC-MPI Figures 11–12; "
        "the sizes of the figures' axes are not in the text, these cover the range "
        "the text discusses and issue 5's 64 KiB, 256 KiB and 1 MiB).")
BOUND_DOC = "Alltoall: every host must receive (and send) N−1 blocks: (N−1)·s/B."


def hosts(quick):
    return 4 if quick else 16


def plan(quick):
    if quick:
        return [entry("alltoall", "alltoall", n, (1024, 16384), "alltoall", "alltoall")
                for n in (2, 4)]
    s = (1, 1024, 4096, 16384, 65536, 262144, 1048576)
    return [entry("alltoall", "alltoall", n, s, "alltoall", "alltoall") for n in (4, 16)]
