"""PCN node markers (an excess stage then a threshold stage per packet) and
the ET-marker of draft-babiarz-pcn-explicit-marking-01 section 4.8."""

import copy
import pickle

import numpy as np
import pytest

import netcond
from netcond import PcnMark


def test_sim48_figure9_takes_the_packet_first_then_adds_px():
    # A full 3000-byte bucket at a trickle rate, 1000-byte packets, px 1000:
    # 3000 -> 2000 -> 1000 (not marked), -> 0 (marked, +1000 -> 1000), -> 0
    # (marked again), ... An arriving ETM packet is metered too (figure 9).
    m = netcond.EtMarkerSim48(pcn_pt=8, pcn_tb=3000, pcn_px=1000)
    assert [m.mark(0, 1000) for _ in range(5)] == [PcnMark.NM] * 2 + [PcnMark.ETM] * 3
    m = netcond.EtMarkerSim48(pcn_pt=8, pcn_tb=3000, pcn_px=1000)
    assert [m.mark(0, 1000, PcnMark.ETM) for _ in range(2)] == [PcnMark.ETM] * 2
    assert m.mark(0, 1000) is PcnMark.ETM  # 1000 left: the third brings it to 0
    assert m.mark(0, 1000, PcnMark.NOT_PCN) is PcnMark.NOT_PCN


def test_sim48_profile():
    p = netcond.EtMarkerSim48Profile(pcn_pt="1mbit", pcn_tb="10k", pcn_px=1064)
    assert (p.pcn_pt, p.pcn_tb, p.pcn_px, p.tick_hz) == (1_000_000, 10240, 1064, 10**9)
    assert pickle.loads(pickle.dumps(p)) == p
    assert eval(repr(p), vars(netcond)) == p
    with pytest.raises(ValueError, match="pcn_pt must be greater than zero"):
        netcond.EtMarkerSim48Profile(pcn_pt=0, pcn_tb=10, pcn_px=1)
    with pytest.raises(ValueError, match="pcn_tb must be greater than zero"):
        netcond.EtMarkerSim48Profile(pcn_pt=8, pcn_tb=0, pcn_px=1)


def profiles(kind, tick_hz=None):
    if kind == "rfc5670":
        e = netcond.ExcessTrafficMeterProfile(excess_rate="10mbit", bs_etm="20k", tick_hz=tick_hz)
        t = netcond.ThresholdMeterProfile(threshold_rate="6mbit", bs_tm="30k", threshold="20k", tick_hz=tick_hz)
        return netcond.NodeRfc5670Profile(e, t), netcond.ExcessTrafficMeter, netcond.ThresholdMeter
    if kind == "3sm":
        e = netcond.EtMarkerProfile(sr="10mbit", bucket_size=20_000, s=3000, tick_hz=tick_hz)
    else:
        e = netcond.EtMarkerSim48Profile(pcn_pt="10mbit", pcn_tb=20_000, pcn_px=3000, tick_hz=tick_hz)
    t = netcond.AsMarkerProfile(ar="6mbit", bucket_size=30_000, threshold=20_000, tick_hz=tick_hz)
    node = netcond.Node3smProfile if kind == "3sm" else netcond.Node3smSim48Profile
    stage = netcond.EtMarker if kind == "3sm" else netcond.EtMarkerSim48
    return node(excess=e, threshold=t), stage, netcond.AsMarker


def stream(seed=5, n=20_000):
    rng = np.random.default_rng(seed)
    # About 16 Mbit/s offered: above both stages' rates, so every mark occurs.
    now = np.cumsum(rng.integers(0, 800_000, n)).astype(np.uint64)
    length = rng.integers(64, 1500, n).astype(np.uint32)
    mark = rng.choice(np.array([0, 1, 2, 2, 2, 2, 3], np.uint8), n)
    return now, length, mark


KINDS = ["rfc5670", "3sm", "sim48"]
NODES = {"rfc5670": netcond.NodeRfc5670, "3sm": netcond.Node3sm, "sim48": netcond.Node3smSim48}


@pytest.mark.parametrize("kind", KINDS)
def test_node_is_the_excess_stage_then_the_threshold_stage(kind):
    p, excess, threshold = profiles(kind)
    node = NODES[kind](p)
    e, t = excess(p.excess), threshold(p.threshold)
    now, length, mark = stream()
    got = node.mark(now, length, mark)
    want = threshold.mark(t, now, length, excess.mark(e, now, length, mark))
    assert np.array_equal(got, want)
    # Both stages act on this stream: some packets leave ETM, some ThM.
    nm = mark == 2
    assert {1, 2, 3} <= set(np.unique(got[nm]).tolist())


@pytest.mark.parametrize("kind", KINDS)
def test_node_bulk_equals_per_packet_and_pickle_continues(kind):
    p, _, _ = profiles(kind)
    a = NODES[kind](p, now=0)
    b = copy.deepcopy(a)
    now, length, mark = stream(seed=9)
    h = len(now) // 2
    bulk = a.mark(now[:h], length[:h], mark[:h])
    one = [b.mark(int(x), int(y), PcnMark(int(z))) for x, y, z in zip(now[:h], length[:h], mark[:h])]
    assert np.array_equal(bulk, np.array(one, np.uint8))
    assert repr(a) == repr(b)
    c = pickle.loads(pickle.dumps(a))
    assert repr(c) == repr(a)
    assert np.array_equal(c.mark(now[h:], length[h:], mark[h:]), a.mark(now[h:], length[h:], mark[h:]))
    assert repr(c) == repr(a)


@pytest.mark.parametrize("kind", KINDS)
def test_node_profile_repr_pickle_and_clock(kind):
    p, _, _ = profiles(kind)
    assert pickle.loads(pickle.dumps(p)) == p
    assert eval(repr(p), vars(netcond)) == p
    assert p.tick_hz == 10**9
    n = NODES[kind](p)
    assert repr(n).startswith(type(n).__name__ + "(" + repr(p) + ", excess_units=")
    q, _, _ = profiles(kind, tick_hz=10**6)
    with pytest.raises(ValueError, match="same clock"):
        type(p)(excess=p.excess, threshold=q.threshold)
    with pytest.raises(TypeError):
        type(p)(excess=p.threshold, threshold=p.excess)


def test_node_from_keywords_and_not_both():
    p, _, _ = profiles("rfc5670")
    n = netcond.NodeRfc5670(excess=p.excess, threshold=p.threshold)
    assert n.profile == p
    with pytest.raises(ValueError, match="not both"):
        netcond.NodeRfc5670(p, excess=p.excess, threshold=p.threshold)


def test_rfc5670_node_an_etm_packet_is_not_threshold_marked():
    # At a trickle rate: the first 1000-byte packet passes the excess stage
    # (1500 > 1000 bytes, 500 left) and takes the threshold bucket below its
    # threshold (ThM); the next ones find 500 <= 1000 bytes and leave ETM,
    # which the threshold stage, still below its threshold, leaves as it is.
    e = netcond.ExcessTrafficMeterProfile(excess_rate=8, bs_etm=1500)
    t = netcond.ThresholdMeterProfile(threshold_rate=8, bs_tm=1000, threshold=900)
    n = netcond.NodeRfc5670(netcond.NodeRfc5670Profile(e, t))
    out = [n.mark(0, 1000) for _ in range(4)]
    assert out == [PcnMark.THM] + [PcnMark.ETM] * 3
