#!/usr/bin/python3
"""Generates the codec corpus (issue 27): floating-point arrays of several kinds, in two
sets made with different seeds and parameters: `tune` (what the codecs may be tuned on)
and `report` (held out; what the results report). Deterministic: the same command makes
the same bytes (numpy's PCG64 generator, seeded per set and kind).

Usage: /usr/bin/python3 bench/codec/gen_corpus.py [--out DIR] [--size BYTES]
  DIR defaults to /tmp/ccmpi-codec-corpus; it receives DIR/tune/*.f64|*.f32 and
  DIR/report/*.f64|*.f32 (raw little-endian arrays). --size is the bytes per file
  (default 1 MiB; rounded down to whole elements). The kinds are documented in
  bench/codec/CORPUS.md and in KINDS below.
"""
import argparse
import os
import sys

import numpy as np

SETS = {"tune": 1, "report": 2}  # set -> base seed


def decimals(x, places):
    """The doubles a text file with `places` decimals would hold (float of the string)."""
    return np.array([float(s) for s in np.char.mod(f"%.{places}f", x)], dtype=np.float64)


def sim_heat(rng, n, v):
    """2-D heat equation: a few Gaussian sources diffused by explicit steps on a grid,
    plus a little noise (solver round-off and sensor-like perturbation)."""
    side = int(np.sqrt(n))
    u = np.zeros((side, side))
    for _ in range(4 + v):
        cx, cy = rng.integers(0, side, 2)
        u[cx, cy] += rng.uniform(50, 200) * side
    for _ in range(60 + 20 * v):
        u[1:-1, 1:-1] += 0.2 * (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] - 4 * u[1:-1, 1:-1])
    u += rng.normal(0, 1e-6, u.shape) * (1 + np.abs(u))
    return np.resize(u.ravel(), n)


def sim_wave(rng, n, v):
    """3-D field of superposed plane waves with a decaying envelope (a smooth PDE
    solution) and relative noise 1e-9."""
    side = int(round(n ** (1 / 3))) + 1
    g = np.linspace(0, 1, side)
    x, y, z = np.meshgrid(g, g, g, indexing="ij")
    f = np.zeros_like(x)
    for _ in range(3 + v):
        k = rng.uniform(1, 8, 3)
        f += rng.uniform(0.5, 2) * np.sin(2 * np.pi * (k[0] * x + k[1] * y + k[2] * z) + rng.uniform(0, 6))
    f *= np.exp(-((x - 0.5) ** 2 + (y - 0.5) ** 2) * (2 + v))
    f *= 1 + rng.normal(0, 1e-9, f.shape)
    return f.ravel()[:n]


def particles(rng, n, v):
    """Particle positions (x, y, z interleaved) of clustered particles in a unit box after
    a random walk, ordered by cluster as a particle code would hold them."""
    m = n // 3
    centers = rng.uniform(0, 1, (16 + 8 * v, 3))
    which = np.sort(rng.integers(0, len(centers), m))
    pos = centers[which] + rng.normal(0, 0.02, (m, 3))
    pos += np.cumsum(rng.normal(0, 1e-4, (m, 3)), axis=0) * 0.01
    return np.resize(np.mod(pos, 1.0).ravel(), n)


def sensor_ts(rng, n, v):
    """Sensor time series: daily and hourly cycles, drift and AR(1) noise at full double
    precision (a calibrated reading, not rounded)."""
    t = np.arange(n, dtype=np.float64)
    e = np.zeros(n)
    w = rng.normal(0, 0.05, n)
    for i in range(1, n):
        e[i] = 0.95 * e[i - 1] + w[i]
    return 20 + 5 * np.sin(2 * np.pi * t / (8640 + 100 * v)) + 0.5 * np.sin(2 * np.pi * t / 360) + 1e-5 * t + e


