"""bcast-sizes: 16 hosts, MPI_Bcast 1 B..1 MiB."""
from . import entry

PROGRAM = "coll"
DESC = ("MPI_Bcast from rank 0 on 16 hosts, 1 B–1 MiB: how each algorithm "
        "(ccmpi's mcast among them) scales with the message size.")
BOUND_DOC = "Bcast: every receiver must receive the message: M/B."


def hosts(quick):
    return 4 if quick else 16


def plan(quick):
    if quick:
        return [entry("bcast", "bcast", 4, (1024, 65536), "bcast", "bcast")]
    return [entry("bcast", "bcast", 16, (1, 1024, 4096, 16384, 65536, 262144, 1048576), "bcast",
                  "bcast")]
