"""FQ-PIE from Python: flow isolation, the packet limit, bulk equals per
packet, copies, the profile's defaults, pickling and errors."""

import copy
import pickle

import numpy as np
import pytest

import netcond
from netcond import AqmVerdict

MS = 1_000_000


def run_two_flows(q, ms=20_000):
    # Flow 0 sends 3 packets per ms, flow 1 one every 2 ms; the link takes one
    # 1500-byte packet per ms; the timer runs at every ms.
    drops = [0, 0]
    sent = [0, 0]
    for t in range(ms):
        q.poll(t * MS)
        for f, n in ((0, 3), (1, int(t % 2 == 0))):
            for _ in range(n):
                if q.enqueue(t * MS, f, 1500) is AqmVerdict.DROP:
                    drops[f] += 1
        d = q.dequeue(t * MS)
        if d is not None:
            sent[d[0]] += 1
    return drops, sent


def test_the_light_flow_loses_nothing_and_the_heavy_one_is_held_to_the_rest():
    q = netcond.FqPie(seed=1)
    drops, sent = run_two_flows(q, ms=5_000)
    assert drops[1] == 0 and sent[1] >= 2_490
    assert drops[0] > 7_000 and sent[0] >= 2_400
    # The heavy flow's PIE holds its probability up; the light one's stays 0.
    assert q.prob(0) > 0 and q.prob(1) == 0
    pk, by, _ = q.flow(0)
    assert q.packets == pk + q.flow(1)[0] and q.bytes == by + q.flow(1)[1]


def test_the_packet_limit_counts_all_flows():
    q = netcond.FqPie(limit=5)
    got = [q.enqueue(0, f, 100) for f in range(6)]
    assert got == [AqmVerdict.DELIVER] * 5 + [AqmVerdict.DROP]
    assert (q.packets, q.bytes) == (5, 500)
    # New flows are served first, in arrival order; each packet once.
    assert [q.dequeue(1)[0] for _ in range(5)] == [0, 1, 2, 3, 4]
    assert q.dequeue(1) is None


def stream(seed, n=30_000):
    rng = np.random.default_rng(seed)
    t = np.cumsum(rng.integers(0, 400_000, n)).astype(np.uint64)
    f = rng.choice(np.array([0, 1, 2, 7, 1030], np.uint32), n, p=[0.5, 0.2, 0.1, 0.1, 0.1])
    l = rng.integers(64, 1500, n).astype(np.uint32)
    e = rng.integers(0, 2, n).astype(bool)
    return t, f, l, e


def test_bulk_equals_per_packet_and_a_copy_continues_alike():
    t, f, l, e = stream(2)
    a = netcond.FqPie(ecn=True, ecn_prob=50, seed=5)
    b = copy.deepcopy(a)
    va, da = [], []
    vb, db = [], []
    # Arrivals in blocks of 300; between blocks the link sends 150 packets
    # (about 2/3 of the offered rate), so queues and probabilities build up.
    for k in range(0, len(t), 300):
        sl = slice(k, k + 300)
        va.append(a.enqueue(t[sl], f[sl], l[sl], e[sl], poll=True))
        vb.append(np.array([b.enqueue(int(x), int(y), int(z), bool(w), poll=True) for x, y, z, w in zip(t[sl], f[sl], l[sl], e[sl])], np.uint8))
        when = np.full(150, t[min(k + 299, len(t) - 1)], np.uint64)
        da.append(a.dequeue(when, poll=True))
        one = [b.dequeue(int(x), poll=True) for x in when]
        db.append((
            np.array([-1 if d is None else d[0] for d in one], np.int64),
            np.array([0 if d is None else d[1] for d in one], np.uint64),
            np.array([0 if d is None else d[2] for d in one], np.uint32),
        ))
    assert np.array_equal(np.concatenate(va), np.concatenate(vb))
    for x, y in zip(da, db):
        for u, v in zip(x, y):
            assert np.array_equal(u, v)
    v = np.concatenate(va)
    assert set(v.tolist()) == {0, 1, 2}
    assert (a.packets, a.bytes, a.next_update) == (b.packets, b.bytes, b.next_update)
    # Flows are taken modulo 1024: 1030 is flow 6.
    assert a.flow(1030) == a.flow(6)
    c = copy.copy(a)
    t2, f2, l2, e2 = stream(3, 2_000)
    t2 = t2 + t[-1]
    assert np.array_equal(c.enqueue(t2, f2, l2, e2, poll=True), a.enqueue(t2, f2, l2, e2, poll=True))
    assert repr(c) == repr(a)


def test_profile_defaults_repr_pickle_and_errors():
    p = netcond.FqPieProfile()
    assert (p.target, p.t_update, p.max_burst) == (15 * MS, 15 * MS, 150 * MS)
    assert (p.alpha, p.beta, p.mtu, p.quantum, p.limit, p.ecn_prob) == (2, 20, 1514, 1514, 10240, 10)
    assert not p.ecn and not p.bytemode and p.tick_hz == 10**9
    q = netcond.FqPieProfile(target="5ms", t_update="10ms", quantum="3kb", ecn=True, tick_hz=10**6)
    assert (q.target, q.t_update, q.quantum, q.ecn, q.tick_hz) == (5 * MS, 10 * MS, 3072, True, 10**6)
    for x in (p, q):
        assert pickle.loads(pickle.dumps(x)) == x
        assert eval(repr(x), vars(netcond)) == x
    with pytest.raises(ValueError, match="the DRR quantum must be at least one byte"):
        netcond.FqPieProfile(quantum=0)
    with pytest.raises(ValueError, match="ecn_prob is a percentage, at most 100"):
        netcond.FqPieProfile(ecn_prob=101)
    with pytest.raises(ValueError, match="the packet limit must be at least one packet"):
        netcond.FqPieProfile(limit=0)
    with pytest.raises(ValueError, match="not both"):
        netcond.FqPie(p, limit=3)
    fresh = netcond.FqPie(p)
    assert repr(pickle.loads(pickle.dumps(fresh))) == repr(fresh)
