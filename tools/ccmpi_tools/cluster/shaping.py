"""Shaping of the cables (docs/cluster.md, Shaping).

Both directions of every host-switch cable are shaped at their egress, the host side on
r<r> (host -> switch) and the switch side on hKr<r> (switch -> host), so several senders
into one host contend for that host's switch port as on a store-and-forward switch. Every
frame counts as its length + 24 bytes (preamble, FCS, inter-frame gap) and at least 84
bytes: the rate is the Ethernet line rate. Token buckets hold --bucket frames (default 2).
Host side: a TBF, whose small bucket makes it cut the GSO packets of the host's TCP stack
into frames, sent one by one at the rate (queue: 1000 frames, like a NIC's); with --no-gso
the hosts send frames and the shaper is an HTB class as on the switch side. Switch side: an
HTB class at the rate over a tail-drop queue of --port-buffer bytes. With --delay, --loss,
--dup or --reorder the queue is a netem qdisc applying them to each direction of each
cable (--loss/--dup/--reorder imply --no-gso: they act on packets). Kernels without netem
get random loss from classic-BPF filters instead, where packets enter and leave the switch
(never in the sender's own qdisc, whose drops its TCP would see), and duplication and
reordering where a packet leaves the switch, once for both cables (mirred through a veth
pair per port; reordered packets wait in the delay line, delayline.py); delay needs netem.

The qdiscs are made by the `tc` command, not pyroute2: pyroute2 0.7.2 has no bfifo and no
cls_bpf with classic bytecode, and its tbf takes neither overhead nor mpu (its rate
tables would count frames without the 24 bytes of the wire).
"""
import subprocess

from .. import units

WIRE_OVERHEAD = 24  # preamble 8 + FCS 4 + inter-frame gap 12
WIRE_MPU = 84  # minimum frame 60 + 24
HOST_QUEUE_PACKETS = 1000  # a NIC's transmit queue
FRAME_ON_WIRE = 1538  # a full frame (1500 + 14 header + 24)


class SetupError(Exception):
    """A setup command failed: the command and its output."""

    def __init__(self, what, output=""):
        super().__init__(what)
        self.what, self.output = what, output


def tc(ns, *args):
    cmd = ["tc", "-n", ns] + [str(a) for a in args]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        raise SetupError(" ".join(cmd), p.stdout.strip())


