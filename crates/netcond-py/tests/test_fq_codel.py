"""FQ-CoDel from Python: RFC 8290's scheduling, CoDel per flow, bulk equals per packet."""

import copy
import json
import pickle

import numpy as np
import pytest

import netcond
from netcond import AqmVerdict

MS = 1_000_000


def test_new_flows_get_a_quantum_first():
    # The crate's example: flow 1 queues three 1500-byte packets, then flow 2
    # one 100-byte packet; both are new flows, each gets a quantum before
    # flow 1 goes on (RFC 8290 section 4.2).
    fq = netcond.FqCodel(quantum=1500)
    for flow, length in [(1, 1500), (1, 1500), (1, 1500), (2, 100)]:
        assert fq.enqueue(0, flow, length) == 0
    assert (fq.packets, fq.bytes, fq.flow_packets(1)) == (4, 4600, 3)
    order = []
    while (d := fq.dequeue(0)) is not None:
        flow, enq, length, v = d
        assert v is AqmVerdict.DELIVER and enq == 0
        order.append(flow)
    assert order == [1, 2, 1, 1]
    assert fq.packets == 0 and fq.dequeue(5) is None


def test_overflow_drops_from_the_fattest_flow():
    fq = netcond.FqCodel(limit=4)
    assert [fq.enqueue(0, 7, 1000) for _ in range(4)] == [0, 0, 0, 0]
    # The fifth packet goes over the limit: one head packet of flow 7 (the
    # fattest) is dropped under RFC 8290's single drop.
    assert fq.enqueue(0, 3, 100) == 1
    assert fq.flow_packets(7) == 3 and fq.packets == 4
    # Linux's batch drop: until half of the fattest flow's bytes are gone.
    lx = netcond.FqCodel(limit=4, law="linux")
    for _ in range(4):
        lx.enqueue(0, 7, 1000)
    assert lx.enqueue(0, 3, 100) == 2 and lx.flow_packets(7) == 2


def test_profiles_and_errors():
    p = netcond.FqCodelProfile(target="5ms", interval="100ms", quantum="300b", law="linux")
    assert (p.target, p.interval, p.quantum, p.limit, p.drop_batch, p.ecn, p.law) == (5 * MS, 100 * MS, 300, 10240, 64, True, "linux")
    assert netcond.FqCodelProfile().drop_batch is None
    assert pickle.loads(pickle.dumps(p)) == p
    assert eval(repr(p), vars(netcond)) == p
    with pytest.raises(ValueError, match="batch drop must drop at least one packet"):
        netcond.FqCodelProfile(drop_batch=0)
    with pytest.raises(ValueError, match="TARGET"):
        netcond.FqCodelProfile(target=0)
    with pytest.raises(ValueError, match="law"):
        netcond.FqCodelProfile(law="bsd")
    fresh = netcond.FqCodel(p)
    assert repr(pickle.loads(pickle.dumps(fresh))) == repr(fresh)


def test_pickle_holds_the_fifos_and_refuses_inconsistent_ones():
    a = netcond.FqCodel(quantum=300)
    for flow, n in [(3, 1000), (3, 1200), (900, 64), (1500, 700)]:
        a.enqueue(0, flow, n)
    b = pickle.loads(pickle.dumps(a))
    assert (b.packets, b.bytes, b.flow_packets(3), b.flow_packets(1500 % 1024)) == (4, 2964, 2, 1)
    assert [b.dequeue(10 * MS)[:3] for _ in range(4)] == [a.dequeue(10 * MS)[:3] for _ in range(4)]
    assert b.dequeue(10 * MS) is None

    a.enqueue(0, 3, 1000)
    a.enqueue(0, 3, 1000)
    cls, args, state = a.__reduce__()
    version, (st, fifos) = json.loads(state)
    assert len(fifos) == 1024 and len(fifos[3]) == 2
    fifos[3].pop()
    c = cls(*args)
    with pytest.raises(ValueError, match="flow 3 counts 2 packets but its FIFO holds 1"):
        c.__setstate__(json.dumps([version, [st, fifos]]).encode())
    with pytest.raises(ValueError, match="holds 1023 flow FIFOs, not 1024"):
        c.__setstate__(json.dumps([version, [st, fifos[:-1]]]).encode())
    # A state of another number of flows is refused by the array's length.
    st["drr"]["flows"].append(st["drr"]["flows"][0])
    with pytest.raises(ValueError, match="invalid length 1025, expected an array of 1024 elements"):
        c.__setstate__(json.dumps([version, [st, fifos]]).encode())
    assert c.packets == 0


@pytest.mark.parametrize("law", ["rfc8290", "linux"])
def test_bulk_equals_per_packet(law):
    # Eight flows arrive faster than the link serves them: standing queues,
    # so CoDel drops and marks; every 1 ms two arrivals, then one dequeue.
    rng = np.random.default_rng(11)
    n = 20_000
    now = (np.arange(n, dtype=np.uint64) // 2) * (MS // 2)
    flow = rng.integers(0, 8, n).astype(np.uint32)
    length = rng.integers(64, 1515, n).astype(np.uint32)
    ecn = rng.integers(0, 2, n).astype(bool)
    a = netcond.FqCodel(law=law, limit=2000)
    b = copy.deepcopy(a)
    drops_a, drops_b, fa, va, fb, vb = [], [], [], [], [], []
    for s in range(0, n, 50):
        sl = slice(s, s + 50)
        drops_a.append(a.enqueue(now[sl], flow[sl], length[sl], ecn[sl]))
        f, v = a.dequeue(now[sl][::2])
        fa.append(f)
        va.append(v)
        for t, fl, l, x in zip(now[sl], flow[sl], length[sl], ecn[sl]):
            drops_b.append(b.enqueue(int(t), int(fl), int(l), bool(x)))
        for t in now[sl][::2]:
            d = b.dequeue(int(t))
            fb.append(-1 if d is None else d[0])
            vb.append(0 if d is None else int(d[3]))
    drops_a = np.concatenate(drops_a)
    assert np.array_equal(drops_a, np.array(drops_b, np.uint32))
    va = np.concatenate(va)
    assert np.array_equal(np.concatenate(fa), np.array(fb, np.int64))
    assert np.array_equal(va, np.array(vb, np.uint8))
    assert (va == 0).any() and (va == 1).any() and (va == 2).any()
    assert drops_a.sum() > 0
    assert (a.packets, a.bytes) == (b.packets, b.bytes)
    assert "FqCodel(FqCodelProfile(" in repr(a)
