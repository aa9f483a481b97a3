"""Summary of bench/osu-coll/run.sh: reads the scratch directory (raw.tsv, failures.tsv,
choices.tsv, facts, commands) and writes, for a measured run, results.csv, README.md and
the gnuplot script of osu-coll.svg; for a sweep, openmpi_sweep.csv, openmpi_best.csv,
ccmpi_sweep.csv and sweep.md.

usage: summarise.py WORK OUT_DIR COMMON_DIR"""
import collections
import csv
import os
import statistics
import sys

work, out, common = sys.argv[1:4]
sys.path.insert(0, common)
from report import failures_section, fmt, machine_section, read_facts, read_tsv  # noqa: E402

facts = read_facts(work)
quick = facts["quick"] == "1"
vals = collections.defaultdict(list)
for variant, coll, ranks, size, value, _rep in read_tsv(os.path.join(work, "raw.tsv")):
    vals[(variant, coll, int(ranks), int(size))].append(float(value))
stats = {k: (statistics.median(v), min(v), max(v), len(v)) for k, v in vals.items()}
fails = read_tsv(os.path.join(work, "failures.tsv"))
commands = [l.rstrip("\n") for l in open(os.path.join(work, "commands")) if l.strip()]
choices = {(c, int(n), int(s)): (alg, how)
           for c, n, s, alg, how in read_tsv(os.path.join(work, "choices.tsv"))}
ompi_names = {}
for key, value in facts.items():
    if key.startswith("ompi_algs_"):
        for e in value.split():
            n, name = e.split(":", 1)
            ompi_names[(key[len("ompi_algs_"):], n)] = name
ompi_names_default = "default rules"
coll_order = ["bcast", "allreduce", "alltoall", "allgather"]
points = sorted({k[1:] for k in stats} | {(f[1], int(f[2]), int(f[3])) for f in fails},
                key=lambda p: (p[1], coll_order.index(p[0]) if p[0] in coll_order else 99, p[2]))


def size_name(s):
    return "%d MiB" % (s >> 20) if s >= 1 << 20 else "%d KiB" % (s >> 10) if s >= 1024 else "%d B" % s


def med(key):
    s = stats.get(key)
    return s[0] if s else None


def quick_note():
    return (["**QUICK smoke run: few iterations on a loaded machine. These numbers only show",
              "that the harness works; they are not a measurement.**", ""] if quick else [])


def runs_section(title):
    lines = ["## %s" % title, "", "```", facts["invocation"], "```", "",
             "Per variant (first repetition):", "", "```"]
    lines += [c.replace(work, "$WORK") for c in commands]
    lines += ["```", "",
              "Iterations (size:iterations:warm-up, OSU `-i`/`-x`): `%s`; MPICH runs 1/%s of"
              " them (at least 3) and is capped at %s s per invocation, the others at %s s."
              % (facts["iters"], facts["mpich_iter_div"], facts["mpich_timeout"],
                 facts["run_timeout"]), ""]
    return lines


def read_csv(name):
    path = os.path.join(out, name)
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return list(csv.DictReader(f))


def ccmpi_sweep_best():
    """(coll, ranks, size) -> (algorithm, median) of the fastest forced ccmpi algorithm."""
    best = {}
    for r in read_csv("ccmpi_sweep.csv"):
        if r["algorithm"] == "auto" or not r["median_us"]:
            continue
        k = (r["coll"], int(r["ranks"]), int(r["size"]))
        if k not in best or float(r["median_us"]) < best[k][1]:
            best[k] = (r["algorithm"], float(r["median_us"]))
    return best


