"""Numbered UDP datagrams for the cluster's impairment tests (cluster_test.sh dupreorder).

  udp_seq.py send ADDR PORT COUNT        COUNT datagrams numbered 0..COUNT-1, back to back
  udp_seq.py recv PORT READY_FILE IDLE   receives until IDLE seconds pass without a datagram
                                         (at most 60 s), having created READY_FILE once
                                         bound; prints "received R unique U duplicates D
                                         reordered O" (O: first arrivals numbered below one
                                         already received)
"""
import socket
import struct
import sys
import time

LIMIT_S = 60


def send(addr, port, count):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    for i in range(count):
        s.sendto(struct.pack("!I", i) + b"\0" * 28, (addr, port))


def recv(port, ready_file, idle):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    s.bind(("0.0.0.0", port))
    open(ready_file, "w").close()
    seen, highest, reordered, received = {}, -1, 0, 0
    start = time.monotonic()
    s.settimeout(idle)
    while time.monotonic() - start < LIMIT_S:
        try:
            data = s.recv(2048)
        except socket.timeout:
            if received:
                break
            continue
        n = struct.unpack("!I", data[:4])[0]
        received += 1
        seen[n] = seen.get(n, 0) + 1
        if seen[n] == 1 and n < highest:
            reordered += 1
        highest = max(highest, n)
    print("received %d unique %d duplicates %d reordered %d" %
          (received, len(seen), received - len(seen), reordered))


def main(argv):
    if len(argv) == 4 and argv[0] == "send":
        send(argv[1], int(argv[2]), int(argv[3]))
    elif len(argv) == 4 and argv[0] == "recv":
        recv(int(argv[1]), argv[2], float(argv[3]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
