"""The premium policer from Python."""

import copy
import pickle

import numpy as np
import pytest

import netcond
from netcond import Verdict


def test_verdicts_and_buffer():
    # TBs 3000 B, PBs 4500 B, committed 8 kbit/s (1000 B/s).
    pol = netcond.PremiumPolicer(rate="8kbit", tbs=3000, pbs=4500)
    assert pol.offer(0, 1500) is Verdict.ADMITTED
    assert pol.backlog == 1500
    assert pol.offer(0, 1500) is Verdict.ADMITTED
    # Tokens exhausted: nonconforming, dropped by the policer, no buffer taken.
    assert pol.offer(0, 1500) is Verdict.POLICER_DROP
    assert pol.backlog == 3000
    # 1.5 s later: 1500 B of tokens, but the buffer holds 3000 of 4500 B.
    assert pol.offer(1_500_000_000, 1500) is Verdict.ADMITTED
    assert pol.offer(3_000_000_000, 1500) is Verdict.BUFFER_DROP
    pol.dequeued(4500)
    assert pol.backlog == 0


def test_bulk_equals_per_packet():
    rng = np.random.default_rng(7)
    t = np.cumsum(rng.integers(0, 3_000_000, 2000)).astype(np.uint64)
    l = rng.integers(40, 1500, 2000).astype(np.uint32)
    a = netcond.PremiumPolicer(rate="1mbit", tbs="3k", pbs="64k")
    b = copy.copy(a)
    bulk = a.offer(t, l)
    one = np.array([b.offer(int(x), int(y)) for x, y in zip(t, l)], np.uint8)
    assert np.array_equal(bulk, one)
    assert set(np.unique(bulk)) <= {0, 1, 2}
    assert repr(a) == repr(b)


def test_profile_errors_and_pickle():
    with pytest.raises(ValueError, match="committed rate must be greater than zero"):
        netcond.PremiumPolicerProfile(rate=0, tbs=3000, pbs=4500)
    with pytest.raises(ValueError, match="TBs must be at least the largest packet"):
        netcond.PremiumPolicerProfile(rate=8000, tbs=1000, pbs=4500, max_packet=1500)
    p = netcond.PremiumPolicerProfile(rate="2mbit", tbs=11000, pbs=13000)
    assert pickle.loads(pickle.dumps(p)) == p
    assert p.pbs_exceeds_tbs_plus_packet()
    assert not netcond.PremiumPolicerProfile(rate=8000, tbs=11000, pbs=12000).pbs_exceeds_tbs_plus_packet()
    assert repr(p) == (
        "PremiumPolicerProfile(rate=2000000, tbs=11000, pbs=13000, max_packet=1500, "
        "mode='bytes', tick_hz=1000000000)"
    )
    q = netcond.PremiumPolicer(p, now=5)
    q.offer(10, 1500)
    assert repr(pickle.loads(pickle.dumps(q))) == repr(q)
