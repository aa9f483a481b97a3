"""The delay line that reorders packets on kernels without netem (docs/cluster.md,
Impairments).

`ccmpi-cluster up --reorder P` runs one of these in the switch namespace. For each switch
port PORT there is a veth pair RIN/ROUT: the port's egress classifier redirects the packets
it picks for reordering to ROUT, so they arrive on RIN, where this process reads them. It
holds each one back for --delay-us microseconds, then sends it out of PORT again, marked
(SO_MARK) so that the port's classifier lets it through untouched: it joins the port's
queue behind the packets that came after it. A packet socket with a virtio-net header
(PACKET_VNET_HDR) keeps the checksum state of the packets the hosts' stacks left to be
offloaded (CHECKSUM_PARTIAL), which a plain raw socket would send with a wrong checksum.

Usage: python3 -m ccmpi_tools.cluster.delayline --delay-us N --mark M PORT:RIN [...]
It prints "ready" on stdout once every socket is bound, and runs until SIGTERM. At most
--hold packets wait at once; beyond that a packet is sent at once (counted).
"""
import heapq
import os
import select
import signal
import socket
import sys
import time

ETH_P_ALL = 0x0003
SOL_PACKET = 263
PACKET_VNET_HDR = 15
PACKET_OUTGOING = 4
BATCH = 64  # packets read from one socket per wake-up


def parse(argv):
    delay_us, mark, hold, pairs = None, None, 10000, []
    it = iter(argv)
    for a in it:
        if a == "--delay-us":
            delay_us = int(next(it))
        elif a == "--mark":
            mark = int(next(it), 0)
        elif a == "--hold":
            hold = int(next(it))
        elif ":" in a:
            port, rin = a.split(":", 1)
            pairs.append((port, rin))
        else:
            raise SystemExit("delayline: unknown argument '%s'" % a)
    if delay_us is None or mark is None or not pairs:
        raise SystemExit("delayline: needs --delay-us, --mark and PORT:RIN pairs")
    return delay_us, mark, hold, pairs


def open_pair(port, rin, mark):
    r = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    r.setsockopt(SOL_PACKET, PACKET_VNET_HDR, 1)
    r.bind((rin, ETH_P_ALL))
    r.setblocking(False)
    w = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
    w.setsockopt(SOL_PACKET, PACKET_VNET_HDR, 1)
    w.setsockopt(socket.SOL_SOCKET, socket.SO_MARK, mark)
    w.bind((port, 0))
    return r, w


class Stop(Exception):
    pass


def _stop(signum, frame):
    raise Stop()


def main(argv):
    delay_us, mark, hold, pairs = parse(argv)
    delay = delay_us / 1e6
    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    readers = {}
    ep = select.epoll()
    for port, rin in pairs:
        r, w = open_pair(port, rin, mark)
        readers[r.fileno()] = (r, w)
        ep.register(r.fileno(), select.EPOLLIN)
    print("ready", flush=True)
    sys.stdout.close()
    os.close(1)
    heap, seq, overflow = [], 0, 0
    try:
        while True:
            timeout = -1
            if heap:
                timeout = max(0.0, heap[0][0] - time.monotonic())
            for fd, _ in ep.poll(timeout):
                r, w = readers[fd]
                for _ in range(BATCH):
                    try:
                        data, addr = r.recvfrom(65536 + 10)
                    except BlockingIOError:
                        break
                    if addr[2] == PACKET_OUTGOING:
                        continue
                    if len(heap) >= hold:
                        overflow += 1
                        try:
                            w.send(data)
                        except OSError:
                            pass
                        continue
                    seq += 1
                    heapq.heappush(heap, (time.monotonic() + delay, seq, w, data))
            now = time.monotonic()
            while heap and heap[0][0] <= now:
                _, _, w, data = heapq.heappop(heap)
                try:
                    w.send(data)
                except OSError:
                    pass  # the port's queue is full: the packet is lost, as on a switch
    except Stop:
        pass
    if overflow:
        print("delayline: %d packets sent without delay (more than %d waiting)" % (overflow, hold),
              file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
