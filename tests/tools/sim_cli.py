#!/usr/bin/env python3
"""ccmpi-sim from the command line: the library's own schedules on simulated clusters.

Checks figures with closed forms (link bounds), that the algorithm and the topology change
the result the way they must, a thousand ranks, and that bad input is refused with a
message. Usage: sim_cli.py BUILD_BIN_DIR WORK_DIR
"""
import os
import re
import subprocess
import sys
import time

BIN = sys.argv[1]
WORK = sys.argv[2]
SIM = os.path.join(BIN, "ccmpi-sim")
PAYLOAD = 1448 / 1538  # TCP payload share of an Ethernet frame
failures = []


def run(*args, ok=True):
    p = subprocess.run([SIM, *args], capture_output=True, text=True, timeout=300)
    if ok and p.returncode != 0:
        raise SystemExit("ccmpi-sim %s failed (%d): %s" % (" ".join(args), p.returncode, p.stderr))
    return p


def time_ms(*args):
    m = re.search(r"^time_ms=([0-9.]+)$", run(*args).stdout, re.M)
    if not m:
        raise SystemExit("no time_ms in the output of ccmpi-sim %s" % " ".join(args))
    return float(m.group(1))


def check(cond, what):
    print(("ok    " if cond else "FAIL  ") + what)
    if not cond:
        failures.append(what)


def bytes_per_s(rate_bits):
    return rate_bits / 8 * PAYLOAD


# Closed forms need an ideal network: all of the payload rate. The default costs are the
# emulated cluster's (docs/simulator.md).
IDEAL = os.path.join(WORK, "ideal.costs")
with open(IDEAL, "w") as f:
    f.write("# an ideal network\nlink_efficiency 1\n")
_time_ms = time_ms


def time_ms(*args):  # noqa: F811 (every figure below on the ideal network)
    return _time_ms("--costs", IDEAL, *args)


# Alltoall, pairwise, 16 hosts at 25 Mbit/s, 256 KiB blocks: every cable busy for
# 15 blocks; latencies and overheads on top, a few percent.
B = bytes_per_s(25e6)
bound = 15 * 262144 / B * 1e3
t = time_ms("--hosts", "16", "--rate", "25mbit", "--algorithm", "pairwise", "alltoall", "256k")
check(bound <= t <= 1.06 * bound, "alltoall pairwise %.1f ms, bound %.1f ms" % (t, bound))

# Bcast by multicast: one copy per cable, M/B; a binomial tree sends log2(16) = 4 copies
# one after the other from the root's subtree roots: far slower.
mc = time_ms("--hosts", "16", "--rate", "25mbit", "--algorithm", "mcast", "bcast", "256k")
check(262144 / B * 1e3 <= mc <= 1.05 * 262144 / B * 1e3, "bcast mcast %.1f ms" % mc)
bi = time_ms("--hosts", "16", "--rate", "25mbit", "--algorithm", "binomial", "bcast", "256k")
check(bi > 3.5 * mc, "bcast binomial %.1f ms > 3.5 x mcast" % bi)

# Allgather by multicast (modelled: the nonblocking table has no such entry): every port
# carries the other 15 blocks.
ag = time_ms("--hosts", "16", "--rate", "25mbit", "--algorithm", "mcast", "allgather", "64k")
check(15 * 65536 / B * 1e3 <= ag <= 1.06 * 15 * 65536 / B * 1e3, "allgather mcast %.1f ms" % ag)

# The automatic choice is one of the table's algorithms, named with -v.
out = run("--hosts", "16", "--rate", "25mbit", "-v", "alltoall", "64k").stdout
check(re.search(r"^algorithm=\w+ ranks=16 hosts=16", out, re.M) is not None, "-v names the algorithm")
check(re.search(r"^# round end_ms", out, re.M) is not None, "-v lists the rounds")

