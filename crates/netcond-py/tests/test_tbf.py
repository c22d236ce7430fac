"""The token bucket filter from Python: tc-tbf's rules, shape() against a
per-packet FIFO loop, errors."""

import numpy as np
import pytest

import netcond
from netcond import TbfVerdict

NS = 10**9


def fifo_loop(tbf, times, lens):
    """The same FIFO as shape(), written per packet in Python."""
    dep = [2**64 - 1] * len(times)
    ver = [0] * len(times)
    q, cur = [], int(times[0]) if len(times) else 0

    def drain(until):
        nonlocal cur
        while q:
            j = q[0]
            d = tbf.next_departure(cur, int(lens[j]))
            if d is None or (until is not None and d > until):
                return
            cur = d
            assert tbf.dequeue(d, int(lens[j]))
            dep[j] = d
            q.pop(0)

    for i, (t, l) in enumerate(zip(times.tolist(), lens.tolist())):
        drain(t)
        cur = max(cur, t)
        v = tbf.enqueue(t, l)
        ver[i] = int(v)
        if v is TbfVerdict.ACCEPT:
            q.append(i)
    drain(None)
    return np.array(dep, np.uint64), np.array(ver, np.uint8)


def test_shape_equals_the_per_packet_fifo_and_the_rate():
    rng = np.random.default_rng(2)
    n = 3000
    t = np.cumsum(rng.integers(0, 200_000, n)).astype(np.uint64)  # ~ 1000 B / 100 us = 80 Mbit/s
    l = rng.integers(64, 1500, n).astype(np.uint32)
    prof = netcond.TbfProfile(rate="20mbit", burst="10kb", limit="30kb")
    dep, ver = netcond.Tbf(prof).shape(t, l)
    dep2, ver2 = fifo_loop(netcond.Tbf(prof), t, l)
    assert np.array_equal(ver, ver2) and np.array_equal(dep, dep2)
    ok = ver == 0
    assert (ver == TbfVerdict.DROP_OVER_LIMIT).any() and ok.any()
    assert (dep[ok] >= t[ok]).all() and (dep[~ok] == 2**64 - 1).all()
    assert (np.diff(dep[ok].astype(np.int64)) >= 0).all()  # FIFO order
    # Bytes out by time T never exceed burst + rate x T (tc-tbf's promise).
    out_t = dep[ok] - t[0]
    cum = np.cumsum(l[ok].astype(np.int64))
    assert (cum <= 10240 + 20_000_000 / 8 * out_t / NS + 1e-6).all()


def test_latency_and_errors():
    p = netcond.TbfProfile(rate="8mbit", burst=5000, latency="50ms")
    assert p.limit > 0
    with pytest.raises(ValueError, match="give only one of limit and latency"):
        netcond.TbfProfile(rate="8mbit", burst=5000, limit=10000, latency="50ms")
    with pytest.raises(ValueError, match="give one of limit"):
        netcond.TbfProfile(rate="8mbit", burst=5000)
    with pytest.raises(ValueError, match="peakrate must be greater than rate"):
        netcond.TbfProfile(rate="8mbit", burst=5000, limit=10000, peakrate="4mbit", mtu=1500)
    tbf = netcond.Tbf(rate="8mbit", burst=1500, limit=3000)
    assert tbf.enqueue(0, 2000) is TbfVerdict.DROP_TOO_BIG
    assert tbf.enqueue(0, 1500) is TbfVerdict.ACCEPT
    with pytest.raises(ValueError, match="empty queue"):
        tbf.shape(np.zeros(1, np.uint64), np.ones(1, np.uint32))
    with pytest.raises(ValueError, match="non-decreasing"):
        netcond.Tbf(rate="8mbit", burst=1500, limit=3000).shape(
            np.array([5, 4], np.uint64), np.ones(2, np.uint32))
    import pickle
    assert repr(pickle.loads(pickle.dumps(tbf))) == repr(tbf)