build_help = """## Building the OSU trees

The script does not fetch or build OSU. Build it out of the source tree once per
implementation (OSU Micro-Benchmarks 7.4 unpacked in $OSU_SRC, ccmpi built in $BUILD; only
the four collective programs are needed). Rebuild the ccmpi tree when ccmpi's mpi.h changes:

```
for impl in ccmpi openmpi mpich; do
  case $impl in ccmpi) cc=$BUILD/bin/mpicc cxx=$BUILD/bin/mpicxx ;;
    openmpi) cc=mpicc.openmpi cxx=mpicxx.openmpi ;; mpich) cc=mpicc.mpich cxx=mpicxx.mpich ;; esac
  mkdir -p $OSU_BUILDS/$impl &&
  (cd $OSU_BUILDS/$impl && $OSU_SRC/configure CC=$cc CXX=$cxx &&
   make -C c/mpi/collective/blocking osu_bcast osu_allreduce osu_alltoall osu_allgather)
done
bench/osu-coll/run.sh --sweep $BUILD $OSU_BUILDS   # once: openmpi_best.csv, sweep.md
bench/osu-coll/run.sh $BUILD $OSU_BUILDS           # the measured run
```
"""


def spread_note():
    """One sentence on how much repetitions of the same invocation differed."""
    ratios = sorted(s[2] / s[1] for s in stats.values() if s[3] > 1 and s[1] > 0)
    if not ratios:
        return []
    return ["Repetitions of the same invocation differed by a factor (max/min) of %.2f in the"
            " median and %.2f at worst over all points and variants: the machine was shared with"
            " other jobs (see the load average below), so differences smaller than that are"
            " within the noise." % (statistics.median(ratios), ratios[-1]), ""]


