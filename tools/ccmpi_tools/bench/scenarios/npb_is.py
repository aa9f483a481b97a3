"""npb-is: NPB IS classes A and B on 4, 8, 16 hosts (CC-MPI Table 4), built from the NPB MPI
source given with --npb DIR (not shipped); its own "Time in seconds". IS's traffic is its
MPI_Alltoallv of the keys: the forced variants force the Alltoallv algorithm."""
from . import entry

PROGRAM = "npb"
DESC = ("NAS Parallel Benchmarks IS (integer sort: MPI_Alltoall + MPI_Alltoallv) "
        "classes A and B on 4, 8, 16 hosts (CC-MPI Table 4), built from the NPB source "
        "given with --npb with each implementation's mpicc; the figure is IS's own "
        "\"Time in seconds\", runs whose verification failed are not counted. The "
        "forced variants (ccmpi's and Open MPI's best) force the Alltoallv algorithm, "
        "which carries IS's keys.")
BOUND_DOC = ("NPB IS: no link bound (the benchmark's own \"Time in seconds\", which "
             "includes computation).")


def hosts(quick):
    return 4 if quick else 16


def plan(quick):
    if quick:
        return [entry("is-S", "is", 4, 0, "alltoallv", "alltoallv", extra=("S",))]
    return [entry("is-%s" % c, "is", n, 0, "alltoallv", "alltoallv", extra=(c,))
            for c in "AB" for n in (4, 8, 16)]
