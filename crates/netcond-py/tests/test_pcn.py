"""RFC 5670's PCN meters from Python, marking per RFC 6660."""

import copy
import pickle

import numpy as np
import pytest

import netcond
from netcond import PcnMark


def test_threshold_meter_marks_below_the_threshold():
    # A full 10000-byte bucket, no refill to speak of (8 bit/s): after five
    # 1000-byte packets the fill is 5000 = threshold, not below; the sixth
    # leaves 4000 < threshold and is ThM-marked (RFC 5670 A.1).
    m = netcond.ThresholdMeter(threshold_rate=8, bs_tm=10000, threshold=5000)
    got = [m.mark(0, 1000) for _ in range(7)]
    assert got == [PcnMark.NM] * 5 + [PcnMark.THM] * 2
    # Not-PCN packets are not metered and stay not-PCN; ETM stays ETM.
    assert m.mark(0, 1000, PcnMark.NOT_PCN) is PcnMark.NOT_PCN
    assert m.mark(0, 1000, PcnMark.ETM) is PcnMark.ETM


@pytest.mark.parametrize(
    "mode, unmarked",
    [("classic", 2), ("classic-b6", 3), ("size-independent", 4)],
)
def test_excess_traffic_meter_ties(mode, unmarked):
    # 3000-byte bucket, 1000-byte packets: the third finds F_etm == size.
    # Section 2.4 marks it (F_etm <= size), appendix B.6 does not (F_etm < size).
    e = netcond.ExcessTrafficMeter(excess_rate=8, bs_etm=3000, mode=mode)
    got = [e.mark(0, 1000) for _ in range(6)]
    assert got[:unmarked] == [PcnMark.NM] * unmarked
    assert got[unmarked] is PcnMark.ETM


def test_errors_and_pickle():
    with pytest.raises(ValueError):
        netcond.ThresholdMeterProfile(threshold_rate=0, bs_tm=10000, threshold=5000)
    with pytest.raises(ValueError, match="mode"):
        netcond.ExcessTrafficMeterProfile(excess_rate=8, bs_etm=3000, mode="new")
    with pytest.raises(ValueError, match="codepoint"):
        netcond.ThresholdMeter(threshold_rate=8, bs_tm=10, threshold=5).mark(0, 1, 4)
    p = netcond.ThresholdMeterProfile(threshold_rate="10mbit", bs_tm="10k", threshold="5k")
    assert (p.threshold_rate, p.bs_tm, p.threshold) == (10_000_000, 10240, 5120)
    assert pickle.loads(pickle.dumps(p)) == p
    assert eval(repr(p), vars(netcond)) == p


@pytest.mark.parametrize("which", ["tm", "etm"])
def test_bulk_equals_per_packet_and_pickle(which):
    rng = np.random.default_rng(11)
    n = 20000
    t = np.cumsum(rng.integers(0, 2000, n)).astype(np.uint64)
    l = rng.integers(64, 1500, n).astype(np.uint32)
    marks = rng.choice(np.array([0, 1, 2, 3], np.uint8), n, p=[0.1, 0.1, 0.7, 0.1])
    if which == "tm":
        a = netcond.ThresholdMeter(threshold_rate="2gbit", bs_tm="30k", threshold="20k")
    else:
        a = netcond.ExcessTrafficMeter(excess_rate="2gbit", bs_etm="30k")
    b = copy.copy(a)
    bulk = a.mark(t, l, marks)
    one = np.array([b.mark(int(x), int(y), int(z)) for x, y, z in zip(t, l, marks)], np.uint8)
    assert np.array_equal(bulk, one)
    assert len(set(np.unique(bulk))) >= 3
    c = pickle.loads(pickle.dumps(a))
    assert np.array_equal(c.mark(t, l), a.mark(t, l))
