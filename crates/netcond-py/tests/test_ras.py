"""RFC 2963's rate adaptive shapers and EAR from Python."""

import copy
import pickle

import numpy as np
import pytest

import netcond
from netcond import Color

MS = 1_000_000


def test_a_burst_leaves_at_about_cir():
    # srRAS, CIR 2 Mbit/s on a 34 Mbit/s line, 64 kB buffer: ten 1500-byte
    # packets 1.2 ms apart (10 Mbit/s) all leave, backlogged ones about 6 ms
    # (1500 bytes at 2 Mbit/s) apart.
    r = netcond.Ras(cir="2mbit", line_rate="34mbit", buffer=64_000)
    assert all(r.enqueue(i * 1_200_000, 1500) for i in range(10))
    assert (r.packets, r.bytes) == (10, 15_000)
    out = []
    while (at := r.next_release) is not None:
        assert r.dequeue(at - 1) is None if at > 0 else True
        length, arrival = r.dequeue(at)
        out.append((at, length, arrival))
    assert [a for _, _, a in out] == [i * 1_200_000 for i in range(10)]
    assert out[9][0] - out[8][0] >= 5 * MS
    assert r.packets == 0 and r.next_release is None


def test_trras_before_a_trtcm_turns_a_burst_green():
    # RFC 2963 appendix A's customer router: CIR 2, PIR 4 Mbit/s, CBS 3 kB,
    # PBS 6 kB. Unshaped, a 10 Mbit/s burst of ten packets finds the committed
    # bucket empty after two; shaped, most packets are green.
    prof = netcond.RasProfile(cir="2mbit", pir="4mbit", line_rate="34mbit", buffer=64_000,
                              cir_th=6000, pir_th=24_000, mir_th=48_000)
    now = np.arange(10, dtype=np.uint64) * 1_200_000
    length = np.full(10, 1500, np.uint32)
    dep, ok = netcond.Ras(prof).shape(now, length)
    assert ok.all() and np.all(np.diff(dep.astype(np.int64)) > 0)
    meter = dict(cir="2mbit", pir="4mbit", cbs=3000, pbs=6000)
    shaped = netcond.TrTcm(**meter).color_blind(dep, length)
    unshaped = netcond.TrTcm(**meter).color_blind(now, length)
    assert np.sum(shaped == Color.GREEN) >= 8
    assert np.sum(unshaped == Color.GREEN) <= 3


def test_shape_equals_the_per_packet_event_loop_and_drops_when_full():
    rng = np.random.default_rng(4)
    n = 3000
    now = np.cumsum(rng.integers(0, 600_000, n)).astype(np.uint64)  # ~20 Mbit/s offered
    length = rng.integers(64, 1500, n).astype(np.uint32)
    prof = netcond.RasProfile(cir="5mbit", pir="8mbit", mir="12mbit", line_rate="100mbit", buffer="30k")
    dep, ok = netcond.Ras(prof).shape(now, length)
    r = netcond.Ras(prof)
    want = np.full(n, 2**64 - 1, np.uint64)
    queued = []
    for i in range(n):
        while r.next_release is not None and r.next_release <= int(now[i]):
            at = r.next_release
            assert r.dequeue(at) is not None
            want[queued.pop(0)] = at
        if r.enqueue(int(now[i]), int(length[i])):
            queued.append(i)
    while r.next_release is not None:
        at = r.next_release
        r.dequeue(at)
        want[queued.pop(0)] = at
    assert np.array_equal(dep, want)
    assert 0 < np.sum(~ok) < n
    sent = dep[ok]
    assert np.all(sent >= now[ok]) and np.all(np.diff(sent.astype(np.int64)) >= 0)
    # Never above MIR: the bytes sent over any stretch of 100 packets take at
    # least their transmission time at 12 Mbit/s (less one packet).
    ls = length[ok].astype(np.int64)
    span = sent[100:].astype(np.int64) - sent[:-100].astype(np.int64)
    bits = 8 * (np.cumsum(ls)[100:] - np.cumsum(ls)[:-100])
    assert np.all(span * 12_000_000 >= (bits - 8 * 1500) * 10**9)
    with pytest.raises(ValueError, match="non-decreasing"):
        netcond.Ras(prof).shape(now[::-1].copy(), length)


def test_ear_converges_to_a_constant_rate():
    p = netcond.RasProfile(cir="2mbit", line_rate="100mbit", buffer=64_000, k="50ms")
    e = netcond.Ear(p)
    now = np.arange(1, 2001, dtype=np.uint64) * MS  # 1000 bytes per ms: 8 Mbit/s
    rates = e.update(now, np.full(2000, 1000, np.uint32))
    assert rates.dtype == np.uint64
    assert abs(int(rates[-1]) - 8_000_000) < 8_000  # within 0.1 %
    assert rates[10] < rates[100] < rates[-1] + 8_000
    f = netcond.Ear(p)
    one = [f.update(int(t), 1000) for t in now]
    assert np.array_equal(rates, np.array(one, np.uint64))
    assert e.rate == rates[-1] and e.last_arrival == 2000 * MS
    g = copy.copy(e)
    assert g.update(2001 * MS, 1000) == e.update(2001 * MS, 1000)


def test_profile_defaults_errors_repr_pickle():
    sr = netcond.RasProfile(cir="2mbit", line_rate="34mbit", buffer=64_000)
    assert (sr.kind, sr.pir, sr.mir, sr.thresholds) == ("sr", None, 34_000_000, (16_000, 16_000, 48_000))
    assert (sr.max_packet, sr.k, sr.tick_hz) == (1500, 100 * MS, 10**9)
    tr = netcond.RasProfile(cir="2mbit", pir="4mbit", line_rate="34mbit", buffer=64_000)
    assert (tr.kind, tr.pir, tr.thresholds) == ("tr", 4_000_000, (16_000, 32_000, 48_000))
    for p in (sr, tr):
        assert pickle.loads(pickle.dumps(p)) == p
        assert eval(repr(p), vars(netcond)) == p
    assert sr != tr
    with pytest.raises(ValueError, match="CIR must not exceed MIR"):
        netcond.RasProfile(cir="10mbit", mir="5mbit", line_rate="34mbit", buffer=64_000)
    with pytest.raises(ValueError, match="CIR must not exceed PIR"):
        netcond.RasProfile(cir="10mbit", pir="5mbit", line_rate="34mbit", buffer=64_000)
    with pytest.raises(ValueError, match="MIR_th must not exceed the buffer size"):
        netcond.RasProfile(cir="2mbit", line_rate="34mbit", buffer=64_000, cir_th=1000, mir_th=70_000)
    with pytest.raises(ValueError, match="all"):
        netcond.RasProfile(cir="2mbit", line_rate="34mbit", buffer=64_000, cir_th=1000)
    with pytest.raises(ValueError, match="pir_th"):
        netcond.RasProfile(cir="2mbit", line_rate="34mbit", buffer=64_000, cir_th=1, pir_th=2, mir_th=3)
    for s in (netcond.Ras(sr, now=3), netcond.Ear(sr, now=3)):
        assert repr(pickle.loads(pickle.dumps(s))) == repr(s)
