"""Units of the command lines: tc rates, sizes, times and percentages, with the same
spellings `tc` accepts (SI rates, binary sizes)."""
import re

_RATE = re.compile(r"^([0-9]+(?:\.[0-9]+)?)(bit|kbit|mbit|gbit|tbit)$")
_RATE_MULT = {"bit": 1, "kbit": 1e3, "mbit": 1e6, "gbit": 1e9, "tbit": 1e12}
_SIZE = re.compile(r"^([0-9]+)(b|k|kb|m|mb)?$")
_TIME = re.compile(r"^[0-9]+(\.[0-9]+)?(s|ms|us|usec|msec|sec)$")
_ZERO_TIME = re.compile(r"^0+(\.0+)?(s|ms|us|usec|msec|sec)?$")
_PERCENT = re.compile(r"^[0-9]+(\.[0-9]+)?%?$")
NAME = re.compile(r"^[a-z][a-z0-9]{0,15}$")


def rate_bps(rate):
    """Bits per second of a tc rate (bit, kbit, mbit, gbit, tbit), None if it is not one."""
    m = _RATE.match(rate.lower())
    if not m:
        return None
    return int(round(float(m.group(1)) * _RATE_MULT[m.group(2)]))


def rate_mbits(rate):
    """A rate in Mbit/s as CCMPI_LINK_MBITS takes it ("100", "1000", "0.5"); None for
    "none" or what it cannot read."""
    r = rate.lower()
    for unit, div in (("gbit", 1e-3), ("mbit", 1), ("kbit", 1e3)):
        if r.endswith(unit):
            try:
                v = float(r[: -len(unit)])
            except ValueError:
                return None
            if v <= 0:
                return None
            return "%g" % (v / div)
    return None


def size_bytes(size):
    """Bytes of N, Nb, Nk(b), Nm(b) (1k = 1024, as tc reads sizes), None if not a size."""
    m = _SIZE.match(size.lower())
    if not m:
        return None
    n = int(m.group(1))
    unit = m.group(2) or ""
    if unit.startswith("k"):
        n *= 1024
    elif unit.startswith("m"):
        n *= 1024 * 1024
    return n


def is_zero_time(t):
    return bool(_ZERO_TIME.match(t.lower()))


def valid_time(t):
    return bool(_TIME.match(t.lower())) or is_zero_time(t)


def percent(p):
    """The number of a percentage "0.5%" or "0.5", None unless it is within 0..100."""
    if not _PERCENT.match(p):
        return None
    v = float(p.rstrip("%"))
    return v if 0 <= v <= 100 else None


def is_zero_percent(p):
    return percent(p) == 0


def valid_count(s, most=None):
    """A positive decimal number of at most 6 digits (and at most `most`)."""
    if not re.match(r"^[1-9][0-9]*$", s) or len(s) > 6:
        return False
    return most is None or int(s) <= most


def is_number(s):
    return bool(re.match(r"^[0-9]+(\.[0-9]+)?$", s))
