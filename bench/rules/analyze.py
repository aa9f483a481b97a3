#!/usr/bin/env python3
"""Turns the sweep's raw timings into docs/results/coll-rules/: results.csv (median per
cell), README.md (the fastest algorithm per cell, with its time and the runner-up's),
rules.txt (the derived rule table) and rules.svg (time vs size at the largest
communicator size, one panel per collective).

Rules: measured communicator sizes n_1 < n_2 < ... cover the ranges split at the
midpoints between them; measured sizes s_1 < s_2 < ... cover byte ranges split at
2*s_i (the sweep steps by 8x). Adjacent ranges with the same winner are merged. A cell
whose winner is within 5% of the algorithm that won the cell below it keeps that one, so
noise does not fragment the table."""
import csv
import datetime
import os
import platform
import statistics
import subprocess
import sys
from collections import defaultdict


def main():
    raw, out, command = sys.argv[1], sys.argv[2], sys.argv[3]
    cells = defaultdict(list)
    for row in csv.DictReader(open(raw)):
        key = (row["collective"], int(row["ranks"]), int(row["bytes"]), row["algorithm"])
        cells[key].append(float(row["usec"]))
    med = {k: statistics.median(v) for k, v in cells.items()}
    colls = sorted({k[0] for k in med})
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "results.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["collective", "ranks", "bytes", "algorithm", "usec_median", "usec_min",
                    "usec_max", "reps"])
        for k in sorted(med):
            v = cells[k]
            w.writerow([*k, f"{med[k]:.1f}", f"{min(v):.1f}", f"{max(v):.1f}", len(v)])

    rules, md = [], []
    for coll in colls:
        ranks = sorted({k[1] for k in med if k[0] == coll})
        sizes = sorted({k[2] for k in med if k[0] == coll})
        algs = sorted({k[3] for k in med if k[0] == coll})
        md.append(f"\n### {coll}\n")
        md.append("| bytes | " + " | ".join(f"{n} ranks" for n in ranks) + " |")
        md.append("|---:|" + "---|" * len(ranks))
        winners = {}
        for n in ranks:
            prev = None
            for s in sizes:
                times = {a: med[(coll, n, s, a)] for a in algs if (coll, n, s, a) in med}
                if not times:
                    continue
                best = min(times, key=times.get)
                if prev in times and times[prev] <= 1.05 * times[best]:
                    best = prev
                winners[(n, s)] = best
                prev = best
        for s in sizes:
            row = []
            for n in ranks:
                times = {a: med[(coll, n, s, a)] for a in algs if (coll, n, s, a) in med}
                if not times:
                    row.append("")
                    continue
                best = winners[(n, s)]
                others = sorted((t, a) for a, t in times.items() if a != best)
                tail = f"; next {others[0][1]} {others[0][0]:.0f}" if others else ""
                row.append(f"**{best}** {times[best]:.0f} µs{tail}")
            md.append(f"| {s} | " + " | ".join(row) + " |")
        # rule ranges
        for i, n in enumerate(ranks):
            lo = 1 if i == 0 else (ranks[i - 1] + n) // 2 + 1
            hi = "*" if i == len(ranks) - 1 else str((n + ranks[i + 1]) // 2)
            spans = []
            for j, s in enumerate(sizes):
                if (n, s) not in winners:
                    continue
                blo = 0 if j == 0 else 2 * sizes[j - 1] + 1
                bhi = None if j == len(sizes) - 1 else 2 * s
                if spans and spans[-1][2] == winners[(n, s)]:
                    spans[-1][1] = bhi
                else:
                    spans.append([blo, bhi, winners[(n, s)]])
            for blo, bhi, alg in spans:
                br = "*" if blo == 0 and bhi is None else f"{blo}-{'*' if bhi is None else bhi}"
                rules.append(f"{coll:<22} {lo}-{hi:<6} {br:<16} {alg}")

    with open(os.path.join(out, "rules.txt"), "w") as f:
        f.write("# derived by bench/rules/analyze.py; format of CCMPI_COLL_RULES\n")
        f.write("\n".join(rules) + "\n")

    cpu = "unknown"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    with open(os.path.join(out, "README.md"), "w") as f:
        f.write("# How ccmpi's default collective rules were measured\n\n")
        f.write(f"Command: `{command}`  \nDate: {datetime.date.today()}  \n")
        f.write(f"Machine: {os.cpu_count()} cores ({cpu}), {platform.system()} "
                f"{platform.release()}; ranks are processes on this one machine, TCP over "
                "loopback, sharing its cores (16 ranks on 2 cores are oversubscribed).\n\n")
        f.write("Every algorithm of each blocking collective is forced in turn (info hint "
                "`ccmpi_<coll>_algorithm`) and timed by `bench/rules/sweep.c`: mean time per "
                "call over as many calls as fit in the time per cell, the maximum over "
                "ranks; the figure is the median over the repetitions (min/max in "
                "results.csv). Bytes are the whole buffer (bcast, reduce, allreduce) or one "
                "rank's block (gather, scatter, allgather, alltoall, reduce_scatter_block). "
                "Bold: the fastest (a cell keeps the smaller size's winner when that is "
                "within 5%). `rules.txt` is the table derived from it; "
                "`src/coll/rules.cc` holds the rules ccmpi uses by default, taken from it. "
                "On another network or machine, rerun and pass rules.txt as "
                "`CCMPI_COLL_RULES`.\n")
        f.write("\n".join(md) + "\n\n## Derived rules\n\n```\n")
        f.write("\n".join(rules) + "\n```\n\n![time per call](rules.svg)\n")

    # plot: largest communicator size, one panel per collective
    nmax = max(k[1] for k in med)
    dat = os.path.join(out, ".plot.dat")
    script = ["set terminal svg size 1400,1000 dynamic font 'sans,10'",
              f"set output '{os.path.join(out, 'rules.svg')}'",
              f"set multiplot layout 3,3 title 'ccmpi collective algorithms, {nmax} ranks, "
              "time per call (us) vs bytes'",
              "set logscale xy", "set key top left font ',8'", "set grid"]
    with open(dat, "w") as f:
        idx = 0
        for coll in colls:
            algs = sorted({k[3] for k in med if k[0] == coll and k[1] == nmax})
            plots = []
            for a in algs:
                pts = sorted((k[2], v) for k, v in med.items()
                             if k[0] == coll and k[1] == nmax and k[3] == a)
                if not pts:
                    continue
                f.write(f"# {coll} {a}\n" + "".join(f"{s} {t}\n" for s, t in pts) + "\n\n")
                plots.append(f"'{dat}' index {idx} with linespoints title '{a}'")
                idx += 1
            if plots:
                script.append(f"set title '{coll}'")
                script.append("plot " + ", ".join(plots))
    script.append("unset multiplot")
    try:
        subprocess.run(["gnuplot"], input="\n".join(script), text=True, check=True)
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"analyze.py: no plot ({e})", file=sys.stderr)
    os.remove(dat)


if __name__ == "__main__":
    main()
