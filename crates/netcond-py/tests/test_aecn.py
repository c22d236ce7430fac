"""AECN from Python: the classes' marking probabilities, bulk equals per packet."""

import copy
import pickle

import numpy as np
import pytest

import netcond
from netcond import Decision


@pytest.mark.parametrize("base,robust,fragile", [(0.5, 1.0, 0.2), (0.8, 1.0, 0.32), (0.2, 0.5, 0.08), (1.0, 1.0, 0.4)])
def test_class_max_p(base, robust, fragile):
    # robust min(alpha base, 1), average base, fragile base / beta (alpha = beta = 2.5).
    p = netcond.AecnProfile(base)
    assert p.max_p(0) == pytest.approx(robust, abs=1e-8)
    assert p.max_p(1) == pytest.approx(base, abs=1e-8)
    assert p.max_p(2) == pytest.approx(fragile, abs=1e-8)


def test_profiles_and_errors():
    p = netcond.AecnProfile(0.5)
    assert (p.min_th, p.max_th, p.limit) == (10, 30, 50)
    assert p.alpha == pytest.approx(2.5) and p.w_q == pytest.approx(0.001, abs=1e-9)
    assert pickle.loads(pickle.dumps(p)) == p
    assert eval(repr(p), vars(netcond)) == p
    with pytest.raises(ValueError, match="AECN's beta must be greater than 0"):
        netcond.AecnProfile(0.5, beta=0)
    with pytest.raises(ValueError, match="max_p must be in"):
        netcond.AecnProfile(1.5)
    with pytest.raises(ValueError, match="flow_class"):
        netcond.Aecn(p).on_arrival(0, 0, 3)
    assert netcond.Aecn(p).on_arrival(0, 0, 1, True) is Decision.ENQUEUE
    assert netcond.Aecn(p).on_arrival(0, 50) is Decision.DROP_FORCED


def test_bulk_equals_per_packet():
    rng = np.random.default_rng(21)
    n = 20_000
    now = np.cumsum(rng.integers(0, 100_000, n)).astype(np.uint64)
    qlen = rng.integers(5, 50, n).astype(np.uint32)
    cls = rng.integers(0, 3, n).astype(np.uint8)
    ecn = rng.integers(0, 2, n).astype(bool)
    a = netcond.Aecn(base_max_p=0.3, w_q=0.02, seed=5)
    b = copy.copy(a)
    bulk = a.on_arrival(now, qlen, cls, ecn)
    one = np.array([b.on_arrival(int(t), int(q), int(c), bool(e)) for t, q, c, e in zip(now, qlen, cls, ecn)], np.uint8)
    assert np.array_equal(bulk, one)
    assert a.counts == b.counts and a.avg == b.avg
    assert (bulk == 0).any() and (bulk == 1).any() and len(np.unique(bulk)) >= 3
    assert "Aecn(AecnProfile(" in repr(a)
