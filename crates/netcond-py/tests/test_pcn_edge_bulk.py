"""The bulk calls of the PCN edge classes (EgressMeter, CleAdmission,
Egress3sm): what they return, the errors they raise and in which order,
that a refused call leaves the state as it was, and that the GIL is
released. The equality of bulk and one-by-one calls is in test_pcn_edge.
"""

import copy
import re

import numpy as np
import pytest

import netcond

MS = 1_000_000
NOT_PCN, THM, NM, ETM = 0, 1, 2, 3
MARK_ERROR = "mark: expected an ECN codepoint 0..=3 (0 not-PCN, 1 ThM, 2 NM, 3 ETM), got {}"


def u64(*x):
    return np.array(x, np.uint64)


def u32(*x):
    return np.array(x, np.uint32)


def u8(*x):
    return np.array(x, np.uint8)


def raises(exc, message):
    return pytest.raises(exc, match="^" + re.escape(message) + "$")


def egress_3sm(*keys, **kw):
    e = netcond.Egress3sm(timeout="20ms", **kw)
    for k in keys:
        e.add(k)
    return e


def test_egress_meter_bulk_returns_the_reports_polled_before_each_packet():
    m = netcond.EgressMeter(t_meas="10ms")
    # Intervals [0, 10ms) and [10ms, 20ms) close at the packets at 10 ms and
    # 25 ms; the interval of the last packet stays open.
    got = m.on_packets(u64(0, 5 * MS, 10 * MS, 25 * MS), u32(100, 200, 300, 400), u8(NM, ETM, THM, NM))
    assert type(got) is list and all(type(r) is netcond.EgressReport for r in got)
    assert [(r.start, r.end, r.nm_bytes, r.thm_bytes, r.etm_bytes) for r in got] == [
        (0, 10 * MS, 100, 0, 200),
        (10 * MS, 20 * MS, 0, 300, 0),
    ]
    assert m.poll(25 * MS) is None
    last = m.poll(30 * MS)
    assert (last.start, last.end, last.nm_bytes) == (20 * MS, 30 * MS, 400)
    assert m.on_packets(u64(), u32(), u8()) == []


def test_egress_meter_bulk_without_flows_counts_flow_0():
    now, length, mark = u64(0, MS, 2 * MS, 11 * MS), u32(100, 100, 100, 100), u8(ETM, NM, ETM, NM)
    a, b = netcond.EgressMeter(t_meas="10ms"), netcond.EgressMeter(t_meas="10ms")
    got = a.on_packets(now, length, mark)
    assert got == b.on_packets(now, length, mark, np.zeros(4, np.uint64))
    assert [r.etm_flows for r in got] == [(0,)]
    c = netcond.EgressMeter(t_meas="10ms")
    assert [r.etm_flows for r in c.on_packets(now, length, mark, u64(7, 8, 9, 10))] == [(7, 9)]


def test_cle_admission_bulk_returns_the_decisions_polled_before_each_packet():
    a = netcond.CleAdmission(interval="10ms", stop=0.5, resume=0.25)
    got = a.on_packets(u64(0, MS, 10 * MS, 20 * MS, 21 * MS), u32(100, 100, 300, 100, 100),
                       u8(THM, ETM, NM, NM, NM))
    assert type(got) is list and all(type(d) is netcond.CleDecision for d in got)
    assert [(d.start, d.end, d.cle_marked, d.cle_total, d.admission, d.changed) for d in got] == [
        (0, 10 * MS, 200, 200, "block", True),
        (10 * MS, 20 * MS, 0, 300, "admit", True),
    ]
    assert a.poll(21 * MS) is None and a.admission == "admit"
    assert a.on_packets(u64(), u32(), u8()) == []


def test_egress_3sm_bulk_gives_kinds_new_periods_and_resumptions():
    e = egress_3sm(5, 9)
    kinds, new, resumed = e.on_packets(u64(0, MS, 2 * MS, 30 * MS, 31 * MS), u64(5, 5, 9, 5, 9),
                                       u64(1, 2, 3, 4, 5), u8(THM, ETM, NM, NOT_PCN, ETM))
    assert kinds.dtype == np.uint8 and new.dtype == np.bool_
    assert kinds.tolist() == [1, 2, 0, 0, 2] and new.tolist() == [True, False, False, False, True]
    # Aggregate 5 blocked at 0 saw another block in its period: resumed at
    # 40 ms, after the last packet. Aggregate 9 blocked at 31 ms.
    assert resumed == [] and e.admission(5) == "block" and e.admission(9) == "block"
    kinds, new, resumed = e.on_packets(u64(45 * MS), u64(5), u64(6), u8(NM))
    assert (kinds.tolist(), new.tolist(), resumed) == ([0], [False], [(5, 40 * MS)])
    kinds, new, resumed = e.on_packets(u64(), u64(), u64(), u8())
    assert (kinds.dtype, new.dtype, kinds.tolist(), new.tolist(), resumed) == (np.uint8, np.bool_, [], [], [])
    assert e.poll(51 * MS) == (9, 51 * MS)


