"""Bulk trTCM through NumPy vs the Rust loop vs a pure-Python per-packet loop,
and the per-packet call's cost from Python.

    python examples/python/bench.py            # 10 M packets bulk
    NETCOND_BENCH_PACKETS=1000000 python examples/python/bench.py

The Rust loop is the same loop timed inside the extension
(`netcond._netcond.trtcm_rust_loop_seconds`: no Python call, no argument
checks, no result wrapping), so the two bulk figures differ by what the
binding costs.
"""

import os
import platform
import time

import numpy as np

import netcond

N = int(os.environ.get("NETCOND_BENCH_PACKETS", "10000000"))
N_PY = min(N, 200_000)


def best_interleaved(fs, repeat=7):
    """The least time of each function, timed in turn `repeat` times, so that
    a change of the machine's load falls on all of them alike."""
    times = [[] for _ in fs]
    for _ in range(repeat):
        for f, t in zip(fs, times):
            t0 = time.perf_counter()
            f()
            t.append(time.perf_counter() - t0)
    return [min(t) for t in times]


def best(f, repeat=5):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    return min(times)


class PyTrTcm:
    """RFC 2698 color-blind in pure Python integers (tokens in 1/8e9-byte units)."""

    def __init__(self, cir_bits, pir_bits, cbs, pbs):
        self.cir, self.pir = cir_bits, pir_bits
        self.cmax, self.pmax = cbs * 8_000_000_000, pbs * 8_000_000_000
        self.tc, self.tp, self.last = self.cmax, self.pmax, 0

    def color_blind(self, now, length):
        dt = now - self.last if now > self.last else 0
        self.last = max(self.last, now)
        self.tc = min(self.cmax, self.tc + dt * self.cir)
        self.tp = min(self.pmax, self.tp + dt * self.pir)
        b = length * 8_000_000_000
        if self.tp < b:
            return 2
        if self.tc < b:
            self.tp -= b
            return 1
        self.tp -= b
        self.tc -= b
        return 0


def main():
    rng = np.random.default_rng(1)
    t = np.cumsum(rng.integers(0, 200, N)).astype(np.uint64)
    l = rng.integers(64, 1500, N).astype(np.uint32)
    kw = dict(cir="10gbit", pir="20gbit", cbs="64kb", pbs="128kb")

    def bulk():
        netcond.TrTcm(**kw).color_blind(t, l)

    tb = best(bulk)
    m = netcond.TrTcm(**kw)
    tl, ll = t[:N_PY].tolist(), l[:N_PY].tolist()

    def per_call():
        f = m.color_blind
        for a, b in zip(tl, ll):
            f(a, b)

    def empty_loop():
        for a, b in zip(tl, ll):
            pass

    probe = netcond._netcond._CallProbe()

    def floor_call():
        f = probe.color_blind
        for a, b in zip(tl, ll):
            f(a, b)

    tpc, tfl, te = best_interleaved([per_call, floor_call, empty_loop])
    p = PyTrTcm(10_000_000_000, 20_000_000_000, 65536, 131072)

    def pure():
        f = p.color_blind
        for a, b in zip(tl, ll):
            f(a, b)

    tpy = best(pure, 3)
    prof = netcond.TrTcmProfile(**kw)
    tr = min(netcond._netcond.trtcm_rust_loop_seconds(prof, t, l) for _ in range(5))
    # The pure-Python model colors this stream as netcond does.
    q = PyTrTcm(10_000_000_000, 20_000_000_000, 65536, 131072)
    same = [q.color_blind(a, b) for a, b in zip(tl, ll)]
    assert same == netcond.TrTcm(**kw).color_blind(t[:N_PY], l[:N_PY]).tolist()
    print(f"machine: {platform.machine()} {platform.processor() or ''} {os.cpu_count()} cpus, "
          f"Python {platform.python_version()}, numpy {np.__version__}, "
          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print(f"bulk trTCM color_blind, {N} packets:        {N / tb / 1e6:8.1f} M packets/s ({tb * 1e9 / N:6.2f} ns/packet)")
    print(f"per-packet call from Python, {N_PY} calls: {tpc * 1e9 / N_PY:8.1f} ns/call "
          f"({(tpc - te) * 1e9 / N_PY:.1f} ns above an empty loop)")
    print(f"the same call metering nothing (_CallProbe): {tfl * 1e9 / N_PY:8.1f} ns/call "
          f"({(tfl - te) * 1e9 / N_PY:.1f} ns above an empty loop)")
    print(f"per-packet call above that floor:         {(tpc - tfl) * 1e9 / N_PY:8.1f} ns/call")
    print(f"pure-Python trTCM loop, {N_PY} packets:    {N_PY / tpy / 1e6:8.3f} M packets/s ({tpy * 1e9 / N_PY:6.1f} ns/packet)")
    print(f"Rust loop inside the extension, {N} packets: {N / tr / 1e6:8.1f} M packets/s ({tr * 1e9 / N:6.2f} ns/packet)")
    print(f"bulk / Rust loop time:                    {tb / tr:8.2f} x")
    print(f"bulk / pure-Python speed-up:              {(tpy / N_PY) / (tb / N):8.0f} x")
    print(f"per-packet call / Rust per packet:        {(tpc / N_PY) / (tr / N):8.0f} x")
    print(f"floor call / Rust per packet:             {(tfl / N_PY) / (tr / N):8.0f} x")


if __name__ == "__main__":
    main()
