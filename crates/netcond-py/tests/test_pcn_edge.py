"""The PCN edge: the RFC 6661 / 6662 egress meter and decision point, the
3sM drafts' CLE-based admission, stop-blocking timer and egress control.

The scenario tests check facts of the RFCs and drafts (and the Rust
library's own unit tests' expectations, taken as facts); the model tests
compare the classes with a plain Python reading of RFC 6661 / 6662 on random
streams.
"""

import copy
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import netcond
from netcond import PcnMark

MS = 1_000_000
S = 1_000_000_000
NOT_PCN, THM, NM, ETM = 0, 1, 2, 3


def ev(x):
    return eval(repr(x), vars(netcond))


# --- construction -----------------------------------------------------------


def test_profiles_refuse_with_the_rules_message():
    with pytest.raises(ValueError, match="admission-continue threshold must not exceed"):
        netcond.CleAdmissionProfile(interval="100ms", stop=0.01, resume=0.02)
    with pytest.raises(ValueError, match="must lie between 0 and 1"):
        netcond.CleAdmissionProfile(interval="100ms", stop=1.5, resume=0.02)
    with pytest.raises(ValueError, match="at least one clock tick"):
        netcond.CleAdmissionProfile(interval=0, stop=0.1, resume=0.1)
    with pytest.raises(ValueError, match="U must be greater than one"):
        netcond.EgressMeterProfile(behaviour="single-marking", u=1.0)
    with pytest.raises(ValueError, match="U must be greater than one"):
        netcond.DecisionProfile(behaviour="sm", u=0.5)
    with pytest.raises(ValueError, match="must lie between 0 and 1"):
        netcond.DecisionProfile(cle_limit=1.25)
    with pytest.raises(ValueError, match="must lie between 0 and 1"):
        netcond.EgressMeterProfile(cle_reporting_threshold=1.5, t_maxsuppress="4s")
    with pytest.raises(ValueError, match="at least one clock tick"):
        netcond.EgressMeterProfile(t_meas="1ns", tick_hz=1000)
    with pytest.raises(ValueError, match="at least one clock tick"):
        netcond.StopBlockingProfile(timeout=0)
    with pytest.raises(ValueError, match="must not exceed 2\\^62"):
        netcond.StopBlockingProfile(timeout=2**63)
    with pytest.raises(ValueError, match="behaviour: expected"):
        netcond.EgressMeterProfile(behaviour="premium")
    with pytest.raises(ValueError, match="only single marking"):
        netcond.DecisionProfile(u=1.5)
    with pytest.raises(ValueError, match="also needs t_maxsuppress"):
        netcond.EgressMeterProfile(cle_reporting_threshold=0.1)
    with pytest.raises(ValueError, match="fraction between 0 and 1"):
        netcond.DecisionProfile(cle_limit=-0.1)
    with pytest.raises(ValueError, match="give either a profile"):
        netcond.DecisionPoint(netcond.DecisionProfile(), cle_limit=0.1)
    with pytest.raises(ValueError, match="mark: expected an ECN codepoint"):
        netcond.EgressMeter().on_packet(0, 100, 4)


