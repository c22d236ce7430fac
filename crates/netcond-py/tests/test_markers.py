"""The three-color markers from Python: DPDK test_meter's facts, per-packet
equals bulk, configuration errors, tc strings, pickling."""

import copy
import pickle

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import netcond
from netcond import Color

GREEN, YELLOW, RED = Color.GREEN, Color.YELLOW, Color.RED

# DPDK app/test/test_meter.c's default profiles: rates in bytes per second.
SR = dict(cir="46000000bps", cbs=2048, ebs=4096)
TR = dict(cir="46000000bps", pir="69000000bps", cbs=2048, pbs=4096)
R4115 = dict(cir="46000000bps", eir="69000000bps", cbs=2048, ebs=4096)


def fresh(cls, **kw):
    return cls(now=1_000_000, **kw)


@pytest.mark.parametrize(
    "cls, kw, first, second",
    [
        (netcond.SrTcm, SR, 2048, 4096),
        (netcond.TrTcm, TR, 2048, 4096),
        (netcond.Rfc4115, R4115, 2048, 4096),
    ],
)
def test_dpdk_color_blind_facts(cls, kw, first, second):
    # A packet one byte under the committed burst is green, one byte over it
    # yellow, one byte over the second bucket red: each on fresh full buckets
    # at the instant they were configured (no refill).
    t = 1_000_000
    assert fresh(cls, **kw).color_blind(t, first - 1) == GREEN
    assert fresh(cls, **kw).color_blind(t, first + 1) == YELLOW
    assert fresh(cls, **kw).color_blind(t, second + 1) == RED


@pytest.mark.parametrize(
    "cls, kw, first, second",
    [
        (netcond.SrTcm, SR, 2048, 4096),
        (netcond.TrTcm, TR, 2048, 4096),
        (netcond.Rfc4115, R4115, 2048, 4096),
    ],
)
def test_dpdk_color_aware_facts(cls, kw, first, second):
    t = 1_000_000
    # Pre-colored green: as color-blind.
    assert fresh(cls, **kw).color_aware(t, first - 1, GREEN) == GREEN
    assert fresh(cls, **kw).color_aware(t, first + 1, GREEN) == YELLOW
    assert fresh(cls, **kw).color_aware(t, second + 1, GREEN) == RED
    # Pre-colored yellow: never promoted to green.
    assert fresh(cls, **kw).color_aware(t, first - 1, YELLOW) == YELLOW
    assert fresh(cls, **kw).color_aware(t, second + 1, YELLOW) == RED
    # Pre-colored red stays red, even a tiny packet.
    assert fresh(cls, **kw).color_aware(t, 1, RED) == RED


def test_dpdk_invalid_profiles():
    with pytest.raises(ValueError, match="CIR"):
        netcond.SrTcmProfile(cir=0, cbs=2048, ebs=4096)
    with pytest.raises(ValueError, match="RFC 2697"):
        netcond.SrTcmProfile(cir="46000000bps", cbs=0, ebs=0)
    with pytest.raises(ValueError, match="CIR must be greater than zero"):
        netcond.TrTcmProfile(cir=0, pir=8, cbs=1, pbs=1)
    with pytest.raises(ValueError, match="PIR must be greater than zero"):
        netcond.TrTcmProfile(cir=8, pir=0, cbs=1, pbs=1)
    with pytest.raises(ValueError, match="PIR must be equal to or greater than CIR"):
        netcond.TrTcmProfile(cir=16, pir=8, cbs=1, pbs=1)
    with pytest.raises(ValueError, match="CBS must be greater than 0"):
        netcond.TrTcmProfile(cir=8, pir=8, cbs=0, pbs=1)
    with pytest.raises(ValueError, match="PBS must be greater than 0"):
        netcond.TrTcmProfile(cir=8, pir=8, cbs=1, pbs=0)
    with pytest.raises(ValueError, match="RFC 4115"):
        netcond.Rfc4115Profile(cir=0, eir=0, cbs=1, ebs=1)