def summarise_sweep():
    sweep = facts["sweep"]
    if sweep in ("1", "openmpi"):
        rows = []
        for (variant, coll, n, size), s in stats.items():
            impl, _, alg = variant.partition(":")
            if impl != "openmpi":
                continue
            alg = alg or "0"
            name = ompi_names.get((coll, alg), ompi_names_default)
            rows.append((coll_order.index(coll), n, size, int(alg), coll, name) + s)
        rows.sort()
        with open(os.path.join(out, "openmpi_sweep.csv"), "w") as f:
            f.write("coll,ranks,size,algorithm,name,median_us,min_us,max_us,reps\n")
            for _, n, size, alg, coll, name, m, lo, hi, k in rows:
                f.write("%s,%d,%d,%d,%s,%.2f,%.2f,%.2f,%d\n" % (coll, n, size, alg, name, m, lo, hi, k))
        best = {}
        for _, n, size, alg, coll, name, m, *_ in rows:
            if alg > 0 and ((coll, n, size) not in best or m < best[(coll, n, size)][2]):
                best[(coll, n, size)] = (alg, name, m)
        with open(os.path.join(out, "openmpi_best.csv"), "w") as f:
            f.write("coll,ranks,size,algorithm,name,median_us\n")
            for (coll, n, size), (alg, name, m) in sorted(
                    best.items(), key=lambda kv: (coll_order.index(kv[0][0]), kv[0][1], kv[0][2])):
                f.write("%s,%d,%d,%d,%s,%.2f\n" % (coll, n, size, alg, name, m))
    if sweep in ("1", "ccmpi"):
        rows = []
        for (variant, coll, n, size), s in stats.items():
            impl, _, alg = variant.partition(":")
            if impl == "ccmpi":
                rows.append((coll_order.index(coll), n, size, s[0], coll, alg or "auto") + s)
        rows.sort()
        with open(os.path.join(out, "ccmpi_sweep.csv"), "w") as f:
            f.write("coll,ranks,size,algorithm,median_us,min_us,max_us,reps\n")
            for _, n, size, _, coll, alg, m, lo, hi, k in rows:
                f.write("%s,%d,%d,%s,%.2f,%.2f,%.2f,%d\n" % (coll, n, size, alg, m, lo, hi, k))

    # sweep.md from both CSVs (one of them may come from an earlier sweep).
    ompi = collections.defaultdict(list)
    for r in read_csv("openmpi_sweep.csv"):
        ompi[(r["coll"], int(r["ranks"]), int(r["size"]))].append(r)
    cc = collections.defaultdict(list)
    for r in read_csv("ccmpi_sweep.csv"):
        cc[(r["coll"], int(r["ranks"]), int(r["size"]))].append(r)
    keys = sorted(set(ompi) | set(cc), key=lambda p: (p[1], coll_order.index(p[0]), p[2]))
    lines = ["# Algorithm sweep: Open MPI coll_tuned algorithms and ccmpi algorithms, forced", ""]
    lines += quick_note()
    lines += ["Generated by `bench/osu-coll/run.sh --sweep` (this invocation swept: %s) on %s."
              % ({"1": "Open MPI and ccmpi"}.get(sweep, sweep), facts["started"]),
              "Medians over %s repetition(s) of OSU's average latency in microseconds; lower is"
              % facts["reps"],
              "better. Open MPI: `--mca btl tcp,self --mca mpi_yield_when_idle 1 --mca"
              " coll_tuned_use_dynamic_rules 1 --mca coll_tuned_<coll>_algorithm N` (N = 0: its"
              " default rules). ccmpi: `CCMPI_<COLL>_ALGORITHM=name` (auto: its own choice).",
              "The fastest Open MPI algorithm of each point is stored in `openmpi_best.csv`,"
              " which the measured run (`README.md`) forces in its `Open MPI best` column.", "",
              "| collective | ranks | size | Open MPI best forced (us) | Open MPI default (us) |"
              " ccmpi fastest forced (us) | ccmpi auto (us) | ccmpi fastest / Open MPI best |",
              "| --- | ---: | ---: | --- | ---: | --- | ---: | ---: |"]

    def fastest(rs, skip):
        rs = [r for r in rs if r["algorithm"] != skip and r["median_us"]]
        return min(rs, key=lambda r: float(r["median_us"])) if rs else None
    for k in keys:
        ob = fastest(ompi.get(k, []), "0")
        od = [r for r in ompi.get(k, []) if r["algorithm"] == "0"]
        cb = fastest(cc.get(k, []), "auto")
        ca = [r for r in cc.get(k, []) if r["algorithm"] == "auto"]
        ratio = ("%.2f" % (float(cb["median_us"]) / float(ob["median_us"]))
                 if ob and cb and float(ob["median_us"]) > 0 else "n/a")
        lines.append("| %s | %d | %s | %s | %s | %s | %s | %s |" % (
            k[0], k[1], size_name(k[2]),
            "%s (%s %s)" % (fmt(float(ob["median_us"])), ob["algorithm"], ob["name"]) if ob else "n/a",
            fmt(float(od[0]["median_us"])) if od else "n/a",
            "%s (%s)" % (fmt(float(cb["median_us"])), cb["algorithm"]) if cb else "n/a",
            fmt(float(ca[0]["median_us"])) if ca else "n/a", ratio))
    lines += ["", "## Every algorithm", "",
              "Per point, each implementation's algorithms from fastest to slowest (median us).", ""]
    for k in keys:
        parts = []
        if k in ompi:
            rs = sorted(ompi[k], key=lambda r: float(r["median_us"]))
            parts.append("Open MPI: " + ", ".join(
                "%s %s %s" % (r["algorithm"], r["name"], fmt(float(r["median_us"]))) for r in rs))
        if k in cc:
            rs = sorted(cc[k], key=lambda r: float(r["median_us"]))
            parts.append("ccmpi: " + ", ".join(
                "%s %s" % (r["algorithm"], fmt(float(r["median_us"]))) for r in rs))
        lines.append("- **%s, %d ranks, %s**: %s" % (k[0], k[1], size_name(k[2]), "; ".join(parts)))
    lines += [""]
    # Each part of the sweep keeps its own record (sweep_<part>_run.md): how it was run,
    # its noise, failures and machine; sweep.md shows every record present.
    kinds = {"1": ["openmpi", "ccmpi"]}.get(sweep, [sweep])
    record = ["## The %s sweep" % " and ".join(kinds), ""] + spread_note()
    record += failures_section(fails, ["variant", "coll", "ranks", "size", "rep", "exit",
                                       "first error line"])
    record += [l.replace("## ", "### ", 1) if l.startswith("## ") else l
               for l in runs_section("How it was run") + machine_section(facts)]
    for kind in kinds:
        with open(os.path.join(out, "sweep_%s_run.md" % kind), "w") as f:
            f.write("\n".join(record))
    for kind in ("openmpi", "ccmpi"):
        path = os.path.join(out, "sweep_%s_run.md" % kind)
        if os.path.exists(path) and not (sweep == "1" and kind == "ccmpi"):
            with open(path) as f:
                lines += [f.read(), ""]
    lines += [build_help, ""]
    with open(os.path.join(out, "sweep.md"), "w") as f:
        f.write("\n".join(lines))


