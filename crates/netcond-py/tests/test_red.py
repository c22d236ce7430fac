"""RED from Python: its regions, bulk equals per packet, seeds, pickling, errors."""

import copy
import pickle

import numpy as np
import pytest

import netcond
from netcond import Decision


def test_regions():
    # w_q = 1: the average is the instantaneous queue.
    r = netcond.Red(min_th=5, max_th=15, max_p=0.1, w_q=1.0, limit=30)
    assert r.on_arrival(0, 4, 1500) is Decision.ENQUEUE      # below min_th
    assert r.on_arrival(0, 15, 1500) is Decision.DROP_FORCED  # at max_th (not gentle)
    assert r.on_arrival(0, 30, 1500) is Decision.DROP_FORCED  # buffer full
    e = netcond.Red(min_th=5, max_th=15, max_p=1.0, w_q=1.0, ecn=True)
    got = {e.on_arrival(0, 14, 1500, True) for _ in range(50)}
    assert Decision.MARK in got and Decision.DROP_EARLY not in got
    got = {e.on_arrival(0, 14, 1500, False) for _ in range(50)}
    assert Decision.DROP_EARLY in got and Decision.MARK not in got


def test_profile_errors_and_repr():
    with pytest.raises(ValueError, match="min_th must be below max_th"):
        netcond.RedProfile(min_th=15, max_th=5, max_p=0.1)
    with pytest.raises(ValueError, match="w_q"):
        netcond.RedProfile(min_th=5, max_th=15, max_p=0.1, w_q=0.0)
    with pytest.raises(ValueError, match="max_p"):
        netcond.RedProfile(min_th=5, max_th=15, max_p=float("nan"))
    with pytest.raises(ValueError, match="unit"):
        netcond.RedProfile(min_th=5, max_th=15, max_p=0.1, unit="cells")
    p = netcond.RedProfile(min_th=5, max_th=15, max_p=0.1, gentle=True)
    assert p.limit == 30 and p.gentle
    assert abs(p.max_p - 0.1) < 1e-9
    assert pickle.loads(pickle.dumps(p)) == p
    assert eval(repr(p), vars(netcond)) == p


def stream(n=20000, seed=5):
    rng = np.random.default_rng(seed)
    t = np.cumsum(rng.integers(0, 100_000, n)).astype(np.uint64)
    q = np.clip(np.cumsum(rng.integers(-3, 4, n)) % 60, 0, 59).astype(np.uint32)
    l = rng.integers(64, 1500, n).astype(np.uint32)
    e = rng.integers(0, 2, n).astype(bool)
    return t, q, l, e


def test_bulk_equals_per_packet_same_seed_and_pickle():
    t, q, l, e = stream()
    a = netcond.Red(min_th=5, max_th=15, max_p=0.1, w_q=0.02, limit=60, gentle=True, ecn=True, seed=9)
    b = copy.copy(a)
    bulk = a.on_arrival(t, q, l, e)
    one = np.array([b.on_arrival(int(x), int(y), int(z), bool(w)) for x, y, z, w in zip(t, q, l, e)], np.uint8)
    assert np.array_equal(bulk, one)
    assert set(np.unique(bulk)) == {0, 1, 2, 3}
    c = pickle.loads(pickle.dumps(a))
    assert np.array_equal(c.on_arrival(t, q, l, e), a.on_arrival(t, q, l, e))
    # Another seed, other early decisions (the same forced ones).
    d = netcond.Red(a.profile, seed=10).on_arrival(t, q, l, e)
    assert not np.array_equal(d, bulk)