def test_profiles_defaults_repr_and_equality():
    p = netcond.EgressMeterProfile()
    assert (p.behaviour, p.u, p.t_meas, p.record_etm_flows, p.tick_hz) == (
        "controlled-load", None, 200 * MS, True, 10**9)
    assert p.cle_reporting_threshold is None and p.t_maxsuppress is None
    sm = netcond.EgressMeterProfile(behaviour="sm", t_meas="100ms", cle_reporting_threshold=0.05,
                                    t_maxsuppress="4s", tick_hz=10**6)
    assert (sm.behaviour, sm.u, sm.record_etm_flows, sm.t_maxsuppress) == ("single-marking", 1.5, False, 4 * S)
    # U is kept in 16.16 fixed point: 1.2 to the nearest 2**-16.
    assert netcond.DecisionProfile(behaviour="sm", u=1.2).u == round(1.2 * 65536) / 65536
    # Fractions are kept rounded down to 2**-31 (per_mille(k) for k / 1000).
    d = netcond.DecisionProfile()
    assert d.cle_limit == (50 * 2**31 // 1000) / 2**31
    assert (d.behaviour, d.admission_enabled, d.termination_enabled) == ("controlled-load", True, True)
    for x in [p, sm, d, netcond.DecisionProfile(behaviour="sm", u=2, cle_limit=0.03, termination_enabled=False),
              netcond.CleAdmissionProfile(interval="100ms", stop=0.1, resume=0.05, tick_hz=10**6),
              netcond.StopBlockingProfile(), netcond.StopBlockingProfile(timeout="500ms", et_blocks=False)]:
        assert ev(x) == x
        assert pickle.loads(pickle.dumps(x)) == x
    assert netcond.StopBlockingProfile(tick_hz=10**6).timeout_ticks == 10**6
    assert netcond.StopBlockingProfile() != netcond.StopBlockingProfile(et_blocks=False)


# --- the egress meter -------------------------------------------------------


def test_egress_meter_rates_cle_and_flows():
    # RFC 6661 s3.2: NM, ThM and ETM bytes per T_meas, the rates, the CLE
    # (ThM + ETM) / all, and the flows seen with ETM; not-PCN is not counted.
    m = netcond.EgressMeter(t_meas="100ms")
    for t, n, mark, flow in [(1, 1000, NM, 1), (2, 1000, NM, 2), (3, 1000, NM, 3), (4, 500, THM, 1),
                             (5, 500, ETM, 7), (6, 200, ETM, 8), (7, 100, ETM, 7), (8, 999, NOT_PCN, 9)]:
        m.on_packet(t * MS, n, mark, flow)
    assert m.poll(100 * MS - 1) is None
    assert m.next_wakeup == 100 * MS
    r = m.poll(100 * MS)
    assert (r.nm_bytes, r.thm_bytes, r.etm_bytes) == (3000, 500, 800)
    assert (r.nm_rate, r.thm_rate, r.etm_rate) == (30_000, 5_000, 8_000)
    assert (r.cle_marked, r.cle_total, r.cle) == (1300, 4300, 1300 / 4300)
    assert r.etm_flows == (7, 8)
    assert (r.start, r.end) == (0, 100 * MS)
    assert m.poll(100 * MS) is None and m.next_wakeup == 200 * MS
    assert ev(r) == r and pickle.loads(pickle.dumps(r)) == r
    # SM (RFC 6662, RFC 6660 s5.3): ThM counts as ETM, no flow list.
    s = netcond.EgressMeter(behaviour="single-marking")
    s.on_packet(0, 3000, NM)
    s.on_packet(0, 500, THM)
    s.on_packet(0, 800, ETM, 2)
    r = s.poll(200 * MS)
    assert (r.nm_bytes, r.thm_bytes, r.etm_bytes, r.nm_rate, r.etm_rate) == (3000, 0, 1300, 15_000, 6_500)
    assert r.etm_flows == ()
    # At most 16 flows, the most recent distinct ones.
    m = netcond.EgressMeter()
    for f in list(range(20)) + [5, 19, 20]:
        m.on_packet(0, 100, ETM, f)
    assert m.poll(S).etm_flows == tuple(range(5, 21))


def test_egress_meter_report_suppression():
    # RFC 6661 s3.2.3: report when the CLE is above the threshold now or was
    # in the previous interval, or T_maxsuppress has passed since the last.
    m = netcond.EgressMeter(t_meas="100ms", cle_reporting_threshold=0, t_maxsuppress="450ms")
    sent = []
    for i in range(12):
        m.on_packet(i * 100 * MS, 100, ETM if i == 2 else NM)
        sent.append(m.poll(i * 100 * MS + 100 * MS) is not None)
    assert sent == [False, False, True, True, False, False, False, False, True, False, False, False]


def test_egress_meter_bulk_equals_the_calls_one_by_one():
    rng = np.random.default_rng(4)
    n = 5000
    now = np.cumsum(rng.integers(0, 3 * MS, n)).astype(np.uint64)
    length = rng.integers(64, 1500, n).astype(np.uint32)
    mark = rng.choice(np.array([0, 1, 2, 2, 2, 3], np.uint8), n)
    flow = rng.integers(0, 2**64, n, dtype=np.uint64)
    for kw in [{}, {"behaviour": "sm"}, {"cle_reporting_threshold": 0.2, "t_maxsuppress": "300ms"}]:
        a, b = netcond.EgressMeter(t_meas="50ms", **kw), netcond.EgressMeter(t_meas="50ms", **kw)
        got = a.on_packets(now, length, mark, flow)
        want = []
        for t, l, k, f in zip(now.tolist(), length.tolist(), mark.tolist(), flow.tolist()):
            while (r := b.poll(t)) is not None:
                want.append(r)
            b.on_packet(t, l, k, f)
        assert len(want) > 20
        assert got == want
        assert a.poll(2**62) == b.poll(2**62)
    with pytest.raises(TypeError, match="uint8"):
        a.on_packets(now, length, mark.astype(np.int64))
    with pytest.raises(ValueError, match="elements"):
        a.on_packets(now, length[1:], mark)
    with pytest.raises(ValueError, match="ECN codepoint"):
        a.on_packets(now[:1], length[:1], np.array([7], np.uint8))


# --- a plain reading of RFC 6661 / 6662, for random streams ------------------


def model_egress(packets, t_meas, sm, threshold=None, t_max=None, hz=10**9):
    """RFC 6661 / 6662 s3.2 as written, polled at each packet's arrival."""
    out = []
    start, end = 0, t_meas
    nm = thm = etm = 0
    flows = []
    last, prev_above = 0, False
    for t, n, mark, f in packets:
        if t >= end:
            marked, total = thm + etm, nm + thm + etm
            send = True
            if t_max is not None:
                above = marked * 2**31 > threshold * total
                send = above or prev_above or end - last >= t_max
                prev_above = above
            if send:
                rate = lambda b: b * hz // t_meas  # noqa: E731
                out.append((start, end, nm, thm, etm, rate(nm), rate(thm), rate(etm), marked, total,
                            tuple(flows)))
                last = end
            nm = thm = etm = 0
            flows = []
            start = end + (t - end) // t_meas * t_meas
            end = start + t_meas
        if mark == NM:
            nm += n
        elif mark == THM and not sm:
            thm += n
        elif mark in (THM, ETM):
            etm += n
            if mark == ETM and not sm and f not in flows:
                flows = (flows + [f])[-16:]
    return out


def model_decisions(reports, limit_q31, u16=None):
    """RFC 6661 / 6662 s3.3: admission and the two-step termination."""
    out, awaiting = [], False
    for r in reports:
        nm_rate, thm_rate, etm_bytes, marked, total = r[5], r[6], r[4], r[8], r[9]
        block = not marked * 2**31 < limit_q31 * total
        if awaiting:
            awaiting = False
            sar = nm_rate + thm_rate if u16 is None else nm_rate * u16 >> 16
            term = ("terminate", sar) if etm_bytes > 0 else ("none", None)
        elif (etm_bytes > 0) if u16 is None else block:
            awaiting = True
            term = ("request-sent-rate", None)
        else:
            term = ("none", None)
        out.append(("block" if block else "admit", *term))
    return out


def as_tuple(r):
    return (r.start, r.end, r.nm_bytes, r.thm_bytes, r.etm_bytes, r.nm_rate, r.thm_rate, r.etm_rate,
            r.cle_marked, r.cle_total, r.etm_flows)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), sm=st.booleans(), suppress=st.booleans(),
       marked=st.integers(0, 150), etm_share=st.sampled_from([0.0, 0.3, 1.0]), t_meas_ms=st.integers(1, 60))
