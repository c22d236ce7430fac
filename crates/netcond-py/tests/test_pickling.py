"""Every state either pickles and continues exactly like the original on the
rest of a stream, or refuses with a TypeError that says why; all copy."""

import copy
import pickle

import numpy as np
import pytest

import netcond

N = 4000
rng = np.random.default_rng(21)
NOW = np.cumsum(rng.integers(0, 300_000, N)).astype(np.uint64)
LEN = rng.integers(64, 1500, N).astype(np.uint32)
Q = (np.cumsum(rng.integers(-2, 3, N)) % 40).astype(np.uint32)
MARK = rng.choice(np.array([0, 1, 2, 2, 2, 3], np.uint8), N)
E = rng.integers(0, 2, N).astype(bool)


def node():
    e = netcond.EtMarkerSim48Profile(pcn_pt="20mbit", pcn_tb=20_000, pcn_px=3000)
    t = netcond.AsMarkerProfile(ar="15mbit", bucket_size=30_000, threshold=20_000)
    return netcond.Node3smSim48(excess=e, threshold=t)


PICKLED = {
    "TrTcm": (lambda: netcond.TrTcm(cir="20mbit", pir="30mbit", cbs="10k", pbs="20k"),
              lambda m, s: m.color_blind(NOW[s], LEN[s])),
    "EtMarkerSim48": (lambda: netcond.EtMarkerSim48(pcn_pt="20mbit", pcn_tb=20_000, pcn_px=3000),
                      lambda m, s: m.mark(NOW[s], LEN[s], MARK[s])),
    "Node3smSim48": (node, lambda m, s: m.mark(NOW[s], LEN[s], MARK[s])),
    "Red": (lambda: netcond.Red(min_th=5, max_th=15, max_p=0.1, w_q=0.02, limit=40, ecn=True, seed=3),
            lambda m, s: m.on_arrival(NOW[s], Q[s], LEN[s], E[s])),
}

REFUSED = {
    "PremiumPolicer": (lambda: netcond.PremiumPolicer(rate="20mbit", tbs="10k", pbs="20k"),
                       lambda m, s: m.offer(NOW[s], LEN[s])),
    "Tbf": (lambda: netcond.Tbf(rate="20mbit", burst="10k", limit="100k"),
            lambda m, s: [m.enqueue(int(t), int(l)) for t, l in zip(NOW[s], LEN[s])]),
    "FqCodel": (lambda: netcond.FqCodel(),
                lambda m, s: m.enqueue(NOW[s], Q[s], LEN[s], E[s])),
    "FqPie": (lambda: netcond.FqPie(seed=3),
              lambda m, s: m.enqueue(NOW[s], Q[s], LEN[s], E[s], poll=True)),
    "Aecn": (lambda: netcond.Aecn(base_max_p=0.1, seed=3),
             lambda m, s: m.on_arrival(NOW[s], Q[s] % 50, None, E[s])),
    "AdaptiveRed": (lambda: netcond.AdaptiveRed(min_th=5, max_th=15, max_p=0.1, w_q=0.02, limit=40, interval="20ms", seed=3),
                    lambda m, s: m.on_arrival(NOW[s], Q[s], LEN[s], E[s])),
}

FIRST, REST = slice(0, N // 2), slice(N // 2, N)


def same(a, b):
    if isinstance(a, np.ndarray):
        return np.array_equal(a, b)
    return a == b


@pytest.mark.parametrize("name", sorted(PICKLED))
def test_a_restored_state_continues_like_the_original(name):
    make, run = PICKLED[name]
    a = make()
    run(a, FIRST)
    b = pickle.loads(pickle.dumps(a))
    c = make()  # a fresh state: the stream's second half must tell it apart
    ra, rb, rc = run(a, REST), run(b, REST), run(c, REST)
    assert same(ra, rb)
    assert not same(ra, rc)
    assert repr(a) == repr(b)


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_the_others_refuse_and_copy(name):
    make, run = REFUSED[name]
    a = make()
    run(a, FIRST)
    with pytest.raises(TypeError, match="cannot be pickled"):
        pickle.dumps(a)
    assert pickle.loads(pickle.dumps(a.profile)) == a.profile
    b, c = copy.copy(a), copy.deepcopy(a)
    ra = run(a, REST)
    assert same(ra, run(b, REST)) and same(ra, run(c, REST))
