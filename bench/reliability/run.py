#!/usr/bin/env python3
"""Reliability campaign, packet faults (issue 26): mixed collectives under loss,
duplication and reordering on an emulated cluster, ccmpi against Open MPI in the same run.

For each fault setting (lossless, loss 0.1/1/2/5 %, --dup / --reorder, combined) it
brings up `ccmpi-cluster up --hosts 8 --rate 100mbit` with that impairment (name
`rel<pid>`), runs bench/reliability/mixed.c (Bcast, Allreduce, Alltoall, Alltoallv of up
to 64 KiB and point-to-point of up to 128 KiB, every byte checked) with ccmpi and with Open MPI 4 (`--mca btl tcp,self --mca
mpi_yield_when_idle 1`), each repetition alternating the order, and removes the cluster,
whatever happens. Faults are counted in the hosts' and the switch's namespaces around each
run: packets the qdiscs dropped (the injected loss plus any port-buffer overflow), packets
the switch duplicated and reordered (without netem: its classifiers' mirred actions), and
TCP's retransmitted segments and timeouts (nstat). A setting is a loss percentage, dupP,
reorderP, or several joined by + (2+dup1+reorder1).

Fault injection (--faults, on a lossless cluster of --fault-hosts hosts, ccmpi only): the
program runs long enough and, 1 s in, the campaign kills a rank (SIGKILL), kills a launch
proxy (`mpirun --ccmpi-proxy`), kills mpirun, takes a host's cable down for 2 s and back
(`ip link set r0 down/up` in the host's namespace), or takes it down for good. Expected:
the killed cases end the job with a non-zero status, a message naming the rank, proxy
or host, and nothing left behind (no process of the job, no new file in /dev/shm); a
cable down for 2 s is survived (the run finishes with every byte checked); a cable down
for good ends the job within --fault-timeout with a message naming the host. Rows in
OUT/faults.csv, a second table in OUT/README.md.

Hostile peers (--hostile, ccmpi only, a lossless cluster of --hosts + 1 hosts): while the
mixed program runs on the first --hosts hosts, bench/reliability/hostile.py on the last
one attacks every listener of the job: 600 connections held open without a byte, random
bytes, or forged handshakes (see hostile.py); "none" is the reference run. Rows in
OUT/hostile.csv: the program's time and errors, its stderr lines (in all and about
intruders), the attacker's connections and CPU time.

Soak (--soak host,cluster, ccmpi only): bench/reliability/soak.c, --soak-p2p point-to-
point messages and --soak-each runs of each of 11 collectives, random sizes and
communicators, every element checked, with --hosts ranks on this machine and on a lossless
cluster. Rows in OUT/soak.csv.

Writes OUT/results.csv (one row per run), OUT/README.md (the table: operations, faults,
bytes checked, errors, hangs, time, slowdown against the same implementation's lossless
run), OUT/reliability.svg (median time per setting; needs Debian's python3-matplotlib,
so run it with /usr/bin/python3) and OUT/meta.json (the run's parameters: --report-only
rewrites README.md and the plot from results.csv and meta.json).

Usage: bench/reliability/run.py [--build BUILD] [--report-only] [--iters 200] [--reps 1] [--hosts 8]
         [--settings 0,0.1,1,2,5,dup1,reorder1,2+dup1+reorder1] [--impls ccmpi,openmpi] [--timeout 900]
         [--faults rank,proxy,mpirun,cable2s,cable] [--fault-hosts 4] [--fault-timeout 60]
         [--hostile none,halfopen,random,forged] [--soak host,cluster]
         [--soak-p2p 1000000] [--soak-each 10000]
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
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "bench", "common"))
from emucluster import EmulatedCluster  # noqa: E402

RATE = "100mbit"


def setting_args(s):
    """'2' -> loss 2 %; 'dup1' -> 1 % duplication; 'reorder1' -> 1 % reordering;
    'loss2+dup1' combines."""
    args = []
    for part in s.split("+"):
        m = re.fullmatch(r"(loss|dup|reorder)?([0-9.]+)", part)
        if not m:
            raise SystemExit(f"bad setting {s!r}")
        kind = m.group(1) or "loss"
        if float(m.group(2)) > 0:
            args += [f"--{kind}", f"{m.group(2)}%"]
    return args


def namespaces(name, hosts):
    return [f"ccmpi-{name}-h{k}" for k in range(1, hosts + 1)] + [f"ccmpi-{name}-sw"]


def switch_copies(ns):
    """Packets the switch ports duplicated and sent to the delay line (without netem: the
    `mirred` actions of the ports' classifiers, docs/cluster.md, Impairments)."""
    dups = reorders = 0
    links = subprocess.run(["ip", "-n", ns, "-o", "link", "show"], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, text=True).stdout
    for port in re.findall(r"^\d+: (h\d+r\d+)@", links, re.M):
        f = subprocess.run(["tc", "-n", ns, "-s", "filter", "show", "dev", port, "parent", "1:"],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout
        for kind, n in re.findall(r"mirred \(Egress (Mirror|Redirect) to device \S+\).*?"
                                  r"Sent \d+ bytes (\d+) pkt", f, re.S):
            if kind == "Mirror":
                dups += int(n)
            else:
                reorders += int(n)
    return dups, reorders


def counters(name, hosts):
    """Sum over the cluster's namespaces: qdisc drops, packets duplicated and reordered by
    the switch, TCP retransmitted segments and retransmission timeouts."""
    total = {"drops": 0, "retrans": 0, "timeouts": 0, "segs_out": 0}
    total["dups"], total["reorders"] = switch_copies(f"ccmpi-{name}-sw")
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


def Cluster(tool, name, hosts, setting):
    """The cluster of one fault setting (bench/common/emucluster.py)."""
    return EmulatedCluster(tool, name, hosts, RATE, setting_args(setting))


def command(impl, cl, build, exe, iters, nranks=None, extra=()):
    n = str(nranks or cl.hosts)
    if impl == "ccmpi":
        return [os.path.join(build, "bin", "mpirun"), "--hostfile", cl.hostfile, "--launcher",
                f"{cl.tool} exec --name {cl.name}", "--iface", "r0", "-n", n, exe,
                str(iters)] + list(extra)
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


def finish(p, timeout):
    """Waits for p (started in a session of its own); past `timeout` seconds kills its
    process group. Returns (stdout, stderr, hang)."""
    try:
        out, err = p.communicate(timeout=timeout)
        return out, err, False
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        return out, err, True


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
    out, _, hang = finish(p, timeout)
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


ATTACKS = ("none", "halfopen", "random", "forged")
# How many: connections held (halfopen), connections a second (random, forged).
ATTACK_COUNT = {"halfopen": 600, "random": 50, "forged": 50}
INTRUDER_LINE = re.compile(r"unauthenticated TCP connection")


def listeners(ns, exe_name):
    """ADDR:PORT of the TCP listeners of processes named exe_name in namespace ns."""
    out = subprocess.run(["ip", "netns", "exec", ns, "ss", "-ltnpH"], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True).stdout
    return [ln.split()[3] for ln in out.splitlines()
            if f'"{exe_name}"' in ln and len(ln.split()) > 3]


def run_hostile(attack, cl, build, exe, iters, timeout, ranks):
    """ccmpi's mixed program on the first `ranks` hosts of cl while hostile.py attacks
    their listeners from the last host (attack "none": the reference run). The ranks wait
    2 s after MPI_Init, so the attack is in place when the timed part starts. Returns a
    row: seconds (the program's), errors, rc, hang, stderr lines in all and about
    intruders, the attacker's connections and CPU seconds."""
    p = subprocess.Popen(command("ccmpi", cl, build, exe, iters, ranks, ["65536", "2"]),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    name = os.path.basename(exe)[:15]  # the kernel's comm
    targets, deadline = [], time.time() + 10
    while time.time() < deadline and p.poll() is None:
        targets = [t for k in range(1, ranks + 1)
                   for t in listeners(f"ccmpi-{cl.name}-h{k}", name)]
        if len({t.rsplit(":", 1)[0] for t in targets}) >= ranks:
            break
        time.sleep(0.05)
    attacker = None
    if attack != "none" and targets:
        attacker = subprocess.Popen(
            ["ip", "netns", "exec", f"ccmpi-{cl.name}-h{cl.hosts}", sys.executable,
             os.path.join(HERE, "hostile.py"), attack, str(ATTACK_COUNT[attack])] + targets,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    out, err, hang = finish(p, timeout)
    conns, cpu = 0, 0.0
    if attacker:
        attacker.terminate()
        a_out, _ = attacker.communicate(timeout=30)
        m = re.search(r"connections=(\d+) .*cpu_s=([0-9.]+)", a_out)
        if m:
            conns, cpu = int(m.group(1)), float(m.group(2))
    m = re.search(r"RESULT .*errors=(\d+) seconds=([0-9.]+)", out)
    lines = err.splitlines()
    return {"attack": attack, "targets": len(targets), "rc": p.returncode, "hang": int(hang),
            "errors": int(m.group(1)) if m else -1,
            "seconds": float(m.group(2)) if m else None,
            "stderr_lines": len(lines),
            "intruder_lines": sum(1 for ln in lines if INTRUDER_LINE.search(ln)),
            "attacker_connections": conns, "attacker_cpu_s": cpu,
            "last_line": (lines[-1] if lines else "")[:200]}


def write_hostile_report(rows, out):
    fields = ["attack", "rep", "targets", "seconds", "errors", "rc", "hang", "stderr_lines",
              "intruder_lines", "attacker_connections", "attacker_cpu_s", "last_line"]
    with open(os.path.join(out, "hostile.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    attacks = list(dict.fromkeys(r["attack"] for r in rows))
    med = {}
    for at in attacks:
        t = [r["seconds"] for r in rows if r["attack"] == at and r["seconds"] is not None]
        med[at] = statistics.median(t) if t else None
    lines = ["", "## Hostile peers", "",
             "ccmpi only, lossless cluster, one more host than ranks: `bench/reliability/"
             "hostile.py` on the last host attacks every listener of the job while it runs "
             "(set up while the ranks wait 2 s after MPI_Init). halfopen: "
             f"{ATTACK_COUNT['halfopen']} connections held open without a byte (each one the "
             "job closes opened again, at most 100 a second); random: "
             f"{ATTACK_COUNT['random']} connections a second, 1-8 KiB of random bytes each; "
             f"forged: {ATTACK_COUNT['forged']} connections a second, each a preamble and a "
             "well-formed HELLO with a wrong MAC (a replayed or forged handshake). The attacker "
             "shares the 2 cores with the job: its CPU seconds are listed. Time: the program's "
             "own, median over repetitions; change against no attack.", "",
             "| attack | runs | connections made | attacker CPU (s) | errors | hangs | "
             "stderr lines (about intruders) | time (s) | change |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    base = med.get("none")
    for at in attacks:
        rs = [r for r in rows if r["attack"] == at]
        m = med[at]
        change = f"{(m / base - 1) * 100:+.1f}%" if m and base else "n/a"
        errs = sum(max(int(r["errors"]), 0) for r in rs) + sum(1 for r in rs
                                                              if int(r["errors"]) < 0)
        lines.append(
            f"| {at} | {len(rs)} | {sum(int(r['attacker_connections']) for r in rs)} | "
            f"{sum(float(r['attacker_cpu_s']) for r in rs):.1f} | {errs} | "
            f"{sum(int(r['hang']) for r in rs)} | "
            f"{max(int(r['stderr_lines']) for r in rs)} "
            f"({max(int(r['intruder_lines']) for r in rs)}) | "
            f"{'n/a' if m is None else f'{m:.2f}'} | {change} |")
    lines += ["", "stderr lines: the most of any run."]
    return lines


SOAK_WHERE = ("host", "cluster")


def run_soak(where, cl, build, exe, ranks, p2p, each, timeout):
    """bench/reliability/soak.c with `ranks` ranks on this machine (shared memory) or on
    the emulated cluster cl (TCP between hosts). Returns a row."""
    args = [str(p2p), str(each)]
    if where == "cluster":
        cmd = command("ccmpi", cl, build, exe, args[0], ranks, args[1:])
    else:
        cmd = [os.path.join(build, "bin", "mpirun"), "-n", str(ranks), exe] + args
    t0 = time.time()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         start_new_session=True)
    out, _, hang = finish(p, timeout)
    m = re.search(r"SOAK ranks=(\d+) p2p_messages=(\d+) collectives=(\d+) bytes_checked=(\d+) "
                  r"errors=(\d+) seconds=([0-9.]+)", out)
    row = {"where": where, "ranks": ranks, "rc": p.returncode, "hang": int(hang),
           "wall": round(time.time() - t0, 1), "p2p_messages": 0, "collectives": 0,
           "bytes_checked": 0, "errors": -1, "seconds": None, "note": ""}
    if m:
        row.update(p2p_messages=int(m.group(2)), collectives=int(m.group(3)),
                   bytes_checked=int(m.group(4)), errors=int(m.group(5)),
                   seconds=float(m.group(6)))
    if hang or p.returncode != 0 or not m:
        row["note"] = ("hang" if hang else f"exit {p.returncode}") + ": " + \
            " | ".join(out.strip().splitlines()[-2:])[:200]
    return row


def write_soak_report(rows, out, meta):
    fields = ["where", "ranks", "seconds", "wall", "p2p_messages", "collectives",
              "bytes_checked", "errors", "hang", "rc", "note"]
    with open(os.path.join(out, "soak.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    lines = ["", "## Soak", "",
             f"`bench/reliability/soak.c {meta.get('soak_p2p')} {meta.get('soak_each')}`, ccmpi: "
             "point-to-point rounds (16 messages per rank, random sizes up to 16 KiB, some "
             "received out of order) and Bcast, Reduce, Allreduce, Gather, Scatter, "
             "Allgather, Alltoall, Alltoallv, Reduce_scatter_block, Scan and Barrier with "
             "random roots and sizes, on five communicators (the world, a duplicate, even and "
             "odd ranks, groups of three in reverse order), every element checked; on this "
             "machine (shared memory) and on the emulated cluster (lossless, TCP between "
             "hosts).", "",
             "| where | ranks | point-to-point messages | collectives | bytes checked | "
             "errors | hangs | time (s) |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['where']} | {r['ranks']} | {r['p2p_messages']} | "
                     f"{r['collectives']} | {r['bytes_checked']} | {r['errors']} | {r['hang']} | "
                     f"{'n/a' if r['seconds'] in (None, '') else r['seconds']} |")
    notes = [r for r in rows if r.get("note")]
    if notes:
        lines += [""] + [f"- {r['where']}: {r['note']}" for r in notes]
    return lines


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


def build_programs(build, workdir, impls, soak=False):
    src = os.path.join(HERE, "mixed.c")
    exes = {"ccmpi": os.path.join(workdir, "mixed.ccmpi"),
            "openmpi": os.path.join(workdir, "mixed.openmpi")}
    compilers = {"ccmpi": os.path.join(build, "bin", "mpicc"), "openmpi": "mpicc.openmpi"}
    for impl in impls:
        subprocess.run([compilers[impl], "-O2", "-o", exes[impl], src], check=True)
    if soak:
        exes["soak"] = os.path.join(workdir, "soak.ccmpi")
        subprocess.run([compilers["ccmpi"], "-O2", "-o", exes["soak"],
                        os.path.join(HERE, "soak.c")], check=True)
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
              "errors", "hang", "drops", "dups", "reorders", "retrans", "timeouts", "segs_out", "rc",
              "note"]
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
        "# Reliability campaign: packet loss, faults, hostile peers, soak",
        "",
        f"Generated by `bench/reliability/run.py {meta['command']}` on "
        f"{meta['started']} UTC, load average before {meta['load']}"
        + (f", after {meta['load_after']} (the runs' own ranks count in it)"
           if meta.get("load_after") else "") + ". "
        f"{meta['hosts']} emulated hosts at {RATE} (`ccmpi-cluster`), one rank each; "
        f"bench/reliability/mixed.c with {meta['iters']} iterations (Bcast, Allreduce, Alltoall, "
        "Alltoallv of up to 64 KiB per buffer, point-to-point of up to 128 KiB and four small "
        "messages per rank, every byte checked); "
        f"{meta['reps']} repetition(s); Open MPI 4 with `--mca btl tcp,self --mca "
        "mpi_yield_when_idle 1`. Settings: loss/dup/reorder P per cable direction "
        "(`ccmpi-cluster up --loss P --dup P --reorder P`; a packet crosses two cables; "
        "without netem duplication and reordering are drawn once, where the packet leaves "
        "the switch, with probability 1-(1-P)^2, and a reordered packet waits 1 ms; "
        "docs/cluster.md, Impairments).",
        "",
    ]
    # Parts run by another command and merged into meta.json (then --report-only).
    for x in meta.get("also", []):
        lines += [f"{x['what']}: `bench/reliability/run.py {x['command']}` on {x['started']} "
                  f"UTC, load average before {x['load']}"
                  + (f", after {x['load_after']}" if x.get("load_after") else "") + ".", ""]
    lines += [
        "Faults: packets dropped by the qdiscs (the injected loss, plus port-buffer "
        "overflow), duplicated and reordered by the switch, TCP segments retransmitted and retransmission timeouts (nstat), summed "
        "over the hosts. Time: the program's own (slowest rank), median over repetitions; "
        "slowdown against the same implementation's first setting. Without netem the loss is "
        "drawn in the switch (docs/cluster.md, Impairments), never in the sender's own qdisc, "
        "whose drops TCP would see and repair only after 200 ms (where runs before 2026-11-27 "
        "dropped).",
        "",
        "| setting | impl | runs | operations | faults injected (packets dropped / "
        "duplicated / reordered) | "
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
                f"{sum(r['drops'] for r in rs)} / {sum(r.get('dups', 0) for r in rs)} / "
                f"{sum(r.get('reorders', 0) for r in rs)} | {sum(r['retrans'] for r in rs)} | "
                f"{sum(r['timeouts'] for r in rs)} | {sum(r['bytes_checked'] for r in rs)} | "
                f"{errs} | {sum(r['hang'] for r in rs)} | "
                f"{'n/a' if m is None else f'{m:.2f}'} | {slow} |")
    notes = [r for r in rows if r["note"]]
    if notes:
        lines += ["", "Failed runs:", ""] + [f"- {r['setting']} {r['impl']} rep {r['rep']}: "
                                             f"{r['note']}" for r in notes]
    if meta.get("faults"):
        lines += write_fault_report(meta["faults"], out)
    if meta.get("hostile"):
        lines += write_hostile_report(meta["hostile"], out)
    if meta.get("soak"):
        lines += write_soak_report(meta["soak"], out, meta)
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
    need_ccmpi = bool(faults) or bool(a.hostile.strip(","))
    exes = build_programs(a.build, workdir,
                          sorted(set(impls) | ({"ccmpi"} if need_ccmpi else set())),
                          soak=bool(a.soak.strip(",")))
    rows, fault_rows = [], []
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
    hostile_rows = []
    attacks = [x for x in a.hostile.split(",") if x]
    for x in attacks:
        if x not in ATTACKS:
            raise SystemExit(f"unknown attack {x!r} (known: {', '.join(ATTACKS)})")
    if attacks:
        with Cluster(tool, f"rh{os.getpid() % 100000}", a.hosts + 1, "0") as cl:
            for rep in range(a.reps):
                for attack in (attacks if rep % 2 == 0 else attacks[::-1]):
                    r = run_hostile(attack, cl, a.build, exes["ccmpi"], a.iters, a.timeout,
                                    a.hosts)
                    r["rep"] = rep
                    hostile_rows.append(r)
                    print(f"hostile {attack:8} rep {rep}: {r['seconds']} s, errors "
                          f"{r['errors']}, rc {r['rc']}, stderr {r['stderr_lines']} lines "
                          f"({r['intruder_lines']} about intruders), attacker "
                          f"{r['attacker_connections']} connections, "
                          f"{r['attacker_cpu_s']} CPU s, {r['targets']} listeners", flush=True)
    soak_rows = []
    for where in [x for x in a.soak.split(",") if x]:
        if where not in SOAK_WHERE:
            raise SystemExit(f"unknown soak place {where!r} (known: {', '.join(SOAK_WHERE)})")
        if where == "host":
            r = run_soak(where, None, a.build, exes["soak"], a.hosts, a.soak_p2p, a.soak_each,
                         a.timeout)
        else:
            with Cluster(tool, f"rs{os.getpid() % 100000}", a.hosts, "0") as cl:
                r = run_soak(where, cl, a.build, exes["soak"], a.hosts, a.soak_p2p,
                             a.soak_each, a.timeout)
        soak_rows.append(r)
        print(f"soak {where}: {r['seconds']} s, {r['p2p_messages']} messages, "
              f"{r['collectives']} collectives, errors {r['errors']} {r['note']}", flush=True)
    for setting in [x for x in a.settings.split(",") if x]:
        with Cluster(tool, f"rel{os.getpid() % 100000}", a.hosts, setting) as cl:
            for rep in range(a.reps):
                order = impls if rep % 2 == 0 else impls[::-1]
                for impl in order:
                    r = run_once(impl, cl, a.build, exes[impl], a.iters, a.timeout)
                    r.update(setting=setting, rep=rep)
                    rows.append(r)
                    print(f"{setting:>9} {impl:8} rep {rep}: "
                          f"{r['seconds'] if r['seconds'] is not None else 'n/a'} s, "
                          f"errors {r['errors']}, drops {r['drops']}, dups {r['dups']}, "
                          f"reorders {r['reorders']}, retrans {r['retrans']}, "
                          f"RTOs {r['timeouts']}; per collective "
                          f"{[r.get(k) for k in ('bcast', 'allreduce', 'alltoall', 'alltoallv', 'p2p')]}"
                          f", first iteration {r.get('first_iteration')} {r['note']}", flush=True)
    write_report(rows, a.out, {"command": shlex.join(sys.argv[1:]),
                               "started": f"{started:%Y-%m-%d %H:%M}", "load": load,
                               "load_after": open("/proc/loadavg").read().split()[0],
                               "hosts": a.hosts, "iters": a.iters, "reps": a.reps,
                               "faults": fault_rows,
                               "hostile": hostile_rows, "soak": soak_rows,
                               "soak_p2p": a.soak_p2p, "soak_each": a.soak_each})
    bad = [r for r in rows if r["errors"] != 0 or r["hang"]]
    bad += [r for r in hostile_rows if r["errors"] != 0 or r["hang"] or r["rc"] != 0]
    bad += [r for r in soak_rows if r["errors"] != 0 or r["hang"] or r["rc"] != 0]
    bad += [r for r in fault_rows if not r["expected"]]
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(REPO, "build"))
    ap.add_argument("--iters", type=int, default=200)
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("--hosts", type=int, default=8)
    ap.add_argument("--settings", default="0,0.1,1,2,5,dup1,reorder1,2+dup1+reorder1")
    ap.add_argument("--impls", default="ccmpi,openmpi")
    ap.add_argument("--timeout", type=float, default=900)
    ap.add_argument("--out", default=os.path.join(REPO, "docs", "results", "reliability"))
    ap.add_argument("--faults", default=",".join(FAULTS),
                    help="fault injections to run (comma separated, '' for none): "
                    + ", ".join(FAULTS))
    ap.add_argument("--hostile", default=",".join(ATTACKS),
                    help="hostile-peer runs (comma separated, '' for none): "
                    + ", ".join(ATTACKS) + " (none: the reference)")
    ap.add_argument("--soak", default=",".join(SOAK_WHERE),
                    help="where to run the soak (comma separated, '' for none): host, cluster")
    ap.add_argument("--soak-p2p", type=int, default=1000000,
                    help="point-to-point messages of a soak run")
    ap.add_argument("--soak-each", type=int, default=10000,
                    help="runs of each collective in a soak run")
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
