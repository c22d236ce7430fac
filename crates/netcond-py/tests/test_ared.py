"""Adaptive RED from Python: the adaptation's timing and steps, bulk equals
per packet, copies, profile pickling, errors."""

import copy
import pickle

import numpy as np
import pytest

import netcond
from netcond import Decision


def test_max_p_decreases_by_tenths_while_the_average_is_below_the_band():
    # No packet: the average stays 0, below the band [9, 11]; every 0.5 s
    # (the paper's interval, in ns) max_p is multiplied by 0.9.
    a = netcond.AdaptiveRed(min_th=5, max_th=15, max_p=0.1)
    assert a.target == (9.0, 11.0)
    assert a.adapt(5 * 10**9 - 1) == 9
    assert a.interval_start == 9 * 500_000_000
    assert a.adapt(5 * 10**9) == 1
    assert a.max_p == pytest.approx(0.1 * 0.9**10, rel=1e-6)
    assert a.max_p < 0.1 * 0.9**10  # rounded down at each step
    # It stops decreasing below 0.01.
    a.adapt(100 * 10**9)
    assert 0.009 <= a.max_p < 0.01


def test_max_p_increases_while_the_average_is_above_the_band():
    # A queue of 14 packets, one arrival per ms, w_q = 0.01: the average
    # passes 11 (the band's top) within 0.2 s and stays there; max_p goes up
    # by min(0.01, max_p / 4) every 100 ms from then on, 0.02 -> 0.025 first.
    a = netcond.AdaptiveRed(min_th=5, max_th=15, max_p=0.02, w_q=0.01, limit=100, interval="100ms")
    t = np.arange(1, 2001, dtype=np.uint64) * 1_000_000
    q = np.full(2000, 14, np.uint32)
    out = a.on_arrival(t, q, np.full(2000, 1000, np.uint32))
    assert a.avg > 11
    assert Decision.DROP_EARLY in set(out.tolist())
    assert a.max_p > 0.1
    # Each step adds at most 0.01: 20 intervals ran (the last at 2 s).
    assert a.max_p <= 0.02 + 20 * 0.01 + 1e-9
    assert a.interval_start == 20 * 100_000_000


def test_bulk_equals_per_packet_same_seed_and_copy_continues():
    rng = np.random.default_rng(3)
    n = 20_000
    t = np.cumsum(rng.integers(0, 200_000, n)).astype(np.uint64)
    q = (np.cumsum(rng.integers(-2, 3, n)) % 40).astype(np.uint32)
    l = rng.integers(64, 1500, n).astype(np.uint32)
    e = rng.integers(0, 2, n).astype(bool)
    a = netcond.AdaptiveRed(min_th=5, max_th=15, max_p=0.1, w_q=0.02, limit=40, gentle=True, ecn=True, interval="50ms", seed=4)
    b = copy.copy(a)
    h = n // 2
    bulk = a.on_arrival(t[:h], q[:h], l[:h], e[:h])
    one = [b.on_arrival(int(x), int(y), int(z), bool(w)) for x, y, z, w in zip(t[:h], q[:h], l[:h], e[:h])]
    assert np.array_equal(bulk, np.array(one, np.uint8))
    assert set(bulk.tolist()) == {0, 1, 2, 3}
    assert a.max_p == b.max_p and a.max_p != 0.1
    c = copy.deepcopy(a)
    assert np.array_equal(c.on_arrival(t[h:], q[h:], l[h:], e[h:]), a.on_arrival(t[h:], q[h:], l[h:], e[h:]))
    assert repr(c) == repr(a)


def test_profile_repr_pickle_and_errors():
    p = netcond.AdaptiveRedProfile(min_th=5, max_th=15, max_p=0.1, interval="250ms", gentle=True)
    assert p.interval == 250_000_000
    assert p.red == netcond.RedProfile(min_th=5, max_th=15, max_p=0.1, gentle=True)
    assert pickle.loads(pickle.dumps(p)) == p
    assert eval(repr(p), vars(netcond)) == p
    assert netcond.AdaptiveRedProfile(min_th=5, max_th=15, max_p=0.1).interval == 500_000_000
    with pytest.raises(ValueError, match="the Adaptive RED interval must be at least one tick"):
        netcond.AdaptiveRedProfile(min_th=5, max_th=15, max_p=0.1, interval=0)
    with pytest.raises(ValueError, match="min_th must be below max_th"):
        netcond.AdaptiveRedProfile(min_th=15, max_th=5, max_p=0.1)
    a = netcond.AdaptiveRed(p, now=7)
    assert a.interval_start == 7 and a.profile == p
    assert repr(pickle.loads(pickle.dumps(a))) == repr(a)


def test_queues_made_from_one_profile_adapt_independently():
    # One profile, two queues: one stays empty (its average below the band,
    # max_p shrinks), one holds 14 packets (above the band, max_p grows). The
    # profile keeps the starting max_p.
    p = netcond.AdaptiveRedProfile(5, 15, 0.05, w_q=0.01, limit=100, interval="100ms")
    idle, busy = netcond.AdaptiveRed(p), netcond.AdaptiveRed(p)
    t = np.arange(1, 2001, dtype=np.uint64) * 1_000_000
    busy.on_arrival(t, np.full(2000, 14, np.uint32), np.full(2000, 1000, np.uint32))
    idle.adapt(2 * 10**9)
    assert busy.max_p > 0.05 > idle.max_p
    assert p.max_p == pytest.approx(0.05)
    assert busy.profile == idle.profile == p
