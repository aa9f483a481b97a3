"""bcast: MPI_Bcast of 1 B and 10 KiB on 2..29 hosts (CC-MPI Figures 7-8)."""
from . import entry

PROGRAM = "coll"
DESC = "MPI_Bcast of 1 B and 10 KiB from rank 0 on 2–29 hosts (CC-MPI Figures 7–8)."
BOUND_DOC = "Bcast: every receiver must receive the message: M/B."


def hosts(quick):
    return 4 if quick else 29


def plan(quick):
    ns = (2, 4) if quick else (2, 4, 8, 12, 16, 20, 24, 29)
    return [entry("bcast", "bcast", n, (1, 10240), "bcast", "bcast") for n in ns]
