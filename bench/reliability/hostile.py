#!/usr/bin/env python3
"""A hostile peer for the reliability campaign (run.py --hostile): run on a host of the
emulated cluster that is not part of the job, it attacks the job's TCP listeners until it
is terminated (SIGTERM), then prints one line:

    HOSTILE mode=M connections=C bytes=B cpu_s=T

    hostile.py MODE COUNT ADDR:PORT...

MODE
  halfopen  holds COUNT connections open across the listeners without sending a byte
            (each one the job closes is opened again, at most 100 a second): a job must
            neither stall nor exhaust its descriptors, and say little about them.
  random    opens connections (COUNT a second at most) and writes 1-8 KiB of random bytes
            into each, then closes it.
  forged    opens connections (COUNT a second at most), writes a preamble frame, reads
            the acceptor's challenge and answers with a well-formed HELLO frame claiming a
            rank of the job but carrying a wrong MAC (what a replayed or forged handshake
            amounts to: the MAC covers the acceptor's fresh nonces), then closes it.
"""
import os
import random
import resource
import select
import signal
import socket
import struct
import sys
import time

MAGIC = 0xCC4D5049
HEADER = "<IBBHiIiIQQQQQ"  # src/transport/frame.cc: encodeHeader (64 bytes)
PREAMBLE, HELLO = 6, 2

stop = False


def on_term(signum, frame):
    global stop
    stop = True


def frame(ftype, src, a=0, b=0):
    return struct.pack(HEADER, MAGIC, ftype, 0, 0, src, 0, 0, 0, 0, 0, 0, a, b)


def connect(addr, timeout=1.0):
    host, port = addr.rsplit(":", 1)
    s = socket.socket()
    s.settimeout(timeout)
    try:
        s.connect((host, int(port)))
    except OSError:
        s.close()
        return None
    return s


def halfopen(count, targets, stats):
    held = {}
    k = 0
    budget, last = 0.0, time.time()
    while not stop:
        now = time.time()
        budget = min(100.0, budget + (now - last) * 100.0)
        last = now
        # Open up to COUNT (at most 100 a second once the first COUNT are there).
        while len(held) < count and not stop and (stats["connections"] < count or budget >= 1):
            s = connect(targets[k % len(targets)])
            k += 1
            if s is None:
                break
            if stats["connections"] >= count:
                budget -= 1
            stats["connections"] += 1
            held[s.fileno()] = s
        if not held:
            time.sleep(0.05)
            continue
        ready, _, _ = select.select(list(held.values()), [], [], 0.05)
        for s in ready:  # closed (or reset) by the job
            held.pop(s.fileno(), None)
            s.close()
    for s in held.values():
        s.close()


def churn(mode, rate, targets, stats):
    k = 0
    while not stop:
        t0 = time.time()
        s = connect(targets[k % len(targets)])
        k += 1
        if s is not None:
            stats["connections"] += 1
            try:
                if mode == "random":
                    data = os.urandom(random.randint(1024, 8192))
                    s.sendall(data)
                    stats["bytes"] += len(data)
                else:
                    s.sendall(frame(PREAMBLE, random.randrange(8)))
                    got = b""
                    while len(got) < 64:
                        more = s.recv(64 - len(got))
                        if not more:
                            break
                        got += more
                    s.sendall(frame(HELLO, random.randrange(8), random.getrandbits(64),
                                    random.getrandbits(64)))
                    stats["bytes"] += 128
                    s.recv(64)  # the job closes it
            except OSError:
                pass
            s.close()
        time.sleep(max(0.0, 1.0 / rate - (time.time() - t0)))


def main():
    if len(sys.argv) < 4 or sys.argv[1] not in ("halfopen", "random", "forged"):
        sys.exit(__doc__)
    mode, count, targets = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    signal.signal(signal.SIGTERM, on_term)
    stats = {"connections": 0, "bytes": 0}
    try:
        if mode == "halfopen":
            halfopen(count, targets, stats)
        else:
            churn(mode, count, targets, stats)
    finally:
        ru = resource.getrusage(resource.RUSAGE_SELF)
        print(f"HOSTILE mode={mode} connections={stats['connections']} bytes={stats['bytes']} "
              f"cpu_s={ru.ru_utime + ru.ru_stime:.2f}", flush=True)


if __name__ == "__main__":
    main()
