"""PIE from Python: the crate's documented behaviour, bulk equals per packet, pickling."""

import copy
import datetime
import pickle

import numpy as np
import pytest

import netcond
from netcond import AqmVerdict

MS = 1_000_000
MAX_PROB = 2**56 - 1


def standing_queue(pie, delay_ms, backlog, ms, ecn=False):
    """The crate's doc example: each ms, poll, one departure after `delay_ms`, one arrival."""
    out = []
    for t in range(ms):
        pie.poll(t * MS, backlog)
        pie.on_dequeue(t * MS, max(t - delay_ms, 0) * MS, 1500, backlog)
        out.append(pie.on_arrival(t * MS, 1500, 100 if not ecn else 40, backlog, ecn))
    return out


def test_linux_law_burst_allowance_then_drops():
    pie = netcond.Pie()
    v = standing_queue(pie, 100, 150_000, 3000)
    # No drop during the 150 ms burst allowance; then the probability climbs.
    assert AqmVerdict.DROP not in v[:150]
    assert pie.burst_time == 0
    assert pie.prob > 0 and v.count(AqmVerdict.DROP) > 100
    assert AqmVerdict.MARK not in v


def test_rfc_law_marks_below_ten_percent_then_drops():
    pie = netcond.Pie(law="rfc8033", ecn=True)
    v = standing_queue(pie, 40, 60_000, 5000, ecn=True)
    # Bounded to one (RFC 8033 s4.2); ECN-capable packets marked below 10 %, dropped above (s5.1).
    assert MAX_PROB // 10 < pie.prob <= MAX_PROB
    assert 0.1 < pie.probability <= 1.0
    assert v.count(AqmVerdict.MARK) > 0 and v.count(AqmVerdict.DROP) > 0


def test_limit_drops():
    pie = netcond.Pie(limit=10)
    assert pie.on_arrival(0, 1500, 10, 15_000) is AqmVerdict.DROP
    assert pie.on_arrival(0, 1500, 9, 13_500) is AqmVerdict.DELIVER


def test_profiles_and_errors():
    p = netcond.PieProfile(target=datetime.timedelta(milliseconds=20), t_update="30ms", law="rfc8033", estimator="departure-rate")
    assert (p.target, p.t_update, p.max_burst, p.alpha, p.beta, p.limit, p.mtu) == (20 * MS, 30 * MS, 150 * MS, 2, 20, 1000, 1514)
    assert (p.law, p.estimator, p.bound_prob, p.derandomize) == ("rfc8033", "departure-rate", True, True)
    assert netcond.PieProfile().bound_prob is False
    assert pickle.loads(pickle.dumps(p)) == p
    assert eval(repr(p), vars(netcond)) == p
    assert netcond.PieProfile(target="15ms") == netcond.PieProfile(target=15 * MS)
    with pytest.raises(ValueError, match="T_UPDATE"):
        netcond.PieProfile(t_update=0)
    with pytest.raises(ValueError, match="RFC 8033"):
        netcond.PieProfile(law="rfc8033", bytemode=True)
    with pytest.raises(ValueError, match="law"):
        netcond.PieProfile(law="bsd")
    with pytest.raises(ValueError, match="estimator"):
        netcond.PieProfile(estimator="guess")
    with pytest.raises(ValueError, match="not both"):
        netcond.Pie(p, target="5ms")


def events(seed, n):
    # About one arrival and one departure a millisecond, a standing queue of
    # 100-102 ms: the probability climbs past 10 %, so every verdict occurs.
    rng = np.random.default_rng(seed)
    now = (np.arange(n) * MS + rng.integers(0, MS // 2, n)).astype(np.uint64)
    sojourn = 100 * MS + rng.integers(0, 2 * MS, n)
    enq = (now.astype(np.int64) - sojourn).clip(0).astype(np.uint64)
    length = rng.integers(64, 1515, n).astype(np.uint32)
    backlog = rng.integers(30_000, 200_000, n).astype(np.uint64)
    qlen = (backlog // 1000).astype(np.uint32)
    ecn = rng.integers(0, 2, n).astype(bool)
    return now, enq, length, qlen, backlog, ecn


@pytest.mark.parametrize("law", ["linux", "rfc8033"])
def test_bulk_equals_per_packet_and_pickle(law):
    now, enq, length, qlen, backlog, ecn = events(5, 6000)
    a = netcond.Pie(law=law, ecn=True, seed=7)
    b = copy.deepcopy(a)
    bulk, one = [], []
    for s in range(0, len(now), 20):
        sl = slice(s, s + 20)
        a.on_dequeue(now[sl], enq[sl], length[sl], backlog[sl])
        bulk.append(a.on_arrival(now[sl], length[sl], qlen[sl], backlog[sl], ecn[sl], poll=True))
        for t, e, l, q in zip(now[sl], enq[sl], length[sl], backlog[sl]):
            b.on_dequeue(int(t), int(e), int(l), int(q))
        for t, l, ql, q, x in zip(now[sl], length[sl], qlen[sl], backlog[sl], ecn[sl]):
            one.append(b.on_arrival(int(t), int(l), int(ql), int(q), bool(x), poll=True))
    bulk = np.concatenate(bulk)
    assert np.array_equal(bulk, np.array(one, np.uint8))
    assert (bulk == 0).any() and (bulk == 1).any() and (bulk == 2).any()
    assert (a.prob, a.accu_prob, a.qdelay, a.burst_time, a.next_update) == (b.prob, b.accu_prob, b.qdelay, b.burst_time, b.next_update)
    # Pickled mid-stream (with its random source), the copy continues exactly as the original.
    c = pickle.loads(pickle.dumps(a))
    assert np.array_equal(
        c.on_arrival(now, length, qlen, backlog, ecn, poll=True), a.on_arrival(now, length, qlen, backlog, ecn, poll=True)
    )
    assert "Pie(PieProfile(" in repr(a)


def test_array_type_errors():
    pie = netcond.Pie()
    z = np.zeros(3, np.uint64)
    with pytest.raises(TypeError, match="qlen: expected a 1-D numpy array of uint32"):
        pie.on_arrival(z, np.zeros(3, np.uint32), z, z)
    with pytest.raises(ValueError, match="has 3 elements but length has 2"):
        pie.on_arrival(z, np.zeros(2, np.uint32), np.zeros(3, np.uint32), z)


def test_old_name_on_enqueue_warns_and_does_the_same():
    a, b = netcond.Pie(seed=7), netcond.Pie(seed=7)
    va = standing_queue(a, 100, 150_000, 600)
    with pytest.warns(DeprecationWarning, match="Pie.on_enqueue .*renamed to Pie.on_arrival"):
        vb = []
        for t in range(600):
            b.poll(t * MS, 150_000)
            b.on_dequeue(t * MS, max(t - 100, 0) * MS, 1500, 150_000)
            vb.append(b.on_enqueue(t * MS, 1500, 100, 150_000, False))
    assert va == vb and AqmVerdict.DROP in vb
    assert (a.prob, a.accu_prob) == (b.prob, b.accu_prob)
    t = np.arange(600, 700, dtype=np.uint64) * MS
    n = len(t)
    args = (t, np.full(n, 1500, np.uint32), np.full(n, 100, np.uint32), np.full(n, 150_000, np.uint64))
    with pytest.warns(DeprecationWarning):
        bulk_old = b.on_enqueue(*args)
    assert (a.on_arrival(*args) == bulk_old).all()
