#!/usr/bin/python3
"""Codec benchmark (issues 7 and 27): every ccmpi codec and the general-purpose references
on three sets of floating-point data, ratio and speed per file, into docs/results/codec.

Sets:
  samples  the five sample messages in ../shared/data/fp (what the first codecs were tuned on)
  tune     the generated tuning set   (bench/codec/gen_corpus.py, seed 1; adapt was tuned on it)
  report   the generated reporting set (seed 2, other parameters; never tuned on)

ccmpi codecs run through `ccmpi-codec bench` (one message per file, fresh state, round trip
checked bit for bit, best of the runs of each round, REPS rounds). References run here,
single-threaded, through Debian's python3-zstandard and python3-lz4 (so they understate the
C libraries' speed): zstd -1, zstd -3, byte shuffle + zstd -1 (numpy shuffle), lz4; the same
libraries are also in the table as ccmpi codecs (zstd, shuffle-zstd, lz4), timed in C.

Usage: /usr/bin/python3 bench/codec/run.py [--build DIR] [--corpus DIR] [--out DIR]
           [--reps N] [--sets samples,tune,report] [--files N] [--codecs a,b]
  --files N keeps the first N files of each set and --codecs a subset (a quick check of the
  tool; the full run takes about 15-25 minutes on a quiet machine: run it alone).
Writes OUT/results.csv, OUT/README.md (tables, goal checks, NOTES.md appended) and
OUT/codec.svg.
"""
import argparse
import math
import os
import statistics
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REFS = ["ref-zstd-1", "ref-zstd-3", "ref-shuffle-zstd-1", "ref-lz4"]
# The general-purpose options the issue compares against (per file, the best of them),
# and "spx" (the predictor codec); adapt must reach the best of these.
BASELINE = ["spx", "shuffle-zstd", "zstd", "lz4"]


def geo(v):
    v = [x for x in v if x > 0]
    return math.exp(sum(math.log(x) for x in v) / len(v)) if v else float("nan")


def set_files(name, corpus, nfiles):
    if name == "samples":
        d = os.path.join(REPO, "..", "shared", "data", "fp")
        files = [os.path.join(d, f"msg_{k}.f64") for k in ("bt", "lu", "sp", "sppm", "sweep3d")]
    else:
        d = os.path.join(corpus, name)
        files = sorted(os.path.join(d, f) for f in os.listdir(d)) if os.path.isdir(d) else []
    files = [f for f in files if os.path.isfile(f)]
    if not files:
        sys.exit(f"run.py: no files for set {name} (generate with bench/codec/gen_corpus.py)")
    return files[:nfiles] if nfiles else files


def run_ccmpi(binary, codec, path, reps):
    args = [binary, "bench", "--codec", codec] + (["--float32"] if path.endswith(".f32") else []) + [path]
    best = None
    for _ in range(reps):
        out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            if line.startswith("file="):
                kv = dict(x.split("=", 1) for x in line.split())
                r = (float(kv["ratio"]), float(kv["compress_gbps"]), float(kv["decompress_gbps"]))
                best = r if best is None else (r[0], max(best[1], r[1]), max(best[2], r[2]))
    return best


def timed(fn, min_s=0.3, min_runs=5):
    best, runs, t_end = float("inf"), 0, time.perf_counter() + min_s
    while runs < min_runs or time.perf_counter() < t_end:
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
        runs += 1
    return best, out


