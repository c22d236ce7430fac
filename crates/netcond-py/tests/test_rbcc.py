"""RBCC's per-interface allocation from Python: Toomey's Scenario 7, the
header rules, bulk equals per packet, copies, profile pickling, errors."""

import copy
import pickle

import numpy as np
import pytest

import netcond

UNIT = 2.0**-16  # the allocator's rate unit, bit/s


def scenario7(model="outside-load"):
    # Flows 5 and 7 cross the 64 kbit/s link from router 2 to router 3, flow 8
    # the other way; each flow's ACKs cross it in the opposite direction.
    p23 = netcond.RbccProfile(capacity="64kbit", node=23, ack_model=model)
    p32 = netcond.RbccProfile(capacity="64kbit", node=32, ack_model=model)
    r2, r3 = netcond.RbccInterface(p23), netcond.RbccInterface(p32)
    rate = [0.0] * 3
    for _ in range(5):
        for i, flow in enumerate((5, 7)):
            got = r2.on_data(0, flow)        # data leaves router 2
            got = r3.on_ack(0, flow, *got)    # its ACK leaves router 3
            r2.on_return(0, flow, *got)       # and comes back through router 2
            rate[i] = got[0]
        got = r3.on_data(0, 8)
        got = r2.on_ack(0, 8, *got)
        r3.on_return(0, 8, *got)
        rate[2] = got[0]
    return rate, r2, r3


def test_scenario7_gives_the_reports_optimum_rates():
    (a, b, c), r2, r3 = scenario7()
    assert abs(a - 2_400_000 / 77) <= UNIT and abs(b - 2_400_000 / 77) <= UNIT
    assert abs(c - 4_800_000 / 77) <= UNIT
    assert len(r2) == 3 and r2.flow(5)["bottleneck"] is True
    assert r2.flow(8) is None
    # The strict coupled model gives the forward flows C / (2 + k) instead.
    (a, b, _), _, _ = scenario7("coupled")
    k = 40 / 1500
    assert abs(a - 64_000 / (2 + k)) < 1e-3 and a == b


def test_the_rate_field_is_only_lowered():
    r = netcond.RbccInterface(capacity="1mbit", node=9)
    assert r.on_data(0, 1) == (1_000_000.0, 9)            # one flow: all of C
    assert r.on_data(0, 2, requested=300_000) == (300_000.0, 0)
    assert r.advertised == 700_000.0                       # the rest to flow 1
    assert r.on_data(1, 1, rate=500_000, bottleneck=4) == (500_000.0, 4)
    assert r.close(2) and not r.close(2)
    assert r.advertised == 1_000_000.0
    assert r.expire(10 * 10**9 + 1) == 1 and len(r) == 0


def test_bulk_on_data_equals_per_packet_and_copies_continue():
    rng = np.random.default_rng(6)
    n = 5000
    now = np.cumsum(rng.integers(0, 1_000_000, n)).astype(np.uint64)
    flow = rng.integers(0, 40, n).astype(np.uint32)
    req = rng.choice(np.array([np.inf, 1e5, 2.5e5, 1e6]), n)
    a = netcond.RbccInterface(capacity="10mbit", node=3)
    b = copy.deepcopy(a)
    rates, nodes = a.on_data(now, flow, req)
    one = [b.on_data(int(t), int(f), None if r == np.inf else float(r)) for t, f, r in zip(now, flow, req)]
    assert np.array_equal(rates, np.array([x[0] for x in one]))
    assert np.array_equal(nodes, np.array([x[1] for x in one], np.uint32))
    assert set(nodes.tolist()) == {0, 3}
    c = copy.copy(a)
    assert c.on_data(now[-1], 99) == a.on_data(now[-1], 99)
    assert repr(c) == repr(a)


def test_profile_repr_pickle_errors():
    p = netcond.RbccProfile(capacity="64kbit", node=23, idle_timeout="2s", ack_model="coupled")
    assert (p.capacity, p.node, p.ack_bytes, p.data_bytes, p.ack_model, p.idle_timeout) == (
        64_000, 23, 40, 1500, "coupled", 2 * 10**9)
    assert pickle.loads(pickle.dumps(p)) == p
    assert eval(repr(p), vars(netcond)) == p
    with pytest.raises(ValueError, match="node id must not be zero"):
        netcond.RbccProfile(capacity="64kbit", node=0)
    with pytest.raises(ValueError, match="ACK size must be smaller"):
        netcond.RbccProfile(capacity="64kbit", ack_bytes=1500)
    with pytest.raises(ValueError, match="ack_model"):
        netcond.RbccProfile(capacity="64kbit", ack_model="none")
    fresh = netcond.RbccInterface(p)
    assert repr(pickle.loads(pickle.dumps(fresh))) == repr(fresh)