def test_argument_errors():
    with pytest.raises(ValueError, match="cir: unknown unit"):
        netcond.TrTcm(cir="10mbits", pir="20mbit", cbs=1500, pbs=3000)
    with pytest.raises(ValueError, match="pbs: not a whole number"):
        netcond.TrTcm(cir="10mbit", pir="20mbit", cbs=1500, pbs="0.1b")
    with pytest.raises(ValueError, match="mode"):
        netcond.TrTcm(cir=8, pir=8, cbs=1, pbs=1, mode="bits")
    with pytest.raises(ValueError, match="tick rate"):
        netcond.TrTcm(cir=8, pir=8, cbs=1, pbs=1, tick_hz=0)
    with pytest.raises(ValueError, match="packet mode"):
        netcond.TrTcm(cir="1mbit", pir=8, cbs=1, pbs=1, mode="packets")
    with pytest.raises(ValueError, match="cir"):
        netcond.TrTcm(cir=-1, pir=8, cbs=1, pbs=1)
    with pytest.raises(TypeError):
        netcond.TrTcm(cir=True, pir=8, cbs=1, pbs=1)
    with pytest.raises(TypeError):
        netcond.TrTcm(cir=8, pir=8, cbs=1)  # pbs missing
    with pytest.raises(ValueError, match="not both"):
        netcond.TrTcm(netcond.TrTcmProfile(8, 8, 1, 1), cir=8)
    with pytest.raises(ValueError, match="ties"):
        netcond.Rfc4115Profile(8, 8, 1, 1, ties="rfc")
    m = netcond.TrTcm(cir=8, pir=8, cbs=1, pbs=1)
    with pytest.raises(ValueError, match="color"):
        m.color_aware(0, 1, 3)
    with pytest.raises(OverflowError):
        m.color_blind(-1, 1)
    with pytest.raises(TypeError, match="uint32"):
        m.color_blind(np.zeros(3, np.uint64), np.zeros(3, np.int64))
    with pytest.raises(TypeError, match="uint64"):
        m.color_blind(np.zeros(3, np.float64), np.zeros(3, np.uint32))
    with pytest.raises(ValueError, match="3 elements but length has 2"):
        m.color_blind(np.zeros(3, np.uint64), np.zeros(2, np.uint32))
    with pytest.raises(ValueError, match="color"):
        m.color_aware(np.zeros(2, np.uint64), np.zeros(2, np.uint32), np.array([0, 7], np.uint8))


def test_tc_strings_and_numbers_agree():
    a = netcond.TrTcmProfile(cir="10mbit", pir="20mbit", cbs="10kb", pbs="20k")
    b = netcond.TrTcmProfile(cir=10_000_000, pir=20_000_000, cbs=10 * 1024, pbs=20 * 1024)
    assert a == b
    assert a.cir == 10_000_000 and a.cbs == 10240
    assert netcond.TrTcmProfile(cir=1e3, pir=2e3, cbs=1, pbs=1).pir == 2000
    assert netcond.TrTcmProfile(cir="100kbps", pir="100kbps", cbs=1, pbs=1).cir == 800_000
    assert netcond.TrTcmProfile(8, 8, 1, 1) != netcond.TrTcmProfile(8, 16, 1, 1)


def test_repr_and_accessors():
    p = netcond.Rfc4115Profile(cir=8000, eir=16000, cbs=100, ebs=200, tick_hz=1_000_000, ties="text")
    assert repr(p) == (
        "Rfc4115Profile(cir=8000, eir=16000, cbs=100, ebs=200, mode='bytes', "
        "tick_hz=1000000, ties='text')"
    )
    assert eval(repr(p), vars(netcond)) == p
    m = netcond.Rfc4115(p, now=5)
    assert m.last == 5
    assert repr(m).startswith("Rfc4115(Rfc4115Profile(cir=8000")
    assert "last=5" in repr(m)
    assert m.profile == p
    s = netcond.SrTcmProfile(cir=10, cbs=3, ebs=4, mode="packets")
    assert (s.cir, s.cbs, s.ebs, s.mode, s.tick_hz) == (10, 3, 4, "packets", 10**9)


@pytest.mark.parametrize(
    "cls, kw",
    [(netcond.SrTcm, SR), (netcond.TrTcm, TR), (netcond.Rfc4115, R4115)],
)
def test_pickle_state_mid_stream(cls, kw):
    m = cls(**kw)
    rng = np.random.default_rng(1)
    t = np.cumsum(rng.integers(0, 200, 500)).astype(np.uint64)
    l = rng.integers(40, 1500, 500).astype(np.uint32)
    m.color_blind(t[:250], l[:250])
    for clone in (pickle.loads(pickle.dumps(m)), copy.deepcopy(m), copy.copy(m)):
        assert repr(clone) == repr(m)
        assert np.array_equal(clone.color_blind(t[250:], l[250:]), copy.copy(m).color_blind(t[250:], l[250:]))
    p = m.profile
    assert pickle.loads(pickle.dumps(p)) == p


def per_packet(m, t, l, c=None):
    if c is None:
        return np.array([m.color_blind(int(a), int(b)) for a, b in zip(t, l)], np.uint8)
    return np.array(
        [m.color_aware(int(a), int(b), int(x)) for a, b, x in zip(t, l, c)], np.uint8
    )


streams = st.integers(1, 300).flatmap(
    lambda n: st.tuples(
        st.lists(st.integers(0, 2_000_000), min_size=n, max_size=n),
        st.lists(st.integers(0, 9000), min_size=n, max_size=n),
        st.lists(st.integers(0, 2), min_size=n, max_size=n),
    )
)
profiles = st.tuples(
    st.integers(1, 10**9), st.integers(0, 10**9), st.integers(1, 20000), st.integers(1, 20000),
    st.sampled_from(["bytes", "packets"]),
)