def run_ref(name, path, reps):
    import lz4.block
    import numpy as np
    import zstandard
    data = open(path, "rb").read()
    w = 4 if path.endswith(".f32") else 8
    n = len(data) // w

    def shuffle(b):
        return np.frombuffer(b[: n * w], dtype=np.uint8).reshape(n, w).T.tobytes() + b[n * w:]

    def unshuffle(b):
        return np.frombuffer(b[: n * w], dtype=np.uint8).reshape(w, n).T.tobytes() + b[n * w:]

    if name.startswith("ref-zstd-") or name == "ref-shuffle-zstd-1":
        level = int(name.rsplit("-", 1)[1])
        cctx, dctx = zstandard.ZstdCompressor(level=level), zstandard.ZstdDecompressor()
        if "shuffle" in name:
            comp = lambda: cctx.compress(shuffle(data))  # noqa: E731
            decomp = lambda c: unshuffle(dctx.decompress(c))  # noqa: E731
        else:
            comp = lambda: cctx.compress(data)  # noqa: E731
            decomp = lambda c: dctx.decompress(c)  # noqa: E731
    else:
        comp = lambda: lz4.block.compress(data, store_size=True)  # noqa: E731
        decomp = lambda c: lz4.block.decompress(c)  # noqa: E731
    bc = bd = float("inf")
    coded = None
    for _ in range(reps):
        tc, coded = timed(comp)
        td, back = timed(lambda: decomp(coded))
        if back != data:
            sys.exit(f"run.py: {name} round trip failed on {path}")
        bc, bd = min(bc, tc), min(bd, td)
    return (len(data) / len(coded), len(data) / bc / 1e9, len(data) / bd / 1e9)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(REPO, "build"))
    ap.add_argument("--corpus", default="/tmp/ccmpi-codec-corpus")
    ap.add_argument("--out", default=os.path.join(REPO, "docs", "results", "codec"))
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--sets", default="samples,tune,report")
    ap.add_argument("--files", type=int, default=0)
    ap.add_argument("--codecs", default="")
    a = ap.parse_args()
    binary = os.path.join(a.build, "bin", "ccmpi-codec")
    if not os.access(binary, os.X_OK):
        sys.exit(f"run.py: {binary} not built (ninja -C {a.build} ccmpi-codec)")
    if any(s != "samples" for s in a.sets.split(",")) and not os.path.isdir(os.path.join(a.corpus, "report")):
        subprocess.run([sys.executable, os.path.join(REPO, "bench", "codec", "gen_corpus.py"),
                        "--out", a.corpus], check=True)
    ours = subprocess.run([binary, "list"], capture_output=True, text=True, check=True).stdout.split()
    codecs = ours + REFS
    if a.codecs:
        codecs = [c for c in codecs if c in a.codecs.split(",")]
    sets = a.sets.split(",")
    rows = []  # (set, file, codec, ratio, c, d)
    for s in sets:
        for path in set_files(s, a.corpus, a.files):
            f = os.path.basename(path)
            for c in codecs:
                print(f"{s} {f} {c}", file=sys.stderr)
                r = run_ref(c, path, a.reps) if c.startswith("ref-") else run_ccmpi(binary, c, path, a.reps)
                rows.append((s, f, c, *r))
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "results.csv"), "w") as fh:
        fh.write("set,file,codec,ratio,compress_gbps,decompress_gbps\n")
        for r in rows:
            fh.write(f"{r[0]},{r[1]},{r[2]},{r[3]:.4f},{r[4]:.3f},{r[5]:.3f}\n")
    write_readme(a, rows, sets, codecs)
    write_svg(a, rows, sets, codecs)
    print(f"wrote {a.out}/README.md, results.csv, codec.svg", file=sys.stderr)


