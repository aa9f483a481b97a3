"""unstructured: 24 hosts, the CM-5 paper's test sets 1 and 2: MPI_Alltoallv in which every
host sends to d random others (d = 4, 8, 16), uniform sizes (msg_unit) and non-uniform
(msg_unit x 1..32)."""
from . import entry

PROGRAM = "coll"
DESC = ("The CM-5 paper's all-to-many personalized patterns as MPI_Alltoallv on "
        "24 hosts: every host sends to d others and receives from d others (a "
        "union of d random derangements, fixed seed), d = 4, 8, 16; uniform: "
        "every message is msg_unit bytes (test set 1), non-uniform: msg_unit × "
        "(1..32, random per pair) bytes (test set 2). size = msg_unit.")
BOUND_DOC = ("Unstructured (Alltoallv with a sparse pattern): the largest number of "
             "bytes one host sends or receives, divided by B.")


def hosts(quick):
    return 4 if quick else 24


def plan(quick):
    if quick:
        return [entry("uniform-d2", "uniform", 4, 1024, "alltoallv", "alltoallv",
                      extra=("--degree", "2")),
                entry("nonuniform-d2", "nonuniform", 4, 256, "alltoallv", "alltoallv",
                      extra=("--degree", "2"))]
    p = []
    for d in (4, 8, 16):
        p.append(entry("uniform-d%d" % d, "uniform", 24, (16, 1024, 16384, 131072), "alltoallv",
                       "alltoallv", extra=("--degree", str(d))))
        p.append(entry("nonuniform-d%d" % d, "nonuniform", 24, (16, 256, 4096), "alltoallv",
                       "alltoallv", extra=("--degree", str(d))))
    return p
