"""CoDel from Python: RFC 8289's behaviour, bulk equals per packet, pickling."""

import copy
import datetime
import pickle

import numpy as np
import pytest

import netcond
from netcond import AqmVerdict

MS = 1_000_000


def test_first_drop_after_an_interval_above_target():
    c = netcond.Codel(target="5ms", interval="100ms")
    # Sojourn 20 ms from t=10 ms: above target; the first drop comes one
    # interval after the sojourn first exceeded it (RFC 8289 section 5.4).
    assert c.on_dequeue(10 * MS, 0 * MS, 1500, 10_000) is AqmVerdict.DELIVER
    assert c.on_dequeue(50 * MS, 30 * MS, 1500, 10_000) is AqmVerdict.DELIVER
    assert c.on_dequeue(150 * MS, 130 * MS, 1500, 10_000) is AqmVerdict.DROP
    assert c.on_dequeue(150 * MS, 131 * MS, 1500, 8_500) is AqmVerdict.DELIVER
    assert c.dropping and c.count == 1
    c.on_queue_empty(151 * MS)


def test_ecn_marks_instead_of_dropping():
    c = netcond.Codel(ecn=True)
    c.on_dequeue(10 * MS, 0, 1500, 10_000, True)
    assert c.on_dequeue(150 * MS, 130 * MS, 1500, 10_000, True) is AqmVerdict.MARK


def test_profiles_and_errors():
    p = netcond.CodelProfile(target=datetime.timedelta(milliseconds=5), interval=100 * MS, law="linux")
    assert (p.target, p.interval, p.mtu, p.law) == (5 * MS, 100 * MS, 1514, "linux")
    assert netcond.CodelProfile(target="5ms") == netcond.CodelProfile(target=5 * MS)
    assert pickle.loads(pickle.dumps(p)) == p
    assert eval(repr(p), vars(netcond)) == p
    with pytest.raises(ValueError, match="TARGET"):
        netcond.CodelProfile(target=0)
    with pytest.raises(ValueError, match="law"):
        netcond.CodelProfile(law="bsd")
    with pytest.raises(ValueError, match="target: unknown time unit"):
        netcond.CodelProfile(target="5 parsecs")
    with pytest.raises(ValueError, match="whole number of nanoseconds"):
        netcond.CodelProfile(target="0.1ns")


@pytest.mark.parametrize("law", ["rfc8289", "linux", "ns3"])
def test_bulk_equals_per_packet_and_pickle(law):
    rng = np.random.default_rng(3)
    n = 5000
    now = np.cumsum(rng.integers(0, MS // 5, n)).astype(np.uint64)
    sojourn = rng.integers(6 * MS, 60 * MS, n).astype(np.uint64)
    enq = np.maximum(now.astype(np.int64) - sojourn.astype(np.int64), 0).astype(np.uint64)
    length = rng.integers(64, 1500, n).astype(np.uint32)
    backlog = rng.integers(2000, 60_000, n).astype(np.uint64)
    ecn = rng.integers(0, 2, n).astype(bool)
    a = netcond.Codel(law=law, ecn=True)
    b = copy.copy(a)
    bulk = a.on_dequeue(now, enq, length, backlog, ecn)
    one = np.array(
        [b.on_dequeue(int(t), int(e), int(l), int(q), bool(x)) for t, e, l, q, x in zip(now, enq, length, backlog, ecn)],
        np.uint8,
    )
    assert np.array_equal(bulk, one)
    assert (bulk == 2).any() and (bulk == 1).any() and (bulk == 0).any()
    # Pickled mid-stream, the copy continues exactly as the original.
    c = pickle.loads(pickle.dumps(a))
    assert np.array_equal(c.on_dequeue(now, enq, length, backlog), a.on_dequeue(now, enq, length, backlog))


def test_old_name_on_empty_warns_and_does_the_same():
    a, b = netcond.Codel(), netcond.Codel()
    for c in (a, b):
        c.on_dequeue(10 * MS, 0, 1500, 10_000)
        assert c.on_dequeue(150 * MS, 130 * MS, 1500, 10_000) is AqmVerdict.DROP
    a.on_queue_empty(150 * MS)
    with pytest.warns(DeprecationWarning, match="Codel.on_empty .*renamed to Codel.on_queue_empty"):
        b.on_empty(150 * MS)
    assert pickle.dumps(a) == pickle.dumps(b)
    # Both went on into the dropping state after the entry drop.
    assert b.dropping and b.count == 1
