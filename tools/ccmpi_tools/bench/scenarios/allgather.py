"""allgather: 16 hosts, MPI_Allgather 1 B..256 KiB (CC-MPI Table 1)."""
from . import entry

PROGRAM = "coll"
DESC = "MPI_Allgather on 16 hosts, 1 B–256 KiB per rank (CC-MPI Table 1)."
BOUND_DOC = "Allgather: every host must receive the other N−1 blocks: (N−1)·s/B."


def hosts(quick):
    return 4 if quick else 16


def plan(quick):
    if quick:
        return [entry("allgather", "allgather", 4, (1, 1024, 65536), "allgather", "allgather")]
    return [entry("allgather", "allgather", 16, (1, 1024, 8192, 65536, 262144), "allgather",
                  "allgather")]
