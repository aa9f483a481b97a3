"""`ccmpi-cluster check`: measures every cable in both directions and every host's incast
against the rate, with ccmpi-blast (tools/ccmpi_blast.cc).

Cables: host K sends to host K+1, --parallel cables at a time; incast: 3 senders into one
host share its switch port, --parallel groups at a time. Throughput is read from the
shapers' counters (`ccmpi-blast qdiscs`) at the line rate (frames + 24 bytes). A cable off
the rate is measured again alone (up to --retries times), keeping the figures nearest the
rate: a transfer that lacked CPU for a moment is not a faulty cable; a faulty one stays
off. `check` returns whether every figure is within the tolerance, so a caller (a future
`ccmpi-bench --rate auto`) can run it at candidate rates.
"""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from .. import units
from .shaping import WIRE_OVERHEAD
from .state import ClusterError, Config, ns_host, ns_switch, subnet_prefix

PORT = 5301


def find_blast(here):
    if os.environ.get("CCMPI_BLAST"):
        return os.environ["CCMPI_BLAST"]
    if here and os.access(os.path.join(here, "ccmpi-blast"), os.X_OK):
        return os.path.join(here, "ccmpi-blast")
    found = shutil.which("ccmpi-blast")
    if found:
        return found
    raise ClusterError("cannot find ccmpi-blast (beside this script, in PATH, or $CCMPI_BLAST)")


class CheckOptions:
    def __init__(self):
        self.name = "emu"
        self.seconds = "2"
        self.warmup = "0.5"
        self.tolerance = "5"
        self.rail = ""
        self.parallel = "4"
        self.retries = "2"
        self.incast = True
        self.all_rails = False


def mbit(v):
    return "%.2f" % (v / 1e6)


class _Interrupted(Exception):
    pass


def _on_signal(signum, frame):
    raise _Interrupted()


