"""The RCP rate controller from Python: its update, the header stamp, bulk
equals per packet, pickling, errors."""

import copy
import pickle

import numpy as np
import pytest

import netcond

MS = 1_000_000


def test_the_update_follows_the_formula():
    # C = 10 Mbit/s, d0 = T = 100 ms, alpha 0.1, beta 1, from R = 2 Mbit/s.
    r = netcond.Rcp(capacity="10mbit", rtt="100ms", initial="2mbit")
    # 62 500 bytes in the first interval: y = 5 Mbit/s; no queue:
    # R = 2e6 (1 + 0.1 (10e6 - 5e6) / 10e6) = 2.1e6.
    r.on_arrival(np.arange(50, dtype=np.uint64) * 2 * MS, np.full(50, 1250, np.uint32))
    assert r.arrived_bytes == 62_500
    assert not r.control(99 * MS, 0)
    assert r.control(100 * MS, 0)
    assert r.rate == pytest.approx(2.1e6, abs=1e-3)
    assert (r.arrived_bytes, r.interval_start) == (0, 100 * MS)
    # Again y = 5 Mbit/s, and 12 500 bytes queued: beta q / d0 = 1 Mbit/s, so
    # R = 2.1e6 (1 + (0.5e6 - 1e6) / 10e6) = 1.995e6.
    for i in range(50):
        r.on_arrival(100 * MS + i * 2 * MS, 1250)
    assert r.control(200 * MS, 12_500)
    assert r.rate == pytest.approx(1.995e6, abs=1e-3)
    assert r.rate_raw == int(r.rate * 65536)


def test_stamp_lowers_to_r_and_names_the_bottleneck():
    r = netcond.Rcp(capacity="10mbit", rtt="100ms", initial="2mbit", node=7)
    assert r.stamp(5_000_000) == (2_000_000, 7)
    assert r.stamp(1_000_000) == (1_000_000, 0)
    assert r.stamp(2**62) == (2_000_000, 7)


def test_the_rate_stays_within_min_rate_and_c():
    r = netcond.Rcp(capacity="10mbit", rtt="10ms", min_rate="1mbit")
    # Idle: y = 0, R would grow past C; it is held at C.
    assert r.control(10 * MS, 0) and r.rate == 10e6
    # A huge queue: R would go negative; it is held at min_rate.
    assert r.control(20 * MS, 10**9) and r.rate == 1e6


def test_bulk_equals_per_packet_and_pickle_continues():
    rng = np.random.default_rng(8)
    n = 20_000
    # 62 and 31 Mbit/s offered to 50 Mbit/s in turns of 2000 packets, a
    # queue wandering in 0..20 kB: the rate falls and recovers.
    gap = np.where((np.arange(n) // 2000) % 2 == 0, 200_000, 400_000)
    t = np.cumsum(rng.integers(0, gap)).astype(np.uint64)
    l = rng.integers(64, 1500, n).astype(np.uint32)
    q = (np.abs(np.cumsum(rng.integers(-300, 301, n))) % 20_000).astype(np.uint64)
    p = netcond.RcpProfile(capacity="50mbit", rtt="20ms", interval="5ms", alpha=(2, 5), beta=(1, 2))
    a, b = netcond.Rcp(p), netcond.Rcp(p)
    h = n // 2
    bulk = a.run(t[:h], l[:h], q[:h])
    one = []
    for x, y, z in zip(t[:h], l[:h], q[:h]):
        b.on_arrival(int(x), int(y))
        b.control(int(x), int(z))
        one.append(b.rate)
    assert np.array_equal(bulk, np.array(one))
    assert len(np.unique(bulk)) > 100
    assert bulk.min() < 40e6 and bulk.max() == 50e6
    c = pickle.loads(pickle.dumps(a))
    d = copy.deepcopy(a)
    assert repr(c) == repr(a)
    rest = a.run(t[h:], l[h:], q[h:])
    assert np.array_equal(c.run(t[h:], l[h:], q[h:]), rest)
    assert np.array_equal(d.run(t[h:], l[h:], q[h:]), rest)
    assert not np.array_equal(netcond.Rcp(p).run(t[h:], l[h:], q[h:]), rest)


def test_profile_repr_pickle_and_errors():
    p = netcond.RcpProfile(capacity="10mbit", rtt="100ms", alpha=(2, 5), interval="10ms", tick_hz=10**6)
    assert (p.capacity, p.rtt, p.alpha, p.beta, p.interval, p.initial, p.min_rate, p.node) == (
        10_000_000, 100 * MS, (2, 5), (1, 1), 10 * MS, 10_000_000, 1, 1)
    assert pickle.loads(pickle.dumps(p)) == p
    assert eval(repr(p), vars(netcond)) == p
    with pytest.raises(ValueError, match="node id must not be zero"):
        netcond.RcpProfile(capacity="10mbit", rtt="100ms", node=0)
    with pytest.raises(ValueError, match="nonzero denominators"):
        netcond.RcpProfile(capacity="10mbit", rtt="100ms", alpha=(1, 0))
    with pytest.raises(ValueError, match="initial rate must be between"):
        netcond.RcpProfile(capacity="10mbit", rtt="100ms", initial="20mbit")
