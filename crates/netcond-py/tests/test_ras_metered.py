import pickle

import numpy as np
import pytest

import netcond
from netcond import Color


def profiles():
    p = netcond.RasProfile(cir="2mbit", line_rate="34mbit", buffer=64000)
    m = netcond.SrTcmProfile(cir="1mbit", cbs=3000, ebs=3000)
    return p, m


def stream(n=400):
    t = np.cumsum(np.arange(n, dtype=np.uint64) % 7 * 900_000).astype(np.uint64)
    lengths = (200 + (np.arange(n) * 331) % 1300).astype(np.uint32)
    return t, lengths


def test_releases_are_those_of_the_plain_ras():
    p, m = profiles()
    t, lengths = stream()
    dep, ok = netcond.Ras(p).shape(t, lengths)
    mdep, mok, colors = netcond.MeteredRas(p, m).shape(t, lengths)
    assert np.array_equal(dep, mdep) and np.array_equal(ok, mok)
    assert np.all(colors[~ok] == 255)
    # A 1 Mbit/s meter behind a 2 Mbit/s shaper sees all three colors.
    assert {0, 1, 2} <= set(colors[ok].tolist())


def test_colors_are_those_of_the_meter_at_the_release_instants():
    p, m = profiles()
    t, lengths = stream()
    dep, ok, colors = netcond.MeteredRas(p, m).shape(t, lengths)
    meter = netcond.SrTcm(m)
    order = np.argsort(dep[ok], kind="stable")
    want = [int(meter.color_blind(int(d), int(l)))
            for d, l in zip(dep[ok][order], lengths[ok][order])]
    assert colors[ok][order].tolist() == want


def test_bulk_equals_per_packet():
    p = netcond.RasProfile(cir="2mbit", pir="3mbit", line_rate="34mbit", buffer=6000)
    m = netcond.TrTcmProfile(cir="1mbit", cbs=3000, pir="2mbit", pbs=3000)
    t, lengths = stream()
    # Bursts of 20 packets at once: more than the 6000-byte buffer holds.
    t = (np.arange(len(t), dtype=np.uint64) // 20 * 30_000_000).astype(np.uint64)
    dep, ok, colors = netcond.MeteredRas(p, m).shape(t, lengths)
    assert not ok.all() and ok.any()
    s = netcond.MeteredRas(p, m)
    queued = []
    got_dep = np.full(len(t), 2**64 - 1, dtype=np.uint64)
    got_col = np.full(len(t), 255, dtype=np.uint8)

    def drain(until):
        while s.next_release is not None and s.next_release <= until:
            r = s.next_release
            length, c = s.dequeue(r)
            i = queued.pop(0)
            assert length == lengths[i]
            got_dep[i], got_col[i] = r, int(c)

    for i in range(len(t)):
        drain(int(t[i]))
        if s.enqueue(int(t[i]), int(lengths[i])):
            queued.append(i)
    drain(2**64 - 1)
    assert np.array_equal(got_dep, dep)
    assert np.array_equal(got_col, colors)


def test_dequeue_colors_and_waits():
    p, m = profiles()
    s = netcond.MeteredRas(p, m)
    assert s.enqueue(0, 1500) and s.enqueue(0, 1500)
    assert s.packets == 2
    assert s.dequeue(0) == (1500, Color.GREEN)
    r = s.next_release
    assert r > 0 and s.dequeue(r - 1) is None
    assert s.dequeue(r) == (1500, Color.GREEN)
    assert s.next_release is None and s.packets == 0


def test_refuses_a_meter_of_another_clock_or_type():
    p, _ = profiles()
    with pytest.raises(ValueError, match="same clock"):
        netcond.MeteredRas(p, netcond.SrTcmProfile(cir="1mbit", cbs=3000, ebs=3000, tick_hz=1000))
    with pytest.raises(TypeError):
        netcond.MeteredRas(p, p)
    s = netcond.MeteredRas(p, profiles()[1])
    s.enqueue(0, 100)
    with pytest.raises(ValueError, match="empty shaper"):
        s.shape(np.zeros(1, np.uint64), np.ones(1, np.uint32))


def test_repr_and_pickle_mid_stream():
    p, m = profiles()
    s = netcond.MeteredRas(p, m)
    for i in range(20):
        s.enqueue(i * 100_000, 1000)
    for _ in range(5):
        s.dequeue(s.next_release)
    assert repr(s).startswith("MeteredRas(RasProfile(") and "packets=15" in repr(s)
    back = pickle.loads(pickle.dumps(s))
    assert back.packets == s.packets and back.next_release == s.next_release
    a, b = [], []
    for x, out in ((s, a), (back, b)):
        while x.next_release is not None:
            out.append((x.next_release, x.dequeue(x.next_release)))
    assert a == b and len(a) == 15
    assert {c for _, (_, c) in a} != {Color.GREEN}


def test_shape_releases_the_gil():
    from test_gil import counted

    p = netcond.RasProfile(cir="1gbit", line_rate="100gbit", buffer="1m")
    m = netcond.TrTcmProfile(cir="1gbit", pir="2gbit", cbs="10k", pbs="20k")
    n = 200_000
    now = np.arange(n, dtype=np.uint64) * 100
    length = np.full(n, 1000, np.uint32)
    # As tests/test_gil.py: the counter moves only while the GIL is released.
    assert any(counted(lambda: netcond.MeteredRas(p, m).shape(now, length)) > 0 for _ in range(20))
