#!/usr/bin/env python3
"""No wake-up is lost through shared memory, with full fences and with light ones.

Runs tests/mpi/shm_sleep_wake.c (ping-pong with random delays, then floods through a small
ring) with a spin of 2 us, so most waits sleep, twice: CCMPI_SHM_LIGHT_FENCES=1 (the
message path skips its fences; a rank about to sleep, or a writer waiting for room, calls
membarrier) and =0 (a fence on every message). A lost wake-up costs a whole sleep slice
(1 s) before the sleeper looks again; the test fails when a round trip or a gap in the flood
reaches 700 ms, when a payload is wrong, and when the statistics line
(CCMPI_P2P_STATS) shows no wake-up sent or the fences are not in the mode asked for.

Usage: shm_sleep_wake.py MPIRUN PROGRAM NP
"""
import os
import re
import subprocess
import sys

LIMIT_MS = 700.0


def run(mpirun, program, np, light):
    env = dict(os.environ, CCMPI_SPIN_US="2", CCMPI_SHM_RING="4096", CCMPI_P2P_STATS="1",
               CCMPI_SHM_LIGHT_FENCES="1" if light else "0")
    cmd = [mpirun, "-n", str(np), program, "1500", "2000"]
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=150)
    out = p.stdout + p.stderr
    tag = "light" if light else "full"
    if p.returncode != 0:
        sys.exit(f"{tag}: exit code {p.returncode}\n{out}")
    m = re.search(r"max_rtt_ms=([\d.]+) max_gap_ms=([\d.]+) bad=(\d+)", out)
    if not m:
        sys.exit(f"{tag}: no result line\n{out}")
    rtt, gap, bad = float(m.group(1)), float(m.group(2)), int(m.group(3))
    stats = re.findall(r"ccmpi-p2p: rank=\d+ .*shm_wakeups=(\d+).*shm_light=(\d)", out)
    if len(stats) != np:
        sys.exit(f"{tag}: {len(stats)} statistics lines for {np} ranks\n{out}")
    wakeups = sum(int(w) for w, _ in stats)
    modes = {int(x) for _, x in stats}
    print(f"{tag}: max round trip {rtt:.3f} ms, max flood gap {gap:.3f} ms, "
          f"{wakeups} wake-ups sent, shm_light {sorted(modes)}")
    if bad:
        sys.exit(f"{tag}: {bad} wrong payloads")
    if rtt >= LIMIT_MS or gap >= LIMIT_MS:
        sys.exit(f"{tag}: a wait lasted {max(rtt, gap):.0f} ms: a wake-up was lost")
    if wakeups == 0:
        sys.exit(f"{tag}: no rank slept (no wake-up sent): the test did not test")
    if modes != {1 if light else 0}:
        sys.exit(f"{tag}: fences in mode {sorted(modes)}, asked for {int(light)}")


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    mpirun, program, np = sys.argv[1], sys.argv[2], int(sys.argv[3])
    run(mpirun, program, np, light=True)
    run(mpirun, program, np, light=False)
    print("ok")


if __name__ == "__main__":
    main()