def test_egress_and_decision_point_follow_the_rfc(seed, sm, suppress, marked, etm_share, t_meas_ms):
    # About `marked` per mille of the PCN packets ThM or ETM (a CLE around
    # the 5 % CLE-limit), a tenth not PCN at all.
    rng = np.random.default_rng(seed)
    n = 600
    now = np.cumsum(rng.integers(0, 2 * MS, n)).astype(np.uint64)
    length = rng.integers(1, 1500, n).astype(np.uint32)
    u = rng.random(n)
    mark = np.full(n, NM, np.uint8)
    mark[u < marked / 1000] = THM
    mark[u < marked / 1000 * etm_share] = ETM
    mark[u > 0.9] = NOT_PCN
    flow = rng.integers(0, 30, n).astype(np.uint64)
    kw = {"behaviour": "sm" if sm else "cl", "t_meas": t_meas_ms * MS}
    if suppress:
        kw.update(cle_reporting_threshold=0.05, t_maxsuppress="100ms")
    m = netcond.EgressMeter(**kw)
    got = m.on_packets(now, length, mark, flow)
    packets = list(zip(now.tolist(), length.tolist(), mark.tolist(), flow.tolist()))
    want = model_egress(packets, t_meas_ms * MS, sm, 50 * 2**31 // 1000 if suppress else None,
                        100 * MS if suppress else None)
    assert [as_tuple(r) for r in got] == want
    p = netcond.DecisionProfile(behaviour="sm" if sm else "cl", cle_limit=0.05)
    assert p.cle_limit * 2**31 == 50 * 2**31 // 1000
    d = netcond.DecisionPoint(p)
    decided = [d.on_report(r) for r in got]
    assert [(x.admission, x.termination, x.sar) for x in decided] == model_decisions(
        want, 50 * 2**31 // 1000, 3 << 15 if sm else None)


# --- the decision point -----------------------------------------------------


def report(nm_rate, thm_rate, etm_rate, marked, total):
    return netcond.EgressReport(0, S, nm_rate, thm_rate, etm_rate, nm_rate, thm_rate, etm_rate, marked, total)


def test_decision_point_controlled_load():
    d = netcond.DecisionPoint(netcond.DecisionProfile())
    assert d.on_report(report(1000, 0, 0, 0, 1000)) == netcond.EdgeDecision("admit", "none")
    # ThM only, CLE 10 % >= 5 %: block (s3.3.1), no termination (CL needs ETM).
    thm = report(900, 100, 0, 100, 1000)
    assert d.on_report(thm) == netcond.EdgeDecision("block", "none")
    # A CLE of exactly the CLE-limit blocks; just below admits.
    assert d.on_report(report(950, 50, 0, 50, 1000)).admission == "block"
    assert d.on_report(report(951, 49, 0, 49, 1000)).admission == "admit"
    # ETM: request the PCN-sent-rate, then terminate sent - SAR, SAR = NM + ThM (s3.3.2).
    etm = report(600, 300, 100, 400, 1000)
    assert d.on_report(etm).termination == "request-sent-rate"
    assert d.awaiting_report
    dec = d.on_report(etm)
    assert (dec.termination, dec.sar) == ("terminate", 900)
    assert d.profile.sar(etm) == 900
    assert netcond.DecisionPoint.amount_to_terminate(1200, dec.sar) == 300
    assert netcond.DecisionPoint.amount_to_terminate(800, 900) == 0
    # If the report after the request has no ETM, nothing is terminated.
    assert d.on_report(etm).termination == "request-sent-rate"
    assert d.on_report(thm) == netcond.EdgeDecision("block", "none")
    assert not d.awaiting_report
    off = netcond.DecisionPoint(admission_enabled=False, termination_enabled=False)
    assert off.on_report(etm) == netcond.EdgeDecision("admit", "none")


def test_decision_point_single_marking():
    d = netcond.DecisionPoint(behaviour="single-marking")
    # CLE 4 % < 5 %: admit, no termination even with ETM.
    assert d.on_report(report(960, 0, 40, 40, 1000)) == netcond.EdgeDecision("admit", "none")
    # CLE 30 %: block and request; then terminate sent - U x NM-rate, 1.5 x 701 rounded down.
    high = report(701, 0, 300, 300, 1001)
    assert d.on_report(high).termination == "request-sent-rate"
    assert d.on_report(high) == netcond.EdgeDecision("block", "terminate", sar=1051)
    assert netcond.DecisionProfile(behaviour="sm", u=2).sar(high) == 1402
    for x in [d.on_report(high), netcond.EdgeDecision("block", "terminate", sar=5)]:
        assert ev(x) == x and pickle.loads(pickle.dumps(x)) == x
    with pytest.raises(ValueError, match="termination"):
        netcond.EdgeDecision("admit", "terminate")
    with pytest.raises(ValueError, match="admission"):
        netcond.EdgeDecision("maybe")


def test_a_pcn_domain_end_to_end():
    # RFC 5670 marking on one link (excess rate 8 Mbit/s, with the
    # packet-size-independent excess marking, which marks about the traffic
    # above the excess rate; threshold rate 6 Mbit/s), then RFC 6661 at the
    # egress and the decision point. 1000-byte packets at a steady rate, for 3 s.
    node = netcond.NodeRfc5670Profile(
        netcond.ExcessTrafficMeterProfile(excess_rate="8mbit", bs_etm="20k", mode="size-independent"),
        netcond.ThresholdMeterProfile(threshold_rate="6mbit", bs_tm="30k", threshold="20k"))

    def run(mbit):
        gap = 8000 * 1000 // mbit  # ns between 1000-byte packets
        now = np.arange(1, 3 * S // gap, dtype=np.uint64) * gap
        length = np.full(len(now), 1000, np.uint32)
        marks = netcond.NodeRfc5670(node).mark(now, length)
        reports = netcond.EgressMeter(t_meas="200ms").on_packets(now, length, marks, now % 7)
        point = netcond.DecisionPoint(cle_limit=0.05)
        return reports[3:], [point.on_report(r) for r in reports][3:]

    # Below the threshold rate: nothing marked, every flow admitted.
    reports, decisions = run(5)
    assert all(r.cle_total > 0 and r.cle_marked == 0 for r in reports)
    assert {(d.admission, d.termination) for d in decisions} == {("admit", "none")}
    # Above it but below the excess rate: ThM only, block, nothing to terminate (CL).
    reports, decisions = run(7)
    assert all(r.etm_bytes == 0 and r.cle > 0.05 for r in reports)
    assert {(d.admission, d.termination) for d in decisions} == {("block", "none")}
    # Above the excess rate: ETM marks, so request the sent rate, then
    # terminate what is sent above the supportable rate (NM + ThM, about the
    # excess rate): 10 - 8 Mbit/s, 250 000 octets/s, to one packet per T_meas.
    reports, decisions = run(10)
    # Every report has ETM: a request, a termination, a request, ...
    terms = [d.termination for d in decisions]
    assert set(terms) == {"request-sent-rate", "terminate"}
    assert all(a != b for a, b in zip(terms, terms[1:]))
    sent = 10_000_000 // 8
    for d in decisions:
        if d.termination == "terminate":
            assert abs(netcond.DecisionPoint.amount_to_terminate(sent, d.sar) - 250_000) <= 5_000
    assert all(d.admission == "block" for d in decisions)
    assert all(set(r.etm_flows) <= set(range(7)) and r.etm_flows for r in reports)


# --- the 3sM drafts' admission ----------------------------------------------


def test_cle_admission_hysteresis():
    # Block when the marked fraction reaches admission-stop (10 %), resume
    # when it falls below admission-continue (2 %).
    a = netcond.CleAdmission(interval="100ms", stop=0.1, resume=0.02)
    plan = [(5, "admit", False), (10, "block", True), (5, "block", False), (2, "block", False),
            (1, "admit", True), (9, "admit", False)]
    for i, (pct, adm, changed) in enumerate(plan):
        t0 = i * 100 * MS
        for j in range(100):
            a.on_packet(t0 + j * MS, 100, THM if j < pct else NM)
            a.on_packet(t0 + j * MS, 100, NOT_PCN)
        assert a.poll(t0 + 100 * MS - 1) is None
        assert a.next_wakeup == t0 + 100 * MS
        d = a.poll(t0 + 100 * MS)
        assert (d.cle_marked, d.cle_total, d.admission, d.changed) == (pct * 100, 10_000, adm, changed)
        assert (d.start, d.end) == (t0, t0 + 100 * MS)
        assert a.admission == adm
        assert ev(d) == d and pickle.loads(pickle.dumps(d)) == d


def test_cle_admission_bulk_equals_the_calls_one_by_one():
    rng = np.random.default_rng(9)
    n = 4000
    now = np.cumsum(rng.integers(0, MS, n)).astype(np.uint64)
    length = rng.integers(64, 1500, n).astype(np.uint32)
    mark = rng.choice(np.array([0, 1, 2, 2, 2, 3], np.uint8), n)
    a = netcond.CleAdmission(interval="20ms", stop=0.3, resume=0.2)
    b = copy.copy(a)
    got = a.on_packets(now, length, mark)
    want = []
    for t, l, k in zip(now.tolist(), length.tolist(), mark.tolist()):
        while (d := b.poll(t)) is not None:
            want.append(d)
        b.on_packet(t, l, k)
    assert got == want
    assert {d.admission for d in got} == {"admit", "block"}
    assert any(d.changed for d in got)
    assert repr(a) == repr(b)


def test_stop_blocking_timer_sequence():
    # draft-babiarz-pcn-explicit-marking-01 s2.3 with its 1 s timeout.
    t = netcond.StopBlockingTimer()
    assert t.next_wakeup is None and t.admission == "admit"
    assert t.on_block(0)
    assert t.admission == "block" and t.next_wakeup == S
    assert not t.on_block(500 * MS)
    assert t.poll(S - 1) is None
    # A block came during the first second: the timer restarts.
    assert t.poll(S) is None and t.next_wakeup == 2 * S
    assert not t.on_block(1500 * MS)
    assert t.poll(2 * S) is None and t.next_wakeup == 3 * S
    # The third second is silent: admission resumes at 3 s, reported once.
    assert t.poll(3 * S) == 3 * S
    assert t.admission == "admit" and t.poll(3 * S) is None and t.next_wakeup is None
    assert t.on_block(3200 * MS) and t.next_wakeup == 4200 * MS
    # Polled late: the restarts and the resumption are replayed in order.
    t = netcond.StopBlockingTimer(timeout="1s")
    t.on_block(0)
    t.on_block(500 * MS)
    assert t.poll(10 * S) == 2 * S


def test_egress_3sm_signals_and_capacity():
    e = netcond.Egress3sm(netcond.StopBlockingProfile())
    assert e.add(2**64 - 1) == 0 and e.add(7) == 1 and e.add(7) == 1 and len(e) == 2
    assert e.index_of(7) == 1 and e.index_of(8) is None and e.admission(8) is None
    assert e.on_packet(0, 7, 11, NM) == netcond.EgressSignal("nothing")
    s = e.on_packet(0, 7, 11, THM)
    assert (s.kind, s.flow, s.new_period) == ("block", None, True)
    assert e.admission(7) == "block" and e.admission(2**64 - 1) == "admit"
    # ET terminates its flow and (et_blocks) also blocks.
    s = e.on_packet(10 * MS, 2**64 - 1, 12, ETM)
    assert (s.kind, s.flow, s.new_period) == ("terminate", 12, True)
    assert e.on_packet(20 * MS, 7, 13, ETM) == netcond.EgressSignal("terminate", 13, False)
    assert ev(s) == s and pickle.loads(pickle.dumps(s)) == s
    assert e.next_wakeup == S
    # Aggregate 7 saw a block in its first second: it resumes at 2 s; the other at 1.01 s.
    assert e.poll(3 * S) == (2**64 - 1, S + 10 * MS)
    assert e.poll(3 * S) == (7, 2 * S)
    assert e.poll(3 * S) is None and e.next_wakeup is None
    no_et = netcond.Egress3sm(et_blocks=False)
    no_et.add(1)
    assert no_et.on_packet(0, 1, 5, ETM) == netcond.EgressSignal("terminate", 5, False)
    assert no_et.admission(1) == "admit"
    with pytest.raises(KeyError, match="aggregate 9 is not registered"):
        e.on_packet(0, 9, 0, THM)
    full = netcond.Egress3sm()
    for k in range(64):
        assert full.add(k * 1000) == k
    with pytest.raises(OverflowError, match="at most 64 aggregates"):
        full.add(1)
    assert len(full) == 64 and full.add(63_000) == 63


def model_cle_admission(packets, interval, stop_q31, resume_q31):
    """The 3sM draft's CLE option as written: per interval, CLE = marked / all
    PCN bytes; block at CLE >= stop, resume at CLE < resume. Polled at each
    packet's arrival."""
    out = []
    start, end, marked, total, blocked = 0, interval, 0, 0, False
    for t, n, mark in packets:
        if t >= end:
            before = blocked
            if not blocked and not marked * 2**31 < stop_q31 * total:
                blocked = True
            elif blocked and marked * 2**31 < resume_q31 * total:
                blocked = False
            out.append((start, end, marked, total, "block" if blocked else "admit", blocked != before))
            marked = total = 0
            start = end + (t - end) // interval * interval
            end = start + interval
        if mark != NOT_PCN:
            total += n
            marked += n if mark != NM else 0
    return out


def model_stop_blocking(blocks, timeout):
    """draft-babiarz-pcn-explicit-marking-01 s2.3's stop-blocking timer as
    written: a block signal blocks an admitting aggregate and starts the
    timer; at each timeout, if a block came in that period the timer
    restarts, else admission resumes. Returns, per call, what a poll before
    the signal gives and what the signal does."""
    out = []
    blocked, seen, deadline = False, False, 0
    for t, is_block in blocks:
        resumed = None
        while blocked and t >= deadline:
            if seen:
                seen, deadline = False, deadline + timeout
            else:
                blocked, resumed = False, deadline
        new = None
        if is_block:
            new = not blocked
            if blocked:
                seen = True
            else:
                blocked, seen, deadline = True, False, t + timeout
        out.append((resumed, new, "block" if blocked else "admit"))
    return out


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), marked=st.integers(0, 400), gap_ms=st.integers(1, 20))
def test_cle_admission_and_the_stop_blocking_timer_follow_the_drafts(seed, marked, gap_ms):
    rng = np.random.default_rng(seed)
    n = 800
    now = np.cumsum(rng.integers(0, gap_ms * MS, n)).astype(np.uint64)
    length = rng.integers(1, 1500, n).astype(np.uint32)
    u = rng.random(n)
    mark = np.full(n, NM, np.uint8)
    mark[u < marked / 1000] = THM
    mark[u < marked / 2000] = ETM
    mark[u > 0.95] = NOT_PCN
    a = netcond.CleAdmission(interval="50ms", stop=0.2, resume=0.1)
    got = [(d.start, d.end, d.cle_marked, d.cle_total, d.admission, d.changed)
           for d in a.on_packets(now, length, mark)]
    packets = list(zip(now.tolist(), length.tolist(), mark.tolist()))
    assert got == model_cle_admission(packets, 50 * MS, 200 * 2**31 // 1000, 100 * 2**31 // 1000)
    # The timer fed the ET packets, polled at every packet first.
    t = netcond.StopBlockingTimer(timeout="40ms")
    got = []
    for at, k in zip(now.tolist(), mark.tolist()):
        resumed = t.poll(at)
        new = t.on_block(at) if k == ETM else None
        got.append((resumed, new, t.admission))
    assert got == model_stop_blocking([(at, k == ETM) for at, k in zip(now.tolist(), mark.tolist())], 40 * MS)


def test_bulk_calls_release_the_gil():
    from test_gil import counted

    n = 2_000_000
    now = np.arange(n, dtype=np.uint64) * 100
    length = np.full(n, 1000, np.uint32)
    mark = (np.arange(n) % 4).astype(np.uint8)
    m, a = netcond.EgressMeter(t_meas="1ms"), netcond.CleAdmission(interval="1ms", stop=0.1, resume=0.1)
    assert any(counted(lambda: m.on_packets(now, length, mark)) > 0 for _ in range(20))
    assert any(counted(lambda: a.on_packets(now, length, mark)) > 0 for _ in range(20))


def test_egress_3sm_bulk_equals_the_calls_one_by_one():
    rng = np.random.default_rng(12)
    n = 3000
    now = np.cumsum(rng.integers(0, 3 * MS, n)).astype(np.uint64)
    key = rng.choice(np.array([5, 2**63, 9], np.uint64), n)
    flow = rng.integers(0, 2**64, n, dtype=np.uint64)
    mark = rng.choice(np.array([0, 1, 2, 2, 2, 2, 2, 2, 3], np.uint8), n)
    for et_blocks in [True, False]:
        a = netcond.Egress3sm(timeout="20ms", et_blocks=et_blocks)
        for k in [5, 2**63, 9]:
            a.add(k)
        b = copy.deepcopy(a)
        kinds, new, resumed = a.on_packets(now, key, flow, mark)
        want_kinds, want_new, want_resumed = [], [], []
        for t, k, f, m in zip(now.tolist(), key.tolist(), flow.tolist(), mark.tolist()):
            while (r := b.poll(t)) is not None:
                want_resumed.append(r)
            s = b.on_packet(t, k, f, m)
            want_kinds.append(["nothing", "block", "terminate"].index(s.kind))
            want_new.append(s.new_period)
            assert s.flow == (f if s.kind == "terminate" else None)
        assert kinds.dtype == np.uint8 and new.dtype == np.bool_
        assert kinds.tolist() == want_kinds and new.tolist() == want_new and resumed == want_resumed
        assert len(resumed) > 20 and sum(want_new) > 20
        assert repr(a) == repr(b) and [a.admission(k) for k in [5, 9]] == [b.admission(k) for k in [5, 9]]
    before = repr(a)
    with pytest.raises(KeyError, match="aggregate 4 is not registered"):
        a.on_packets(now[:2], np.array([5, 4], np.uint64), flow[:2], mark[:2])
    assert repr(a) == before


# --- pickling and repr ------------------------------------------------------


def drive(states, s):
    em, ca, tm, eg, dp = states
    reports = em.on_packets(s[0], s[1], s[2], s[3])
    out = [[(as_tuple(r), repr(dp.on_report(r))) for r in reports],
           [(d.admission, d.cle_marked, d.changed) for d in ca.on_packets(s[0], s[1], s[2])]]
    for t, k, f in zip(s[0].tolist(), s[2].tolist(), s[3].tolist()):
        if k == ETM:
            out.append(("blk", tm.on_block(t)))
        out.append(("tm", tm.poll(t), repr(eg.on_packet(t, f % 3, f, k)), eg.poll(t)))
    return out, [repr(x) for x in states]


def edge_states():
    eg = netcond.Egress3sm(timeout="30ms")
    for k in range(3):
        eg.add(k)
    return [netcond.EgressMeter(t_meas="20ms"), netcond.CleAdmission(interval="20ms", stop=0.3, resume=0.2),
            netcond.StopBlockingTimer(timeout="10ms"), eg, netcond.DecisionPoint()]


def edge_stream(seed, n):
    rng = np.random.default_rng(seed)
    return (np.cumsum(rng.integers(0, 2 * MS, n)).astype(np.uint64), rng.integers(64, 1500, n).astype(np.uint32),
            rng.choice(np.array([0, 1, 2, 2, 2, 3], np.uint8), n), rng.integers(0, 40, n).astype(np.uint64))


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(4, 300), cut=st.floats(0.1, 0.9))
def test_pickled_mid_stream_the_edge_states_continue_identically(seed, n, cut):
    s = edge_stream(seed, n)
    k = max(1, min(n - 1, int(n * cut)))
    a = edge_states()
    drive(a, tuple(x[:k] for x in s))
    rest = tuple(x[k:] for x in s)
    b = pickle.loads(pickle.dumps(a))
    c = copy.deepcopy(a)
    assert [repr(x) for x in a] == [repr(x) for x in b]
    ra = drive(a, rest)
    assert drive(b, rest) == ra and drive(c, rest) == ra
    # The interval still open is the same too.
    end = int(s[0][-1]) + S
    assert a[0].poll(end) == b[0].poll(end) == c[0].poll(end)