class Checker:
    def __init__(self, name, cfg, blast, o, tmp):
        self.name, self.cfg, self.blast, self.tmp = name, cfg, blast, tmp
        self.seconds, self.warmup = float(o.seconds), float(o.warmup)
        self.seconds_arg, self.warmup_arg = o.seconds, o.warmup
        self.tolerance = float(o.tolerance)
        self.bps = units.rate_bps(cfg.rate)
        self.rx_rate, self.tx_rate = {}, {}
        self.pids = []

    def within(self, m):
        """The percentage of the rate, and whether it is within the tolerance."""
        p = 100 * m / self.bps
        return "%.1f" % p, 100 - self.tolerance <= p <= 100 + self.tolerance

    def closer(self, new_up, new_down, old_up, old_down):
        """Whether the new pair's worse figure is nearer the rate than the old pair's."""
        def dev(x):
            return abs(x / self.bps - 1)
        return max(dev(new_up), dev(new_down)) < max(dev(old_up), dev(old_down))

    def goodput(self, path):
        try:
            with open(path) as f:
                for line in f:
                    if line.startswith("total"):
                        for w in line.split():
                            if w.startswith("goodput_bps="):
                                return "%.2f" % (float(w.split("=", 1)[1]) / 1e6)
        except OSError:
            pass
        return ""

    def measure(self, label, pairs):
        """One round of transfers, each (rail, sender, receiver) by rail and host number;
        fills rx_rate[hKr<r>] (host -> switch, read at the host's shaper) and tx_rate[hKr<r>]
        (switch -> host, at the switch port's shaper). Once every receiver has all its
        streams, the meter lets --warmup pass, then reads the counters over --seconds; the
        receivers keep the streams going long enough that the meter's window lies inside
        the traffic even when starting it is slow on a loaded machine."""
        n = len(pairs)
        timeout = int(self.warmup + self.seconds + 0.2 * n + 30)
        recv_seconds = "%g" % (self.seconds + self.warmup + 0.5 + 0.2 * n)
        streams = {}
        for r, _, d in pairs:
            streams[(r, d)] = streams.get((r, d), 0) + 1
        spaces = [ns_switch(self.name)] + [ns_host(self.name, k)
                                           for k in range(1, self.cfg.n_hosts + 1)]
        procs = []
        t = self.tmp
        for (r, d), count in streams.items():
            procs.append(subprocess.Popen(
                ["ip", "netns", "exec", ns_host(self.name, d), self.blast, "recv", "--bind",
                 "%s.%d" % (subnet_prefix(self.cfg.base + r), d), "--port", str(PORT),
                 "--streams", str(count), "--warmup", self.warmup_arg, "--seconds",
                 recv_seconds, "--timeout", str(timeout)],
                stdout=open(self.out_path(label, r, d), "w"),
                stderr=open(os.path.join(t, "%s-r%d-%d.err" % (label, r, d)), "w")))
            self.pids.append(procs[-1])
        for r, s, d in pairs:
            procs.append(subprocess.Popen(
                ["ip", "netns", "exec", ns_host(self.name, s), self.blast, "send", "--to",
                 "%s.%d" % (subnet_prefix(self.cfg.base + r), d), "--port", str(PORT),
                 "--timeout", str(timeout)],
                stdout=subprocess.DEVNULL,
                stderr=open(os.path.join(t, "%s-send-r%d-%d-%d.err" % (label, r, s, d)), "w")))
            self.pids.append(procs[-1])
        deadline = time.monotonic() + timeout
        ready = False
        while True:  # bounded: the receivers give up after `timeout` seconds
            ready = all(_first_line(self.out_path(label, r, d)).startswith("connected")
                        for r, d in streams)
            if ready or all(p.poll() is not None for p in procs) or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        meter_ok = False
        ports = os.path.join(t, "%s-ports.out" % label)
        if ready:
            with open(ports, "w") as out, open(os.path.join(t, "%s-ports.err" % label), "w") as err:
                meter_ok = subprocess.run(
                    [self.blast, "qdiscs", "--warmup", self.warmup_arg, "--seconds",
                     self.seconds_arg, "--overhead", str(WIRE_OVERHEAD)] + spaces,
                    stdout=out, stderr=err).returncode == 0
        failed = False
        for p in procs:
            if p.wait() != 0:
                failed = True
        self.pids = []
        if failed or not meter_ok:
            for f in sorted(os.listdir(t)):
                if f.startswith(label + "-") and f.endswith(".err"):
                    with open(os.path.join(t, f)) as e:
                        sys.stderr.write(e.read())
            raise ClusterError("check: a transfer failed (round %s)" % label)
        with open(ports) as f:
            for line in f:
                w = line.split()
                if len(w) >= 4 and w[0] == "qdisc":
                    rate = float(w[3].replace("line_bps=", ""))
                    if w[1] == ns_switch(self.name):
                        self.tx_rate[w[2]] = rate
                    else:
                        self.rx_rate["h%s%s" % (w[1].rsplit("-h", 1)[1], w[2])] = rate

    def out_path(self, label, r, d):
        return os.path.join(self.tmp, "%s-r%d-%d.out" % (label, r, d))

    def kill(self):
        for p in self.pids:
            try:
                p.kill()
            except OSError:
                pass
        for p in self.pids:
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass

    def cables(self, rails, parallel, retries, out):
        """The cables of the given rails, measured at the same time (host K's cable of
        every rail in the same round); returns (bad, total)."""
        n = self.cfg.n_hosts
        up, down, gp_in, again = {}, {}, {}, {}
        for first in range(1, n + 1, parallel):
            ks = list(range(first, min(first + parallel, n + 1)))
            label = "links%s-%d" % ("".join(map(str, rails)), first)
            self.measure(label, [(r, k, k % n + 1) for r in rails for k in ks])
            for r in rails:
                for k in ks:
                    to = k % n + 1
                    up[r, k] = self.rx_rate.get("h%dr%d" % (k, r), 0.0)
                    down[r, to] = self.tx_rate.get("h%dr%d" % (to, r), 0.0)
                    gp_in[r, to] = self.goodput(self.out_path(label, r, to))
        for attempt in range(1, retries + 1):
            redo = [(r, t) for r in rails for t in range(1, n + 1)
                    if not (self.within(up[r, t])[1] and self.within(down[r, t % n + 1])[1])]
            if not redo:
                break
            for r, t in redo:
                to = t % n + 1
                label = "again%d-%d-%d" % (r, attempt, t)
                self.measure(label, [(r, t, to)])
                again[r, t] = attempt
                nu = self.rx_rate.get("h%dr%d" % (t, r), 0.0)
                nd = self.tx_rate.get("h%dr%d" % (to, r), 0.0)
                if self.closer(nu, nd, up[r, t], down[r, to]):
                    up[r, t], down[r, to] = nu, nd
                    gp_in[r, to] = self.goodput(self.out_path(label, r, to))
        bad = total = 0
        for r in rails:
            out("")
            out("rail %d, cables (host K sends to host K+1, %d at a time%s; * = cable K "
                "measured again alone):" % (r, parallel,
                                            ", on %d rails at once" % len(rails)
                                            if len(rails) > 1 else ""))
            out("  %-12s %14s %7s %16s %7s %18s" % ("host", "up Mbit/s", "%rate",
                                                    "down Mbit/s", "%rate",
                                                    "goodput in Mbit/s"))
            for k in range(1, n + 1):
                pu, oku = self.within(up[r, k])
                pd, okd = self.within(down[r, k])
                total += 2
                ok = oku and okd
                bad += 0 if ok else 1
                out("  %-12s %14s %7s %16s %7s %18s%s" % (
                    "%s-h%d%s" % (self.name, k, " *" if (r, k) in again else ""),
                    mbit(up[r, k]), pu, mbit(down[r, k]), pd, gp_in.get((r, k), ""),
                    "" if ok else "   <-- off"))
        return bad, total

    def incast(self, rails, parallel, out):
        """Every host's incast on the given rails, the rails' groups at the same time;
        returns (bad, total)."""
        n = self.cfg.n_hosts
        senders = min(n - 1, 3)
        if senders < 2:
            for r in rails:
                out("rail %d, incast: needs at least 3 hosts (skipped)" % r)
            return 0, 0
        rows = {r: [] for r in rails}
        bad = total = 0
        done, left, rnd = set(), n, 0
        # Rounds of disjoint groups (at most --parallel): receiver K with senders
        # K+1..K+senders, packed greedily.
        while left > 0 and rnd < n:
            rnd += 1
            busy, pairs, receivers = set(), [], []
            for k in range(1, n + 1):
                if k in done:
                    continue
                if len(receivers) >= parallel:
                    break
                group = [k] + [(k - 1 + j) % n + 1 for j in range(1, senders + 1)]
                if any(j in busy for j in group):
                    continue
                busy.update(group)
                pairs += [(r, j, k) for r in rails for j in group[1:]]
                receivers.append(k)
                done.add(k)
                left -= 1
            self.measure("incast%s-%d" % ("".join(map(str, rails)), rnd), pairs)
            for r in rails:
                for k in receivers:
                    rate_in = self.tx_rate.get("h%dr%d" % (k, r), 0.0)
                    ss = [(k - 1 + j) % n + 1 for j in range(1, senders + 1)]
                    shares = "".join(" " + mbit(self.rx_rate.get("h%dr%d" % (s, r), 0.0))
                                     for s in ss)
                    pin, ok = self.within(rate_in)
                    total += 1
                    bad += 0 if ok else 1
                    rows[r].append("  %-12s %-24s %14s %7s  %s%s" % (
                        "%s-h%d" % (self.name, k), ",".join("h%d" % s for s in ss),
                        mbit(rate_in), pin, shares, "" if ok else "   <-- off"))
        for r in rails:
            out("rail %d, incast (%d senders into one host at once%s):" % (
                r, senders, ", on %d rails at once" % len(rails) if len(rails) > 1 else ""))
            out("  %-12s %-24s %14s %7s   %s" % ("receiver", "senders", "in Mbit/s", "%rate",
                                                "per sender Mbit/s (up)"))
            for line in rows[r]:
                out(line)
        return bad, total