@settings(max_examples=150, deadline=None)
@given(streams, profiles, st.sampled_from(["SrTcm", "TrTcm", "Rfc4115"]), st.booleans())
def test_per_packet_equals_bulk(stream, prof, which, back_steps):
    gaps, lens, cols = stream
    cir, extra, b1, b2, mode = prof
    if which == "SrTcm":
        make = lambda: netcond.SrTcm(cir=cir, cbs=b1, ebs=b2, mode=mode)
    elif which == "TrTcm":
        make = lambda: netcond.TrTcm(cir=cir, pir=cir + extra, cbs=b1, pbs=b2, mode=mode)
    else:
        make = lambda: netcond.Rfc4115(cir=cir, eir=extra, cbs=b1, ebs=b2, mode=mode)
    t = np.cumsum(gaps).astype(np.uint64)
    if back_steps:  # a clock that steps backwards at times
        t = np.array(gaps, np.uint64)
    l = np.array(lens, np.uint32)
    c = np.array(cols, np.uint8)
    a, b = make(), make()
    assert np.array_equal(a.color_blind(t, l), per_packet(b, t, l))
    assert repr(a) == repr(b)
    a, b = make(), make()
    assert np.array_equal(a.color_aware(t, l, c), per_packet(b, t, l, c))
    assert repr(a) == repr(b)


def test_bulk_strided_and_packet_mode():
    m1 = netcond.TrTcm(cir=1000, pir=2000, cbs=5, pbs=10, mode="packets")
    m2 = copy.copy(m1)
    t = (np.arange(20000, dtype=np.uint64) * 300_000)[::2]  # strided view
    assert not t.flags.c_contiguous
    bulk = m1.color_blind(t)
    one = np.array([m2.color_blind(int(x)) for x in t], np.uint8)
    assert np.array_equal(bulk, one)
    assert bulk.dtype == np.uint8
    # 1000 packets/s offered to CIR 1000/s... at 6600 pkt/s: green <= CBS + CIR x T.
    T = int(t[-1]) / 1e9
    green = int((bulk == 0).sum())
    assert green <= 5 + 1000 * T + 1
    assert green >= 1000 * T - 1


def test_rates_are_exact_over_a_long_stream():
    # 1000-byte packets every 250 us for 10 s at CIR 1 MB/s, PIR 2 MB/s:
    # green is CBS + CIR x T within one packet, green + yellow PBS + PIR x T.
    m = netcond.TrTcm(cir="1000000bps", pir="2000000bps", cbs=3000, pbs=6000)
    n = 40_001
    t = np.arange(n, dtype=np.uint64) * 250_000
    c = m.color_blind(t, np.full(n, 1000, np.uint32))
    green = int((c == 0).sum()) * 1000
    passed = int((c <= 1).sum()) * 1000
    assert 3000 + 10_000_000 - 1000 < green <= 3000 + 10_000_000
    assert 6000 + 20_000_000 - 1000 < passed <= 6000 + 20_000_000


def test_move_to_keeps_tokens():
    m = netcond.TrTcm(cir=8000, pir=16000, cbs=1000, pbs=2000)
    m.color_blind(0, 500)
    m.move_to(netcond.TrTcmProfile(cir=8000, pir=16000, cbs=100, pbs=200), 0)
    assert m.profile.cbs == 100
    # The committed bucket is capped at the new CBS: 100 bytes fit, 101 do not.
    assert copy.copy(m).color_blind(0, 100) == GREEN
    assert copy.copy(m).color_blind(0, 101) == YELLOW


def test_colors_are_int_enums():
    m = netcond.TrTcm(cir=8, pir=8, cbs=100, pbs=100)
    c = m.color_blind(0, 10)
    assert c is Color.GREEN and c == 0 and isinstance(c, int)


def test_call_probe_converts_like_a_marker_and_meters_nothing():
    # The benchmark's floor: the same argument handling as TrTcm.color_blind.
    from netcond._netcond import _CallProbe

    p = _CallProbe()
    assert p.color_blind(5, 3) is netcond.Color.GREEN
    assert p.color_blind(2**64 - 1) is netcond.Color.GREEN
    assert p.folded == (5 ^ 3) + ((2**64 - 1) ^ 1) - 2**64
    for bad in [(-1, 3), (1, 2**32), (1.5, 3)]:
        with pytest.raises((OverflowError, TypeError)):
            p.color_blind(*bad)
    with pytest.raises(TypeError):
        p.color_blind(np.zeros(3, dtype=np.uint64), np.zeros(3, dtype=np.uint32))
    with pytest.raises((OverflowError, TypeError)):
        netcond.TrTcm(cir="1mbit", pir="2mbit", cbs=2048, pbs=4096).color_blind(1, 2**32)
