"""RFC 6660's TOS-byte encoding from Python: PCN-compatible DSCPs, decoding
and re-marking, per packet and bulk, feeding a node marker."""

import pickle

import numpy as np
import pytest

import netcond
from netcond import PcnMark

EF, AF41 = 46, 34


def tos(dscp, ecn):
    return dscp << 2 | ecn


def test_decode_and_remark():
    d = netcond.PcnDscps(EF, AF41)
    assert d.dscps == [AF41, EF] and d.mask == (1 << EF) | (1 << AF41)
    assert EF in d and 0 not in d
    assert d.decode_tos(tos(EF, 2)) is PcnMark.NM
    assert d.decode_tos(tos(EF, 0)) is PcnMark.NOT_PCN
    assert d.decode_tos(tos(0, 2)) is None  # not PCN-compatible: RFC 3168 ECN
    assert d.remark_tos(tos(EF, 2), PcnMark.ETM) == tos(EF, 3)
    assert d.remark_tos(tos(EF, 1), PcnMark.ETM) == tos(EF, 3)   # ETM over ThM
    assert d.remark_tos(tos(EF, 3), PcnMark.THM) == tos(EF, 3)   # never less severe
    assert d.remark_tos(tos(EF, 0), PcnMark.ETM) == tos(EF, 0)   # not-PCN stays
    assert d.remark_tos(tos(0, 2), PcnMark.ETM) == tos(0, 2)     # other DSCPs untouched
    with pytest.raises(ValueError, match="codepoint"):
        d.remark_tos(tos(EF, 2), 4)
    with pytest.raises(ValueError, match="0..=63"):
        netcond.PcnDscps(64)


def test_bulk_equals_per_packet_and_a_node_in_between():
    rng = np.random.default_rng(2)
    n = 20_000
    d = netcond.PcnDscps(EF)
    b = (rng.choice(np.array([EF, EF, EF, 0, 10], np.uint8), n) << 2 | rng.integers(0, 4, n)).astype(np.uint8)
    ind = rng.integers(0, 4, n).astype(np.uint8)
    dec = d.decode_tos(b)
    one = [d.decode_tos(int(x)) for x in b]
    assert np.array_equal(dec, np.array([0 if m is None else int(m) for m in one], np.uint8))
    rem = d.remark_tos(b, ind)
    assert np.array_equal(rem, np.array([d.remark_tos(int(x), int(y)) for x, y in zip(b, ind)], np.uint8))
    assert np.array_equal(rem >> 2, b >> 2)  # the DSCP never changes
    # Decode, meter with a node, re-mark: non-PCN DSCPs pass untouched.
    node = netcond.NodeRfc5670(
        excess=netcond.ExcessTrafficMeterProfile(excess_rate="10mbit", bs_etm="20k"),
        threshold=netcond.ThresholdMeterProfile(threshold_rate="6mbit", bs_tm="30k", threshold="20k"),
    )
    now = np.cumsum(rng.integers(0, 1_500_000, n)).astype(np.uint64)
    length = np.full(n, 1500, np.uint32)
    out = d.remark_tos(b, node.mark(now, length, dec))
    other = (b >> 2) != EF
    assert np.array_equal(out[other], b[other])
    assert np.any(out[~other] != b[~other])


def test_repr_pickle_eq():
    d = netcond.PcnDscps(EF, AF41)
    assert repr(d) == "PcnDscps(34, 46)"
    assert eval(repr(d), vars(netcond)) == d
    assert pickle.loads(pickle.dumps(d)) == d
    assert d != netcond.PcnDscps(EF)
