"""The bulk calls release the GIL while their loop runs.

A background thread counts while the main thread makes one call. The main
thread runs with a switch interval of 100 s, so the interpreter never takes
the GIL from it by time: the counter can advance during the call only if the
call itself releases the GIL. A C call that holds the GIL (``sum`` over a
``range``) is the control: across it the counter must not move.
"""

import sys
import threading
import time

import numpy as np
import pytest

import netcond

N = 4_000_000


def counted(call):
    """How far the background counter advanced across `call()`."""
    count = [0]
    started = threading.Event()
    stop = False

    def spin():
        started.set()
        while not stop:
            count[0] += 1
            time.sleep(0)  # a blocking call: it lets the main thread back in

    old = sys.getswitchinterval()
    sys.setswitchinterval(100.0)
    t = threading.Thread(target=spin, daemon=True)
    try:
        t.start()
        started.wait()
        before = count[0]
        call()
        after = count[0]
    finally:
        stop = True
        t.join()
        sys.setswitchinterval(old)
    return after - before


def arrays():
    now = np.arange(N, dtype=np.uint64) * 100
    length = np.full(N, 1000, np.uint32)
    return now, length


def bulk_calls():
    now, length = arrays()
    q = (np.arange(N) % 30).astype(np.uint32)
    tr = netcond.TrTcm(cir="1gbit", pir="2gbit", cbs="10k", pbs="20k")
    red = netcond.Red(min_th=5, max_th=15, max_p=0.1)
    ared = netcond.AdaptiveRed(min_th=5, max_th=15, max_p=0.1)
    node = netcond.NodeRfc5670(
        excess=netcond.ExcessTrafficMeterProfile(excess_rate="6gbit", bs_etm="20k"),
        threshold=netcond.ThresholdMeterProfile(threshold_rate="5gbit", bs_tm="30k", threshold="20k"),
    )
    flows = (np.arange(N) % 64).astype(np.uint32)
    fq = netcond.FqPie()
    ras = netcond.RasProfile(cir="1gbit", line_rate="100gbit", buffer="1m")
    rcp = netcond.Rcp(capacity="10gbit", rtt="1ms")
    adj = netcond.LengthAdjust(overhead=10, atm=True)
    return {
        "FqPie.enqueue": lambda: fq.enqueue(now, flows, length, poll=True),
        "Ras.shape": lambda: netcond.Ras(ras).shape(now, length),
        "GreenRas.shape": lambda: netcond.GreenRas(ras, tr.profile).shape(now, length),
        "Ear.update": lambda: netcond.Ear(ras).update(now, length),
        "Rcp.run": lambda: rcp.run(now, length, now),
        "LengthAdjust.apply": lambda: adj.apply(length),
        "TrTcm.color_blind": lambda: tr.color_blind(now, length),
        "Red.on_arrival": lambda: red.on_arrival(now, q, length),
        "AdaptiveRed.on_arrival": lambda: ared.on_arrival(now, q, length),
        "NodeRfc5670.mark": lambda: node.mark(now, length),
    }


def test_the_control_holds_the_gil():
    assert counted(lambda: sum(range(5 * N))) == 0


@pytest.mark.parametrize("name", sorted(bulk_calls()))
def test_bulk_call_releases_the_gil(name):
    call = bulk_calls()[name]
    # The counter cannot move unless the GIL is released; the thread may
    # still not be scheduled during one short call on a loaded machine, so up
    # to twenty calls are given the chance (the first one usually suffices).
    assert any(counted(call) > 0 for _ in range(20))