# A two-level tree with 4:1 oversubscribed uplinks: 64 hosts, leaves of 16. Each leaf's
# 16 hosts send 48 blocks each to other leaves through an uplink of 16 x rate / 4: about
# three times the one-switch time.
one = time_ms("--hosts", "64", "--rate", "1gbit", "--algorithm", "pairwise", "alltoall", "64k")
tree = time_ms("--hosts", "64", "--rate", "1gbit", "--topology", "fat-tree:16:4",
               "--algorithm", "pairwise", "alltoall", "64k")
check(2.6 < tree / one < 3.4, "fat tree 4:1 / one switch = %.2f (about 3)" % (tree / one))
per_link = time_ms("--hosts", "64", "--rate", "1gbit", "--topology", "fat-tree:16:4",
                   "--sharing", "per-link", "--algorithm", "pairwise", "alltoall", "64k")
check(0.95 < per_link / tree < 1.1, "per-link sharing / max-min on the tree = %.3f" % (per_link / tree))

# Two rails: a 1 MiB broadcast by a pipeline is not striped (segments are small), an
# alltoall of 1 MiB blocks is, and takes about half the time.
r1 = time_ms("--hosts", "8", "--rate", "1gbit", "--algorithm", "pairwise", "alltoall", "1m")
r2 = time_ms("--hosts", "8", "--rails", "2", "--rate", "1gbit", "--algorithm", "pairwise",
             "alltoall", "1m")
check(0.45 < r2 / r1 < 0.6, "2 rails / 1 rail = %.2f (about 0.5)" % (r2 / r1))

# Several ranks per host: messages within a host do not touch the cables.
out = run("--hosts", "4", "--ranks-per-host", "4", "--rate", "25mbit", "--algorithm",
          "pairwise", "-v", "alltoall", "16k").stdout
wire = float(re.search(r"wire_bytes=([0-9.]+)", out).group(1))
check(wire == 16 * 12 * 16384, "wire bytes %d = 16 ranks x 12 remote blocks" % wire)

# A pattern file (ccmpi-schedule's format) stands for Alltoallv.
pattern = os.path.join(WORK, "sim.pattern")
with open(pattern, "w") as f:
    f.write("# CC-MPI Figure 3\n0 1 1048576\n1 3 1048576\n0 2 10240\n2 3 100\n1 5 100\n2 1 100\n")
t = time_ms("--hosts", "6", "--rate", "100mbit", "alltoallv", pattern)
check(2 * 1048576 / bytes_per_s(100e6) * 1e3 * 0.5 < t < 3 * 1048576 / bytes_per_s(100e6) * 1e3,
      "alltoallv of the Figure 3 pattern: %.1f ms" % t)

# A thousand ranks in a few seconds. Without the network's latency the pairwise exchange
# is the bound plus a few microseconds of CPU per round; with 20 us of it, each of the
# 1023 rounds waits that much longer (a round ends when its message has arrived).
start = time.monotonic()
args = ["--hosts", "1024", "--rate", "10gbit", "--algorithm", "pairwise", "alltoall", "64k"]
t = time_ms("--latency", "0", *args)
took = time.monotonic() - start
bound = 1023 * 65536 / bytes_per_s(10e9) * 1e3
check(bound <= t <= 1.15 * bound and took < 60,
      "1024 ranks: %.2f ms (bound %.2f) in %.1f s" % (t, bound, took))
t20 = time_ms("--latency", "20e-6", *args)
check(abs((t20 - t) - 1023 * 0.020) < 0.1 * 1023 * 0.020,
      "20 us of latency adds %.2f ms to 1023 rounds" % (t20 - t))

# The default costs: the emulated cluster's efficiency makes the same exchange slower.
real = _time_ms("--hosts", "16", "--rate", "25mbit", "--algorithm", "pairwise", "alltoall", "256k")
ideal = time_ms("--hosts", "16", "--rate", "25mbit", "--algorithm", "pairwise", "alltoall", "256k")
check(1.05 < real / ideal < 1.12, "default costs / ideal = %.3f (link efficiency 0.92)" % (real / ideal))

