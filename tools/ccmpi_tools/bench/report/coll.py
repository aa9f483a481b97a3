"""The files of a collective scenario: results.csv
(impl,test,hosts,size,median_us,min_us,max_us,reps,bound_us,of_bound), README.md (the
latest figures against the link bound, the scatter scenario's Figure 10 and the alltoallv
scenario's Tables 2-3 comparisons, the npb scenario's compression table (and its
compress.csv), every variant, failures, how it was run), <scenario>.svg
and, when the output is a folder of docs/results and the run is not --quick, the
scenario's section of docs/results/README.md (front)."""
import os
import statistics

from .. import scenarios
from . import front, plot
from .stats import summarise

FIXED = ["ccmpi", "ccmpi-compress", "openmpi", "openmpi-best", "mpich"]
NAMES = {"ccmpi": "ccmpi (auto)", "ccmpi-compress": "ccmpi (CCMPI_COMPRESS=auto)",
         "openmpi": "Open MPI (default)",
         "openmpi-best": "Open MPI (best tuned)", "mpich": "MPICH"}
# Tests drawn in a partner's panels (series "VARIANT, TEST") when the partner ran.
MERGED_INTO = {"scatterv5-mpix": "scatterv5", "scatterv5-mpix-mcast": "scatterv5",
               "scatterv5-init": "scatterv5", "alltoallv-random-p2p": "alltoallv-random",
               "alltoallv-random-l1": "alltoallv-random", "alltoallv-random-l2": "alltoallv-random",
               "alltoallv-random-l3": "alltoallv-random", "alltoallv-random-c1": "alltoallv-random",
               "alltoallv-random-c2": "alltoallv-random"}
MERGED_NAMES = {("ccmpi", "scatterv5-mpix"): "ccmpi compiler-assisted (MPIX)",
                ("ccmpi", "scatterv5-mpix-mcast"): "ccmpi compiler-assisted (MPIX, data by "
                                                   "multicast)",
                ("ccmpi:mcast_group", "scatterv5-init"): "ccmpi MPI_Scatterv_init (mcast_group)",
                ("ccmpi", "alltoallv-random-p2p"): "ccmpi MPIX point-to-point",
                ("ccmpi", "alltoallv-random-l1"): "ccmpi MPIX Level 1",
                ("ccmpi", "alltoallv-random-l2"): "ccmpi MPIX Level 2",
                ("ccmpi", "alltoallv-random-l3"): "ccmpi MPIX Level 3",
                ("ccmpi", "alltoallv-random-c1"): "ccmpi MPIX control1 alone",
                ("ccmpi", "alltoallv-random-c2"): "ccmpi MPIX control2 alone"}


def vorder(v):
    """ccmpi first, its forced variants right after it, then Open MPI, its best, MPICH."""
    if v in FIXED:
        return (FIXED.index(v), "")
    return (0.5, v)


def vname(v):
    return NAMES.get(v, v.replace("ccmpi:", "ccmpi forced "))