def have_netem(ns):
    """Whether the kernel has netem: probed on the loopback of namespace `ns`."""
    p = subprocess.run(["tc", "-n", ns, "qdisc", "add", "dev", "lo", "root", "handle", "1:",
                        "netem", "delay", "1us"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    if p.returncode != 0:
        return False
    subprocess.run(["tc", "-n", ns, "qdisc", "del", "dev", "lo", "root"],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return True


def impairments(cfg):
    """netem's arguments for the configured delay, loss, duplication and reordering."""
    out = []
    if not units.is_zero_time(cfg.delay):
        out += ["delay", cfg.delay]
    if not units.is_zero_percent(cfg.loss):
        out += ["loss", cfg.loss.rstrip("%") + "%"]
    if not units.is_zero_percent(cfg.dup):
        out += ["duplicate", cfg.dup.rstrip("%") + "%"]
    if not units.is_zero_percent(cfg.reorder):
        out += ["reorder", cfg.reorder.rstrip("%") + "%"]
    return out


def burst_bytes(bps, bucket):
    """The token bucket: `bucket` frames (1550 bytes each with margin; default 2: one
    loses capacity to every late timer), or 20 us of the rate at high rates."""
    return max(bps // 400000, bucket * 1550)


def loss_threshold(loss_percent):
    """The BPF filter's threshold: a random 32-bit number at or above it is dropped."""
    t = (1 - loss_percent / 100) * 4294967296
    return int(round(min(t, 4294967295)))


def shape(cfg, ns, dev, side):
    """The egress of one direction of one cable: side "host" (r<r>) or "port" (hKr<r>)."""
    impair = impairments(cfg)
    rate = cfg.rate
    if rate == "none" and not impair:
        return
    if rate == "none":
        rate = "100gbit"
    bps = units.rate_bps(rate)
    burst = burst_bytes(bps, int(cfg.bucket))
    netem = impair and cfg.netem == "yes"
    if side == "host" and cfg.gso == "on":
        # TBF splits a GSO packet larger than its bucket into frames and sends them one by
        # one at the rate, each counted with the overhead: the host's TCP stack works on
        # large packets, the cable carries frames. (HTB would send a GSO packet as one burst.)
        tc(ns, "qdisc", "add", "dev", dev, "root", "handle", "1:", "tbf", "rate", "%dbit" % bps,
           "burst", burst, "limit", HOST_QUEUE_PACKETS * 1514, "overhead", WIRE_OVERHEAD,
           "mpu", WIRE_MPU)
        if netem:
            tc(ns, "qdisc", "add", "dev", dev, "parent", "1:1", "handle", "10:", "netem",
               "limit", HOST_QUEUE_PACKETS, *impair)
        return
    tc(ns, "qdisc", "add", "dev", dev, "root", "handle", "1:", "htb", "default", "1")
    tc(ns, "class", "add", "dev", dev, "parent", "1:", "classid", "1:1", "htb", "rate",
       "%dbit" % bps, "ceil", "%dbit" % bps, "overhead", WIRE_OVERHEAD, "mpu", WIRE_MPU,
       "burst", burst, "cburst", burst, "quantum", FRAME_ON_WIRE)
    port_buffer = int(cfg.port_buffer)
    if side == "host":
        packets = HOST_QUEUE_PACKETS
    else:
        packets = max((port_buffer + FRAME_ON_WIRE - 1) // FRAME_ON_WIRE, 2)
    if netem:
        tc(ns, "qdisc", "add", "dev", dev, "parent", "1:1", "handle", "10:", "netem", "limit",
           packets, *impair)
        return
    if side == "host":
        tc(ns, "qdisc", "add", "dev", dev, "parent", "1:1", "handle", "10:", "pfifo", "limit",
           packets)
    else:
        tc(ns, "qdisc", "add", "dev", dev, "parent", "1:1", "handle", "10:", "bfifo", "limit",
           port_buffer)
    if side == "port":
        port_impairments(cfg, ns, dev)


# Classic BPF for cls_bpf: "ld rand; jge T; ret A; ret 0" (a random 32-bit number at or
# above T selects the packet: result A, a class or 1 = "run the action"; 0 = no match).
def random_filter(threshold, result):
    return "4,32 0 0 4294963256,53 0 1 %d,6 0 0 %d,6 0 0 0" % (threshold, result)


DELAYED_MARK = 0x63636D70  # SO_MARK of the packets the delay line sends back out
CLASS_1_1, CLASS_1_2 = 65537, 65538


def side_pair(dev):
    """The veth pair beside switch port `dev` that duplicates and reorders its packets:
    (o<dev>, i<dev>). A packet sent out of i<dev> arrives on o<dev>, whose ingress
    redirects it to the port's egress (a duplicate); one sent out of o<dev> arrives on
    i<dev>, where the delay line reads it (a reordered packet)."""
    return "o" + dev, "i" + dev


def twice(percent):
    """The probability, in percent, that a packet meets an impairment of `percent` on one
    of the two cables it crosses: without netem duplication and reordering are applied
    once, where the packet leaves the switch."""
    p = percent / 100
    return 100 * (1 - (1 - p) ** 2)


def reorder_delay_us(cfg):
    """How long a reordered packet waits: 8 full frames at the cable's rate (about 1 ms at
    100 Mbit/s), at least 1 ms (the delay line's timer resolution)."""
    bps = units.rate_bps(cfg.rate) if cfg.rate != "none" else 0
    frames = 8 * FRAME_ON_WIRE * 8 * 1e6 / bps if bps else 0
    return int(max(1000, frames))


def port_impairments(cfg, ns, dev):
    """Loss, duplication and reordering without netem on switch port `dev`: classifiers on
    the port's HTB, in order (prio): 1 the delay line's packets pass untouched (their
    mark); 2 loss: to class 1:2, whose queue holds nothing; 3 duplication: a copy through
    the side pair; 4 reordering: the packet to the delay line. The host-to-switch loss is
    drawn where packets enter the port (ingress_loss)."""
    loss = units.percent(cfg.loss)
    dup, reorder = units.percent(cfg.dup), units.percent(cfg.reorder)
    if reorder:
        tc(ns, "filter", "add", "dev", dev, "parent", "1:", "protocol", "all", "prio", "1", "bpf",
           "bytecode", "4,32 0 0 4294963220,21 0 1 %d,6 0 0 %d,6 0 0 0" % (DELAYED_MARK,
                                                                         CLASS_1_1))
    if loss:
        # Here, at the switch's egress, for the switch -> host direction; the host -> switch
        # direction loses its packets where they enter the switch (ingress_loss): a drop in
        # the host's own qdisc would be reported to the sending socket (NET_XMIT_DROP), and
        # TCP retries such a segment from its probe timer, 200 ms later when nothing else
        # is in flight, where a segment lost on a wire is repaired after the RTO.
        tc(ns, "class", "add", "dev", dev, "parent", "1:", "classid", "1:2", "htb", "rate",
           "8bit", "ceil", "8bit", "quantum", FRAME_ON_WIRE)
        tc(ns, "qdisc", "add", "dev", dev, "parent", "1:2", "handle", "20:", "pfifo", "limit", 0)
        tc(ns, "filter", "add", "dev", dev, "parent", "1:", "protocol", "all", "prio", "2", "bpf",
           "bytecode", random_filter(loss_threshold(loss), CLASS_1_2))
        ingress_loss(cfg, ns, dev)
    if not dup and not reorder:
        return
    out, into = side_pair(dev)
    for args in (["link", "add", out, "type", "veth", "peer", "name", into],
                 ["link", "set", out, "up"], ["link", "set", into, "up"]):
        ip(ns, *args)
    if dup:
        tc(ns, "qdisc", "add", "dev", out, "handle", "ffff:", "ingress")
        tc(ns, "filter", "add", "dev", out, "parent", "ffff:", "protocol", "all", "prio", "1",
           "bpf", "bytecode", "1,6 0 0 1", "action", "mirred", "egress", "redirect", "dev", dev)
        tc(ns, "filter", "add", "dev", dev, "parent", "1:", "protocol", "all", "prio", "3", "bpf",
           "bytecode", random_filter(loss_threshold(twice(dup)), CLASS_1_1), "action", "mirred",
           "egress", "mirror", "dev", into)
    if reorder:
        tc(ns, "filter", "add", "dev", dev, "parent", "1:", "protocol", "all", "prio", "4", "bpf",
           "bytecode", random_filter(loss_threshold(twice(reorder)), CLASS_1_1), "action",
           "mirred", "egress", "redirect", "dev", out)


def ip(ns, *args):
    p = subprocess.run(["ip", "-n", ns] + list(args), stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        raise SetupError("ip -n %s %s" % (ns, " ".join(args)), p.stdout.strip())


LOSS_SINK = "lossdrop"  # in a switch namespace: an ifb whose queue holds nothing


def ingress_loss(cfg, ns, dev):
    """Loss without netem for the packets that enter switch port `dev` (host -> switch):
    a classic BPF classifier on the port's ingress redirects a packet to the switch's
    LOSS_SINK device, whose queue drops it, when a random 32-bit number is >= (1 - p) *
    2^32. The sender's transmission has succeeded, as on a wire. (This kernel has no
    gact action; mirred and ifb it has.)"""
    if subprocess.run(["ip", "-n", ns, "link", "show", LOSS_SINK], stdout=subprocess.DEVNULL,
                      stderr=subprocess.DEVNULL).returncode != 0:
        ip(ns, "link", "add", LOSS_SINK, "type", "ifb")
        ip(ns, "link", "set", LOSS_SINK, "up")
        tc(ns, "qdisc", "add", "dev", LOSS_SINK, "root", "pfifo", "limit", 0)
    threshold = loss_threshold(units.percent(cfg.loss))
    tc(ns, "qdisc", "add", "dev", dev, "handle", "ffff:", "ingress")
    tc(ns, "filter", "add", "dev", dev, "parent", "ffff:", "protocol", "all", "prio", "1", "bpf",
       "bytecode", random_filter(threshold, 1), "action", "mirred", "egress", "redirect", "dev",
       LOSS_SINK)