def summarise_run():
    best_forced = {}
    for (variant, coll, n, size) in stats:
        if variant.startswith("openmpi:"):
            best_forced[(coll, n, size)] = variant.split(":", 1)[1]

    def row_values(p):
        coll, n, size = p
        c = med(("ccmpi",) + p)
        od = med(("openmpi",) + p)
        alg = best_forced.get(p)
        ob = med(("openmpi:" + alg,) + p) if alg else None
        m = med(("mpich",) + p)
        cands = [x for x in (od, ob) if x is not None]
        obest = min(cands) if cands else None
        return c, od, alg, ob, m, obest

    with open(os.path.join(out, "results.csv"), "w") as f:
        f.write("coll,ranks,size,variant,algorithm,median_us,min_us,max_us,reps\n")
        for p in points:
            for variant in ["ccmpi", "openmpi"] + (["openmpi:" + best_forced[p]] if p in best_forced
                                                   else []) + ["mpich"]:
                s = stats.get((variant,) + p)
                if not s:
                    continue
                if variant == "ccmpi":
                    name, alg = "ccmpi", choices.get(p, ("", ""))[0]
                elif variant.startswith("openmpi:"):
                    n = variant.split(":", 1)[1]
                    name, alg = "openmpi_best", "%s %s" % (n, ompi_names.get((p[0], n), "?"))
                else:
                    name, alg = variant, ""
                f.write("%s,%d,%d,%s,%s,%.2f,%.2f,%.2f,%d\n" % (p + (name, alg) + s))

    sweep_best = ccmpi_sweep_best()
    lines = ["# Collectives: ccmpi vs Open MPI (TCP) vs MPICH, OSU Micro-Benchmarks", ""]
    lines += quick_note()
    lines += [
        "Generated by `bench/osu-coll/run.sh` on %s. OSU Micro-Benchmarks %s"
        % (facts["started"], facts["osu"] or "(version unknown)"),
        "(`c/mpi/collective/blocking`), average latency per call in microseconds, median of %s"
        % facts["reps"],
        "repetition(s) (min..max in `results.csv`); the variants alternate within each"
        " repetition. Lower is better.", "",
        "- **ccmpi**: its automatic choice; the algorithm its selector picked (CCMPI_VERBOSE=3)"
        " is shown in brackets.",
        "- **Open MPI default**: `mpirun.openmpi --mca btl tcp,self --mca mpi_yield_when_idle 1"
        " --oversubscribe`, coll_tuned's default rules.",
        "- **Open MPI best**: the same plus `--mca coll_tuned_use_dynamic_rules 1 --mca"
        " coll_tuned_<coll>_algorithm N`, N the fastest of the sweep (`openmpi_best.csv`,"
        " `sweep.md`).",
        "- **MPICH**: `mpiexec.mpich` with its defaults (shared memory, busy-polling).",
        "- **ratio** = ccmpi / best Open MPI, where best Open MPI is the lower of the two Open MPI"
        " columns in this run (below 1: ccmpi is faster).",
        "- **fastest ccmpi forced**: the fastest ccmpi algorithm forced with"
        " `CCMPI_<COLL>_ALGORITHM` in the sweep (`sweep.md`, `ccmpi_sweep.csv`), its time there.",
        "",
        "| collective | ranks | size | ccmpi [algorithm] | Open MPI default | Open MPI best [N name]"
        " | MPICH | ratio | fastest ccmpi forced (sweep) |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
    for p in points:
        c, od, alg, ob, m, obest = row_values(p)
        ch = choices.get(p)
        sb = sweep_best.get(p)
        lines.append("| %s | %d | %s | %s | %s | %s | %s | %s | %s |" % (
            p[0], p[1], size_name(p[2]),
            fmt(c) + (" [%s]" % ch[0] if ch else ""), fmt(od),
            (fmt(ob) + " [%s %s]" % (alg, ompi_names.get((p[0], alg), "?"))) if alg else "n/a",
            fmt(m), "%.2f" % (c / obest) if c is not None and obest else "n/a",
            "%s (%s)" % (sb[0], fmt(sb[1])) if sb else "n/a"))
    lines += ["", "Full data: `results.csv` (coll,ranks,size,variant,algorithm,median_us,min_us,"
              "max_us,reps; reps = successful repetitions); plot: `osu-coll.svg`.",
              "Open MPI is forced onto TCP like ccmpi; MPICH uses shared memory, so it is a"
              " same-node reference rather than a TCP one. With %s ranks on %s cores every"
              " implementation waits for time slices; MPICH, which busy-polls, suffers most."
              % (max(p[1] for p in points) if points else "?", facts["cores"]), ""]
    lines += spread_note()
    lines += failures_section(fails, ["variant", "coll", "ranks", "size", "rep", "exit",
                                      "first error line"])
    lines += runs_section("How it was run")
    lines += [build_help, ""]
    lines += machine_section(facts)
    with open(os.path.join(out, "README.md"), "w") as f:
        f.write("\n".join(lines))

    # Plot: one panel per collective; size on x, latency on y; colour = variant,
    # thick with dots = fewest ranks, thin with squares = most ranks.
    colors = {"ccmpi": "#d62728", "openmpi": "#1f77b4", "openmpi_best": "#17becf",
              "mpich": "#2ca02c"}
    labels = {"ccmpi": "ccmpi", "openmpi": "Open MPI default", "openmpi_best": "Open MPI best",
              "mpich": "MPICH"}
    rank_counts = sorted({p[1] for p in points})
    colls = [c for c in coll_order if any(p[0] == c for p in points)]
    panels = []
    for coll in colls:
        parts = []
        for variant in ["ccmpi", "openmpi", "openmpi_best", "mpich"]:
            for i, n in enumerate(rank_counts):
                rows = []
                for p in points:
                    if p[0] != coll or p[1] != n:
                        continue
                    key = variant
                    if variant == "openmpi_best":
                        if p not in best_forced:
                            continue
                        key = "openmpi:" + best_forced[p]
                    s = stats.get((key,) + p)
                    if s:
                        rows.append((p[2], s))
                if not rows:
                    continue
                path = os.path.join(work, "%s.%s.%d.dat" % (coll, variant, n))
                with open(path, "w") as f:
                    for size, s in rows:
                        f.write("%d %g %g %g\n" % (size, s[0], s[1], s[2]))
                parts.append("'%s' using 1:2 with linespoints lc rgb '%s' %s"
                             " title '%s, %d ranks'" % (path, colors[variant],
                                                        "lw 1 pt 4 ps 0.8" if i else "lw 2.5 pt 7 ps 0.6",
                                                        labels[variant], n))
        panels.append((coll, ", \\\n  ".join(parts) or "NaN notitle"))
    gp = ["set terminal svg size 1400,950 dynamic noenhanced font 'sans,11'",
          "set output '%s'" % os.path.join(out, "osu-coll.svg"),
          "set multiplot layout 2,2 title 'OSU collectives: ccmpi vs Open MPI (TCP) vs MPICH, one"
          " machine (%s cores), medians of %s runs%s'"
          % (facts["cores"], facts["reps"], " (QUICK smoke run)" if quick else ""),
          "set logscale x 2", "set logscale y", "set format x '%.0b%B'",
          "set xrange [4:2097152]", "set xlabel 'message size (bytes)'",
          "set ylabel 'latency per call (us)'", "set grid",
          "set key outside right top font ',9'"]
    for coll, plot in panels:
        gp += ["set title 'osu_%s (thick: %s ranks, thin: %s ranks; medians, min/max in"
               " results.csv), lower is better'"
               % (coll, rank_counts[0], rank_counts[-1]), "plot " + plot]
    gp += ["unset multiplot"]
    with open(os.path.join(work, "osu-coll.gp"), "w") as f:
        f.write("\n".join(gp) + "\n")


if facts["sweep"] == "0":
    summarise_run()
else:
    summarise_sweep()
