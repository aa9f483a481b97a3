"""scatter: 29 hosts: MPI_Scatter 50 B..64 KiB (Figure 9) and MPI_Scatterv from the root to
5 of the 29 ranks (Figure 10), also with ccmpi's compiler-assisted MPIX_Scatterv_* calls.

scatterv5-mpix: the scatterv5 traffic through MPIX_Scatterv_open_group / _data_movement /
_close_group (mpix_ccmpi.h), so ccmpi only (-mcast: the data always by multicast, else by
multicast or TCP, whichever is cheaper). scatterv5-init: the same as an MPI-4 persistent
collective (MPI_Scatterv_init), ccmpi's algorithms forced (mcast_group: the request owns
the receivers' group)."""
from . import entry

PROGRAM = "coll"
DESC = ("MPI_Scatter from rank 0 on 29 hosts (CC-MPI Figure 9) and MPI_Scatterv from "
        "rank 0 to 5 of the 29 ranks (4, 9, 14, 19, 24; Figure 10); size = bytes per "
        "receiver. Figure 10's comparison is the table \"Figure 10\" below: "
        "ccmpi's compiler-assisted Scatterv (test scatterv5-mpix: "
        "MPIX_Scatterv_open_group once per size outside the timing, then "
        "MPIX_Scatterv_data_movement by the root and the 5 receivers, ccmpi only), "
        "the static group (MPI_Scatterv forced to `mcast`: the aggregate multicast to "
        "all 29 ranks), the dynamic group (forced to `mcast_dynamic`: a group of the "
        "receivers made and destroyed in every call), ccmpi's unicast algorithms "
        "(`linear`, `binomial`) and automatic choice, Open MPI and MPICH.")
BOUND_DOC = ("Scatter: the root must send N−1 blocks: (N−1)·s/B; Scatterv to 5 ranks "
             "(also compiler-assisted): 5·s/B.")


def hosts(quick):
    return 4 if quick else 29


def plan(quick):
    n = hosts(quick)
    s = (50, 4096) if quick else (50, 1024, 4096, 16384, 65536)
    return [entry("scatter", "scatter", n, s, "scatter", "scatter"),
            entry("scatterv5", "scatterv5", n, s, "scatterv", None),
            entry("scatterv5-mpix", "scatterv5-mpix", n, s, ccmpi_only=True),
            entry("scatterv5-mpix-mcast", "scatterv5-mpix-mcast", n, s, ccmpi_only=True),
            entry("scatterv5-init", "scatterv5-init", n, s, "iscatterv", ccmpi_only=True)]
