"""DualPI2 from Python: RFC 9332's classifier, PI update, coupling and recur(), pickling."""

import copy
import pickle

import numpy as np
import pytest

import netcond
from netcond import AqmVerdict

MS = 1_000_000


def test_crate_example_values():
    aqm = netcond.DualPi2()
    # ECT(1) and CE go to the L4S queue (0), Not-ECT and ECT(0) to the Classic (1).
    assert aqm.enqueue(15 * MS, 1500, ecn=2) == 1
    # A Classic head that has waited 100 ms drives p' up at the first update:
    # 0.15 (0.1 - 0.015) + 3 (0.1 - 0) = 0.31275, times 2^32 rounded down.
    assert aqm.poll(115 * MS)
    assert aqm.p_prime == 1_343_251_021
    assert not aqm.poll(116 * MS)
    assert aqm.enqueue(114 * MS, 1500, ecn=1) == 0
    assert aqm.packets == (1, 1) and aqm.bytes == 3000
    # Time-shifted FIFO (40 ms): the Classic head (15 ms + 40 < 114 ms) goes first.
    q, enq, length, _ = aqm.dequeue(115 * MS)
    assert (q, enq, length) == (1, 15 * MS, 1500)
    # The L4S queue marks with p_CL = 2 p' = 0.6255 (its own ramp is 0 with
    # no packet left behind) under recur(): floor(1000 p_CL) of 1000.
    assert aqm.p_cl == 2 * 1_343_251_021
    marks = 0
    for i in range(1000):
        if i:
            aqm.enqueue(114 * MS, 1500, ecn=1)
        q, enq, length, v = aqm.dequeue(115 * MS)
        assert (q, enq, length) == (0, 114 * MS, 1500)
        marks += v is AqmVerdict.MARK
    assert marks == 625
    assert aqm.dequeue(116 * MS) is None


def test_profiles_and_errors():
    p = netcond.DualPi2Profile(defaults="linux", tshift="30ms", decision="random")
    assert (p.t_update, p.alpha_mhz, p.beta_mhz, p.k16, p.tshift, p.decision) == (16 * MS, 160, 3200, 32, 30 * MS, "random")
    r = netcond.DualPi2Profile()
    assert (r.target, r.min_th, r.range, r.th_len, r.limit, r.mtu, r.curq_max, r.decision) == (15 * MS, 800_000, 400_000, 1, 3_125_000, 1500, True, "recur")
    assert pickle.loads(pickle.dumps(p)) == p
    assert eval(repr(p), vars(netcond)) == p
    with pytest.raises(ValueError, match="coupling factor k must be positive"):
        netcond.DualPi2Profile(k16=0)
    with pytest.raises(ValueError, match="Tupdate"):
        netcond.DualPi2Profile(t_update=0)
    with pytest.raises(ValueError, match="decision"):
        netcond.DualPi2Profile(decision="coin")
    with pytest.raises(ValueError, match="defaults"):
        netcond.DualPi2Profile(defaults="bsd")


def run(aqm, rng, n):
    out = []
    for i in range(n):
        t = i * MS // 4
        aqm.poll(t)
        aqm.enqueue(t, int(rng.integers(64, 1500)), ecn=int(rng.integers(0, 4)))
        if i % 20:  # one departure short in 20: a slowly growing queue
            d = aqm.dequeue(t)
            out.append(None if d is None else (d[0], d[1], d[2], int(d[3])))
    return out


@pytest.mark.parametrize("decision", ["recur", "random", "random-two"])
def test_pickle_and_copy_continue_exactly(decision):
    a = netcond.DualPi2(decision=decision, seed=3)
    run(a, np.random.default_rng(1), 4000)
    assert a.p_prime > 0 and a.packets[1] > 0
    b = pickle.loads(pickle.dumps(a))
    c = copy.deepcopy(a)
    ra = run(a, np.random.default_rng(2), 4000)
    assert run(b, np.random.default_rng(2), 4000) == ra
    assert run(c, np.random.default_rng(2), 4000) == ra
    vs = [x[3] for x in ra if x is not None]
    assert 0 in vs and 1 in vs and 2 in vs
    assert "DualPi2(DualPi2Profile(" in repr(a)


def test_bulk_equals_per_packet():
    # Chunks of 40 arrivals (every 0.25 ms), each followed by 38 dequeues:
    # a slowly growing queue, every verdict occurs.
    rng = np.random.default_rng(8)
    n = 16_000
    now = (np.arange(n) * (MS // 4)).astype(np.uint64)
    length = rng.integers(64, 1500, n).astype(np.uint32)
    ecn = rng.integers(0, 4, n).astype(np.uint8)
    a = netcond.DualPi2(decision="random-two", seed=6)
    b = copy.deepcopy(a)
    qa, qb, da, db = [], [], [], []
    for s in range(0, n, 40):
        sl = slice(s, s + 40)
        a.poll(int(now[s]))
        b.poll(int(now[s]))
        qa.append(a.enqueue(now[sl], length[sl], ecn[sl]))
        f, v = a.dequeue(now[sl][:38])
        da.append(np.stack([f.astype(np.int64), v.astype(np.int64)]))
        for t, l, e in zip(now[sl], length[sl], ecn[sl]):
            q = b.enqueue(int(t), int(l), int(e))
            qb.append(-1 if q is None else q)
        rows = []
        for t in now[sl][:38]:
            d = b.dequeue(int(t))
            rows.append((-1, 0) if d is None else (d[0], int(d[3])))
        db.append(np.array(rows, np.int64).T)
    assert np.array_equal(np.concatenate(qa), np.array(qb, np.int8))
    da = np.concatenate(da, axis=1)
    assert np.array_equal(da, np.concatenate(db, axis=1))
    assert set(np.unique(da[1])) == {0, 1, 2}
    assert a.packets == b.packets and a.p_prime == b.p_prime
