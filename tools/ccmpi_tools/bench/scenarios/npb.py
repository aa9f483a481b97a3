"""npb: the NAS Parallel Benchmarks 3.4 (MPI) BT, SP, LU, MG, FT, CG, EP and IS at class A
on 16 hosts (--quick: class S on 4), built unmodified from the source given with --npb DIR
(not shipped) with each implementation's own mpifort/mpicc; the figure is each benchmark's
own "Time in seconds" (runs whose verification failed are not counted). ccmpi also runs with
CCMPI_COMPRESS=auto (and CCMPI_COMPRESS_STATS=1, whose per-rank byte counts give the
compression ratio, cMPI Table 5). Open MPI best forces the collective that carries the
benchmark's traffic (FT: MPI_Alltoall, IS: MPI_Alltoallv) to the fastest coll_tuned
algorithm of a sweep; BT, SP, LU, MG, CG and EP move their data by point-to-point messages
(their collectives are a few small reductions and broadcasts), so there best = default."""
from . import entry

PROGRAM = "npb"
# The Open MPI coll_tuned collective that carries each benchmark's data (None: point-to-
# point; no best variant).
DOMINANT = {"bt": None, "sp": None, "lu": None, "mg": None, "ft": "alltoall", "cg": None,
            "ep": None, "is": "alltoallv"}
# The compression ratios (original / sent bytes) cMPI's Table 5 reports for BT, SP and LU.
CMPI_RATIO = {"bt": 1.35, "sp": 1.30, "lu": 1.24}
DESC = ("NAS Parallel Benchmarks 3.4 (MPI): BT, SP, LU, MG, FT, CG, EP and IS at class A on "
        "16 hosts, built unmodified from the NPB source given with --npb with each "
        "implementation's mpifort/mpicc; the figure is the benchmark's own \"Time in "
        "seconds\", runs whose verification failed are not counted. ccmpi also runs with "
        "CCMPI_COMPRESS=auto (compression ratio against cMPI's Table 5). Open MPI best "
        "forces the algorithm of the collective carrying the data (FT: MPI_Alltoall, IS: "
        "MPI_Alltoallv, the fastest of a coll_tuned sweep); the others communicate by "
        "point-to-point messages, where best = default.")
BOUND_DOC = ("NPB: no link bound (the benchmark's own \"Time in seconds\", which includes "
             "computation).")


def hosts(quick):
    return 4 if quick else 16


def plan(quick):
    cls, n = ("S", 4) if quick else ("A", 16)
    return [entry("%s-%s" % (b, cls), "npb", n, 0, None, DOMINANT[b], extra=(b, cls))
            for b in ("bt", "sp", "lu", "mg", "ft", "cg", "ep", "is")]
