#!/usr/bin/env python3
"""Reliability campaign, packet faults (issue 26): mixed collectives under loss,
duplication and reordering on an emulated cluster, ccmpi against Open MPI in the same run.

For each fault setting (lossless, loss 0.1/1/2/5 %, and --dup / --reorder variants) it
brings up `ccmpi-cluster up --hosts 8 --rate 100mbit` with that impairment (name
`rel<pid>`), runs bench/reliability/mixed.c (Bcast, Allreduce, Alltoall, Alltoallv of up
to 64 KiB and point-to-point of up to 128 KiB, every byte checked) with ccmpi and with Open MPI 4 (`--mca btl tcp,self --mca
mpi_yield_when_idle 1`), each repetition alternating the order, and removes the cluster,
whatever happens. Faults are counted in the hosts' and the switch's namespaces around each
run: packets the qdiscs dropped (the injected loss plus any port-buffer overflow) and
TCP's retransmitted segments and timeouts (nstat).

Fault injection (--faults, on a lossless cluster of --fault-hosts hosts, ccmpi only): the
program runs long enough and, 1 s in, the campaign kills a rank (SIGKILL), kills a launch
proxy (`mpirun --ccmpi-proxy`), kills mpirun, takes a host's cable down for 2 s and back
(`ip link set r0 down/up` in the host's namespace), or takes it down for good. Expected:
the killed cases end the job with a non-zero status, a message naming the rank, proxy
or host, and nothing left behind (no process of the job, no new file in /dev/shm); a
cable down for 2 s is survived (the run finishes with every byte checked); a cable down
for good ends the job within --fault-timeout with a message naming the host. Rows in
OUT/faults.csv, a second table in OUT/README.md.

Writes OUT/results.csv (one row per run), OUT/README.md (the table: operations, faults,
bytes checked, errors, hangs, time, slowdown against the same implementation's lossless
run), OUT/reliability.svg (median time per setting; needs Debian's python3-matplotlib,
so run it with /usr/bin/python3) and OUT/meta.json (the run's parameters: --report-only
rewrites README.md and the plot from results.csv and meta.json).

Usage: bench/reliability/run.py [--build BUILD] [--report-only] [--iters 200] [--reps 1] [--hosts 8]
         [--settings 0,0.1,1,2,5,dup1,reorder1] [--impls ccmpi,openmpi] [--timeout 900]
         [--faults rank,proxy,mpirun,cable2s,cable] [--fault-hosts 4] [--fault-timeout 60]
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
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
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
                      r"alltoallv=([0-9.]+) p2p=([0-9.]+) first_iteration=([0-9.]+)", out)
    if parts:
        for k, v in zip(("bcast", "allreduce", "alltoall", "alltoallv", "p2p", "first_iteration"),
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


FAULTS = ("rank", "proxy", "mpirun", "cable2s", "cable")


def process_table():
    """{pid: (ppid, argv)} of every process."""
    procs = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{d}/cmdline", "rb") as f:
                argv = [a.decode(errors="replace") for a in f.read().split(b"\0") if a]
        except (OSError, IndexError, ValueError):
            continue
        procs[int(d)] = (ppid, argv)
    return procs


def descendants(root):
    """Pids below root (children, their children, ...) with their argv."""
    procs = process_table()
    kids = {}
    for pid, (ppid, _) in procs.items():
        kids.setdefault(ppid, []).append(pid)
    out, todo = {}, [root]
    while todo:
        for k in kids.get(todo.pop(), []):
            out[k] = procs[k][1]
            todo.append(k)
    return out


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def run_fault(fault, cl, build, exe, iters, timeout):
    """Runs ccmpi's mixed program on cl and injects `fault` 1 s in. Returns a row: rc,
    seconds to the end, hang, the line of mpirun's output naming the fault, processes and
    /dev/shm files left, errors (the program's, or -1 when a run that should finish did
    not)."""
    shm_before = set(os.listdir("/dev/shm"))
    t0 = time.time()
    p = subprocess.Popen(command("ccmpi", cl, build, exe, iters), stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, start_new_session=True)
    time.sleep(1.0)
    tree = descendants(p.pid)
    ranks = sorted(pid for pid, argv in tree.items() if argv and argv[0] == exe)
    proxies = sorted(pid for pid, argv in tree.items() if "--ccmpi-proxy" in argv)
    victim_host = f"{cl.name}-h2"
    target = ""
    injected = 1
    if p.poll() is not None:
        injected = 0  # the job ended before the fault: the run proves nothing
    elif fault == "rank" and ranks:
        os.kill(ranks[-1], signal.SIGKILL)
        target = f"pid {ranks[-1]}"
    elif fault == "proxy" and proxies:
        os.kill(proxies[-1], signal.SIGKILL)
        target = f"pid {proxies[-1]}"
    elif fault == "mpirun":
        os.kill(p.pid, signal.SIGKILL)
        target = f"pid {p.pid}"
    elif fault in ("cable2s", "cable"):
        ns = f"ccmpi-{cl.name}-h2"
        subprocess.run(["ip", "-n", ns, "link", "set", "r0", "down"], check=True)
        target = f"{victim_host} r0"
        if fault == "cable2s":
            time.sleep(2.0)
            subprocess.run(["ip", "-n", ns, "link", "set", "r0", "up"], check=True)
    else:
        injected = 0  # the job ended before the fault could be injected
    try:
        out, _ = p.communicate(timeout=timeout)
        hang = False
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, _ = p.communicate()
        hang = True
    seconds = time.time() - t0
    rc = p.returncode
    # The job's processes must go on their own (mpirun killed: its proxies and ranks).
    deadline = time.time() + 10
    left = [pid for pid in tree if alive(pid)]
    while left and time.time() < deadline:
        time.sleep(0.1)
        left = [pid for pid in tree if alive(pid)]
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    shm_left = sorted(set(os.listdir("/dev/shm")) - shm_before)
    # The message: the first line naming the victim (several ranks may report the loss
    # of a peer before mpirun names the cause), else the first line of mpirun or ccmpi.
    lines = [ln for ln in out.splitlines() if ln.startswith("mpirun:") or "ccmpi" in ln]
    naming = {"rank": r"rank \d+ \(host [^)]*\) was killed", "proxy": r"proxy on host",
              "cable": r"network path to its host \S+ is down"}.get(fault)
    named = [ln for ln in lines if naming and re.search(naming, ln)]
    message = (named or lines or [""])[0][:200]
    m = re.search(r"RESULT .*errors=(\d+)", out)
    errors = int(m.group(1)) if m else 0
    if not injected:
        expected = False
    elif fault == "cable2s":
        expected = rc == 0 and m is not None
        if not m:
            errors = -1
    else:
        expected = rc != 0 and not hang and not left and not shm_left and (
            fault == "mpirun" or bool(named))
    return {"fault": fault, "target": target, "injected": injected, "rc": rc,
            "seconds": round(seconds, 2), "hang": int(hang), "errors": errors,
            "procs_left": len(left), "shm_left": len(shm_left), "expected": int(expected),
            "message": message}


def write_fault_report(rows, out):
    fields = ["fault", "target", "injected", "rc", "seconds", "hang", "errors", "procs_left",
              "shm_left", "expected", "message"]
    with open(os.path.join(out, "faults.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    lines = ["", "## Fault injection", "",
             "ccmpi only, lossless cluster; the fault 1 s into the run (see run.py).", "",
             "| fault | faults injected | exit status | time to end (s) | errors | hangs | "
             "processes left | /dev/shm left | as expected | message |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---|---|"]
    for r in rows:
        lines.append(f"| {r['fault']} | {r['injected']} | {r['rc']} | {r['seconds']} | "
                     f"{r['errors']} | {r['hang']} | {r['procs_left']} | {r['shm_left']} | "
                     f"{'yes' if int(r['expected']) else '**no**'} | "
                     f"{str(r['message']).replace('|', '/')} |")
    return lines


def build_programs(build, workdir, impls):
    src = os.path.join(HERE, "mixed.c")
    exes = {"ccmpi": os.path.join(workdir, "mixed.ccmpi"),
            "openmpi": os.path.join(workdir, "mixed.openmpi")}
    compilers = {"ccmpi": os.path.join(build, "bin", "mpicc"), "openmpi": "mpicc.openmpi"}
    for impl in impls:
        subprocess.run([compilers[impl], "-O2", "-o", exes[impl], src], check=True)
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
              "p2p", "first_iteration", "wall", "operations", "bytes_checked",
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
    base = {i: med.get((settings[0], i)) for i in impls} if settings else {}
    lines = [
        "# Reliability campaign: packet faults",
        "",
        f"Generated by `bench/reliability/run.py {meta['command']}` on "
        f"{meta['started']} UTC, load average before {meta['load']}. "
        f"{meta['hosts']} emulated hosts at {RATE} (`ccmpi-cluster`), one rank each; "
        f"bench/reliability/mixed.c with {meta['iters']} iterations (Bcast, Allreduce, Alltoall, "
        "Alltoallv of up to 64 KiB per buffer, point-to-point of up to 128 KiB and four small "
        "messages per rank, every byte checked); "
        f"{meta['reps']} repetition(s); Open MPI 4 with `--mca btl tcp,self --mca "
        "mpi_yield_when_idle 1`. Settings: loss/dup/reorder per cable direction "
        "(`ccmpi-cluster up --loss P`; a packet crosses two cables).",
        "",
        "Faults: packets dropped by the qdiscs (the injected loss, plus port-buffer "
        "overflow), TCP segments retransmitted and retransmission timeouts (nstat), summed "
        "over the hosts. Time: the program's own (slowest rank), median over repetitions; "
        "slowdown against the same implementation's first setting.",
        "",
        "| setting | impl | runs | operations | faults injected (packets dropped) | "
        "TCP retrans | RTOs | bytes checked | "
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
    if meta.get("faults"):
        lines += write_fault_report(meta["faults"], out)
    with open(os.path.join(out, "README.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    if not rows:
        return
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


def campaign(a, tool, workdir, started, load):
    """Runs the fault injections, then the packet-fault settings; writes the report. Exit
    status 1 if a run had errors or hung, or a fault did not end as expected."""
    impls = a.impls.split(",")
    faults = [f for f in a.faults.split(",") if f]
    exes = build_programs(a.build, workdir, sorted(set(impls) | ({"ccmpi"} if faults else set())))
    rows, skipped, fault_rows = [], [], []
    for f in faults:
        if f not in FAULTS:
            raise SystemExit(f"unknown fault {f!r} (known: {', '.join(FAULTS)})")
    for fault in faults:
        # A fresh cluster each: a cable taken down for good stays down.
        with Cluster(tool, f"rf{os.getpid() % 100000}", a.fault_hosts, "0") as cl:
            r = run_fault(fault, cl, a.build, exes["ccmpi"], a.fault_iters, a.fault_timeout)
        fault_rows.append(r)
        print(f"fault {fault:8} {r['target']}: exit {r['rc']} after {r['seconds']} s, hang "
              f"{r['hang']}, errors {r['errors']}, processes left {r['procs_left']}, /dev/shm "
              f"left {r['shm_left']}, as expected {bool(r['expected'])}: {r['message']}",
              flush=True)
    for setting in [x for x in a.settings.split(",") if x]:
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
                          f"{[r.get(k) for k in ('bcast', 'allreduce', 'alltoall', 'alltoallv', 'p2p')]}"
                          f", first iteration {r.get('first_iteration')} {r['note']}", flush=True)
    write_report(rows, a.out, {"command": " ".join(sys.argv[1:]),
                               "started": f"{started:%Y-%m-%d %H:%M}", "load": load,
                               "hosts": a.hosts, "iters": a.iters, "reps": a.reps,
                               "skipped": skipped, "faults": fault_rows})
    bad = [r for r in rows if r["errors"] != 0 or r["hang"]]
    bad += [r for r in fault_rows if not r["expected"]]
    return 1 if bad else 0


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
    ap.add_argument("--faults", default=",".join(FAULTS),
                    help="fault injections to run (comma separated, '' for none): "
                    + ", ".join(FAULTS))
    ap.add_argument("--fault-hosts", type=int, default=4)
    ap.add_argument("--fault-iters", type=int, default=300,
                    help="iterations of a fault run (long enough to outlast the fault)")
    ap.add_argument("--fault-timeout", type=float, default=60,
                    help="seconds after which a fault run counts as a hang")
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
    workdir = tempfile.mkdtemp(prefix="reliability-")
    try:
        return campaign(a, tool, workdir, started, load)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
