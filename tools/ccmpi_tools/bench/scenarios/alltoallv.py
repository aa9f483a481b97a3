"""alltoallv: 16 hosts, MPI_Alltoallv all-to-all 2..64 KiB (CC-MPI Table 2) and the random
pattern 160 x 64 KiB, 20 x 16 KiB, 60 x 100 B (Table 3, fixed seed), also by the four
methods of CC-MPI Tables 2-3 (mpix_ccmpi.h: point-to-point, Levels 1, 2, 3; ccmpi only)."""
from . import entry

PROGRAM = "coll"
DESC = ("MPI_Alltoallv on 16 hosts: all-to-all pattern 2–64 KiB per pair (CC-MPI "
        "Table 2) and the random pattern of Table 3: every ordered pair one "
        "message, 160 × 64 KiB, 20 × 16 KiB, 60 × 100 B, shuffled with a fixed "
        "seed (coll_bench --seed 20031) so every implementation gets the same "
        "pattern; the random pattern also by the four methods of CC-MPI Tables "
        "2-3 (ccmpi's mpix_ccmpi.h: point-to-point, Levels 1, 2, 3), in the "
        "table \"Tables 2-3\" below.")
BOUND_DOC = ("Alltoallv: the largest number of bytes one host sends or receives, divided "
             "by B (all-to-all pattern: (N−1)·s/B; random pattern: computed from the "
             "pattern).")
LEVELS = ("p2p", "l1", "l2", "l3", "c1", "c2")


def hosts(quick):
    return 4 if quick else 16


def plan(quick):
    n = hosts(quick)
    sizes = (2048, 16384) if quick else (2048, 4096, 8192, 16384, 32768, 65536)
    p = [entry("alltoallv", "alltoallv", n, sizes, "alltoallv", "alltoallv"),
         entry("alltoallv-random", "alltoallv-random", n, 0, "alltoallv", "alltoallv")]
    # The random pattern by the four methods of CC-MPI Tables 2-3, ccmpi only.
    p += [entry("alltoallv-random-" + lv, "alltoallv-random-" + lv, n, 0, ccmpi_only=True)
          for lv in LEVELS]
    return p
