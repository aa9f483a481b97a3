"""unstructured: 32 hosts, the CM-5 paper's three test sets (issue: unstructured
communication): every host sends to d random others with uniform sizes (test set 1) or
non-uniform ones (test set 2), and the halo exchange of an unstructured mesh split into 32
parts (test set 3), each as MPI_Alltoallv and as MPI_Neighbor_alltoallv, with one pattern
reused and with a new pattern at every call, and as a persistent MPI_Alltoallv_init
(reused). ccmpi's algorithms are forced one by one: linear (the paper's AC), pairwise
(LP), rs_n, rs_nh, drs_n, phased; the persistent form forces the ialltoallv table."""
from . import entry

PROGRAM = "coll"
DESC = ("The CM-5 paper's unstructured patterns on 32 hosts. Test set 1 (uniform-dD): "
        "every host sends msg_unit bytes to d random others (a union of d random "
        "derangements), d = 4, 8, 16, 24, 31. Test set 2 (nonuniform-dD): msg_unit × "
        "(1..32, random per pair). Test set 3 (mesh-P): a random geometric mesh of P points "
        "(average degree 6) split into 32 parts by recursive coordinate bisection; a part "
        "sends msg_unit bytes per boundary point to each neighbouring part (the raw output's "
        "'stats' lines give messages per rank and sizes). Suffixes: -fresh a new pattern at "
        "every call (8 patterns in turn; the neighbourhood form creates its graph inside the "
        "timing), -nbr MPI_Neighbor_alltoallv on a distributed graph, -pers a persistent "
        "MPI_Alltoallv_init (MPI 4.0: not Open MPI 4.1). size = msg_unit. generate-recv-dD: "
        "MPIX_Generate_recv alone on the uniform pattern (ccmpi; the paper's Table 3 compares "
        "its am and concat algorithms).")
BOUND_DOC = ("Unstructured (a sparse pattern): the largest number of bytes one host sends or "
             "receives (mean over the patterns of a -fresh run), divided by B.")

DEGREES = (4, 8, 16, 24, 31)
MESHES = (2800, 9428, 53961)


def hosts(quick):
    return 4 if quick else 32


def _forms(label, test, n, sizes, extra):
    """The entries of one pattern family: Alltoallv reused and fresh, the neighbourhood
    form reused and fresh, the persistent form (reused)."""
    out = []
    for pattern in ("reused", "fresh"):
        tail = "" if pattern == "reused" else "-fresh"
        out.append(entry(label + tail, test, n, sizes, "alltoallv", "alltoallv",
                         extra=extra + ("--pattern", pattern)))
        out.append(entry(label + "-nbr" + tail, test, n, sizes, "neighbor_alltoallv", None,
                         extra=extra + ("--pattern", pattern, "--form", "neighbor")))
    out.append(entry(label + "-pers", test, n, sizes, "ialltoallv", None,
                     extra=extra + ("--pattern", "reused", "--form", "persistent")))
    return out


def _generate_recv(d, n):
    """MPIX_Generate_recv on the uniform pattern of degree d (ccmpi only; its am and concat
    algorithms forced: the paper's Table 3)."""
    return entry("generate-recv-d%d" % d, "generate-recv", n, (1,), "generate_recv", None,
                 ccmpi_only=True, extra=("--degree", str(d)))


def plan(quick):
    if quick:
        return (_forms("uniform-d2", "uniform", 4, (1024,), ("--degree", "2")) +
                _forms("mesh-2800", "mesh", 4, (64,), ("--points", "2800")) +
                [_generate_recv(2, 4)])
    p = [_generate_recv(d, 32) for d in DEGREES]
    for d in DEGREES:
        p += _forms("uniform-d%d" % d, "uniform", 32, (16, 1024, 16384, 131072),
                    ("--degree", str(d)))
        p += _forms("nonuniform-d%d" % d, "nonuniform", 32, (16, 256, 4096),
                    ("--degree", str(d)))
    for pts in MESHES:
        p += _forms("mesh-%d" % pts, "mesh", 32, (8, 64, 1024), ("--points", str(pts)))
    return p
