#!/usr/bin/env python3
"""The node (hierarchical) algorithms against the automatic choice, on the emulated cluster.

Brings up the cluster of bench/node/cluster.py (4 hosts x 4 ranks, 25 Mbit/s), builds
bench/node/node_coll.c with the build's mpicc, and for every collective and size times
the automatic choice (the built-in rules; which algorithm that is comes from the
CCMPI_VERBOSE=3 log) and the node algorithm forced, one after the other, ITERS calls
each. This is what the node rules of src/coll/rules.cc were drafted from: cheap (a few
iterations, --reps runs), so rerun it on a quiet machine before trusting small gaps.

Usage: bench/node/node_rules.py [--build BUILD] [--iters 2] [--reps 1]
         [--colls gather,gatherv,...] [--sizes 1024,65536]
Prints one line per measurement and a table (ms per call) at the end.
"""
import argparse
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from cluster import HOSTS, SLOTS, RATE_MBIT, REPO, Cluster, loadavg  # noqa: E402

COLLS = ["gather", "gatherv", "scatter", "scatterv", "allgatherv", "alltoallv",
         "reduce_scatter", "reduce_scatter_block"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(REPO, "build"))
    ap.add_argument("--iters", type=int, default=2)
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("--colls", default=",".join(COLLS))
    ap.add_argument("--sizes", default="1024,65536")
    ap.add_argument("--timeout", type=float, default=300)
    a = ap.parse_args()
    tool = os.path.join(a.build, "bin", "ccmpi-cluster")
    exe = os.path.join("/tmp", f"node_coll-{os.getpid()}")
    subprocess.run([os.path.join(a.build, "bin", "mpicc"), "-O2", "-o", exe,
                    os.path.join(HERE, "node_coll.c")], check=True)
    print(f"{HOSTS} hosts x {SLOTS} ranks, {RATE_MBIT} Mbit/s, {a.iters} iterations, "
          f"load before {loadavg():.2f}", flush=True)
    table = []
    try:
        with Cluster(tool, f"nr{os.getpid() % 100000}") as cl:
            base = [os.path.join(a.build, "bin", "mpirun"), "--hostfile", cl.hostfile,
                    "--launcher", f"{cl.tool} exec --name {cl.name}", "--iface", "r0", "-n",
                    str(HOSTS * SLOTS)]
            for coll in a.colls.split(","):
                for size in [int(s) for s in a.sizes.split(",")]:
                    for rep in range(a.reps):
                        row = {"coll": coll, "bytes": size}
                        for alg in (["auto", "node"] if rep % 2 == 0 else ["node", "auto"]):
                            env = dict(os.environ)
                            if alg == "auto":
                                env["CCMPI_VERBOSE"] = "3"
                            try:
                                p = subprocess.run(base + [exe, coll, alg, str(size),
                                                           str(a.iters)],
                                                   stdout=subprocess.PIPE,
                                                   stderr=subprocess.STDOUT, text=True,
                                                   env=env, timeout=a.timeout)
                                out = p.stdout
                            except subprocess.TimeoutExpired:
                                out = ""
                            m = re.search(rf"^{coll},{alg},\d+,\d+,([0-9.]+)$", out, re.M)
                            row[alg] = float(m.group(1)) / 1000 if m else None
                            if alg == "auto":
                                # the call on all ranks (inner calls on the
                                # host and leaders' communicators log first)
                                m = re.search(rf"debug: {coll}: (\w+) \((\w[\w ]*); "
                                              rf"{HOSTS * SLOTS} ranks", out)
                                row["choice"] = f"{m.group(1)} ({m.group(2)})" if m else "?"
                            print(f"{coll:22} {size:8} {alg:5} {row[alg]} ms", flush=True)
                        table.append(row)
    finally:
        os.unlink(exe)
    print(f"\nload after {loadavg():.2f}\n")
    print("| collective | bytes | automatic choice | auto ms | node ms |")
    print("| --- | ---: | --- | ---: | ---: |")
    for r in table:
        f = lambda v: f"{v:.1f}" if v is not None else "failed"  # noqa: E731
        print(f"| {r['coll']} | {r['bytes']} | {r.get('choice', '?')} | {f(r.get('auto'))} | "
              f"{f(r.get('node'))} |")


if __name__ == "__main__":
    sys.exit(main())