# Scatter and gather (root 0): the root's cable carries the 15 other blocks, one way.
for coll in ("scatter", "gather"):
    t = time_ms("--hosts", "16", "--rate", "25mbit", "--algorithm", "linear", coll, "64k")
    check(15 * 65536 / B * 1e3 <= t <= 1.06 * 15 * 65536 / B * 1e3, "%s linear %.1f ms" % (coll, t))

# TCP under tail drop (the emulated switch's incast, default costs): every flow at once into
# each port (linear, 15 per port) waits for retransmissions; one flow per port (phased)
# does not. The idle time grows with the bytes, so the factor holds from 64 KiB to 1 MiB.
for size in ("64k", "1m"):
    fair = _time_ms("--hosts", "16", "--rate", "25mbit", "--algorithm", "linear", "alltoall", size)
    drop = _time_ms("--hosts", "16", "--rate", "25mbit", "--tcp", "tail-drop", "--algorithm",
                    "linear", "alltoall", size)
    check(1.3 < drop / fair < 1.7, "linear alltoall %s: tail drop / fair = %.2f" % (size, drop / fair))
fair = _time_ms("--hosts", "16", "--rate", "25mbit", "--algorithm", "phased", "alltoall", "256k")
drop = _time_ms("--hosts", "16", "--rate", "25mbit", "--tcp", "tail-drop", "--algorithm", "phased",
                "alltoall", "256k")
check(drop == fair, "phased alltoall: tail drop %.1f ms = fair %.1f ms" % (drop, fair))

# Started as one task of a Slurm step (a batch job's tool), it still runs alone.
env = dict(os.environ, SLURM_STEP_NUM_TASKS="4", SLURM_PROCID="1", SLURM_STEP_ID="0")
p = subprocess.run([SIM, "--hosts", "4", "--rate", "1gbit", "alltoall", "8"], env=env,
                   capture_output=True, text=True, timeout=60)
check(p.returncode == 0 and "time_ms=" in p.stdout, "runs inside a Slurm step (%r)" % p.stderr.strip())

# coll_bench's patterns, as the validation reads them (bench/sim/run.py): built with the
# build's mpicc, its --print-pattern from a job of 4 ranks and from one process with
# --ranks 4 are the same file; the pattern runs in ccmpi-sim. Its incast test moves (and
# checks) the data of 2 senders into rank 0.
SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench", "coll",
                   "coll_bench.c")
CB = os.path.join(WORK, "coll_bench")
subprocess.run([os.path.join(BIN, "mpicc"), "-O2", SRC, "-o", CB, "-lm"], check=True, timeout=300)
quiet = ["--target-ms", "1", "--warmup", "1", "--min-iters", "1", "--max-iters", "1"]
subprocess.run([os.path.join(BIN, "mpirun"), "-n", "4", CB, "uniform", "--degree", "2", "--sizes",
                "4096", "--print-pattern", os.path.join(WORK, "job")] + quiet,
               check=True, capture_output=True, timeout=300)
subprocess.run([CB, "uniform", "--degree", "2", "--sizes", "4096", "--ranks", "4",
                "--print-pattern", os.path.join(WORK, "one")], check=True, timeout=300)
job, one = (open(os.path.join(WORK, w + "-4096.pattern")).read() for w in ("job", "one"))
check(job == one and len(job.splitlines()) == 8,
      "coll_bench --print-pattern: a job of 4 and --ranks 4 agree (%d messages)" % len(job.splitlines()))
t = time_ms("--hosts", "4", "--rate", "25mbit", "--algorithm", "linear", "alltoallv",
            os.path.join(WORK, "one-4096.pattern"))
# Every rank sends 2 messages and receives 2 (4 KiB each): at least 2 blocks' time.
check(2 * 4096 / B * 1e3 <= t <= 4 * 4096 / B * 1e3, "coll_bench's pattern in ccmpi-sim: %.2f ms" % t)
p = subprocess.run([os.path.join(BIN, "mpirun"), "-n", "3", CB, "incast", "--sizes", "1,70000"] + quiet,
                   capture_output=True, text=True, timeout=300)