def _first_line(path):
    try:
        with open(path) as f:
            return f.readline()
    except OSError:
        return ""


def validate(o):
    if not (units.is_number(o.seconds) and units.is_number(o.warmup)
            and units.is_number(o.tolerance.rstrip("%"))):
        raise ClusterError("--seconds, --warmup and --tolerance take numbers")
    o.tolerance = o.tolerance.rstrip("%")
    if not units.valid_count(o.parallel):
        raise ClusterError("--parallel takes a positive number")
    if not (o.retries.isdigit() and int(o.retries) <= 10):
        raise ClusterError("--retries takes a number from 0 to 10")
    if not units.NAME.match(o.name):
        raise ClusterError("bad cluster name '%s'" % o.name)


def check(o, here, out=print):
    """Runs the check of cluster o.name; True if every figure is within the tolerance."""
    cfg = Config.load(o.name)
    if cfg is None or cfg.status != "up":
        raise ClusterError("no cluster %s (see ccmpi-cluster list)" % o.name)
    if cfg.rate == "none":
        raise ClusterError("cluster %s is not shaped (--rate none): nothing to check against"
                           % o.name)
    if cfg.n_hosts < 2:
        raise ClusterError("check needs at least 2 hosts")
    blast = find_blast(here)
    if o.rail and o.all_rails:
        raise ClusterError("--rail and --all-rails exclude each other")
    if o.rail:
        if not o.rail.isdigit() or int(o.rail) >= cfg.n_rails:
            raise ClusterError("--rail must be 0..%d" % (cfg.n_rails - 1))
        rails = [int(o.rail)]
    else:
        rails = list(range(cfg.n_rails))
    parallel, retries = int(o.parallel), int(o.retries)
    tmp = tempfile.mkdtemp(prefix="ccmpi-cluster-check.")
    ck = Checker(o.name, cfg, blast, o, tmp)
    old = {s: signal.signal(s, _on_signal) for s in (signal.SIGTERM, signal.SIGHUP)}
    try:
        out("check of cluster %s: %d hosts, %d rail(s) checked%s, rate %s (%s Mbit/s line "
            "rate), %s s per round, tolerance %s%%" % (
                o.name, cfg.n_hosts, len(rails),
                " at once" if o.all_rails and len(rails) > 1 else "", cfg.rate, mbit(ck.bps),
                o.seconds, o.tolerance))
        out("throughput is at the line rate (frames + %d bytes each), read from the shapers"
            % WIRE_OVERHEAD)
        bad = total = 0
        # --all-rails: every rail's cables at once (a collective on several rails loads
        # them all), else one rail after the other.
        for group in ([rails] if o.all_rails else [[r] for r in rails]):
            b, t = ck.cables(group, parallel, retries, out)
            bad, total = bad + b, total + t
            if o.incast:
                b, t = ck.incast(group, parallel, out)
                bad, total = bad + b, total + t
        out("")
        if bad == 0:
            out("result: all %d figures within %s%% of %s" % (total, o.tolerance, cfg.rate))
            return True
        out("result: %d of %d figures off by more than %s%% of %s" % (bad, total, o.tolerance,
                                                                       cfg.rate))
        out("(on a loaded machine the transfers may lack CPU: try a smaller --parallel)")
        return False
    except (KeyboardInterrupt, _Interrupted):
        ck.kill()
        raise SystemExit(130)
    finally:
        ck.kill()
        for s, h in old.items():
            signal.signal(s, h)
        shutil.rmtree(tmp, ignore_errors=True)