def prices(rng, n, v):
    """Prices with 2 decimals: a few instruments' random walks interleaved per tick,
    rounded to cents as a CSV holds them."""
    k = 4 + v
    steps = rng.choice([-0.02, -0.01, 0, 0, 0, 0.01, 0.02], size=(n // k + 1, k))
    p = rng.uniform(20, 300, k) + np.cumsum(steps, axis=0)
    return decimals(np.abs(p).ravel()[:n], 2)


def temperatures(rng, n, v):
    """Temperatures with 1 decimal: hourly readings of 32 stations (station-major blocks),
    daily cycle plus weather noise, as a weather archive stores them."""
    stations = 32
    per = n // stations + 1
    t = np.arange(per)
    out = []
    for _ in range(stations):
        base = rng.uniform(-5, 25)
        out.append(base + 6 * np.sin(2 * np.pi * t / 24 + rng.uniform(0, 6)) + np.cumsum(rng.normal(0, 0.3, per)) * 0.1)
    return decimals(np.concatenate(out)[:n], 1 + (v % 2))


def counts(rng, n, v):
    """Integers stored as doubles: event counts per cell (Poisson with a varying rate) and
    a cumulative index column, interleaved."""
    rate = 50 * (1 + np.sin(np.arange(n // 2 + 1) / (200 + 50 * v)))
    c = rng.poisson(rate).astype(np.float64)
    idx = np.cumsum(rng.integers(1, 5, len(c))).astype(np.float64)
    return np.stack([c, idx], axis=1).ravel()[:n]


def sparse(rng, n, v):
    """Mostly zero: 2% (tune) or 4% (report) of the entries nonzero, normally distributed
    values (a sparse source term or a halo mostly untouched)."""
    x = np.zeros(n)
    nz = rng.random(n) < 0.02 * (1 + (v % 2))
    x[nz] = rng.normal(0, 1, nz.sum())
    return x


def geo(rng, n, v):
    """Geographic coordinates: GPS tracks as (latitude, longitude) pairs with 6 (tune) or
    5 (report) decimals, each track a random walk from a random start."""
    m = n // 2 + 1
    starts = np.repeat(rng.uniform([-60, -180], [60, 180], (m // 500 + 1, 2)), 500, axis=0)[:m]
    walk = np.cumsum(rng.normal(0, 1e-4, (m, 2)), axis=0)
    return decimals((starts + walk).ravel()[:n], 6 - (v % 2))


def turbulence(rng, n, v):
    """Noisy scientific column: a velocity component with a k^-5/3 spectrum (random phases),
    the kind of data where predictors and LZ both gain little."""
    k = np.arange(1, n // 2 + 2)
    amp = k ** (-5.0 / 6.0 - 0.05 * v)
    spec = amp * np.exp(2j * np.pi * rng.random(len(k)))
    return np.fft.irfft(np.concatenate([[0], spec]), n)[:n] * 100


def shock(rng, n, v):
    """Piecewise data: a 1-D shock tube state (density, velocity, pressure) on blocks of
    cells, constant plateaus joined by smooth fans, three variables interleaved."""
    x = np.linspace(0, 1, n // 3 + 1)
    s = 0.3 + 0.1 * v
    rho = np.where(x < s, 1.0, np.where(x < s + 0.2, 1.0 - (x - s) * 2.0, 0.125 + 0.1 * (x > 0.8)))
    u = np.where((x > s) & (x < 0.8), 0.9 * np.sin(np.pi * (x - s) / (0.8 - s)), 0.0)
    p = np.where(x < s, 1.0, np.where(x < 0.8, 0.3 + 0.01 * np.cos(7 * x), 0.1))
    return np.stack([rho, u, p], axis=1).ravel()[:n]


def field32(rng, n, v):
    """float32 array: a smooth 2-D field (sum of Gaussian bumps, a climate-model-like
    surface variable) with noise, stored in single precision."""
    side = int(np.sqrt(n)) + 1
    g = np.linspace(-1, 1, side)
    x, y = np.meshgrid(g, g)
    f = np.zeros_like(x)
    for _ in range(6 + v):
        c = rng.uniform(-1, 1, 2)
        f += rng.uniform(200, 300) * np.exp(-((x - c[0]) ** 2 + (y - c[1]) ** 2) * rng.uniform(2, 9))
    f += rng.normal(0, 0.01, f.shape)
    return f.ravel()[:n].astype(np.float32)


KINDS = [sim_heat, sim_wave, particles, sensor_ts, prices, temperatures, counts, sparse,
         geo, turbulence, shock, field32]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default="/tmp/ccmpi-codec-corpus")
    ap.add_argument("--size", type=int, default=1 << 20)
    a = ap.parse_args()
    for name, seed in SETS.items():
        d = os.path.join(a.out, name)
        os.makedirs(d, exist_ok=True)
        for i, kind in enumerate(KINDS):
            rng = np.random.default_rng([seed, i])
            variant = seed - 1  # parameters differ between the sets too
            width = 4 if kind is field32 else 8
            arr = kind(rng, a.size // width, variant)
            ext = "f32" if width == 4 else "f64"
            arr.astype("<f4" if width == 4 else "<f8").tofile(os.path.join(d, f"{kind.__name__}.{ext}"))
        print(f"gen_corpus: {d}: {len(KINDS)} files", file=sys.stderr)


if __name__ == "__main__":
    main()
