"""`ccmpi-bench --rate auto`: the highest link rate this machine can emulate for the
scenario's cluster. A rate holds when `ccmpi-cluster check --parallel HOSTS --tolerance 3`
passes on the cluster built at it: every cable and every incast, with all hosts' cables
loaded at once (a collective loads them all; with several rails, every rail's cables at
once: `--all-rails`), within 3% of the rate. The search starts at
100mbit (the seed papers' network) and goes up while rates hold, or down until one holds.
The rate chosen and every rate tried are recorded with the results.
"""
import subprocess

# Candidate rates, low to high.
CANDIDATES = ("10mbit", "12.5mbit", "25mbit", "50mbit", "100mbit", "200mbit", "400mbit",
              "1gbit")
START = CANDIDATES.index("100mbit")
TOLERANCE = "3"


def search(candidates, start, holds):
    """The highest candidate for which holds(rate) is true, trying them from `start` up
    while they hold, else down until one holds; (rate or None, [(rate, held)...])."""
    tried = []
    i = start
    if holds_logged(candidates[i], holds, tried):
        while i + 1 < len(candidates) and holds_logged(candidates[i + 1], holds, tried):
            i += 1
        return candidates[i], tried
    while i > 0:
        i -= 1
        if holds_logged(candidates[i], holds, tried):
            return candidates[i], tried
    return None, tried


def holds_logged(rate, holds, tried):
    ok = holds(rate)
    tried.append((rate, ok))
    return ok


def describe(rate, tried, rails=1):
    """The line recorded with the results."""
    steps = ", ".join("%s %s" % (r, "held" if ok else "off") for r, ok in tried)
    return ("%s, chosen by --rate auto (ccmpi-cluster check --parallel HOSTS%s --tolerance "
            "%s%%: %s)" % (rate, " --all-rails" if rails > 1 else "", TOLERANCE, steps))


def choose(cluster, name, hosts, owner, say, rails=1):
    """Builds cluster `name` at each candidate rate and checks it; returns (rate, tried).
    Raises RuntimeError when a cluster cannot be built or checked at all."""
    def holds(rate):
        say("--rate auto: checking %d hosts x %d rail(s) at %s ... " % (hosts, rails, rate))
        up = subprocess.run([cluster, "up", "--hosts", str(hosts), "--rails", str(rails),
                             "--rate", rate, "--name", name, "--owner", str(owner)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if up.returncode != 0:
            raise RuntimeError("could not build the cluster at %s: %s" % (rate, up.stderr.strip()))
        ck = subprocess.run([cluster, "check", "--name", name, "--parallel", str(hosts),
                             "--tolerance", TOLERANCE] + (["--all-rails"] if rails > 1 else []),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if ck.returncode not in (0, 1):
            raise RuntimeError("check at %s failed: %s" % (rate, ck.stderr.strip()))
        last = [line for line in ck.stdout.splitlines() if line.startswith("result:")]
        say("%s\n" % (last[-1] if last else "exit %d" % ck.returncode))
        return ck.returncode == 0
    return search(CANDIDATES, START, holds)
