"""RIO from Python: thresholds per color, bulk equals per packet, pickling."""

import copy
import pickle

import numpy as np
import pytest

import netcond
from netcond import Color, Decision

# RFC 2963's example thresholds: (min_th, max_th, max_p) per color.
G, Y, R = (400, 800, 0.02), (200, 400, 0.05), (100, 200, 0.1)


def test_empty_queue_enqueues_and_full_buffer_drops():
    rio = netcond.Rio(green=G, yellow=Y, red=R, limit=1600)
    for c in (Color.GREEN, Color.YELLOW, Color.RED):
        assert rio.on_arrival(0, (0, 0, 0), c, 1500) is Decision.ENQUEUE
    assert rio.on_arrival(1, (1600, 0, 0), Color.GREEN, 1500) is Decision.DROP_FORCED
    # RIO-C: green's average counts green only, 1600 x w_q = 3.2 after one arrival.
    assert rio.avg[0] == pytest.approx(3.2, abs=1e-6)


def test_profiles_and_errors():
    p = netcond.RioProfile(G, Y, R, mode="decoupled", w_q=0.02)
    assert (p.green[:2], p.yellow[:2], p.red[:2], p.mode, p.limit, p.unit) == (G[:2], Y[:2], R[:2], "decoupled", 1600, "packets")
    assert p.green[2] == pytest.approx(0.02, abs=1e-9)  # stored as U32F32
    assert p.w_q == pytest.approx(0.02, abs=1e-9)
    assert pickle.loads(pickle.dumps(p)) == p
    assert eval(repr(p), vars(netcond)) == p
    with pytest.raises(ValueError, match=r"min_th must be below max_th \(FJ93 section 4\)"):
        netcond.RioProfile((800, 400, 0.02), Y, R)
    with pytest.raises(ValueError, match="max_p must be in"):
        netcond.RioProfile((400, 800, 2.0), Y, R)
    with pytest.raises(ValueError, match="mode"):
        netcond.RioProfile(G, Y, R, mode="fifo")
    with pytest.raises(ValueError, match="color"):
        netcond.Rio(p).on_arrival(0, (0, 0, 0), 3, 1500)


@pytest.mark.parametrize("mode", ["coupled", "decoupled", "wred"])
def test_bulk_equals_per_packet_and_pickle(mode):
    rng = np.random.default_rng(9)
    n = 20_000
    now = np.cumsum(rng.integers(0, 10_000, n)).astype(np.uint64)
    queue = np.stack(
        [rng.integers(300, 900, n), rng.integers(100, 450, n), rng.integers(50, 260, n)], axis=1
    ).astype(np.uint32)
    color = rng.integers(0, 3, n).astype(np.uint8)
    length = rng.integers(64, 1500, n).astype(np.uint32)
    ecn = rng.integers(0, 2, n).astype(bool)
    a = netcond.Rio(green=G, yellow=Y, red=R, mode=mode, w_q=0.02, ecn=True, seed=4)
    b = copy.deepcopy(a)
    bulk = a.on_arrival(now, queue, color, length, ecn)
    one = np.array(
        [b.on_arrival(int(t), tuple(int(x) for x in q), int(c), int(l), bool(e)) for t, q, c, l, e in zip(now, queue, color, length, ecn)],
        np.uint8,
    )
    assert np.array_equal(bulk, one)
    assert a.counts == b.counts and a.avg == b.avg
    assert (bulk == 0).any() and (bulk == 1).any() and len(np.unique(bulk)) >= 3
    c = pickle.loads(pickle.dumps(a))
    assert np.array_equal(c.on_arrival(now, queue, color, length, ecn), a.on_arrival(now, queue, color, length, ecn))
    assert "Rio(RioProfile(" in repr(a)