def test_strided_arrays_are_read_as_their_elements():
    now = np.arange(0, 40 * MS, MS, dtype=np.uint64)
    length = np.full(40, 100, np.uint32)
    mark = (np.arange(40) % 4).astype(np.uint8)
    flow = np.arange(40, dtype=np.uint64)
    a, b = netcond.EgressMeter(t_meas="5ms"), netcond.EgressMeter(t_meas="5ms")
    assert a.on_packets(now[::2], length[::2], mark[::2], flow[::2]) == b.on_packets(
        now[::2].copy(), length[::2].copy(), mark[::2].copy(), flow[::2].copy()
    )
    c = netcond.CleAdmission(interval="5ms", stop=0.2, resume=0.1)
    d = copy.copy(c)
    assert c.on_packets(now[::3], length[::3], mark[::3]) == d.on_packets(
        now[::3].copy(), length[::3].copy(), mark[::3].copy()
    )
    e, f = egress_3sm(0, 1), egress_3sm(0, 1)
    key = np.arange(40, dtype=np.uint64) % 2
    got = e.on_packets(now[::2], key[::2], flow[::2], mark[::2])
    want = f.on_packets(now[::2].copy(), key[::2].copy(), flow[::2].copy(), mark[::2].copy())
    assert [x.tolist() for x in got[:2]] == [x.tolist() for x in want[:2]] and got[2] == want[2]


def refused(state, call, exc, message):
    """`call(state)` raises `exc` with exactly `message` and leaves the repr
    of `state` as it was; gives a copy taken before the call, for the caller
    to check that both answer the same packets alike."""
    before = copy.deepcopy(state)
    with raises(exc, message):
        call(state)
    assert repr(state) == repr(before)
    return before


def test_egress_meter_bulk_errors_and_their_order():
    m = netcond.EgressMeter(t_meas="10ms")
    m.on_packet(0, 100, ETM)
    now, length, mark = u64(0, 5 * MS, 12 * MS), u32(100, 100, 100), u8(NM, ETM, NM)
    cases = [
        # The arrays' types first, in argument order; then the marks; then the lengths.
        ((now.astype(np.int64), length[:1], u8(9)), TypeError,
         "now: expected a 1-D numpy array of uint64, got int64 (convert with np.asarray(x, dtype=np.uint64))"),
        ((now, length.astype(np.uint64), u8(9)), TypeError,
         "length: expected a 1-D numpy array of uint32, got uint64 (convert with np.asarray(x, dtype=np.uint32))"),
        ((now, length, mark, np.zeros(3, np.uint32)), TypeError,
         "flow: expected a 1-D numpy array of uint64, got uint32 (convert with np.asarray(x, dtype=np.uint64))"),
        ((now, length[:2], u8(NM, 4, 200)), ValueError, MARK_ERROR.format(4)),
        ((now, length[:2], mark), ValueError, "now has 3 elements but length has 2"),
        ((now, length, mark[:1]), ValueError, "now has 3 elements but mark has 1"),
        ((now, length, mark, u64(1, 2)), ValueError, "now has 3 elements but flow has 2"),
    ]
    for args, exc, message in cases:
        s = copy.deepcopy(m)
        before = refused(s, lambda x: x.on_packets(*args), exc, message)
        assert s.on_packets(now, length, mark) == before.on_packets(now, length, mark)


def test_cle_admission_bulk_errors_and_their_order():
    a = netcond.CleAdmission(interval="10ms", stop=0.5, resume=0.25)
    a.on_packet(0, 100, ETM)
    now, length, mark = u64(0, 5 * MS, 12 * MS), u32(100, 100, 100), u8(NM, ETM, NM)
    cases = [
        ((now, length[:1], mark.astype(np.int8)), TypeError,
         "mark: expected a 1-D numpy array of uint8, got int8 (convert with np.asarray(x, dtype=np.uint8))"),
        ((now, length[:1], u8(NM, 3, 5)), ValueError, MARK_ERROR.format(5)),
        ((now[:2], length, mark), ValueError, "now has 2 elements but length has 3"),
        ((now, length, mark[:2]), ValueError, "now has 3 elements but mark has 2"),
    ]
    for args, exc, message in cases:
        s = copy.deepcopy(a)
        before = refused(s, lambda x: x.on_packets(*args), exc, message)
        assert s.on_packets(now, length, mark) == before.on_packets(now, length, mark)


def test_egress_3sm_bulk_errors_and_their_order():
    e = egress_3sm(5, 9)
    e.on_packet(0, 5, 1, THM)
    now, key, flow, mark = u64(0, MS, 25 * MS), u64(5, 9, 5), u64(1, 2, 3), u8(ETM, THM, NM)
    cases = [
        ((now, key, flow.astype(np.uint32), mark), TypeError,
         "flow: expected a 1-D numpy array of uint64, got uint32 (convert with np.asarray(x, dtype=np.uint64))"),
        # A bad mark before the lengths, the lengths before the keys.
        ((now, u64(4), flow[:2], u8(NM, 6)), ValueError, MARK_ERROR.format(6)),
        ((now, u64(4, 4, 4), flow[:2], mark), ValueError, "now has 3 elements but flow has 2"),
        ((now, key[:2], flow, mark), ValueError, "now has 3 elements but key has 2"),
        ((now, u64(5, 4, 3), flow, mark), KeyError, "'aggregate 4 is not registered'"),
    ]
    for args, exc, message in cases:
        s = copy.deepcopy(e)
        before = refused(s, lambda x: x.on_packets(*args), exc, message)
        got, want = s.on_packets(now, key, flow, mark), before.on_packets(now, key, flow, mark)
        assert [x.tolist() for x in got[:2]] == [x.tolist() for x in want[:2]] and got[2] == want[2]


def test_egress_3sm_bulk_releases_the_gil():
    from test_gil import counted

    n = 2_000_000
    now = np.arange(n, dtype=np.uint64) * 100
    key = (np.arange(n) % 64).astype(np.uint64)
    flow = np.arange(n, dtype=np.uint64)
    mark = (np.arange(n) % 4).astype(np.uint8)
    e = egress_3sm(*range(64))
    assert any(counted(lambda: e.on_packets(now, key, flow, mark)) > 0 for _ in range(20))
