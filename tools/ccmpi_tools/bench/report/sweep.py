"""The Open MPI sweep: every coll_tuned algorithm on every plan entry, once, stored in
OUT/openmpi-sweep.csv (label,hosts,size,quick,alg,name,median_us; median_us empty when the
run failed) and reused by later runs unless --sweep-openmpi or a size is missing. Rows are
keyed by (label, hosts, size, quick, alg); new rows replace stored ones."""
import os

HEADER = "label,hosts,size,quick,alg,name,median_us"


def load(path):
    """{(label, hosts, size, quick, alg): [fields...]} as strings, {} without a file."""
    rows = {}
    if not os.path.exists(path):
        return rows
    with open(path) as f:
        for line in f.read().splitlines()[1:]:
            fields = line.split(",")
            if len(fields) == 7:
                rows[tuple(fields[:5])] = fields
    return rows


def _q(quick):
    return "1" if quick else "0"


def merge(rows, new):
    """`rows` with the new results (label, hosts, size, quick, alg, name, median_us or None)."""
    out = dict(rows)
    for label, n, size, quick, alg, name, med in new:
        f = [label, str(n), str(size), _q(quick), str(alg), name,
             "" if med is None else "%.2f" % med]
        out[tuple(f[:5])] = f
    return out


def save(path, rows):
    order = sorted(rows, key=lambda k: (k[3], k[0], int(k[1]), int(k[2]), int(k[4])))
    with open(path, "w") as f:
        f.write(HEADER + "\n")
        for k in order:
            f.write(",".join(rows[k]) + "\n")


def has(rows, label, n, sizes, quick):
    """Whether every size of the entry has a time in the stored sweep."""
    for s in sizes:
        if not any(k[0] == label and k[1] == str(n) and k[2] == str(s) and k[3] == _q(quick)
                   and f[6] != "" for k, f in rows.items()):
            return False
    return True


def best_algs(rows, label, n, sizes, quick):
    """[(alg, name, [sizes])]: the fastest algorithm per size, sizes grouped by algorithm,
    in the order of the algorithm numbers."""
    want = {str(s) for s in sizes}
    best = {}
    for k, f in rows.items():
        if k[0] != label or k[1] != str(n) or k[3] != _q(quick) or f[6] == "" or k[2] not in want:
            continue
        t = float(f[6])
        if k[2] not in best or t < best[k[2]][0] or (t == best[k[2]][0] and
                                                     int(k[4]) < int(best[k[2]][1])):
            best[k[2]] = (t, k[4], f[5])
    groups = {}
    for s, (_, alg, name) in best.items():
        groups.setdefault((int(alg), name), []).append(int(s))
    return [(alg, name, sorted(ss)) for (alg, name), ss in sorted(groups.items())]