def test_a_fresh_state_is_told_apart():
    # The mid-stream check above can fail: a state started afresh gives
    # other results on the same rest of the stream.
    s = edge_stream(3, 400)
    a = edge_states()
    drive(a, tuple(x[:200] for x in s))
    rest = tuple(x[200:] for x in s)
    ra, rc = drive(a, rest), drive(edge_states(), rest)
    for i in range(2):
        assert ra[0][i] != rc[0][i]


def test_a_pickle_is_read_back_by_its_own_version_only():
    for x in edge_states():
        cls, args, state = x.__reduce__()
        other = state.replace(netcond.__version__.encode(), b"0.0.0-other", 1)
        with pytest.raises(ValueError, match="pickled by netcond 0.0.0-other"):
            cls(*args).__setstate__(other)


def test_reprs():
    m = netcond.EgressMeter(t_meas="100ms")
    assert repr(m) == ("EgressMeter(EgressMeterProfile(behaviour='controlled-load', u=None, t_meas=100000000, "
                       "record_etm_flows=True, cle_reporting_threshold=None, t_maxsuppress=None, "
                       "tick_hz=1000000000), next_wakeup=100000000)")
    t = netcond.StopBlockingTimer(timeout="1s")
    t.on_block(5)
    assert repr(t) == ("StopBlockingTimer(StopBlockingProfile(timeout=1000000000, et_blocks=True, "
                       "tick_hz=1000000000), admission='block', next_wakeup=1000000005)")
    assert repr(netcond.EgressSignal("block", new_period=True)) == "EgressSignal('block', flow=None, new_period=True)"
    assert repr(netcond.DecisionPoint()).endswith("awaiting_report=False)")
    assert "admission='admit'" in repr(netcond.CleAdmission(interval="1s", stop=0.1, resume=0.1))
    assert repr(netcond.Egress3sm()).endswith("aggregates=0, next_wakeup=None)")


def test_the_marks_are_the_packages_pcn_marks():
    # PcnMark values are the RFC 6660 codepoints the edge classes take.
    assert (PcnMark.NOT_PCN, PcnMark.THM, PcnMark.NM, PcnMark.ETM) == (NOT_PCN, THM, NM, ETM)
    m = netcond.EgressMeter()
    m.on_packet(0, 100, PcnMark.ETM, 3)
    assert m.poll(S).etm_flows == (3,)
