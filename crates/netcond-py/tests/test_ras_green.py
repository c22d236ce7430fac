"""RFC 2963 section 3's green shapers from Python."""

import copy
import pickle

import numpy as np
import pytest

import netcond
from netcond import Color

MS = 1_000_000


def c1(**kw):
    # RFC 2963 appendix A's customer router C1 with its trTCM.
    prof = netcond.RasProfile(cir="2mbit", pir="4mbit", line_rate="34mbit", buffer=64_000,
                              cir_th=6000, pir_th=24_000, mir_th=48_000, **kw)
    meter = netcond.TrTcmProfile(cir="2mbit", pir="4mbit", cbs=3000, pbs=6000)
    return prof, meter


def test_a_head_the_meter_would_color_green_leaves_at_once():
    prof, meter = c1()
    g = netcond.GreenRas(prof, meter)
    assert g.enqueue(0, 1500)
    assert g.next_release == 0
    assert g.dequeue(0) == (1500, Color.GREEN)
    assert g.next_release is None and g.packets == 0


def test_a_burst_leaves_green_and_never_above_mir():
    prof, meter = c1()
    now = np.arange(10, dtype=np.uint64) * 1_200_000
    length = np.full(10, 1500, np.uint32)
    dep, ok, colors = netcond.GreenRas(prof, meter).shape(now, length)
    assert ok.all() and np.all(dep >= now)
    # 1500 bytes at MIR (the line rate, 34 Mbit/s) take 352 941 ns.
    assert np.all(np.diff(dep.astype(np.int64)) >= 352_941)
    # The meter downstream colors what the shaper released as the shaper said.
    again = netcond.TrTcm(meter).color_blind(dep, length)
    assert np.array_equal(colors, again)
    assert np.sum(colors == Color.GREEN) >= 8
    # The second packet finds 1500 bytes left in CBS plus 1.2 ms of refill:
    # green at once, where the plain trRAS holds it to its shaping rate.
    assert dep[1] == now[1]
    plain, _ = netcond.Ras(prof).shape(now, length)
    assert plain[1] > now[1] and np.all(dep <= plain)


@pytest.mark.parametrize("kind", ["sr", "tr"])
def test_shape_equals_the_per_packet_event_loop(kind):
    rng = np.random.default_rng(12)
    n = 3000
    now = np.cumsum(rng.integers(0, 1_000_000, n)).astype(np.uint64)  # ~12 Mbit/s offered
    length = rng.integers(64, 1500, n).astype(np.uint32)
    if kind == "sr":
        prof = netcond.RasProfile(cir="2mbit", line_rate="10mbit", buffer="20k")
        meter = netcond.SrTcmProfile(cir="2mbit", cbs=3000, ebs=6000)
    else:
        prof = netcond.RasProfile(cir="2mbit", pir="4mbit", line_rate="10mbit", buffer="20k")
        meter = netcond.TrTcmProfile(cir="2mbit", pir="4mbit", cbs=3000, pbs=6000)
    dep, ok, col = netcond.GreenRas(prof, meter).shape(now, length)
    g = netcond.GreenRas(prof, meter)
    want_dep = np.full(n, 2**64 - 1, np.uint64)
    want_col = np.full(n, 255, np.uint8)
    queued = []

    def release(at):
        length_, c = g.dequeue(at)
        j = queued.pop(0)
        assert length_ == length[j]
        want_dep[j], want_col[j] = at, c

    for i in range(n):
        while g.next_release is not None and g.next_release <= int(now[i]):
            release(g.next_release)
        if g.enqueue(int(now[i]), int(length[i])):
            queued.append(i)
    while g.next_release is not None:
        release(g.next_release)
    assert np.array_equal(dep, want_dep) and np.array_equal(col, want_col)
    assert 0 < np.sum(~ok) and set(col[ok].tolist()) <= {0, 1, 2}
    assert np.all(col[~ok] == 255)


def test_errors_copy_and_pickle():
    prof, meter = c1()
    with pytest.raises(TypeError, match="SrTcmProfile or a TrTcmProfile"):
        netcond.GreenRas(prof, prof)
    with pytest.raises(ValueError, match="same clock"):
        netcond.GreenRas(prof, netcond.TrTcmProfile(cir="2mbit", pir="4mbit", cbs=3000, pbs=6000, tick_hz=10**6))
    g = netcond.GreenRas(prof, meter)
    assert g.meter == meter and g.profile == prof
    g.enqueue(0, 1500)
    h = copy.deepcopy(g)
    assert h.dequeue(0) == g.dequeue(0)
    assert repr(pickle.loads(pickle.dumps(g))) == repr(g)