class Report:
    """The figures of one run, and the tables made from them."""

    def __init__(self, results):
        self.r = results
        self.facts = results.facts
        self.scenario = results.scenario
        self.is_npb = self.scenario in ("npb-is", "npb")
        self.quick = self.facts.get("quick") == "1"
        self.rate_bps = float(self.facts["rate_bps"])
        self.rails = int(self.facts.get("rails", "1"))
        self.bound_bytes = {}
        pairs = []
        for v, label, n, size, med, _mean, _mn, bb, _iters, _rep in results.raw:
            pairs.append(((v, label, n, size), med))
            self.bound_bytes[(label, n, size)] = bb
        self.stats = summarise(pairs)
        self.variants = sorted({k[0] for k in self.stats}, key=vorder)
        self.groups = sorted({(k[1], k[2]) for k in self.stats})
        self.sizes_of = {g: sorted({k[3] for k in self.stats if (k[1], k[2]) == g})
                         for g in self.groups}
        self.unit = "s" if self.is_npb else "ms"

    # --- cells ---

    def bound_us(self, label, n, size):
        return scenarios.bound_us(self.bound_bytes.get((label, n, size), 0), self.rate_bps,
                                  self.rails)

    def fmt_t(self, us):
        if self.is_npb:
            return "%.2f s" % (us / 1e6)
        ms = us / 1e3
        return "%.3g" % ms if ms < 1000 else "%.0f" % ms

    def cell(self, key, with_bound=True):
        st = self.stats.get(key)
        if st is None:
            return "n/a"
        s = ("%s (%s\u2013%s)" % (self.fmt_t(st.median), self.fmt_t(st.min), self.fmt_t(st.max))
             if st.reps > 1 else self.fmt_t(st.median))
        b = self.bound_us(key[1], key[2], key[3])
        if with_bound and b:
            s += ", %.0f%%" % (100 * b / st.median)
        return s

    def best_forced(self, label, n, size):
        cands = [(self.stats[(v, label, n, size)].median, v) for v in self.variants
                 if v.startswith("ccmpi:") and (v, label, n, size) in self.stats]
        return min(cands)[1] if cands else None

    def size_str(self, label, s):
        if label.startswith("alltoallv-random"):
            return "random pattern"
        if self.is_npb:
            return "class " + label.split("-")[1]
        for unit, div in (("MiB", 1 << 20), ("KiB", 1024)):
            if s >= div and s % div == 0:
                return "%d %s" % (s // div, unit)
        return "%d B" % s

    # --- tables ---

    def csv_lines(self):
        lines = ["impl,test,hosts,size,median_us,min_us,max_us,reps,bound_us,of_bound"]
        for key in sorted(self.stats, key=lambda k: (vorder(k[0]), k[1], k[2], k[3])):
            st = self.stats[key]
            b = self.bound_us(key[1], key[2], key[3])
            lines.append("%s,%s,%d,%d,%.2f,%.2f,%.2f,%d,%s,%s" % (
                key + (st.median, st.min, st.max, st.reps, "%.2f" % b if b else "",
                       "%.4f" % (b / st.median) if b else "")))
        return lines

    def main_table(self):
        """Rows: (label, hosts, size); columns: bound, ccmpi auto, best ccmpi forced, Open
        MPI default, Open MPI best, MPICH. Times in ms (NPB: s) median (min-max), % of the
        bound."""
        cols = [("link bound", None), ("ccmpi auto", "ccmpi")]
        if "ccmpi-compress" in self.variants:
            cols.append(("ccmpi compress auto", "ccmpi-compress"))
        if any(v.startswith("ccmpi:") for v in self.variants):
            cols.append(("best ccmpi forced", "forced"))
        cols += [(vname(v), v) for v in ("openmpi", "openmpi-best", "mpich") if v in self.variants]
        lines = ["| test | hosts | size | " + " | ".join(c[0] for c in cols) + " |",
                 "|" + " --- |" * (3 + len(cols))]
        for label, n in self.groups:
            for s in self.sizes_of[(label, n)]:
                b = self.bound_us(label, n, s)
                cells = [self.fmt_t(b) if b else "\u2013"]
                for _, v in cols[1:]:
                    if v == "forced":
                        bv = self.best_forced(label, n, s)
                        cells.append(self.cell((bv, label, n, s)) + " [%s]" % bv.split(":", 1)[1]
                                     if bv else "n/a")
                    elif v == "openmpi-best":
                        a = self.r.best_used.get((label, n, s))
                        if self.scenario == "npb" and (v, label, n, s) not in self.stats:
                            cells.append("= default")  # point-to-point: nothing to force
                            continue
                        cells.append(self.cell((v, label, n, s)) + (" [%s]" % a[1] if a else ""))
                    else:
                        # The control of Levels 1/2 alone moves no data: no share of the bound.
                        cells.append(self.cell((v, label, n, s),
                                               not label.endswith(("-c1", "-c2"))))
                lines.append("| %s | %d | %s | %s |" % (label, n, self.size_str(label, s),
                                                        " | ".join(cells)))
        return "\n".join(lines) + "\n"

    def has(self, v, label):
        return any(k[:2] == (v, label) for k in self.stats)

    def fig10_table(self):
        """The scatter scenario's Figure 10 comparison: one row per scatterv5 size, one
        column per way of doing it (compiler-assisted, static group, dynamic group, ...)."""
        gs = [g for g in self.groups if g[0] == "scatterv5"]
        if self.scenario != "scatter" or not gs:
            return ""
        special = {"ccmpi:mcast": "static group (mcast)",
                   "ccmpi:mcast_dynamic": "dynamic group (mcast_dynamic)"}
        cols = [("compiler-assisted (MPIX)", "ccmpi", "scatterv5-mpix"),
                ("compiler-assisted (MPIX, data by multicast)", "ccmpi", "scatterv5-mpix-mcast"),
                ("compiler-assisted (MPI_Scatterv_init, mcast_group)", "ccmpi:mcast_group",
                 "scatterv5-init"),
                ("MPI_Scatterv_init (linear)", "ccmpi:linear", "scatterv5-init")]
        cols += [(special[v], v, "scatterv5") for v in special if v in self.variants]
        cols += [(vname(v), v, "scatterv5") for v in self.variants
                 if v.startswith("ccmpi:") and v not in special]
        cols += [(vname(v), v, "scatterv5") for v in ("ccmpi", "openmpi", "mpich")]
        cols = [c for c in cols if self.has(c[1], c[2])]
        lines = ["| hosts | size | link bound | " + " | ".join(c[0] for c in cols) + " |",
                 "|" + " --- |" * (3 + len(cols))]
        for g in gs:
            for s in self.sizes_of[g]:
                b = self.bound_us(g[0], g[1], s)
                lines.append("| %d | %s | %s | %s |" % (
                    g[1], self.size_str(g[0], s), self.fmt_t(b) if b else "\u2013",
                    " | ".join(self.cell((v, lb, g[1], s)) for _, v, lb in cols)))
        return ("### Figure 10: Scatterv to 5 ranks, compiler-assisted vs static vs dynamic "
                "group\n\n" + "\n".join(lines) + "\n\nAll columns the same traffic and timing "
                "(barrier, then the operation, maximum over ranks). Compiler-assisted: "
                "`coll_bench scatterv5-mpix`, the group opened before the iterations (not "
                "timed) as CC-MPI's compiler would hoist it; ranks outside the group take no "
                "part in the operation; the data by multicast or by TCP, whichever puts fewer "
                "bytes on the root's cable (`CCMPI_MPIX_SCATTERV_DATA=auto`: multicast saves "
                "packets only for blocks below a datagram, since every member needs bytes of "
                "its own), or always by multicast (`scatterv5-mpix-mcast`). "
                "MPI_Scatterv_init: `coll_bench scatterv5-init`, the persistent request made "
                "before the iterations (not timed), every iteration MPI_Start + MPI_Wait on all "
                "ranks, with `CCMPI_ISCATTERV_ALGORITHM=mcast_group` (the request owns the "
                "receivers' group) or `linear`. "
                "Static / dynamic group: MPI_Scatterv with `CCMPI_SCATTERV_ALGORITHM=mcast` / "
                "`mcast_dynamic`; the others as in the tables above.\n")

    def levels_table(self):
        """The alltoallv scenario's CC-MPI Tables 2-3 comparison on the random pattern: the
        four methods of mpix_ccmpi.h next to plain MPI_Alltoallv."""
        gs = [g for g in self.groups if g[0] == "alltoallv-random"]
        if self.scenario != "alltoallv" or not gs:
            return ""
        cols = [("point-to-point (MPIX_Alltoallv_data_trans1)", "ccmpi", "alltoallv-random-p2p"),
                ("Level 1 (control1 + data_trans2)", "ccmpi", "alltoallv-random-l1"),
                ("Level 2 (control2 + data_trans2)", "ccmpi", "alltoallv-random-l2"),
                ("Level 3 (data_trans2)", "ccmpi", "alltoallv-random-l3"),
                ("control1 alone", "ccmpi", "alltoallv-random-c1"),
                ("control2 alone", "ccmpi", "alltoallv-random-c2"),
                ("MPI_Alltoallv (ccmpi auto)", "ccmpi", "alltoallv-random")]
        cols += [(vname(v), v, "alltoallv-random") for v in ("openmpi", "openmpi-best")]
        cols = [c for c in cols if self.has(c[1], c[2])]
        lines = ["| hosts | link bound | " + " | ".join(c[0] for c in cols) + " |",
                 "|" + " --- |" * (2 + len(cols))]
        for g in gs:
            for sz in self.sizes_of[g]:
                b = self.bound_us(g[0], g[1], sz)
                cells = " | ".join(self.cell((v, lb, g[1], sz), not lb.endswith(("-c1", "-c2")))
                                   for _, v, lb in cols)
                lines.append("| %d | %s | %s |" % (g[1], self.fmt_t(b) if b else "\u2013", cells))
        return ("### Tables 2-3: the random pattern by the four methods of compiled "
                "communication\n\n" + "\n".join(lines) + "\n\nAll columns the same pattern and "
                "timing (barrier, then the operation, maximum over ranks). Point-to-point: "
                "`MPIX_Alltoallv_data_trans1` (one linear round, no schedule). Level 1: "
                "`MPIX_Alltoallv_control1` (an allgather of every rank's counts, then scheduling "
                "on every rank) + `MPIX_Alltoallv_data_trans2` + `MPIX_Schedule_free` in every "
                "iteration. Level 2: `MPIX_Alltoallv_control2` (every rank holds the global "
                "pattern: scheduling only, no communication) + `data_trans2`. Level 3: "
                "`data_trans2` alone, the schedule made before the iterations (not timed), as a "
                "compiler or `ccmpi-schedule` does before the program runs. control1 / control2 "
                "alone: the network control of Level 1 / 2 without data (what they add to Level "
                "3; the data phases are the same schedule in all three, so the totals differ by "
                "about this much, within the run-to-run noise of the emulated cluster). Tests "
                "`coll_bench alltoallv-random-p2p`, `-l1`, `-l2`, `-l3`, `-c1`, `-c2` (ccmpi "
                "only); MPI_Alltoallv: the unmodified call (its pattern cache replays the "
                "schedule, docs/compiled-communication.md).\n")

    def compress_table(self):
        """The npb scenario's compression figures (cMPI Table 5): per benchmark the ratio of
        original to sent bytes summed over ranks (median over repetitions), the CPU time of
        compressing and decompressing (summed over ranks), the time with and without
        CCMPI_COMPRESS=auto and cMPI's ratio."""
        if self.scenario != "npb" or not self.r.compress:
            return ""
        from .. import scenarios as sc_mod
        cmpi = sc_mod.get("npb").CMPI_RATIO
        by = {}
        for label, n, _rep, sent, wire, cs, ds in self.r.compress:
            by.setdefault((label, n), []).append((sent, wire, cs + ds))
        lines = ["| benchmark | hosts | bytes sent (original) | on the wire | ratio | "
                 "(de)compress CPU | ccmpi | ccmpi compress auto | time change | "
                 "cMPI Table 5 ratio |", "|" + " --- |" * 10]
        for (label, n) in sorted(by):
            rows = by[(label, n)]
            ratios = [s / w for s, w, _ in rows if w]
            mid = sorted(rows, key=lambda r: r[0])[len(rows) // 2]
            ratio = statistics.median(ratios) if ratios else None
            cpu = statistics.median([r[2] for r in rows])
            a = self.stats.get(("ccmpi", label, n, 0))
            c = self.stats.get(("ccmpi-compress", label, n, 0))
            change = "%+.1f%%" % (100 * (c.median / a.median - 1)) if a and c else "n/a"
            bench = label.split("-")[0]
            lines.append("| %s | %d | %s | %s | %s | %.2f s | %s | %s | %s | %s |" % (
                label, n, _mb(mid[0]), _mb(mid[1]), "%.2f" % ratio if ratio else "n/a", cpu,
                self.cell(("ccmpi", label, n, 0), False),
                self.cell(("ccmpi-compress", label, n, 0), False), change,
                "%.2f" % cmpi[bench] if bench in cmpi else "\u2013"))
        return ("### Compression (cMPI Table 5)\n\n" + "\n".join(lines) + "\n\nRatio: bytes "
                "the ranks handed to the TCP transport over the bytes it sent for them "
                "(`CCMPI_COMPRESS_STATS=1`: each rank's sent_bytes / sent_wire at MPI_Finalize, "
                "summed over the ranks; messages below CCMPI_COMPRESS_MIN and those the auto "
                "mode sends plain count 1:1). Time change: the median of ccmpi with "
                "CCMPI_COMPRESS=auto against plain ccmpi (negative: faster). cMPI Table 5: the "
                "ratios the cMPI paper reports for BT, SP and LU.\n")

    def method(self):
        if self.scenario == "npb":
            return ("Each figure is the median over repetitions (min\u2013max) of the "
                    "benchmark's own \"Time in seconds\". ")
        if self.is_npb:
            return ("Each figure is the median over repetitions (min\u2013max) of IS's \"Time in "
                    "seconds\". ")
        return ("Each figure is the median over repetitions (min\u2013max in brackets) of one "
                "program run's median iteration time; an iteration is a synchronization (the "
                "same dissemination barrier of zero-byte MPI_Sendrecv calls in every MPI, not "
                "the MPI's own MPI_Barrier, whose release order could give a root a head "
                "start), then the collective timed on every rank, and its time the maximum over "
                "the ranks; results are validated (bench/coll/coll_bench.c). Times in %s; "
                "\"x%%\" = link bound / time. " % self.unit)

    def mpich_note(self):
        cores = int(self.facts["cpu"].rsplit(",", 1)[-1].strip().split()[0])
        most = max([n for _, n in self.groups] or [0])
        if "mpich" not in self.facts["impls"].split() or most <= cores:
            return ""
        return ("\n**MPICH note:** MPICH 4.0 (ch4:ucx) ranks poll the network without "
                "sleeping. With more ranks than this machine's %d cores they take turns "
                "on the CPU (scheduler time slices of milliseconds), so every "
                "synchronizing step can cost milliseconds: its figures above %d ranks "
                "measure CPU contention, not the network or the algorithm, and MPICH "
                "cannot run well here with 16+ ranks on 2 cores.\n" % (cores, cores))

    def forced_note(self):
        if self.scenario == "npb":
            return (" NPB: ccmpi runs with its defaults (and CCMPI_COMPRESS=auto); Open MPI "
                    "best exists for FT (MPI_Alltoall) and IS (MPI_Alltoallv), whose data a "
                    "collective carries; BT, SP, LU, MG, CG and EP communicate by point-to-"
                    "point messages, so their Open MPI best is the default.")
        if self.is_npb:
            return " NPB IS runs every implementation with its defaults only."
        if not any(v.startswith("ccmpi:") for v in self.variants) and "ccmpi" in self.variants:
            return (" ccmpi forced variants: none, because the collective had a single "
                    "algorithm in `ccmpi_info --algorithms` when this ran (forcing it equals "
                    "the automatic choice).")
        return ""

    def payload_MBps(self):
        return scenarios.payload_bps(self.rate_bps) / 8 / 1e6

    # --- plot ---

    def bars(self):
        """The npb scenario's plot: per benchmark each variant's time relative to ccmpi's
        (median, min-max)."""
        cats = [g for g in self.groups]
        series = []
        for v in self.variants:
            pts = []
            for i, (label, n) in enumerate(cats):
                st, base = self.stats.get((v, label, n, 0)), self.stats.get(("ccmpi", label, n, 0))
                if st and base:
                    pts.append((i, st.median / base.median, st.min / base.median,
                                st.max / base.median))
            series.append((vname(v), pts))
        return ["%s\n%d hosts" % g for g in cats], series

    def panels(self):
        """One panel per test and host count (x = size), or per test and size when a test
        runs on several host counts (x = hosts); a test of MERGED_INTO is drawn in its
        partner's panels when the partner ran."""
        merged = {k: p for k, p in MERGED_INTO.items() if any(g[0] == p for g in self.groups)}
        specs = []
        for label in sorted({g[0] for g in self.groups}):
            if label in merged:
                continue
            ns = sorted({g[1] for g in self.groups if g[0] == label})
            ss = sorted({k[3] for k in self.stats if k[1] == label})
            if len(ns) > 1 and len(ss) <= 2:
                for s in ss:
                    specs.append((label, "hosts", s, [(n, (label, n, s)) for n in ns]))
            else:
                for n in ns:
                    pts = [(s, (label, n, s)) for s in self.sizes_of[(label, n)]]
                    if len(pts) > 1:
                        specs.append((label, "size", n, pts))
        rate = self.facts["rate"]
        sc = 1e6 if self.is_npb else 1e3
        out = []
        for label, xkind, fixed, pts in specs:
            if xkind == "size":
                p = plot.Panel("%s, %d hosts, %s" % (label, fixed, rate), "message size",
                               "seconds" if self.is_npb else "ms", xlog=True, ylog=True,
                               xsizes=True)
            else:
                p = plot.Panel("%s %s, %s" % (label, self.size_str(label, fixed), rate), "hosts",
                               "seconds" if self.is_npb else "ms", ylog=True)
            series = [(v, label, vname(v)) for v in self.variants]
            series += [(v, m, MERGED_NAMES.get((v, m), "%s, %s" % (vname(v), m)))
                       for m, par in sorted(merged.items()) if par == label for v in self.variants]
            for v, slabel, title in series:
                data = []
                for x, key in pts:
                    st = self.stats.get((v, slabel) + key[1:])
                    if st:
                        data.append((x, st.median / sc, st.min / sc, st.max / sc))
                p.add(title, data)
            p.add("link bound", [(x, self.bound_us(*key) / 1e3) for x, key in pts
                                 if self.bound_us(*key)], "bound")
            out.append(p)
        return out


def write(results, out, source):
    rep = Report(results)
    f = results.facts
    sc = results.scenario
    module = scenarios.get(sc)
    desc, bound_doc = module.DESC, module.BOUND_DOC
    with open(os.path.join(out, "results.csv"), "w") as w:
        w.write("\n".join(rep.csv_lines()) + "\n")
    svg = os.path.join(out, sc + ".svg")
    if sc == "npb":
        cats, series = rep.bars()
        plot_ok = plot.draw_bars(cats, series, svg, "NPB, %s hosts, %s" % (f["hosts"], f["rate"]),
                                 "time relative to ccmpi (auto)")
        with open(os.path.join(out, "compress.csv"), "w") as w:
            w.write("test,hosts,rep,sent_bytes,sent_wire,compress_s,decompress_s\n")
            for row in results.compress:
                w.write("%s,%d,%d,%d,%d,%.6f,%.6f\n" % row)
    else:
        plot_ok = plot.draw(rep.panels(), svg)
    table, fig10, levels = rep.main_table(), rep.fig10_table(), rep.levels_table()
    ctable = rep.compress_table()
    method = rep.method()
    mpich_note = rep.mpich_note()
    t = []
    t.append("# %s on an emulated cluster\n\n%s\n\n" % (sc, desc))
    rails = int(f.get("rails", "1"))
    t.append("Generated by `ccmpi-bench` on %s (%s s). Cluster: %s hosts%s, %s links "
             "(`ccmpi-cluster`, docs/cluster.md). %d repetition(s); within a repetition the "
             "variants run one after the other in an order shuffled anew for every repetition.\n\n"
             % (f["started"], f["elapsed"], f["hosts"],
                " with %d NICs each (each on a switch of its own)" % rails if rails > 1 else "",
                f["rate"], int(f["reps"])))
    if f.get("rate_choice"):
        t.append("Link rate: %s.\n\n" % f["rate_choice"])
    if rep.quick:
        t.append("**Smoke run (--quick): few iterations, the numbers only prove the harness.**\n\n")
    t.append("## Latest figures\n\n" + table + "\n")
    if fig10:
        t.append(fig10 + "\n")
    if levels:
        t.append(levels + "\n")
    if ctable:
        t.append(ctable + "\n")
    t.append(method + ("" if sc == "npb" else "Best ccmpi forced: the fastest of the "
                       "algorithms forced with CCMPI_<COLL>_ALGORITHM (name in brackets). ")
             + "Open MPI best: coll_tuned algorithm "
             "forced per size (`--mca coll_tuned_use_dynamic_rules 1 --mca "
             "coll_tuned_<coll>_algorithm N`), N the fastest of a sweep over every algorithm "
             "ompi_info lists (`openmpi-sweep.csv`, reused by later runs, redone with "
             "`--sweep-openmpi`)." + rep.forced_note() + "\n\n")
    t.append("Link bound, with B = rate \u00d7 1448/1538 = %.3f MB/s of TCP payload per cable and "
             "direction (MSS 1448 in 1538-byte frames on the wire): %s Shares above 100%% "
             "come from the emulation: its token buckets let the first frames after a pause "
             "pass without serialization delay (docs/cluster.md, Shaping), so messages of a "
             "few frames can beat the bound; 1-byte figures are latency, not bandwidth.\n"
             % (rep.payload_MBps(), bound_doc))
    t.append(mpich_note)
    t.append("\nAll variants and sizes: `results.csv` (times in \u00b5s)%s.\n\n"
             % (", plot: `%s.svg`" % sc if plot_ok else ""))
    if len(rep.variants) > 1:
        t.append("## Every variant\n\n| test | hosts | size | " +
                 " | ".join(vname(v) for v in rep.variants) + " |\n|" +
                 " --- |" * (3 + len(rep.variants)) + "\n")
        for g in rep.groups:
            for s in rep.sizes_of[g]:
                t.append("| %s | %d | %s | %s |\n" % (g[0], g[1], rep.size_str(g[0], s), " | ".join(
                    rep.cell((v,) + g + (s,), with_bound=False) for v in rep.variants)))
        t.append("\n")
    if results.fails:
        t.append("## Failed runs\n\n| variant | run | rep | exit | message |\n"
                 "| --- | --- | --- | --- | --- |\n")
        for fl in results.fails:
            t.append("| " + " | ".join(x.replace("|", "/") for x in fl) + " |\n")
        t.append("\n")
    if results.sweep_fails:
        t.append("## Open MPI sweep: algorithms that failed\n\nNot candidates for Open MPI "
                 "best: %s.\n\n" % "; ".join("%s (exit %s: %s)" % (x[1], x[3], x[4])
                                              for x in results.sweep_fails))
    if results.hung:
        t.append("## Runs stopped after their last output\n\nThese runs printed all their "
                 "results but did not exit within 20 s (hanging in MPI_Finalize); they were "
                 "killed and their results kept: %s.\n\n" % "; ".join(
                     "%s %s rep %s" % tuple(h) for h in results.hung))
    if results.skipped:
        t.append("## Not run (--max-minutes reached)\n\n%s\n\n" % ", ".join(
            "%s %s n=%s rep %s" % tuple(s) for s in results.skipped))
    t.append("## How it was run\n\n```\n%s\n```\n\n" % f["invocation"])
    t.append("Machine: %s; %s; load %s. ccmpi %s; %s; %s.\n\nCluster: `%s`\n\nCommands "
             "(first repetition):\n\n```\n%s\n```\n" % (
                 f["cpu"], f["kernel"], f["load"], f["ccmpi"], f["openmpi"] or "no Open MPI",
                 f["mpich"] or "no MPICH", f["cluster"], "\n".join(results.commands)))
    with open(os.path.join(out, "README.md"), "w") as w:
        w.write("".join(t))
    if not rep.quick:
        front.update(source, out, sc, front.section(
            sc, desc, table + ("\n" + fig10 if fig10 else "") + ("\n" + levels if levels else "")
            + ("\n" + ctable if ctable else ""),
            method, bound_doc, f, mpich_note, os.path.basename(os.path.abspath(out))))
    return (["results.csv", "README.md"] + (["compress.csv"] if sc == "npb" else [])
            + (["%s.svg" % sc] if plot_ok else []))


def _mb(n):
    return "%.1f MB" % (n / 1e6)

