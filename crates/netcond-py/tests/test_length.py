"""tc's length adjustment from Python, and with a meter."""

import pickle

import numpy as np
import pytest

import netcond


def test_tc_examples():
    adsl = netcond.LengthAdjust(overhead=10, atm=True)  # tc: overhead 10 linklayer atm
    assert adsl.apply(1500) == 1696  # 1510 bytes: 32 cells of 53 bytes
    assert adsl.apply(40) == 106  # 50 bytes: 2 cells
    eth = netcond.LengthAdjust(overhead=20, mpu=84)
    assert (eth.apply(60), eth.apply(1514)) == (84, 1534)
    assert netcond.LengthAdjust().apply(1500) == 1500
    assert netcond.LengthAdjust(overhead=-100).apply(40) == 0
    assert netcond.LengthAdjust(overhead=10).apply(2**32 - 5) == 2**32 - 1


def test_bulk_equals_per_packet_and_feeds_a_meter():
    rng = np.random.default_rng(1)
    n = 50_000
    l = rng.integers(0, 9000, n).astype(np.uint32)
    adj = netcond.LengthAdjust(overhead=-14, mpu=64, atm=True)
    got = adj.apply(l)
    assert got.dtype == np.uint32
    assert np.array_equal(got, np.array([adj.apply(int(x)) for x in l], np.uint32))
    # The formula, in Python's integers.
    want = np.maximum(np.maximum(l.astype(np.int64) - 14, 64), 0)
    want = -(-want // 48) * 53
    assert np.array_equal(got, want.astype(np.uint32))
    # A meter charged the adjusted lengths colors as if given them directly.
    t = np.cumsum(rng.integers(0, 5_000, n)).astype(np.uint64)
    a = netcond.TrTcm(cir="1gbit", pir="2gbit", cbs="20k", pbs="40k")
    b = netcond.TrTcm(a.profile)
    assert np.array_equal(a.color_blind(t, adj.apply(l)), b.color_blind(t, want.astype(np.uint32)))
    with pytest.raises(TypeError, match="uint32"):
        adj.apply(l.astype(np.int64))


def test_repr_pickle_eq():
    a = netcond.LengthAdjust(overhead=-4, mpu=60, atm=False)
    assert (a.overhead, a.mpu, a.atm) == (-4, 60, False)
    assert eval(repr(a), vars(netcond)) == a
    assert pickle.loads(pickle.dumps(a)) == a
    assert a != netcond.LengthAdjust(overhead=-4, mpu=60, atm=True)


def test_tbf_charges_the_adjusted_length():
    # 8 Mbit/s is one byte per microsecond: once the bucket is empty, 1500-byte
    # packets leave 1500 us apart; charged as ADSL cells (1510 bytes in 32
    # cells of 53), 1696 us apart.
    now = np.zeros(20, np.uint64)
    length = np.full(20, 1500, np.uint32)
    adsl = netcond.LengthAdjust(overhead=10, atm=True)
    plain = netcond.Tbf(rate="8mbit", burst=3400, limit="100k").shape(now, length)[0]
    p = netcond.TbfProfile(rate="8mbit", burst=3400, limit="100k", adjust=adsl)
    assert p.adjust == adsl and netcond.TbfProfile(rate="8mbit", burst=3400, limit="100k").adjust is None
    assert pickle.loads(pickle.dumps(p)) == p and eval(repr(p), vars(netcond)) == p
    shaped = netcond.Tbf(p).shape(now, length)[0]
    assert set(np.diff(plain[5:].astype(np.int64)).tolist()) == {1_500_000}
    assert set(np.diff(shaped[5:].astype(np.int64)).tolist()) == {1_696_000}