def write_readme(a, rows, sets, codecs):
    cpu = subprocess.run(["sh", "-c", "lscpu | sed -n 's/^Model name: *//p' | head -1"],
                         capture_output=True, text=True).stdout.strip()
    get = {(r[0], r[1], r[2]): r[3:] for r in rows}
    L = ["# Message codecs on three data sets", "",
         "Generated by `/usr/bin/python3 bench/codec/run.py` (`--build`, `--reps`, `--sets` as given",
         f"below; this run: reps={a.reps}, sets={','.join(sets)}). One core of this machine ({cpu},",
         f"{os.cpu_count()} cores). Ratio = input bytes / output bytes (ccmpi codecs: with the",
         "message header). Speeds: GB/s of original data, best run of the best round. `ref-*` are",
         "the references through Python's zstandard / lz4 bindings (single-threaded, Python",
         "overhead included); `zstd`, `shuffle-zstd`, `lz4` are the same libraries as ccmpi codecs.", "",
         "Sets: `samples` = the five messages in `shared/data/fp` (the first codecs were tuned on",
         "them); `tune` = generated tuning set (adapt was tuned on it); `report` = generated",
         "reporting set (other seeds and parameters, never tuned on). Generator and kinds:",
         "`bench/codec/gen_corpus.py`, `bench/codec/CORPUS.md`.", ""]
    L += ["## Goals (issue 27)", "",
          "Per file, adapt's ratio >= the best of {" + ", ".join(BASELINE) + "} (counted within 0.1%,",
          "a few header bytes) on >= 90% of the",
          "files; its geometric mean above each of them; compression >= 2 GB/s and",
          "decompression >= 4 GB/s on every file.", "",
          "| set | codec | files >= best of baseline | geomean | geomean of each baseline | slowest compress | slowest decompress |",
          "|---|---|---:|---:|---|---:|---:|"]
    for s in sets:
        files = sorted({r[1] for r in rows if r[0] == s})
        for c in ("adapt", "adapt-fast"):
            if (s, files[0], c) not in get:
                continue
            wins = 0
            for f in files:
                base = max((get[(s, f, b)][0] for b in BASELINE if (s, f, b) in get), default=0)
                wins += get[(s, f, c)][0] >= base * 0.999
            g = geo([get[(s, f, c)][0] for f in files])
            gb = ", ".join(f"{b} {geo([get[(s, f, b)][0] for f in files]):.3f}"
                           for b in BASELINE if (s, files[0], b) in get)
            sc = min(get[(s, f, c)][1] for f in files)
            sd = min(get[(s, f, c)][2] for f in files)
            L.append(f"| {s} | {c} | {wins}/{len(files)} | {g:.3f} | {gb} | {sc:.2f} | {sd:.2f} |")
    L.append("")
    for s in sets:
        files = sorted({r[1] for r in rows if r[0] == s})
        cs = [c for c in codecs if (s, files[0], c) in get]
        for title, k, fmt in (("ratio", 0, "{:.3f}"), ("compression GB/s", 1, "{:.2f}"),
                              ("decompression GB/s", 2, "{:.2f}")):
            L += [f"## {s}: {title}", "", "| file | " + " | ".join(cs) + " |",
                  "|---|" + "---:|" * len(cs)]
            for f in files:
                L.append(f"| {f} | " + " | ".join(fmt.format(get[(s, f, c)][k]) for c in cs) + " |")
            if k == 0:
                L.append("| **geomean** | " + " | ".join(f"**{geo([get[(s, f, c)][0] for f in files]):.3f}**" for c in cs) + " |")
            L.append("")
    L += ["Plot: `codec.svg` (per set, geometric-mean ratio against the slowest file's",
          "compression and decompression speed).", ""]
    notes = os.path.join(a.out, "NOTES.md")
    if os.path.exists(notes):
        L += [open(notes).read().rstrip(), ""]
    open(os.path.join(a.out, "README.md"), "w").write("\n".join(L))


def write_svg(a, rows, sets, codecs):
    import matplotlib
    matplotlib.use("svg")
    import matplotlib.pyplot as plt
    get = {(r[0], r[1], r[2]): r[3:] for r in rows}
    fig, axes = plt.subplots(len(sets), 2, figsize=(12, 4.2 * len(sets)), squeeze=False)
    for i, s in enumerate(sets):
        files = sorted({r[1] for r in rows if r[0] == s})
        for j, (k, label, goal) in enumerate(((1, "compression", 2), (2, "decompression", 4))):
            ax = axes[i][j]
            for c in codecs:
                if c == "raw" or (s, files[0], c) not in get:
                    continue
                x = min(get[(s, f, c)][k] for f in files)
                y = geo([get[(s, f, c)][0] for f in files])
                ax.plot([x], [y], "o" if not c.startswith("ref-") else "s", fillstyle="full" if not c.startswith("ref-") else "none")
                ax.annotate(c, (x, y), textcoords="offset points", xytext=(4, 4), fontsize=8)
            ax.axvline(goal, ls=":", c="grey")
            ax.set_yscale("log")
            ax.set_xlabel(f"{label} GB/s (slowest file)")
            ax.set_ylabel("geomean ratio")
            ax.set_title(f"{s}: ratio vs {label} speed (one core)")
            ax.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(os.path.join(a.out, "codec.svg"))


if __name__ == "__main__":
    main()
