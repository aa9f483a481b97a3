#!/usr/bin/env python3
"""Reliability campaign, packet faults (issue 26): mixed collectives under loss,
duplication and reordering on an emulated cluster, ccmpi against Open MPI in the same run.

For each fault setting (lossless, loss 0.1/1/2/5 %, and --dup / --reorder variants) it
brings up `ccmpi-cluster up --hosts 8 --rate 100mbit` with that impairment (name
`rel<pid>`), runs bench/reliability/mixed.c (Bcast, Allreduce, Alltoall, Alltoallv of up
to 64 KiB, every byte checked) with ccmpi and with Open MPI 4 (`--mca btl tcp,self --mca
mpi_yield_when_idle 1`), each repetition alternating the order, and removes the cluster,
whatever happens. Faults are counted in the hosts' and the switch's namespaces around each
run: packets the qdiscs dropped (the injected loss plus any port-buffer overflow) and
TCP's retransmitted segments and timeouts (nstat).

Writes OUT/results.csv (one row per run), OUT/README.md (the table: operations, faults,
bytes checked, errors, hangs, time, slowdown against the same implementation's lossless
run), OUT/reliability.svg (median time per setting; needs Debian's python3-matplotlib,
so run it with /usr/bin/python3) and OUT/meta.json (the run's parameters: --report-only
rewrites README.md and the plot from results.csv and meta.json).

Usage: bench/reliability/run.py [--build BUILD] [--report-only] [--iters 200] [--reps 1] [--hosts 8]
         [--settings 0,0.1,1,2,5,dup1,reorder1] [--impls ccmpi,openmpi] [--timeout 900]
         [--out docs/results/reliability] [--env VAR=VALUE ...]
A hang is a run that exceeds --timeout (its processes are killed with the cluster).
The machine must be otherwise quiet for the figures to mean anything.
"""
import argparse
import csv
import datetime
import json
import os
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
RATE = "100mbit"


def setting_args(s):
    """'2' -> loss 2 %; 'dup1' -> 1 % duplication; 'reorder1' -> 1 % reordering;
    'loss2+dup1' combines."""
    args = []
    for part in s.split("+"):
        m = re.fullmatch(r"(dup|reorder)?([0-9.]+)", part)
        if not m:
            raise SystemExit(f"bad setting {s!r}")
        kind = m.group(1) or "loss"
        if float(m.group(2)) > 0:
            args += [f"--{kind}", f"{m.group(2)}%"]
    return args


def namespaces(name, hosts):
    return [f"ccmpi-{name}-h{k}" for k in range(1, hosts + 1)] + [f"ccmpi-{name}-sw"]


