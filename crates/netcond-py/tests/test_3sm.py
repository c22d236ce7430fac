"""The 3sM AS- and ET-markers from Python: draft behaviour, bulk equals per packet, pickling."""

import copy
import pickle

import numpy as np
import pytest

import netcond
from netcond import PcnMark


def test_as_marker_marks_below_the_threshold():
    # A full 3000-byte bucket at a trickle rate, threshold 1500: the first
    # packet finds it full (not marked); once the fill is below the
    # threshold, metered packets leave as ThM (AS).
    m = netcond.AsMarker(ar=8, bucket_size=3000, threshold=1500)
    out = [m.mark(0, 1000) for _ in range(6)]
    assert out[0] is PcnMark.NM
    assert PcnMark.THM in out and out[-1] is PcnMark.THM
    # ET packets are not metered; not-PCN packets are left alone.
    assert m.mark(0, 1000, PcnMark.ETM) is PcnMark.ETM
    assert m.mark(0, 1000, PcnMark.NOT_PCN) is PcnMark.NOT_PCN


@pytest.mark.parametrize("form,mtu", [("3sm-01", None), ("explicit-marking-01", None), ("size-independent", 1500)])
def test_et_marker_marks_once_the_bucket_runs_short(form, mtu):
    m = netcond.EtMarker(sr=8, bucket_size=3000, s=1000, form=form, mtu=mtu)
    out = [m.mark(0, 1000) for _ in range(6)]
    assert out[0] is PcnMark.NM
    assert out[-1] is PcnMark.ETM
    assert m.mark(0, 1000, PcnMark.NOT_PCN) is PcnMark.NOT_PCN


def test_profiles_and_errors():
    a = netcond.AsMarkerProfile(ar="1mbit", bucket_size="3kb", threshold=1500, form="explicit-marking-01")
    assert (a.ar, a.bucket_size, a.threshold, a.form) == (1_000_000, 3072, 1500, "explicit-marking-01")
    e = netcond.EtMarkerProfile(sr="2mbit", bucket_size=3000, s=1500, form="size-independent", mtu=1500)
    assert (e.sr, e.bucket_size, e.s, e.form, e.mtu) == (2_000_000, 3000, 1500, "size-independent", 1500)
    for p in (a, e):
        assert pickle.loads(pickle.dumps(p)) == p
        assert eval(repr(p), vars(netcond)) == p
    with pytest.raises(ValueError):
        netcond.AsMarkerProfile(ar=0, bucket_size=3000, threshold=1500)
    with pytest.raises(ValueError):
        netcond.AsMarkerProfile(ar="1mbit", bucket_size=1000, threshold=1500)
    with pytest.raises(ValueError):
        netcond.EtMarkerProfile(sr="1mbit", bucket_size=1000, s=10, form="size-independent", mtu=1500)
    with pytest.raises(ValueError, match="mtu"):
        netcond.EtMarkerProfile(sr="1mbit", bucket_size=1000, s=10, form="size-independent")
    with pytest.raises(ValueError, match="form"):
        netcond.EtMarkerProfile(sr="1mbit", bucket_size=1000, s=10, form="other")


@pytest.mark.parametrize(
    "make",
    [
        lambda: netcond.AsMarker(ar="8mbit", bucket_size=20_000, threshold=10_000),
        lambda: netcond.EtMarker(sr="8mbit", bucket_size=20_000, s=3000),
        lambda: netcond.EtMarker(sr="8mbit", bucket_size=20_000, s=3000, form="explicit-marking-01"),
        lambda: netcond.EtMarker(sr="8mbit", bucket_size=20_000, s=3000, form="size-independent", mtu=1500),
    ],
)
def test_bulk_equals_per_packet_and_pickle(make):
    rng = np.random.default_rng(17)
    n = 20_000
    now = np.cumsum(rng.integers(0, 600_000, n)).astype(np.uint64)  # about 20 Mbit/s, 2.5 x the rate
    length = rng.integers(64, 1500, n).astype(np.uint32)
    mark = rng.choice(np.array([0, 1, 2, 2, 2, 3], np.uint8), n)
    a = make()
    b = copy.copy(a)
    bulk = a.mark(now, length, mark)
    one = np.array([b.mark(int(t), int(l), int(m)) for t, l, m in zip(now, length, mark)], np.uint8)
    assert np.array_equal(bulk, one)
    assert len(np.unique(bulk[mark == 2])) == 2  # some NM packets marked, some not
    c = pickle.loads(pickle.dumps(a))
    assert np.array_equal(c.mark(now, length, mark), a.mark(now, length, mark))