check(p.returncode == 0 and re.search(r"^result incast 3 70000 [0-9.]+ [0-9.]+ [0-9.]+ 140000 1$",
                                      p.stdout, re.M) is not None,
      "coll_bench incast: 2 senders' data checked (%r)" % p.stdout[-200:])

# The phased Alltoallv's synchronization (coll/phased: phaseSyncFor, the library's own):
# CC-MPI's random pattern (64 KiB, 16 KiB and 100 B messages) gets barriers between
# phases, which the model finds faster than `ready` (as the emulated cluster did); every
# pair 64 KiB keeps `ready`. CCMPI_PHASE_SYNC set overrides the choice.
subprocess.run([CB, "alltoallv-random", "--sizes", "0", "--ranks", "16", "--print-pattern",
                os.path.join(WORK, "random")], check=True, timeout=300)
subprocess.run([CB, "alltoallv", "--sizes", "65536", "--ranks", "16", "--print-pattern",
                os.path.join(WORK, "a2a")], check=True, timeout=300)


def phased(pattern, sync=None):
    env = dict(os.environ)
    env.pop("CCMPI_PHASE_SYNC", None)
    if sync:
        env["CCMPI_PHASE_SYNC"] = sync
    p = subprocess.run([SIM, "--hosts", "16", "--rate", "25mbit", "--algorithm", "phased",
                        "alltoallv", os.path.join(WORK, pattern)], capture_output=True, text=True,
                       env=env, timeout=300, check=True)
    return float(re.search(r"^time_ms=([0-9.]+)$", p.stdout, re.M).group(1))


auto, barrier, ready = (phased("random-0.pattern", s) for s in (None, "barrier", "ready"))
check(auto == barrier and barrier < 0.8 * ready,
      "random pattern: phased %.1f ms = barrier %.1f < 0.8 x ready %.1f" % (auto, barrier, ready))
auto, ready = phased("a2a-65536.pattern"), phased("a2a-65536.pattern", "ready")
check(auto == ready, "every pair 64 KiB: phased %.1f ms = ready %.1f" % (auto, ready))

# Bad input: a message, exit status 1 or 2, nothing on stdout.
BAD = os.path.join(WORK, "bad.costs")
with open(BAD, "w") as f:
    f.write("link_efficiency 1.5\n")
for args, msg in [
        (["--hosts", "4", "--rate", "25mbit", "scan", "8"], "unknown collective scan"),
        (["--hosts", "4", "--rate", "25mbit", "--algorithm", "bogus", "alltoall", "8"],
         "no schedule algorithm 'bogus' (linear, pairwise"),
        (["--hosts", "4", "--rate", "fast", "alltoall", "8"], "bad --rate fast"),
        (["--hosts", "4", "--rate", "1gbit", "--topology", "torus", "alltoall", "8"],
         "unknown topology 'torus'"),
        (["--hosts", "4", "--rate", "1gbit", "alltoall", "8x"], "bad SIZE 8x"),
        (["--hosts", "4", "--rate", "1gbit", "--sharing", "fifo", "alltoall", "8"],
         "unknown sharing 'fifo'"),
        (["--hosts", "4", "--rate", "1gbit", "--tcp", "reno", "alltoall", "8"],
         "unknown --tcp 'reno' (fair or tail-drop)"),
        (["--hosts", "2", "--rate", "1gbit", "alltoallv", pattern], "want SRC DST BYTES with ranks < 2"),
        (["--hosts", "4", "--rate", "1gbit", "--costs", "/nonexistent", "alltoall", "8"],
         "cannot read /nonexistent"),
        (["--hosts", "4", "--rate", "1gbit", "--costs", BAD, "alltoall", "8"],
         "link_efficiency must lie in (0, 1]")]:
    p = run(*args, ok=False)
    check(p.returncode in (1, 2) and msg in p.stderr and p.stdout == "",
          "refused: %s (%r)" % (msg, p.stderr.strip()))

if failures:
    print("%d check(s) failed" % len(failures))
    sys.exit(1)
print("all checks passed")