def counters(name, hosts):
    """Sum over the cluster's namespaces: qdisc drops, TCP retransmitted segments and
    retransmission timeouts."""
    total = {"drops": 0, "retrans": 0, "timeouts": 0, "segs_out": 0}
    for ns in namespaces(name, hosts):
        q = subprocess.run(["ip", "netns", "exec", ns, "tc", "-s", "qdisc", "show"],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout
        total["drops"] += sum(int(x) for x in re.findall(r"dropped (\d+)", q))
        n = subprocess.run(["ip", "netns", "exec", ns, "nstat", "-az", "--json"],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout
        for key, field in (("TcpRetransSegs", "retrans"), ("TcpExtTCPTimeouts", "timeouts"),
                           ("TcpOutSegs", "segs_out")):
            m = re.search(r'"%s":(\d+)' % key, n)
            if m:
                total[field] += int(m.group(1))
    return total


class Cluster:
    def __init__(self, tool, name, hosts, setting):
        self.tool, self.name, self.hosts, self.setting = tool, name, hosts, setting

    def __enter__(self):
        p = subprocess.run([self.tool, "up", "--name", self.name, "--hosts", str(self.hosts),
                            "--rate", RATE, "--owner", str(os.getpid())] +
                           setting_args(self.setting), stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
        sys.stderr.write(p.stderr)
        # Without netem, ccmpi-cluster refuses --dup and --reorder.
        self.unsupported = (p.returncode != 0 and "netem" in p.stderr and
                            re.search(r"dup|reorder", self.setting) is not None)
        if self.unsupported:
            return self
        if p.returncode != 0:
            raise RuntimeError(f"ccmpi-cluster up failed for setting {self.setting}")
        self.hostfile = subprocess.run([self.tool, "hostfile", "--name", self.name],
                                       stdout=subprocess.PIPE, text=True,
                                       check=True).stdout.strip()
        return self

    def __exit__(self, *exc):
        subprocess.run([self.tool, "down", "--name", self.name], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        return False


def command(impl, cl, build, exe, iters):
    n = str(cl.hosts)
    if impl == "ccmpi":
        return [os.path.join(build, "bin", "mpirun"), "--hostfile", cl.hostfile, "--launcher",
                f"{cl.tool} exec --name {cl.name}", "--iface", "r0", "-n", n, exe, str(iters)]
    return [cl.tool, "exec", "--name", cl.name, f"{cl.name}-h1", "mpirun.openmpi",
            "--allow-run-as-root", "--hostfile", cl.hostfile, "-n", n, "--mca",
            "plm_rsh_agent", f"'{cl.tool} exec --name {cl.name}'", "--mca", "btl", "tcp,self",
            "--mca", "btl_tcp_if_include", "198.18.0.0/15", "--mca", "oob_tcp_if_include",
            "198.18.0.0/15", "--mca", "mpi_yield_when_idle", "1", exe, str(iters)]


def run_once(impl, cl, build, exe, iters, timeout):
    before = counters(cl.name, cl.hosts)
    t0 = time.time()
    try:
        p = subprocess.run(command(impl, cl, build, exe, iters), stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=timeout,
                           start_new_session=True)
        out, rc, hang = p.stdout, p.returncode, False
    except subprocess.TimeoutExpired as e:
        out, rc, hang = (e.stdout or b"").decode(errors="replace") if isinstance(
            e.stdout, bytes) else (e.stdout or ""), None, True
        # The processes on the hosts go with the cluster (down terminates them).
    wall = time.time() - t0
    after = counters(cl.name, cl.hosts)
    row = {k: after[k] - before[k] for k in after}
    row.update(impl=impl, wall=round(wall, 3), hang=int(hang), rc=rc, operations=0,
               bytes_checked=0, errors=0, seconds=None, note="")
    m = re.search(r"RESULT .*operations=(\d+) bytes_checked=(\d+) errors=(\d+) seconds=([0-9.]+)",
                  out)
    parts = re.search(r"RESULT .*bcast=([0-9.]+) allreduce=([0-9.]+) alltoall=([0-9.]+) "
                      r"alltoallv=([0-9.]+) first_iteration=([0-9.]+)", out)
    if parts:
        for k, v in zip(("bcast", "allreduce", "alltoall", "alltoallv", "first_iteration"),
                        parts.groups()):
            row[k] = float(v)
    if m:
        row.update(operations=int(m.group(1)), bytes_checked=int(m.group(2)),
                   errors=int(m.group(3)), seconds=float(m.group(4)))
    elif not hang:
        row["errors"] = -1  # no result line: counted as a failed run
    if hang or rc != 0 or not m:
        row["note"] = ("hang" if hang else f"exit {rc}") + ": " + \
            " | ".join(out.strip().splitlines()[-2:])[:200]
    return row


def build_programs(build, workdir):
    src = os.path.join(HERE, "mixed.c")
    exes = {"ccmpi": os.path.join(workdir, "mixed.ccmpi"),
            "openmpi": os.path.join(workdir, "mixed.openmpi")}
    subprocess.run([os.path.join(build, "bin", "mpicc"), "-O2", "-o", exes["ccmpi"], src],
                   check=True)
    subprocess.run(["mpicc.openmpi", "-O2", "-o", exes["openmpi"], src], check=True)
    return exes


def read_rows(path):
    rows = []
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            for k in ("operations", "bytes_checked", "errors", "hang", "drops", "retrans",
                      "timeouts", "segs_out"):
                r[k] = int(r[k] or 0)
            r["seconds"] = float(r["seconds"]) if r["seconds"] else None
            rows.append(r)
    return rows


def write_report(rows, out, meta):
    """meta: command, started (UTC), load, hosts, iters, reps (kept in OUT/meta.json)."""
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
    fields = ["setting", "impl", "rep", "seconds", "bcast", "allreduce", "alltoall", "alltoallv",
              "first_iteration", "wall", "operations", "bytes_checked",
              "errors", "hang", "drops", "retrans", "timeouts", "segs_out", "rc", "note"]
    with open(os.path.join(out, "results.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    settings = list(dict.fromkeys(r["setting"] for r in rows))
    impls = list(dict.fromkeys(r["impl"] for r in rows))
    med = {}
    for s in settings:
        for i in impls:
            t = [r["seconds"] for r in rows if r["setting"] == s and r["impl"] == i and
                 r["seconds"] is not None]
            med[s, i] = statistics.median(t) if t else None
    base = {i: med.get((settings[0], i)) for i in impls}
    lines = [
        "# Reliability campaign: packet faults",
        "",
        f"Generated by `bench/reliability/run.py {meta['command']}` on "
        f"{meta['started']} UTC, load average before {meta['load']}. "
        f"{meta['hosts']} emulated hosts at {RATE} (`ccmpi-cluster`), one rank each; "
        f"bench/reliability/mixed.c with {meta['iters']} iterations (Bcast, Allreduce, Alltoall, "
        "Alltoallv of up to 64 KiB per buffer, every byte checked); "
        f"{meta['reps']} repetition(s); Open MPI 4 with `--mca btl tcp,self --mca "
        "mpi_yield_when_idle 1`. Settings: loss/dup/reorder per cable direction "
        "(`ccmpi-cluster up --loss P`; a packet crosses two cables).",
        "",
        "Faults: packets dropped by the qdiscs (the injected loss, plus port-buffer "
        "overflow), TCP segments retransmitted and retransmission timeouts (nstat), summed "
        "over the hosts. Time: the program's own (slowest rank), median over repetitions; "
        "slowdown against the same implementation's first setting.",
        "",
        "| setting | impl | runs | operations | drops | TCP retrans | RTOs | bytes checked | "
        "errors | hangs | time (s) | slowdown |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for s in settings:
        for i in impls:
            rs = [r for r in rows if r["setting"] == s and r["impl"] == i]
            if not rs:
                continue
            m = med[s, i]
            slow = f"{m / base[i]:.2f}x" if m and base[i] else "n/a"
            errs = sum(max(r["errors"], 0) for r in rs) + sum(1 for r in rs if r["errors"] < 0)
            lines.append(
                f"| {s} | {i} | {len(rs)} | {sum(r['operations'] for r in rs)} | "
                f"{sum(r['drops'] for r in rs)} | {sum(r['retrans'] for r in rs)} | "
                f"{sum(r['timeouts'] for r in rs)} | {sum(r['bytes_checked'] for r in rs)} | "
                f"{errs} | {sum(r['hang'] for r in rs)} | "
                f"{'n/a' if m is None else f'{m:.2f}'} | {slow} |")
    if meta.get("skipped"):
        lines += ["", "Not run (the kernel has no netem qdisc, which duplication and "
                  "reordering need): " + ", ".join(meta["skipped"]) + "."]
    notes = [r for r in rows if r["note"]]
    if notes:
        lines += ["", "Failed runs:", ""] + [f"- {r['setting']} {r['impl']} rep {r['rep']}: "
                                             f"{r['note']}" for r in notes]
    with open(os.path.join(out, "README.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("python3-matplotlib missing: no plot", file=sys.stderr)
        return
    fig, ax = plt.subplots(figsize=(7, 4))
    width = 0.8 / max(1, len(impls))
    for k, i in enumerate(impls):
        ys = [med[s, i] or 0 for s in settings]
        ax.bar([x + k * width for x in range(len(settings))], ys, width, label=i)
    ax.set_xticks([x + width * (len(impls) - 1) / 2 for x in range(len(settings))])
    ax.set_xticklabels(settings)
    ax.set_xlabel("fault setting (percent per cable direction)")
    ax.set_ylabel("time (s), median")
    ax.set_title(f"mixed collectives, {meta['iters']} iterations, {meta['hosts']} hosts at {RATE}")
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(out, "reliability.svg"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(REPO, "build"))
    ap.add_argument("--iters", type=int, default=200)
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("--hosts", type=int, default=8)
    ap.add_argument("--settings", default="0,0.1,1,2,5,dup1,reorder1")
    ap.add_argument("--impls", default="ccmpi,openmpi")
    ap.add_argument("--timeout", type=float, default=900)
    ap.add_argument("--out", default=os.path.join(REPO, "docs", "results", "reliability"))
    ap.add_argument("--report-only", action="store_true",
                    help="rewrite README.md and the plot from OUT/results.csv, run nothing")
    ap.add_argument("--env", action="append", default=[],
                    help="VAR=VALUE for the runs (ccmpi tunables, for experiments)")
    a = ap.parse_args()
    if a.report_only:
        rows = read_rows(os.path.join(a.out, "results.csv"))
        with open(os.path.join(a.out, "meta.json")) as f:
            write_report(rows, a.out, json.load(f))
        return 0
    tool = os.path.join(a.build, "bin", "ccmpi-cluster")
    os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
    os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    for kv in a.env:
        k, _, v = kv.partition("=")
        os.environ[k] = v
    started = datetime.datetime.now(datetime.timezone.utc)
    load = open("/proc/loadavg").read().split()[0]
    workdir = os.path.join("/tmp", f"reliability-{os.getpid()}")
    os.makedirs(workdir, exist_ok=True)
    exes = build_programs(a.build, workdir)
    impls = a.impls.split(",")
    rows, skipped = [], []
    for setting in a.settings.split(","):
        with Cluster(tool, f"rel{os.getpid() % 100000}", a.hosts, setting) as cl:
            if cl.unsupported:
                print(f"{setting}: skipped, this kernel has no netem (duplication and "
                      "reordering need it)", flush=True)
                skipped.append(setting)
                continue
            for rep in range(a.reps):
                order = impls if rep % 2 == 0 else impls[::-1]
                for impl in order:
                    r = run_once(impl, cl, a.build, exes[impl], a.iters, a.timeout)
                    r.update(setting=setting, rep=rep)
                    rows.append(r)
                    print(f"{setting:>9} {impl:8} rep {rep}: "
                          f"{r['seconds'] if r['seconds'] is not None else 'n/a'} s, "
                          f"errors {r['errors']}, drops {r['drops']}, retrans {r['retrans']}, "
                          f"RTOs {r['timeouts']}; per collective "
                          f"{[r.get(k) for k in ('bcast', 'allreduce', 'alltoall', 'alltoallv')]}"
                          f", first iteration {r.get('first_iteration')} {r['note']}", flush=True)
    write_report(rows, a.out, {"command": " ".join(sys.argv[1:]),
                               "started": f"{started:%Y-%m-%d %H:%M}", "load": load,
                               "hosts": a.hosts, "iters": a.iters, "reps": a.reps,
                               "skipped": skipped})
    bad = [r for r in rows if r["errors"] != 0 or r["hang"]]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
